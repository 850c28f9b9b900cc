"""``physeval run``, ``score``, ``regrade`` and ``models``: the commands that produce graded samples."""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.markup import escape

from physeval.cli._cache import bypass_grading_cache
from physeval.cli._common import (
    EXIT_ABORTED,
    EXIT_INCOMPLETE,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_STORAGE,
    interrupted_status,
)
from physeval.cli._common import (
    console as _console,
)
from physeval.cli._options import _add_task_options, _extra_body, _read_run_config, _task_options
from physeval.errors import UserError

if TYPE_CHECKING:
    from physeval.progress import ProgressMode
    from physeval.summary import RunSummary, Tokens


def add_commands(sub: Any) -> None:
    """``models``, ``run``, ``score`` and ``regrade``."""
    models = sub.add_parser("models", help="list the models a server offers",
                            description="GET /v1/models of an OpenAI-compatible server and list what it serves.")
    models.add_argument("--base-url", required=True, help="server URL ending in /v1")
    models.add_argument("--api-key", help="API key (default: none sent to a local server)")
    models.set_defaults(func=_cmd_models)

    run = sub.add_parser("run", help="run a task on a model (resumable)", usage="physeval run [TASK] [options]",
                         description="Run TASK on a model, store every sample, print and save the summary. "
                                     "`physeval run TASK --help` adds TASK's own options.")
    run.add_argument("task", nargs="?", help="task name (default bank-numeric; `physeval tasks` lists them)")
    run.add_argument("--model", metavar="MODEL", help="local (default: $PHYSEVAL_MODEL, else the embedded "
                     "SmolLM2), local:PATH.gguf, openai/NAME, vllm/NAME, sglang/NAME, ollama/NAME, llamacpp/NAME")
    run.add_argument("--base-url", metavar="URL", help="server URL ending in /v1 (default: OPENAI_BASE_URL or the "
                     "provider's)")
    run.add_argument("--api-key", metavar="KEY", help="API key (default: OPENAI_API_KEY)")
    run.add_argument("--limit", type=int, metavar="N", help="only N problems, each with all its variants and samples "
                     "(inspect's --limit counts samples, lm-eval's documents)")
    run.add_argument("--samples", type=int, metavar="K", help="K samples per problem variant (default 1)")
    run.add_argument("--temperature", type=float, metavar="T", help="sampling temperature (default 0)")
    run.add_argument("--top-p", type=float, metavar="P", help="nucleus sampling (default 1)")
    run.add_argument("--max-tokens", type=int, metavar="N", help="max new tokens an answer (default: server's)")
    run.add_argument("--seed", type=int, metavar="S", help="sampling seed: sample s asks seed+s")
    run.add_argument("--max-connections", type=int, metavar="C", help="requests in flight at once (default 16)")
    run.add_argument("--timeout", type=float, metavar="S", help="seconds per request (default 600)")
    run.add_argument("--max-attempts", type=int, metavar="N", help="tries per request on transient errors (default 5)")
    run.add_argument("--out", metavar="DIR", help="run directory (default runs/TIME_TASK_MODEL)")
    run.add_argument("--resume", metavar="DIR", help="resume the run in DIR with its stored settings")
    run.add_argument("--no-cache", action="store_true",
                     help="bypass the response cache and the on-disk grading cache")
    run.add_argument("--retry-errors", action="store_true", help="on resume, retry samples that ended in an error")
    run.add_argument("--progress", choices=["rich", "plain", "none"],
                     help="progress on stderr: a redrawn bar (rich), a line at each tenth of the run (plain; the "
                          "default when stdout is not a terminal), or none")
    run.add_argument("--no-progress", action="store_true", help="no progress output (as --progress none)")
    run.add_argument("--wandb", metavar="PROJECT", help="log metrics and samples to this W&B project")
    run.add_argument("--tensorboard", metavar="DIR", help="write TensorBoard scalars under DIR")
    run.add_argument("--max-consecutive-errors", type=int, metavar="N",
                     help="stop after N failures in a row (20; 0: never)")
    run.add_argument("--no-preflight", action="store_true", help="skip the model check before the first request")
    run.add_argument("--force", action="store_true", help="resume although sampling or task options changed")
    run.add_argument("--config", metavar="RUN.yaml", help="YAML of run options (flag names, task_options: {...})")
    run.add_argument("--stop", action="append", metavar="TEXT", help="a stop sequence (repeatable)")
    run.add_argument("--model-args", action="append", metavar="K=V",
                     help="extra request field, e.g. top_k=20 (repeatable)")
    run.add_argument("--extra-body", metavar="JSON", help="extra request fields as one JSON object")
    run.add_argument("--sample-strategy", choices=["first", "random", "stratified"], metavar="HOW",
                     help="which --limit problems: first, random, stratified")
    run.add_argument("--price-in", type=float, metavar="USD", help="price a million prompt tokens (cost line)")
    run.add_argument("--price-out", type=float, metavar="USD", help="price a million completion tokens")
    _add_task_options(run)
    run.set_defaults(func=_cmd_run)

    score = sub.add_parser("score", help="grade existing responses (no model)",
                           description="Grade a JSONL of responses: one {id, variant?, sample?, response} a line, "
                                       "or a physeval export (`physeval export RUN --format jsonl`).")
    score.add_argument("task")
    score.add_argument("--responses", required=True, help="JSONL file of responses")
    score.add_argument("--out", help="run directory for the graded rows and summary.json")
    score.add_argument("--no-cache", action="store_true", help="bypass the on-disk grading cache")
    _add_task_options(score)
    score.set_defaults(func=_cmd_score)

    regrade = sub.add_parser("regrade", help="grade a run's stored completions again (no model)",
                             description="Grade (and for scenes re-render and re-judge) every stored completion "
                                         "of RUN_DIR with the current grader and the recorded task options, "
                                         "overridden by the ones given; no request reaches the model.")
    regrade.add_argument("run_dir")
    regrade.add_argument("--out", help="write into this new run directory instead of in place")
    _add_task_options(regrade)
    regrade.set_defaults(func=_cmd_regrade)


def _resolve_run(args: argparse.Namespace) -> tuple[str, str, Path | None, dict[str, Any]]:
    """Merge explicit flags over a resumed run's stored invocation over defaults."""
    from physeval.flow.spec import DEFAULT_MODEL, DEFAULT_TASK
    from physeval.store import RunStore

    stored: dict[str, Any] = {}
    run_dir = Path(args.resume or args.out) if (args.resume or args.out) else None
    if args.resume:
        if not RunStore.exists(args.resume):
            raise UserError(f"--resume {args.resume}: no physeval run there")
        with RunStore(args.resume) as store:
            meta, rows = store.run_meta(), store.count()
        if meta is None:  # e.g. a disk that filled as the run began: resuming would plan the defaults
            raise UserError(f"--resume {args.resume}: {Path(args.resume) / 'samples.sqlite'} holds no run record "
                            f"({rows} sample rows: the run that made it stopped before recording what it runs, or the "
                            "record was lost with a damaged file), so "
                            "there is nothing to resume: start the run again with its options and `--out "
                            f"{args.resume}`, or remove the folder")
        stored = dict(meta.invocation)
    explicit = {k: v for k, v in vars(args).items() if v is not None and k not in ("func", "command")}
    from_file = _read_run_config(args.config, set(vars(args))) if getattr(args, "config", None) else {}
    merged = {**stored, **from_file, **{k: v for k, v in explicit.items() if v is not False}}
    if from_file.get("task_option") or stored.get("task_option"):  # -T pairs accumulate, flags last
        merged["task_option"] = [*stored.get("task_option", []), *from_file.get("task_option", []),
                                 *(explicit.get("task_option") or [])]
    from physeval.tasks.catalog import canonical_task_name

    task = canonical_task_name(str(merged.get("task") or DEFAULT_TASK))
    model = merged.get("model") or os.environ.get("PHYSEVAL_MODEL") or DEFAULT_MODEL
    return task, model, run_dir, merged


def _cmd_models(args: argparse.Namespace) -> int:
    import asyncio

    import openai

    async def listing() -> list[str]:
        client = openai.AsyncOpenAI(base_url=args.base_url, api_key=args.api_key or "EMPTY", max_retries=1,
                                    timeout=30.0)
        try:
            page = await client.models.list()
            return sorted(m.id for m in page.data)
        finally:
            await client.close()

    try:
        names = asyncio.run(listing())
    except openai.APIError as exc:
        raise UserError(f"{args.base_url}: could not list models ({exc})") from None
    for name in names:
        print(name)
    if not names:
        _console.print("[yellow]the server lists no models[/]")
    return EXIT_OK


def _cmd_run(args: argparse.Namespace) -> int:
    from physeval.flow.config import RunConfig
    from physeval.flow.record import claim_run_dir, default_run_dir
    from physeval.flow.spec import RunSpec, run

    task, model, run_dir, merged = _resolve_run(args)
    ns = argparse.Namespace(**{**vars(args), **merged})
    _check_loggers(ns)  # before the first request: a missing extra must not cost a whole run
    bypass_grading_cache(bool(ns.no_cache))
    config = RunConfig(
        samples=ns.samples if ns.samples is not None else 1,
        temperature=ns.temperature if ns.temperature is not None else 0.0,
        top_p=ns.top_p if ns.top_p is not None else 1.0, max_tokens=ns.max_tokens, seed=ns.seed,
        max_connections=ns.max_connections if ns.max_connections is not None else 16, limit=ns.limit,
        use_cache=not ns.no_cache, retry_errors=bool(ns.retry_errors),
        max_consecutive_errors=ns.max_consecutive_errors if ns.max_consecutive_errors is not None else 20,
        preflight=not ns.no_preflight, stop=tuple(ns.stop) if ns.stop else None, extra_body=_extra_body(ns),
        sample_strategy=ns.sample_strategy or "first", price_in=ns.price_in, price_out=ns.price_out,
    )
    made: list[Path] = []  # the folders this run made for itself (innermost first), removed if it never starts
    if run_dir is None:
        preferred = default_run_dir(task.rsplit(":", 1)[-1], model)
        root_made = not preferred.parent.exists()
        run_dir = claim_run_dir(preferred)  # its own folder even when others start at the same moment
        made = [run_dir, preferred.parent] if root_made else [run_dir]
    invocation = {k: v for k, v in merged.items()
                  if k not in ("resume", "out", "no_progress", "progress", "retry_errors", "force", "api_key")}
    invocation.update(task=task, model=model)
    spec = RunSpec(task=task, task_options=_task_options(ns), model=model, base_url=ns.base_url, api_key=ns.api_key,
                   request_timeout=ns.timeout or 600.0, max_attempts=ns.max_attempts or 5, config=config,
                   run_dir=run_dir, force=bool(ns.force), show_progress=_progress_mode(args),
                   invocation=invocation)
    _console.print(f"[bold]physeval[/] run [cyan]{escape(task)}[/] on [cyan]{escape(model)}[/] "
                   f"-> {escape(str(run_dir))}")
    from physeval.cli._local import ensure_embedded_weights

    try:
        ensure_embedded_weights(model)
        summary, result = run(spec)
    except BaseException as exc:
        _remove_if_empty(made)  # a task that cannot load, or an early stop, leaves no run folder
        if not isinstance(exc, KeyboardInterrupt):
            raise
        from physeval.store import RunStore

        how = "terminated (SIGTERM)" if interrupted_status(exc) != EXIT_INTERRUPTED else "interrupted"
        if RunStore.resumable(run_dir):
            _console.print(f"[yellow]{how}[/]: finished samples are kept; resume with "
                           f"`physeval run --resume {escape(str(run_dir))}`")
        elif RunStore.exists(run_dir):  # the database was made, what it runs not yet recorded
            _console.print(f"[yellow]{how}[/] before the run started: nothing was recorded in "
                           f"{escape(str(run_dir))}; run the same command again to start it")
        else:
            _console.print(f"[yellow]{how}[/] before the run started: nothing was written")
        return interrupted_status(exc)
    try:
        return _print_run_end(args, summary, result, config, run_dir)
    except KeyboardInterrupt as exc:  # the run is over; only its printout was cut short
        _console.print(f"[yellow]interrupted while printing[/]: the run itself had ended and is kept in "
                       f"{escape(str(run_dir))}; `physeval report {escape(str(run_dir))}` prints it again")
        return interrupted_status(exc)


def _remove_if_empty(folders: list[Path]) -> None:
    """Remove the folders this run made for itself (innermost first) while nothing was written in them."""
    for folder in folders:
        try:
            folder.rmdir()  # only an empty directory
        except OSError:
            return


def _print_run_end(args: argparse.Namespace, summary: Any, result: Any, config: Any, run_dir: Path) -> int:
    """What a run that ended prints, and its exit status."""
    _print_outcome(summary)
    _print_tokens(summary, config, run_dir)
    written = f"summary: {escape(str(run_dir / 'summary.json'))}" if result.summary_error is None else \
        f"[red]summary.json was not written[/] ({escape(result.summary_error)}): the table above is all there is"
    _console.print(f"{result.completed_now} new samples ({result.errors_now} errors), {result.skipped} kept "
                   f"from before; {written}")
    if result.storage is not None:  # the disk stopped the run: no logging, the cause and what to do
        _console.print(f"[red bold]run stopped by its storage[/] ({escape(result.storage.kind)}): "
                       f"{escape(str(result.storage))}")
        _console.print(f"  what to do: {escape(result.storage.hint)}, then `physeval run --resume "
                       f"{escape(str(run_dir))}` (every finished sample is kept)")
        return EXIT_STORAGE
    if getattr(args, "wandb", None) or getattr(args, "tensorboard", None):
        from physeval.integrations.logging import log_run

        for where, path in log_run(run_dir, wandb_project=args.wandb, tensorboard_dir=args.tensorboard).items():
            _console.print(f"logged to {where}: {escape(path)}")
    if result.aborted is not None:
        _console.print(f"[red bold]run aborted[/] ({escape(result.aborted.kind)}): {escape(str(result.aborted))}")
        if result.aborted.hint:
            _console.print(f"  what to do: {escape(result.aborted.hint)}; then "
                           f"`physeval run --resume {escape(str(run_dir))} --retry-errors`")
        return EXIT_ABORTED
    if not summary.complete:
        _console.print(f"what to do: `physeval run --resume {escape(str(run_dir))} --retry-errors` asks again for "
                       "the samples that failed or were not run (finished ones are kept)")
        return EXIT_INCOMPLETE
    return EXIT_OK


_LOGGERS = (("wandb", "--wandb", "wandb", "wandb"), ("tensorboard", "--tensorboard", "tensorboard", "tensorboardX"))
"""(option, flag, extra, module) of each logger a finished run is logged to."""


def _check_loggers(ns: argparse.Namespace) -> None:
    """The packages of ``--wandb`` and ``--tensorboard`` import, or the extra's install line now."""
    import importlib

    from physeval.errors import missing_extra

    for option, flag, extra, module in _LOGGERS:
        if getattr(ns, option, None):
            try:
                importlib.import_module(module)
            except ImportError as exc:
                raise missing_extra(flag, extra, module) from exc


def _progress_mode(args: argparse.Namespace) -> ProgressMode:
    """``--progress``, ``none`` for ``--no-progress``, else rich on a terminal and plain elsewhere."""
    from physeval.progress import default_progress_mode

    if args.no_progress:
        return "none"
    mode: ProgressMode = args.progress or default_progress_mode()  # argparse checked the choice
    return mode


def _print_tokens(summary: RunSummary, config: Any, run_dir: Any = None) -> None:
    """Token totals of the run, and its cost when prices were given. Reasoning the server did
    not count is estimated from the stored reasoning text and marked so, never shown as 0."""
    tokens = summary.provenance.tokens
    if not (tokens.prompt_tokens or tokens.completion_tokens):  # no usage came with any sample
        _console.print("tokens: not recorded (no sample came with token usage)")
        return
    line = (f"tokens: {tokens.prompt_tokens:,} prompt, {tokens.completion_tokens:,} completion "
            f"({_reasoning_text(tokens, run_dir)})")
    cost = summary.cost
    if cost is not None:
        line += f"; cost ${cost.total_usd:.4f} (${cost.price_in}/M in, ${cost.price_out}/M out)"
    _console.print(line)


def _reasoning_text(tokens: Tokens, run_dir: Any) -> str:
    """``1,234 reasoning``, ``~9,876 reasoning, estimated from the reasoning text`` or ``no reasoning``.

    The estimate is the summary's; a summary written before it recorded one is estimated from
    the run's rows.
    """
    reported = tokens.reasoning_tokens
    if reported or run_dir is None:
        return f"{reported:,} reasoning"
    estimated, samples = tokens.reasoning_estimated, tokens.reasoning_estimated_samples
    if estimated is None:
        from physeval.analysis.lengths import estimated_reasoning_total
        from physeval.store import RunStore

        if not RunStore.exists(run_dir):
            return "0 reasoning"
        with RunStore(run_dir) as store:
            estimated, samples = estimated_reasoning_total(store.rows())
    if not samples:
        return "no reasoning"
    return f"~{estimated:,} reasoning, estimated from the reasoning text of {samples} samples"


def _print_outcome(summary: RunSummary) -> None:
    """The summary table, preceded by a warning when the run is not complete."""
    from physeval.report.tables import print_summary

    counts = summary.counts
    if not summary.complete:
        _console.print(f"[red bold]INCOMPLETE[/]: {counts.graded} of {counts.planned_samples} "
                       f"planned samples were graded; {counts.errors} ended in errors "
                       f"{escape(json.dumps(dict(counts.error_kinds)))}, {counts.missing} are missing. "
                       "Metrics below stand only on the graded samples (see n).")
        for message in summary.first_errors[:5]:
            _console.print(f"  [red]error[/] {escape(message[:400])}")
    if counts.graded == 0:
        _console.print("[red]no sample was graded: there are no metrics to show[/]")
        return
    print_summary(summary, Console())


def _cmd_score(args: argparse.Namespace) -> int:
    from physeval.flow.score import score_responses

    bypass_grading_cache(args.no_cache)
    options = _task_options(args)
    summary, report = score_responses(args.task, args.responses, run_dir=args.out, task_options=options)
    if report.source != "jsonl":
        _console.print(f"read {escape(str(args.responses))} as an {escape(report.source)} output: "
                       f"{report.graded} generations graded (model {escape(summary.model)})")
    for message in report.bad_lines[:20]:
        _console.print(f"[yellow]{'failed in the tool' if report.source != 'jsonl' else 'skipped'}[/] "
                       f"{escape(message)}")
    if report.unknown_ids:
        _console.print(f"[yellow]{len(report.unknown_ids)} responses name no problem of {escape(args.task)}[/]: "
                       f"{escape(', '.join(report.unknown_ids[:10]))}{' ...' if len(report.unknown_ids) > 10 else ''}")
    if report.problems_named < report.task_problems:
        _console.print(f"the responses name {report.problems_named} of the {report.task_problems} problems of "
                       f"{escape(args.task)}: the summary stands on those (a problem without any response is not "
                       "planned)")
    if report.missing:
        shown = ", ".join(f"{pid}/{variant}" for pid, variant in report.missing[:10])
        _console.print(f"[yellow]{len(report.missing)} variants of answered problems have no response[/] "
                       f"({escape(shown)}{' ...' if len(report.missing) > 10 else ''}): their problems are left "
                       "out of the dynamic metrics")
    if report.skipped_errors:
        _console.print(f"[yellow]{report.skipped_errors} exported rows had no completion (their request failed)[/]: "
                       "counted as errors")
    _print_outcome(summary)
    if not summary.complete:
        _console.print("what to do: add the missing responses (every variant of each problem named, samples "
                       f"0..K-1) to {escape(str(args.responses))} and score it again")
        return EXIT_INCOMPLETE
    return EXIT_OK


def _cmd_regrade(args: argparse.Namespace) -> int:
    from physeval.flow.regrade import regrade_run

    options = {k: v for k, v in _task_options(args).items()}
    summary, report = regrade_run(args.run_dir, out=args.out, task_options=options)
    _console.print(f"regraded {report.regraded} samples ({report.changed} verdicts changed, {report.kept} kept "
                   f"without a completion) -> {escape(str(report.run_dir))}")
    _print_outcome(summary)
    if not summary.complete:
        _console.print("what to do: regrade grades stored completions only; for the samples that failed or are "
                       f"missing, `physeval run --resume {escape(str(args.run_dir))} --retry-errors` (a run) or "
                       "score the missing responses (a scored file)")
        return EXIT_INCOMPLETE
    return EXIT_OK
