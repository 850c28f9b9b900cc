"""The ``physeval build`` subcommands: ``scenes`` (the pipeline), ``import-review``, ``prompts``.

Kept apart from :mod:`physeval.cli` so the CLI only hooks it in. Building the parser imports
nothing heavy; the commands import the pipeline when they run.

A build directory remembers the options it was started with: ``physeval build scenes --out DIR
--stage compose`` after a first ``--stage basic`` reuses the models and settings given then
(explicit flags win; the API key is never stored).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

__all__ = ["add_build_parser"]

_ROLES = ("generator", "checker", "reviewer", "solver", "judge")
_INTS = ("limit", "per_concept", "conditions_per_concept", "compositions", "seed", "min_tokens",
         "max_scenario_tokens", "max_revisions", "reply_attempts", "solve_samples", "render_workers", "judge_frames",
         "max_tokens", "max_connections")
_FLOATS = ("duplicate_threshold", "test_fraction", "render_timeout", "temperature", "solver_temperature")
_NOT_STORED = {"func", "command", "build_command", "api_key", "out", "stage", "no_progress", "no_cache",
               "prompts_out"}


def add_build_parser(sub: Any) -> None:
    """Add ``build`` with its subcommands to the CLI's subparsers."""
    build = sub.add_parser("build", help="build new scene datasets (SimuScene's pipeline)",
                           description="Grow a SimuScene-format dataset with models: basic scenarios per concept, "
                                       "composition with conditions, plausibility, verification questions and "
                                       "their review, quality filters, optional solve-and-verify, human review.")
    inner = build.add_subparsers(dest="build_command", metavar="WHAT")
    scenes = inner.add_parser("scenes", help="run the pipeline (all stages, or --stage ...); resumable",
                              description="Build scenes into --out (a build directory; rerun the same command "
                                          "to resume: nothing finished is redone, no answered request repeated).")
    scenes.add_argument("--out", required=True, help="build directory (created; resumed when it exists)")
    scenes.add_argument("--stage", action="append", metavar="STAGE",
                        help="run only these stages (repeatable): basic, compose, filter, plausibility, questions, "
                             "review, split, solve, export (default: all)")
    models = scenes.add_argument_group("models (PROVIDER/NAME as in `physeval run --model`)")
    models.add_argument("--generator", help="writes scenarios, conditions and questions")
    models.add_argument("--checker", help="checks plausibility and renderability (default: the generator)")
    models.add_argument("--reviewer", help="reviews question sets (default: the generator; a second model is better)")
    models.add_argument("--solver", help="writes programs for the train split (enables the solve stage)")
    models.add_argument("--judge", action="append", help="vision-language judge of solver videos (repeatable)")
    models.add_argument("--base-url", help="server URL for every model (default: OPENAI_BASE_URL or the provider's)")
    for role in _ROLES:
        models.add_argument(f"--{role}-base-url", help=f"server URL of the {role} (default: --base-url)")
    models.add_argument("--api-key", help="API key (default: OPENAI_API_KEY)")
    models.add_argument("--timeout", type=float, help="seconds per request (default 600)")
    models.add_argument("--max-attempts", type=int, help="tries per request on transient errors (default 5)")
    what = scenes.add_argument_group("what to build")
    what.add_argument("--taxonomy", help="taxonomy YAML (default: the shipped 5 domains, 52 concepts)")
    what.add_argument("--concepts", action="append",
                      help="concepts or domains to build, comma-separated (repeatable; default all)")
    what.add_argument("--limit", type=int, help="only the first N selected concepts")
    what.add_argument("--per-concept", type=int, help="basic scenarios per concept (default 4)")
    what.add_argument("--conditions-per-concept", type=int, help="additional conditions asked per concept (default 6)")
    what.add_argument("--compositions", type=int, help="scenarios composed per basic scenario (default 1)")
    what.add_argument("--levels", help="levels (numbers of conditions) to draw from, e.g. 0,1,2,3 (the default)")
    what.add_argument("--seed", type=int, help="seed of every draw and request (default 0)")
    what.add_argument("--prompt", action="append", metavar="STAGE=FILE",
                      help="replace a prompt (basic, compose, plausibility, questions, review, revise, repair); "
                           "`physeval build prompts DIR` writes the shipped ones to edit")
    quality = scenes.add_argument_group("quality")
    quality.add_argument("--min-tokens", type=int, help="shortest scenario in tokens (default 100)")
    quality.add_argument("--max-scenario-tokens", type=int, help="longest scenario in tokens (default 350)")
    quality.add_argument("--duplicate-threshold", type=float,
                         help="similarity 0-100 at which a scenario is a near duplicate (default 90)")
    quality.add_argument("--max-revisions", type=int, help="revisions of an insufficient question set (default 2)")
    quality.add_argument("--reply-attempts", type=int, help="requests per reply before it is rejected (default 3)")
    quality.add_argument("--test-fraction", type=float, help="share held out as the test split (default 0.2)")
    solving = scenes.add_argument_group("solve and verify (with --solver and --judge)")
    solving.add_argument("--solve-samples", type=int, help="solver samples per scenario (default 1)")
    solving.add_argument("--render-timeout", type=float, help="seconds per program (default 120)")
    solving.add_argument("--render-workers", type=int, help="renders at once (default 2)")
    solving.add_argument("--sandbox", help="sandbox backend: auto (default), bwrap, namespaces, none (unsafe)")
    solving.add_argument("--judge-mode", choices=["frames", "video"], help="how judges see a video (default frames)")
    solving.add_argument("--judge-frames", type=int, help="frames per video (default 16)")
    sampling = scenes.add_argument_group("sampling and concurrency")
    sampling.add_argument("--temperature", type=float, help="generator temperature (default 0.7)")
    sampling.add_argument("--solver-temperature", type=float, help="solver temperature (default 0)")
    sampling.add_argument("--max-tokens", type=int, help="reply budget of every request (default: the server's)")
    sampling.add_argument("--json-mode", action="store_true", default=None,
                          help="ask servers for a JSON object (response_format) in the JSON stages")
    sampling.add_argument("--max-connections", type=int, help="requests in flight at once (default 8)")
    sampling.add_argument("--no-cache", action="store_true", default=None, help="bypass the response cache")
    scenes.add_argument("--no-progress", action="store_true", help="no progress bars")
    scenes.set_defaults(func=_cmd_scenes)

    review = inner.add_parser("import-review", help="record human reviewers' decisions and export again",
                              description="Read a filled review sheet (DIR/review/sheet.csv or .jsonl: decision "
                                          "accept, fix or drop; fixed_scenario, fixed_questions; reviewer) and "
                                          "write the dataset and card again with the decisions applied.")
    review.add_argument("build_dir")
    review.add_argument("sheet")
    review.add_argument("--by", help="who decided, for rows with an empty reviewer column")
    review.set_defaults(func=_cmd_import_review)

    prompts = inner.add_parser("prompts", help="write the shipped prompts to a folder, to edit and pass with --prompt",
                               description="Copy the shipped prompt files (one per stage) into DIR.")
    prompts.add_argument("prompts_out", metavar="DIR")
    prompts.set_defaults(func=_cmd_prompts)
    build.set_defaults(func=lambda args: (build.print_help(), 0)[1])


def _merged(args: argparse.Namespace) -> dict[str, Any]:
    from physeval.scene_builder.store import BuildStore

    stored: dict[str, Any] = {}
    if BuildStore.exists(args.out):
        with BuildStore(args.out) as store:
            stored = store.get_meta("invocation") or {}
    given = {k: v for k, v in vars(args).items() if v is not None and k not in _NOT_STORED}
    return {**stored, **given}


def _options(values: dict[str, Any]) -> Any:
    from physeval.errors import OptionError
    from physeval.scene_builder.pipeline import BuildOptions

    kwargs: dict[str, Any] = {k: values[k] for k in (*_INTS, *_FLOATS) if values.get(k) is not None}
    for name in ("taxonomy", "sandbox", "judge_mode", "json_mode"):
        if values.get(name) is not None:
            kwargs[name] = values[name]
    if values.get("concepts"):
        kwargs["concepts"] = tuple(c.strip() for item in values["concepts"] for c in str(item).split(",") if c.strip())
    if values.get("levels") is not None:
        try:
            kwargs["levels"] = tuple(int(x) for x in str(values["levels"]).split(",") if x.strip())
        except ValueError:
            raise OptionError(f"--levels {values['levels']!r}: expected numbers like 0,1,2,3") from None
    if values.get("prompt"):
        pairs = []
        for item in values["prompt"]:
            stage, sep, file = str(item).partition("=")
            if not sep or not stage.strip() or not file.strip():
                raise OptionError(f"--prompt {item!r}: expected STAGE=FILE")
            pairs.append((stage.strip(), str(Path(file.strip()).resolve())))
        kwargs["prompts"] = tuple(pairs)
    return BuildOptions(**kwargs)


def _models(values: dict[str, Any], api_key: str | None) -> Any:
    from physeval.models.spec import model_from_spec
    from physeval.scene_builder.pipeline import BuildModels

    def make(role: str, spec: str | None) -> Any:
        if not spec:
            return None
        return model_from_spec(spec, base_url=values.get(f"{role}_base_url") or values.get("base_url"),
                               api_key=api_key, timeout=values.get("timeout") or 600.0,
                               max_attempts=values.get("max_attempts") or 5)

    return BuildModels(generator=make("generator", values.get("generator")),
                       checker=make("checker", values.get("checker")),
                       reviewer=make("reviewer", values.get("reviewer")),
                       solver=make("solver", values.get("solver")),
                       judges=tuple(make("judge", s) for s in values.get("judge") or ()))


def _cmd_scenes(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.markup import escape

    from physeval.scene_builder.pipeline import run_build

    console = Console(stderr=True, soft_wrap=True)
    values = _merged(args)
    options = _options(values)
    models = _models(values, args.api_key)
    cache = None if args.no_cache else "default"
    try:
        result = run_build(args.out, options, models, stages=args.stage, cache=cache, console=console,
                           progress=not args.no_progress and sys.stderr.isatty(), invocation=values)
    except KeyboardInterrupt as exc:  # Ctrl-C, or SIGTERM (raised as Terminated), as physeval run answers them
        from physeval.interrupts import Terminated, interrupted_status

        how = "terminated (SIGTERM)" if isinstance(exc, Terminated) else "interrupted"
        console.print(f"[yellow]{how}[/]: finished records are kept; rerun the same command to continue "
                      f"({escape(args.out)})")
        return interrupted_status(exc)
    for report in result.reports:
        requests = result.requests.get(report.stage, 0) + _extra(result, report.stage, "requests")
        hits = result.cache_hits.get(report.stage, 0) + _extra(result, report.stage, "cache_hits")
        console.print(escape(report.line(requests, hits)))
    if result.files:
        console.print(f"dataset: {escape(str(result.files['scenes']))}; card: {escape(str(result.files['card']))}; "
                      f"review sheet: {escape(str(result.files['review_csv']))}")
    if result.stopped_at:
        console.print(f"[red bold]stopped at {escape(result.stopped_at)}[/]: some records are unfinished; rerun "
                      "the same command to retry them")
        return 3
    return 0


def _extra(result: Any, stage: str, what: str) -> int:
    """Requests of helper stages shown with the stage that makes them (revisions with review, judges with solve)."""
    helpers = {"review": ("revise", "regenerate"), "solve": ("judge",)}.get(stage, ())
    return sum(getattr(result, what).get(helper, 0) for helper in helpers)


def _cmd_import_review(args: argparse.Namespace) -> int:
    from physeval.errors import UserError
    from physeval.scene_builder.context import live_items
    from physeval.scene_builder.human import import_review
    from physeval.scene_builder.pipeline import export_build
    from physeval.scene_builder.store import BuildStore

    if not BuildStore.exists(args.build_dir):
        raise UserError(f"{args.build_dir}: no physeval build there")
    with BuildStore(args.build_dir) as store:
        known = {i.key for i in live_items(store, "split")}
        report = import_review(store, args.sheet, decided_by=args.by, known_ids=known)
        files = export_build(store, solved=bool(store.get_meta("complete:solve", False)))
    print(report.line())
    print(f"dataset: {files['scenes']}; card: {files['card']}")
    return 0


def _cmd_prompts(args: argparse.Namespace) -> int:
    from physeval.scene_builder.prompts import PROMPT_DIR, PROMPT_FIELDS

    out = Path(args.prompts_out)
    out.mkdir(parents=True, exist_ok=True)
    for name in PROMPT_FIELDS:
        (out / f"{name}.txt").write_text((PROMPT_DIR / f"{name}.txt").read_text(encoding="utf-8"), encoding="utf-8")
        print(out / f"{name}.txt")
    return 0
