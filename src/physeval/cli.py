"""The ``physeval`` command line: a thin layer over :mod:`physeval.evaluate` and friends.

Subcommands: run, score, tasks, export, report (and the track-specific ones each track adds).
Every subcommand has ``--help``. Errors a user can fix (missing data, unknown task, bad
model name) print one clear line and exit 2; nothing prints a traceback for them.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape

from physeval.errors import UserError

__all__ = ["main", "build_parser"]

_console = Console(stderr=True, soft_wrap=True)  # paths in messages must stay copy-pasteable

def _option_specs() -> dict[str, tuple[str, list[Any], list[str]]]:
    """Every option some registered task declares: name -> (help, distinct types, task names)."""
    from physeval.tasks.options import option_fields
    from physeval.tasks.registry import task_classes

    specs: dict[str, tuple[str, list[Any], list[str]]] = {}
    for task_name, cls in task_classes().items():
        for f, hint in option_fields(cls.Options):
            if f.name in ("data", "prompt_file"):
                continue
            text = str(f.metadata.get("help", ""))
            help_text, hints, tasks = specs.setdefault(f.name, (text, [], []))
            if hint not in hints:
                hints.append(hint)
                if len(hints) > 1 and text not in help_text:  # one flag, tasks with their own meaning: say each
                    specs[f.name] = (f"{help_text}; {text}", hints, tasks)
            tasks.append(task_name)
    return specs


def _add_task_options(p: argparse.ArgumentParser) -> None:
    """``--data``, ``--prompt-file``, ``-T KEY=VALUE`` and one flag per option any task declares.

    Flags are generated from the tasks' ``Options`` dataclasses (help text from the fields), so an
    option exists here as soon as a task declares it; values are typed by the chosen task.
    """
    from physeval.tasks.options import describe_type

    g = p.add_argument_group("task options (each task checks its own; `physeval tasks --options` lists them)")
    g.add_argument("--data", help="dataset file or folder (tasks that need one)")
    g.add_argument("--prompt-file", help="prompt template file with a {question} placeholder")
    g.add_argument("-T", "--task-option", action="append", dest="task_option", metavar="KEY=VALUE",
                   help="any option of the task, typed by it (repeatable), e.g. -T rel_tol=0.02")
    for name, (help_text, hints, tasks) in sorted(_option_specs().items()):
        flag = "--" + name.replace("_", "-")
        shown = ", ".join(tasks) if len(tasks) <= 3 else f"{len(tasks)} tasks"
        kind = " | ".join(dict.fromkeys(describe_type(h) for h in hints))
        text = f"{help_text} ({shown})"
        if hints == [bool]:
            g.add_argument(flag, dest=name, action="store_true", default=None, help=text)
        elif kind.startswith("list of"):
            g.add_argument(flag, dest=name, action="append", metavar=kind.removeprefix("list of ").upper(), help=text)
        else:
            g.add_argument(flag, dest=name, metavar=kind.upper().replace(" ", ""), help=text)


def _task_options(args: argparse.Namespace) -> dict[str, Any]:
    """The task options given on the command line (flags and ``-T``), as raw values the task types."""
    options: dict[str, Any] = {}
    if getattr(args, "data", None):
        options["data"] = args.data
    if getattr(args, "prompt_file", None):
        options["prompt_file"] = args.prompt_file
    for name in _option_specs():
        value = getattr(args, name, None)
        if value is not None:
            options[name] = value
    for item in getattr(args, "task_option", None) or []:
        key, sep, value = str(item).partition("=")
        if not sep or not key.strip():
            raise UserError(f"-T {item!r}: expected KEY=VALUE")
        options[key.strip()] = value
    return options


def build_parser() -> argparse.ArgumentParser:
    """The argument parser for every subcommand."""
    from physeval.version import __version__

    parser = argparse.ArgumentParser(prog="physeval", description="Evaluate language models on physics.")
    parser.add_argument("--version", action="version", version=f"physeval {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    models = sub.add_parser("models", help="list the models a server offers",
                            description="GET /v1/models of an OpenAI-compatible server and list what it serves.")
    models.add_argument("--base-url", required=True, help="server URL ending in /v1")
    models.add_argument("--api-key", help="API key (default: none sent to a local server)")
    models.set_defaults(func=_cmd_models)

    run = sub.add_parser("run", help="run a task on a model (resumable)",
                         description="Run TASK on a model, store every sample, print and save the summary.")
    run.add_argument("task", nargs="?", help="task name (default: bank-numeric; see `physeval tasks`)")
    run.add_argument("--model", help="local (default, embedded SmolLM2), openai/NAME, vllm/NAME, sglang/NAME, "
                     "ollama/NAME, llamacpp/NAME, local:PATH.gguf")
    run.add_argument("--base-url", help="OpenAI-compatible server URL (default: OPENAI_BASE_URL or the provider's)")
    run.add_argument("--api-key", help="API key (default: OPENAI_API_KEY)")
    run.add_argument("--limit", type=int, help="only the first N problems (all their variants)")
    run.add_argument("--samples", type=int, help="K samples per problem variant (default 1)")
    run.add_argument("--temperature", type=float, help="sampling temperature (default 0)")
    run.add_argument("--top-p", type=float, help="nucleus sampling (default 1)")
    run.add_argument("--max-tokens", type=int, help="max new tokens per answer (default: server's; local: 512)")
    run.add_argument("--seed", type=int, help="sampling seed: sample s is requested with seed+s (default: none sent)")
    run.add_argument("--max-connections", type=int, help="requests in flight at once (default 16)")
    run.add_argument("--timeout", type=float, help="seconds per request (default 600)")
    run.add_argument("--max-attempts", type=int, help="tries per request on transient errors (default 5)")
    run.add_argument("--out", help="run directory (default runs/<UTC time>_<task>_<model>); resumed if it exists")
    run.add_argument("--resume", metavar="DIR", help="resume the run in DIR with its stored settings")
    run.add_argument("--no-cache", action="store_true", help="bypass the response cache")
    run.add_argument("--retry-errors", action="store_true", help="on resume, retry samples that ended in an error")
    run.add_argument("--no-progress", action="store_true", help="no progress bar")
    run.add_argument("--wandb", metavar="PROJECT", help="log metrics and samples to this W&B project (extra wandb)")
    run.add_argument("--tensorboard", metavar="DIR", help="write TensorBoard scalars to DIR (extra tensorboard)")
    run.add_argument("--max-consecutive-errors", type=int,
                     help="circuit breaker: stop after this many failed samples in a row (default 20; 0 = off)")
    run.add_argument("--no-preflight", action="store_true",
                     help="skip the check of the endpoint, key and model name before the first request")
    run.add_argument("--force", action="store_true",
                     help="resume even though sampling or task options differ from the recorded ones "
                          "(both are recorded)")
    run.add_argument("--config", metavar="RUN.yaml",
                     help="a YAML file of run options (any flag name, plus task_options: {...}); flags override it")
    run.add_argument("--stop", action="append", metavar="TEXT", help="a stop sequence (repeatable)")
    run.add_argument("--model-args", action="append", metavar="KEY=VALUE",
                     help="extra request fields, e.g. top_k=20 min_p=0 repetition_penalty=1.05 (repeatable; "
                          "values are JSON when they parse)")
    run.add_argument("--extra-body", metavar="JSON",
                     help="extra request fields as one JSON object, e.g. "
                          "'{\"chat_template_kwargs\": {\"enable_thinking\": false}}'")
    run.add_argument("--sample-strategy", choices=["first", "random", "stratified"],
                     help="which --limit problems: the first (default), a seeded random choice, or stratified "
                          "by domain/tag/level")
    run.add_argument("--price-in", type=float, metavar="USD", help="price per million prompt tokens (cost line)")
    run.add_argument("--price-out", type=float, metavar="USD", help="price per million completion tokens")
    _add_task_options(run)
    run.set_defaults(func=_cmd_run)

    score = sub.add_parser("score", help="grade existing responses (no model)",
                           description="Grade a JSONL of responses: one {id, variant?, sample?, response} a line, "
                                       "or a physeval export (`physeval export RUN --format jsonl`).")
    score.add_argument("task")
    score.add_argument("--responses", required=True, help="JSONL file of responses")
    score.add_argument("--out", help="run directory for the graded rows and summary.json")
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

    tasks = sub.add_parser("tasks", help="list the tasks", description="List the registered tasks.")
    tasks.add_argument("--options", action="store_true", help="also list each task's options, types and defaults")
    tasks.set_defaults(func=_cmd_tasks)

    export = sub.add_parser("export", help="export a run's samples", description="Export every sample of a run.")
    export.add_argument("run_dir")
    export.add_argument("--format", choices=["jsonl", "parquet"], default="jsonl")
    export.add_argument("--output", help="output file (default RUN_DIR/samples.FORMAT)")
    export.set_defaults(func=_cmd_export)

    report = sub.add_parser("report", help="print a run's summary",
                            description="Print the summary table of each run; --html writes the report (one run: "
                                        "its own; several: leaderboards, paired comparison, curves, outcomes).")
    report.add_argument("run_dirs", nargs="+", metavar="RUN_DIR")
    report.add_argument("--no-breakdowns", action="store_true", help="headline metrics only")
    report.add_argument("--scaling", action="store_true", help="also pass@k/maj@k for k = 1..K with the decay fit")
    report.add_argument("--lengths", action="store_true", help="also completion/reasoning token lengths per model")
    report.add_argument("--html", nargs="?", const="", metavar="PATH",
                        help="also write a self-contained HTML report with plots (default: RUN_DIR/report.html "
                             "for one run, ./physeval-report.html for several)")
    report.set_defaults(func=_cmd_report)

    compare = sub.add_parser("compare", help="compare runs side by side, paired by problem",
                             description="The metrics several runs share, one column per run, with 95% CIs; then "
                                         "paired differences by problem with bootstrap intervals, p-values and "
                                         "tiers (runs of one task and problem set only).")
    compare.add_argument("run_dirs", nargs="+")
    compare.add_argument("--breakdowns", action="store_true", help="include per-group metrics")
    compare.add_argument("--metric", help="metric to pair on: accuracy (default), static_accuracy, dynamic_accuracy, "
                                          "eed, executable_rate, render_rate, playable_rate")
    compare.add_argument("--matched", choices=["executable", "rendered", "playable"],
                         help="scenes: downstream metrics on the samples every run brought to this stage")
    compare.set_defaults(func=_cmd_compare)

    _add_variation_commands(sub)
    _add_analysis_commands(sub)
    _add_leaderboard_command(sub)
    _add_scene_commands(sub)
    _add_build_commands(sub)
    _add_serve_command(sub)
    return parser


def _add_variation_commands(sub: Any) -> None:
    vary = sub.add_parser("vary", help="generate variants of a problem template",
                          description="Variants of a template (a bank id or a YAML file): text and recomputed "
                                      "answer. The same seed gives the same variants on every machine.")
    vary.add_argument("template", help="bank template id (e.g. mech_projectile_range), a YAML path, or abench-b:MID")
    vary.add_argument("--data", help="abench-b:MID: Phy_B_dynamic_100.csv or its folder")
    vary.add_argument("--n", type=int, default=4, help="number of variants (variant 0 = canonical values)")
    vary.add_argument("--seed", type=int, default=0)
    vary.add_argument("--output", help="write JSONL here instead of printing")
    vary.set_defaults(func=_cmd_vary)

    audit = sub.add_parser("audit", help="check a dataset's answers for internal consistency",
                           description="Recompute answers that have a solution and check every family of released "
                                       "variants for consistency; list suspects with the evidence.")
    audit.add_argument("task", help="abench-a, abench-b, bank-numeric, or a CSV/JSONL file")
    audit.add_argument("--data", help="dataset file or folder (ABench tasks)")
    audit.add_argument("--solutions", help="JSON/YAML {problem id: formula} beside the problems")
    audit.add_argument("--min-severity", choices=["high", "medium", "low"], default="low")
    audit.add_argument("--json", action="store_true", help="print findings as JSON lines")
    audit.set_defaults(func=_cmd_audit)


def _add_analysis_commands(sub: Any) -> None:
    stats = sub.add_parser("stats", help="statistics across runs",
                           description="sample-efficiency: how much better a partial-credit score (EED) "
                                       "separates models than accuracy, per pair of runs on the same problems.")
    stats.add_argument("analysis", choices=["sample-efficiency"])
    stats.add_argument("run_dirs", nargs="+")
    stats.set_defaults(func=_cmd_stats)


def _add_leaderboard_command(sub: Any) -> None:
    board = sub.add_parser("leaderboard", help="the papers' tables over runs, grouped by model",
                           description="ABench Table 2, PHYBench's main table and SimuScene Tables 2-3 from the "
                                       "runs given, one row per model, each cell with its 95%% CI and n.")
    board.add_argument("run_dirs", nargs="+", metavar="RUN_DIR")
    board.add_argument("--layout", action="append", choices=["abench", "phybench", "simuscene"],
                       help="only these layouts (repeatable; default: every layout the runs fill)")
    board.add_argument("--format", choices=["terminal", "markdown", "csv", "latex", "html"], default="terminal")
    board.add_argument("--output", help="write to this file instead of printing")
    board.set_defaults(func=_cmd_leaderboard)


def _add_scene_commands(sub: Any) -> None:
    sandbox = sub.add_parser("sandbox", help="prepare or inspect the scene sandbox",
                             description="Prepare (setup) or inspect (check) the isolated interpreter for "
                                         "scene programs.")
    sandbox.add_argument("action", choices=["setup", "check"])
    sandbox.add_argument("--path", help="where to create the venv (default: the user data dir)")
    sandbox.add_argument("--sandbox", default="auto",
                         help="backend to check: auto (default), bwrap, namespaces, none (unsafe)")
    sandbox.set_defaults(func=_cmd_sandbox)

    render = sub.add_parser("render", help="render one scene program in the sandbox",
                            description="Run a Python scene program in the sandbox and report the stage it reached.")
    render.add_argument("program", help="a .py file, or a reply with a fenced python block")
    render.add_argument("--out", default=".", help="directory for the video (default: here)")
    render.add_argument("--timeout", type=float, default=120.0, help="wall-clock seconds (default 120)")
    render.add_argument("--sandbox", default="auto",
                        help="sandbox backend: auto (default), bwrap, namespaces, none (unsafe)")
    render.set_defaults(func=_cmd_render)

    agreement = sub.add_parser("agreement", help="judge-vs-human agreement (SimuScene Table 6)",
                               description="Compare a scene run's judge verdicts with human labels "
                                           "(CSV columns: id, sample, index, label).")
    agreement.add_argument("run_dir")
    agreement.add_argument("--human", required=True, help="LABELS.csv")
    agreement.set_defaults(func=_cmd_agreement)


def _add_serve_command(sub: Any) -> None:
    """``physeval serve`` (see :mod:`physeval.rewards.command`)."""
    from physeval.rewards.command import add_serve_parser

    add_serve_parser(sub)


def _add_build_commands(sub: Any) -> None:
    """``physeval build scenes | import-review | prompts`` (see :mod:`physeval.build.command`)."""
    from physeval.build.command import add_build_parser

    add_build_parser(sub)


def _resolve_run(args: argparse.Namespace) -> tuple[str, str, Path | None, dict[str, Any]]:
    """Merge explicit flags over a resumed run's stored invocation over defaults."""
    from physeval.evaluate import DEFAULT_MODEL, DEFAULT_TASK
    from physeval.store import RunStore

    stored: dict[str, Any] = {}
    run_dir = Path(args.resume or args.out) if (args.resume or args.out) else None
    if args.resume:
        if not RunStore.exists(args.resume):
            raise UserError(f"--resume {args.resume}: no physeval run there")
        with RunStore(args.resume) as store:
            meta = store.run_meta()
            stored = dict(meta.invocation) if meta is not None else {}
    explicit = {k: v for k, v in vars(args).items() if v is not None and k not in ("func", "command")}
    from_file = _read_run_config(args.config, set(vars(args))) if getattr(args, "config", None) else {}
    merged = {**stored, **from_file, **{k: v for k, v in explicit.items() if v is not False}}
    if from_file.get("task_option") or stored.get("task_option"):  # -T pairs accumulate, flags last
        merged["task_option"] = [*stored.get("task_option", []), *from_file.get("task_option", []),
                                 *(explicit.get("task_option") or [])]
    task = merged.get("task") or DEFAULT_TASK
    model = merged.get("model") or DEFAULT_MODEL
    return task, model, run_dir, merged


def _read_run_config(path: str, known: set[str]) -> dict[str, Any]:
    """A ``--config`` YAML: keys are flag names (``max_tokens`` or ``max-tokens``), plus ``task_options``."""
    import yaml

    try:
        data = yaml.safe_load(Path(path).read_text(encoding="utf-8")) or {}
    except FileNotFoundError:
        raise UserError(f"--config {path}: no such file") from None
    except yaml.YAMLError as exc:
        raise UserError(f"--config {path}: not valid YAML ({exc})") from None
    if not isinstance(data, dict):
        raise UserError(f"--config {path}: expected a mapping of option names to values")
    out: dict[str, Any] = {}
    for key, value in data.items():
        name = str(key).replace("-", "_")
        if name == "task_options":
            if not isinstance(value, dict):
                raise UserError(f"--config {path}: task_options must be a mapping")
            out["task_option"] = [f"{k}={_option_text(v)}" for k, v in value.items()]
        elif name in known and name not in ("help", "func", "config"):
            out[name] = value
        else:
            raise UserError(f"--config {path}: unknown option {key!r}")
    return out


def _option_text(value: Any) -> str:
    return ",".join(str(v) for v in value) if isinstance(value, (list, tuple)) else str(value)


def _extra_body(ns: argparse.Namespace) -> dict[str, Any] | None:
    """``--extra-body JSON`` merged with ``--model-args k=v`` pairs (values parsed as JSON when they parse)."""
    body: dict[str, Any] = {}
    if getattr(ns, "extra_body", None):
        raw = ns.extra_body if isinstance(ns.extra_body, dict) else None
        if raw is None:
            try:
                raw = json.loads(ns.extra_body)
            except json.JSONDecodeError as exc:
                raise UserError(f"--extra-body: not a JSON object ({exc.msg})") from None
        if not isinstance(raw, dict):
            raise UserError("--extra-body: expected a JSON object")
        body.update(raw)
    for item in getattr(ns, "model_args", None) or []:
        key, sep, text = str(item).partition("=")
        if not sep or not key.strip():
            raise UserError(f"--model-args {item!r}: expected KEY=VALUE")
        try:
            body[key.strip()] = json.loads(text)
        except json.JSONDecodeError:
            body[key.strip()] = text
    return body or None


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
    from physeval.evaluate import RunSpec, default_run_dir, run
    from physeval.runner import RunConfig

    task, model, run_dir, merged = _resolve_run(args)
    ns = argparse.Namespace(**{**vars(args), **merged})
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
    run_dir = run_dir or default_run_dir(task.rsplit(":", 1)[-1], model)
    invocation = {k: v for k, v in merged.items()
                  if k not in ("resume", "out", "no_progress", "retry_errors", "force", "api_key")}
    invocation.update(task=task, model=model)
    spec = RunSpec(task=task, task_options=_task_options(ns), model=model, base_url=ns.base_url, api_key=ns.api_key,
                   request_timeout=ns.timeout or 600.0, max_attempts=ns.max_attempts or 5, config=config,
                   run_dir=run_dir, force=bool(ns.force), show_progress=not ns.no_progress and sys.stderr.isatty(),
                   invocation=invocation)
    _console.print(f"[bold]physeval[/] run [cyan]{escape(task)}[/] on [cyan]{escape(model)}[/] "
                   f"-> {escape(str(run_dir))}")
    try:
        summary, result = run(spec)
    except KeyboardInterrupt:
        _console.print(f"[yellow]interrupted[/]: finished samples are kept; resume with "
                       f"`physeval run --resume {escape(str(run_dir))}`")
        return EXIT_INTERRUPTED
    _print_outcome(summary)
    _print_tokens(summary, config)
    _console.print(f"{result.completed_now} new samples ({result.errors_now} errors), {result.skipped} kept "
                   f"from before; summary: {escape(str(run_dir / 'summary.json'))}")
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
    return EXIT_OK if summary.get("complete") else EXIT_INCOMPLETE


def _print_tokens(summary: dict[str, Any], config: Any) -> None:
    """Token totals of the run, and its cost when prices were given."""
    tokens = (summary.get("provenance") or {}).get("tokens") or {}
    if not tokens:
        return
    line = (f"tokens: {tokens.get('prompt_tokens', 0):,} prompt, {tokens.get('completion_tokens', 0):,} completion "
            f"({tokens.get('reasoning_tokens', 0):,} reasoning)")
    cost = summary.get("cost")
    if cost:
        line += f"; cost ${cost['total_usd']:.4f} (${cost['price_in']}/M in, ${cost['price_out']}/M out)"
    _console.print(line)


def _print_outcome(summary: dict[str, Any]) -> None:
    """The summary table, preceded by a warning when the run is not complete."""
    from physeval.report.summary import print_summary

    counts = summary.get("counts", {})
    if not summary.get("complete", True):
        planned = counts.get("planned_samples", counts.get("samples", 0))
        _console.print(f"[red bold]INCOMPLETE[/]: {counts.get('graded', counts.get('answered', 0))} of {planned} "
                       f"planned samples were graded; {counts.get('errors', 0)} ended in errors "
                       f"{escape(json.dumps(counts.get('error_kinds', {})))}, {counts.get('missing', 0)} were not run. "
                       "Metrics below stand only on the graded samples (see n).")
        for message in (summary.get("errors") or {}).get("first", [])[:5]:
            _console.print(f"  [red]error[/] {escape(message[:400])}")
    if counts.get("graded", counts.get("answered", 1)) == 0:
        _console.print("[red]no sample was graded: there are no metrics to show[/]")
        return
    print_summary(summary, Console())


def _cmd_score(args: argparse.Namespace) -> int:
    from physeval.evaluate import score_responses

    options = _task_options(args)
    summary, report = score_responses(args.task, args.responses, run_dir=args.out, task_options=options)
    for message in report.bad_lines[:20]:
        _console.print(f"[yellow]skipped[/] {escape(message)}")
    if report.unknown_ids:
        _console.print(f"[yellow]{len(report.unknown_ids)} responses name no problem of {escape(args.task)}[/]: "
                       f"{escape(', '.join(report.unknown_ids[:10]))}{' ...' if len(report.unknown_ids) > 10 else ''}")
    if report.missing:
        _console.print(f"[yellow]{len(report.missing)} variants of answered problems have no response "
                       "(they are left out of the metrics)[/]")
    if report.skipped_errors:
        _console.print(f"[yellow]{report.skipped_errors} exported rows had no completion (their request failed)[/]")
    _print_outcome(summary)
    return EXIT_OK if summary.get("complete") else EXIT_INCOMPLETE


def _cmd_regrade(args: argparse.Namespace) -> int:
    from physeval.regrade import regrade_run

    options = {k: v for k, v in _task_options(args).items()}
    summary, report = regrade_run(args.run_dir, out=args.out, task_options=options)
    _console.print(f"regraded {report.regraded} samples ({report.changed} verdicts changed, {report.kept} kept "
                   f"without a completion) -> {escape(str(report.run_dir))}")
    _print_outcome(summary)
    return EXIT_OK if summary.get("complete") else EXIT_INCOMPLETE


def _cmd_tasks(args: argparse.Namespace) -> int:
    from rich.table import Table

    from physeval.tasks.options import describe_type, option_fields
    from physeval.tasks.registry import task_classes

    table = Table(title="physeval tasks")
    for column in ("task", "track", "dynamic", "description"):
        table.add_column(column)
    if getattr(args, "options", False):
        table.add_column("options (-T KEY=VALUE)")
    for name, cls in task_classes().items():
        row = [escape(name), cls.track, "yes" if cls.dynamic else "", escape(cls.description)]
        if getattr(args, "options", False):
            row.append(escape("\n".join(f"{f.name}: {describe_type(hint)} = {f.default!r}"
                                         for f, hint in option_fields(cls.Options))))
        table.add_row(*row)
    Console().print(table)
    return 0


def _cmd_export(args: argparse.Namespace) -> int:
    from physeval.store import RunStore

    if not RunStore.exists(args.run_dir):
        raise UserError(f"{args.run_dir}: no physeval run there")
    output = Path(args.output) if args.output else Path(args.run_dir) / f"samples.{args.format}"
    with RunStore(args.run_dir) as store:
        store.export(output, args.format)
    print(output)
    return 0


def _cmd_report(args: argparse.Namespace) -> int:
    from physeval.report.summary import SUMMARY_NAME, print_summary, read_summary

    for run_dir in args.run_dirs:
        if not (Path(run_dir) / SUMMARY_NAME).is_file():
            raise UserError(f"no {SUMMARY_NAME} in {run_dir}: is it a physeval run directory?")
    for run_dir in args.run_dirs:
        summary = read_summary(run_dir)
        if not summary.get("complete", True):
            _console.print(f"[red bold]{str(summary.get('status', 'incomplete')).upper()}[/]: "
                           f"{summary.get('counts', {}).get('errors', 0)} samples ended in errors, "
                           f"{summary.get('counts', {}).get('missing', 0)} were not run")
        print_summary(summary, Console(), breakdowns=not args.no_breakdowns)
    if len(args.run_dirs) > 1 or args.scaling or args.lengths:
        _print_analyses(args)
    if args.html is not None:
        from physeval.report.html import MULTI_REPORT_NAME, write_html_report, write_multi_report

        if len(args.run_dirs) == 1:
            print(write_html_report(args.run_dirs[0], args.html or None))
        else:
            print(write_multi_report(args.run_dirs, args.html or MULTI_REPORT_NAME))
    return 0


def _print_analyses(args: argparse.Namespace) -> None:
    """After several runs' summaries: why samples ended, per model; with the flags, scaling and lengths."""
    from physeval.analysis.lengths import run_lengths
    from physeval.analysis.outcomes import breakdowns_by_model
    from physeval.analysis.runs import load_runs, run_labels
    from physeval.analysis.scaling import scaling_curves
    from physeval.report.tables import lengths_table, outcome_table, scaling_table

    runs, console = load_runs(args.run_dirs), Console() if sys.stdout.isatty() else Console(width=200)
    if len(runs) > 1:
        console.print(outcome_table(breakdowns_by_model(runs)))
    if args.scaling:
        console.print(scaling_table([scaling_curves(r, label=label) for r, label in zip(runs, run_labels(runs))]))
    if args.lengths:
        console.print(lengths_table(run_lengths(runs)))


def _cmd_compare(args: argparse.Namespace) -> int:
    from physeval.report.compare import comparison_table, paired_report

    Console().print(comparison_table(args.run_dirs, breakdowns=args.breakdowns))
    for table in paired_report(args.run_dirs, metric=args.metric, matched=args.matched):
        Console().print(table)
    return 0


def _cmd_leaderboard(args: argparse.Namespace) -> int:
    from physeval.analysis.leaderboard import LAYOUTS, leaderboards, render_boards
    from physeval.analysis.runs import load_runs

    boards = leaderboards(load_runs(args.run_dirs), args.layout or LAYOUTS)
    if not boards:
        raise UserError("no run fills any leaderboard layout (numeric, symbolic or scene runs are needed)")
    rendered = render_boards(boards, args.format)
    if args.format == "terminal":
        if args.output:
            raise UserError("--output needs --format markdown, csv, latex or html")
        console = Console() if sys.stdout.isatty() else Console(width=240)  # a pipe gets whole tables
        for table in rendered:
            console.print(table)
        return 0
    if args.output:
        Path(args.output).write_text(rendered, encoding="utf-8")
        print(args.output)
    else:
        sys.stdout.write(rendered)
    return 0


def _cmd_vary(args: argparse.Namespace) -> int:
    from physeval.variation.commands import vary_command

    variants = vary_command(args.template, args.n, args.seed, data=args.data)
    if args.output:
        with open(args.output, "w", encoding="utf-8") as fh:
            for v in variants:
                fh.write(json.dumps(v, ensure_ascii=False) + "\n")
        print(args.output)
        return 0
    for v in variants:
        print(f"--- variant {v['index']}\n{v['question']}\n=> {v['answer']}")
    return 0


def _cmd_audit(args: argparse.Namespace) -> int:
    from rich.table import Table

    from physeval.variation.commands import audit_command

    findings = audit_command(args.task, data=args.data, solutions=args.solutions, min_severity=args.min_severity)
    if args.json:
        for f in findings:
            print(json.dumps(f, ensure_ascii=False, default=str))
        return 0
    table = Table(title=f"audit of {args.task}: {len(findings)} findings")
    for column in ("severity", "problem", "variant", "kind", "evidence"):
        table.add_column(column)
    for f in findings:
        table.add_row(str(f.get("severity")), str(f.get("problem_id")), str(f.get("variant", "")),
                      str(f.get("kind")), str(f.get("message") or f.get("evidence") or ""))
    Console().print(table)
    return 0


def _cmd_stats(args: argparse.Namespace) -> int:
    from rich.table import Table

    from physeval.stats import sample_efficiency

    if len(args.run_dirs) < 2:
        raise UserError("sample-efficiency needs at least two runs")
    table = Table(title="sample efficiency of the score over accuracy, (t_score / t_accuracy)^2")
    for column in ("run A", "run B", "problems", "acc diff", "score diff", "t acc", "t score", "efficiency"):
        table.add_column(column)
    for pair in sample_efficiency(args.run_dirs):
        table.add_row(Path(pair.run_a).name, Path(pair.run_b).name, str(pair.problems),
                      f"{pair.accuracy_diff:+.3f}", f"{pair.score_diff:+.3f}", f"{pair.t_accuracy:.2f}",
                      f"{pair.t_score:.2f}", f"{pair.efficiency:.2f}")
    Console().print(table)
    return 0


def _cmd_sandbox(args: argparse.Namespace) -> int:
    from physeval.scenes.sandbox import isolation_report, sandbox_venv_path, setup_sandbox_env

    if args.action == "setup":
        python = setup_sandbox_env(args.path or sandbox_venv_path())
        print(f"sandbox interpreter ready: {python}")
        if args.path:
            print(f"use it with: export PHYSEVAL_SANDBOX_PYTHON={python}")
        return 0
    report = isolation_report(args.sandbox, probe=True)
    print(json.dumps(report, indent=2, default=str))
    return 1 if report["mode"] == "unavailable" else 0


def _cmd_render(args: argparse.Namespace) -> int:
    from physeval.scenes.prompt import extract_code
    from physeval.scenes.render import render_program

    text = Path(args.program).read_text(encoding="utf-8")
    code = extract_code(text) if "```" in text else text
    render = render_program(code, timeout=args.timeout, keep_dir=Path(args.out).resolve(),
                            video_name=Path(args.program).stem + ".mp4", sandbox=args.sandbox)
    print(json.dumps(render.to_dict(), indent=2, default=str))
    return 0 if render.playable else 1


def _cmd_agreement(args: argparse.Namespace) -> int:
    from physeval.scenes.agreement import (
        agreement_rich_table,
        agreement_table,
        judge_labels_from_verdicts,
        read_human_labels,
    )
    from physeval.store import RunStore

    if not RunStore.exists(args.run_dir):
        raise UserError(f"{args.run_dir}: no physeval run there")
    with RunStore(args.run_dir) as store:
        verdicts = [(r.problem_id, r.sample, r.grade["judge"]) for r in store.rows()
                    if r.grade and r.grade.get("judge")]
    if not verdicts:
        raise UserError(f"{args.run_dir} has no judge verdicts (was it a scene run with --judge?)")
    rows = agreement_table(judge_labels_from_verdicts(verdicts), read_human_labels(args.human))
    Console().print(agreement_rich_table(rows))
    return 0


EXIT_OK = 0
EXIT_BUG = 1
EXIT_USER_ERROR = 2
EXIT_INCOMPLETE = 3
EXIT_ABORTED = 4
EXIT_INTERRUPTED = 130


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``physeval`` console script.

    Exit status: 0 when every planned sample was answered and graded; 3 when some ended in
    errors or were not run; 4 when the run was aborted (model unreachable, wrong key or model
    name, circuit breaker); 2 for a user error (one line saying what to do); 1 for a bug in
    physeval (with its traceback); 130 when interrupted.
    """
    import traceback

    from physeval.errors import ModelError, RunAborted

    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return EXIT_OK
    try:
        return int(args.func(args) or 0)
    except UserError as exc:
        _console.print(f"[red]error:[/] {escape(str(exc))}")
        return EXIT_USER_ERROR
    except (ModelError, RunAborted) as exc:
        _console.print(f"[red]error:[/] {escape(str(exc))}")
        return EXIT_ABORTED
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except Exception:  # noqa: BLE001 - a bug: show everything and ask for a report
        _console.print(escape(traceback.format_exc()), highlight=False)
        _console.print("[red bold]internal error[/]: this is a bug in physeval, not in your input; please report it "
                       "with the traceback above and the command you ran")
        return EXIT_BUG
if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
