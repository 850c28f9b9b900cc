"""The build as a whole: options, the order of stages, resuming, and the final export.

``run_build`` runs the stages asked for (all of them by default) in this order::

    basic -> compose -> filter -> plausibility -> questions -> review -> split -> solve -> export

``solve`` runs only with a solver model (and needs judges); ``export`` writes the dataset
(:mod:`physeval.scene_builder.output`), the review sheet (:mod:`physeval.scene_builder.human`) and the card
(:mod:`physeval.scene_builder.card`). A stage runs only once the one before it is complete; a stage
left with unfinished records (requests that failed for good) stops the build there, and a
rerun of the same command continues where it stopped. Every finished record is in the build
store and every reply in the response cache, so a rerun repeats no answered request and a
finished stage costs nothing.

The settings that shape the output (seed, counts, bounds, prompts, model names) are recorded
in the build store at the first run; a later run of the same directory with different ones is
refused (start a new ``--out``). The concept selection (``--concepts``, ``--limit``) is not
among them: a later run with more concepts *grows* the build, and the filters then run over
the whole set.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from physeval.errors import OptionError, UserError
from physeval.interrupts import run_stoppable
from physeval.models.base import Model
from physeval.run_lock import hold_run_folder
from physeval.scene_builder.calls import JsonCaller, Role
from physeval.scene_builder.context import BuildContext, StageReport
from physeval.scene_builder.prompts import load_prompts
from physeval.scene_builder.store import BuildStore
from physeval.scene_builder.taxonomy import load_taxonomy

__all__ = ["STAGES", "BuildModels", "BuildOptions", "BuildResult", "export_build", "run_build"]

STAGES = ("basic", "compose", "filter", "plausibility", "questions", "review", "split", "solve", "export")
_NEEDS = {s: STAGES[i - 1] for i, s in enumerate(STAGES) if i > 0}
_NEEDS["export"] = "split"  # solve is optional; export says when it is unfinished


@dataclass(frozen=True)
class BuildOptions:
    """Everything that decides what a build makes (frozen: it is recorded and compared on resume).

    Attributes:
        taxonomy: A taxonomy YAML (``None``: the shipped five domains and 52 concepts).
        concepts: Concept or domain names to build (empty: all); ``limit``: the first N of them.
        per_concept: Basic scenarios asked per concept; ``conditions_per_concept``: conditions asked.
        compositions: Scenarios composed from each basic scenario.
        levels: The levels (numbers of added conditions) drawn from, uniformly.
        seed: Seeds every draw (levels, conditions, splits) and every request's ``seed``.
        min_tokens, max_scenario_tokens: Length bounds of a scenario text.
        duplicate_threshold: Similarity (0-100) at which a later scenario is a near duplicate.
        max_revisions: Revisions of a question set the reviewer finds insufficient.
        reply_attempts: Requests per reply before a record is rejected as malformed.
        test_fraction: Share of scenarios held out as the test split.
        solve_samples: Solver samples per train scenario (stops at the first verified one).
        render_timeout, render_workers, sandbox: How solver programs are rendered.
        judge_mode, judge_frames: How the judges see a rendered video.
        temperature: Sampling temperature of the generator (checker and reviewer use 0).
        solver_temperature: Sampling temperature of the solver.
        max_tokens: Reply budget of every request (``None``: the server's).
        json_mode: Ask servers for a JSON object (``response_format``) in the JSON stages.
        max_connections: Requests in flight at once (not recorded: it never changes the output).
        prompts: ``(stage, file)`` pairs replacing shipped prompts.
    """

    taxonomy: str | None = None
    concepts: tuple[str, ...] = ()
    limit: int | None = None
    per_concept: int = 4
    conditions_per_concept: int = 6
    compositions: int = 1
    levels: tuple[int, ...] = (0, 1, 2, 3)
    seed: int = 0
    min_tokens: int = 100
    max_scenario_tokens: int = 350
    duplicate_threshold: float = 90.0
    max_revisions: int = 2
    reply_attempts: int = 3
    test_fraction: float = 0.2
    solve_samples: int = 1
    render_timeout: float = 120.0
    render_workers: int = 2
    sandbox: str = "auto"
    judge_mode: Literal["frames", "video"] = "frames"
    judge_frames: int = 16
    temperature: float = 0.7
    solver_temperature: float = 0.0
    max_tokens: int | None = None
    json_mode: bool = False
    max_connections: int = 8
    prompts: tuple[tuple[str, str], ...] = ()

    def __post_init__(self) -> None:
        for name in ("per_concept", "compositions", "reply_attempts", "solve_samples", "max_connections",
                     "render_workers", "judge_frames"):
            if getattr(self, name) < 1:
                raise OptionError(f"{name.replace('_', '-')} must be at least 1")
        if self.conditions_per_concept < 0 or self.max_revisions < 0:
            raise OptionError("conditions-per-concept and max-revisions cannot be negative")
        if not self.levels or any(lv < 0 or lv > 3 for lv in self.levels):
            raise OptionError("--levels must be numbers of conditions between 0 and 3, e.g. 0,1,2,3")
        if not 0 < self.min_tokens <= self.max_scenario_tokens:
            raise OptionError("need 0 < --min-tokens <= --max-scenario-tokens")
        if not 0 < self.duplicate_threshold <= 100:
            raise OptionError("--duplicate-threshold is a similarity in (0, 100]")
        if not 0 <= self.test_fraction <= 1:
            raise OptionError("--test-fraction must be between 0 and 1")
        if self.judge_mode not in ("frames", "video"):
            raise OptionError("--judge-mode must be frames or video")

    def settings(self) -> dict[str, Any]:
        """The recorded settings: every field but the concept selection, the concurrency and the render
        environment (``render_timeout``, ``sandbox``: a rerun may need a longer limit or another backend)."""
        data = dataclasses.asdict(self)
        for name in ("concepts", "limit", "max_connections", "render_workers", "render_timeout", "sandbox"):
            data.pop(name)
        data["levels"] = list(self.levels)
        data["prompts"] = load_prompts(dict(self.prompts)).digest()
        return data


@dataclass(frozen=True)
class BuildModels:
    """The models of a build. ``checker`` and ``reviewer`` default to the generator (a distinct
    reviewer is better: the paper uses a second model); ``solver`` enables stage 7 and needs judges."""

    generator: Model | None = None
    checker: Model | None = None
    reviewer: Model | None = None
    solver: Model | None = None
    judges: tuple[Model, ...] = ()

    def names(self) -> dict[str, str]:
        """Role -> model name, for the record and the card."""
        out: dict[str, str] = {}
        if self.generator is not None:
            out["generator"] = self.generator.name
            out["checker"] = (self.checker or self.generator).name
            out["reviewer"] = (self.reviewer or self.generator).name
        if self.solver is not None:
            out["solver"] = self.solver.name
        if self.judges:
            out["judges"] = ", ".join(j.name for j in self.judges)
        return out


@dataclass
class BuildResult:
    """What a run of :func:`run_build` did and where the output is."""

    build_dir: Path
    reports: list[StageReport] = field(default_factory=list)
    requests: dict[str, int] = field(default_factory=dict)
    cache_hits: dict[str, int] = field(default_factory=dict)
    files: dict[str, Path] = field(default_factory=dict)
    stopped_at: str | None = None

    @property
    def complete(self) -> bool:
        """Whether every stage asked for finished all of its records."""
        return self.stopped_at is None


def _check_settings(store: BuildStore, settings: dict[str, Any], models: dict[str, str]) -> None:
    recorded = store.get_meta("settings")
    recorded_models = store.get_meta("models") or {}
    if recorded is None:
        store.set_meta("settings", settings)
        store.set_meta("models", models)
        return
    diff = [f"{k}: {recorded.get(k)!r} -> {settings.get(k)!r}" for k in sorted(set(recorded) | set(settings))
            if recorded.get(k) != settings.get(k)]
    diff += [f"{role} model: {recorded_models[role]!r} -> {name!r}" for role, name in models.items()
             if role in recorded_models and recorded_models[role] != name]
    if diff:
        raise UserError(f"{store.build_dir} was built with other settings ({'; '.join(diff)}); "
                        "use the same ones to continue it, or a new --out")
    store.set_meta("models", {**recorded_models, **models})


def run_build(out: str | Path, options: BuildOptions, models: BuildModels, *,
              stages: Sequence[str] | None = None, progress: bool = False, cache: Any = "default",
              console: Any = None, invocation: dict[str, Any] | None = None) -> BuildResult:
    """Run ``stages`` (default: all) of the build in ``out``; see the module docstring.

    ``cache`` is a :class:`~physeval.cache.ResponseCache`, ``None`` (no cache) or ``"default"`` (the
    user's); ``invocation`` (the command line's options) is recorded once the settings are accepted.
    """
    return run_stoppable(run_build_async(out, options, models, stages=stages, progress=progress, cache=cache,
                                       console=console, invocation=invocation))


async def run_build_async(out: str | Path, options: BuildOptions, models: BuildModels, *,
                          stages: Sequence[str] | None = None, progress: bool = False, cache: Any = "default",
                          console: Any = None, invocation: dict[str, Any] | None = None) -> BuildResult:
    """:func:`run_build` inside a running event loop."""
    from physeval.cache import ResponseCache
    from physeval.scene_builder import checks, filters, generate, solve

    wanted = list(stages) if stages else list(STAGES)
    unknown = [s for s in wanted if s not in STAGES]
    if unknown:
        raise OptionError(f"unknown stage {', '.join(unknown)}: use {', '.join(STAGES)}")
    wanted = [s for s in STAGES if s in wanted]
    taxonomy = load_taxonomy(options.taxonomy)
    concepts = taxonomy.select(options.concepts, limit=options.limit)
    prompts = load_prompts(dict(options.prompts))
    needs_generator = {"basic", "compose", "plausibility", "questions", "review"} & set(wanted)
    if needs_generator and models.generator is None:
        raise OptionError(f"stages {', '.join(s for s in wanted if s in needs_generator)} need --generator")
    if models.solver is not None and not models.judges:
        raise OptionError("--solver needs at least one --judge to verify the programs")
    owns_cache = cache == "default"
    response_cache = ResponseCache() if owns_cache else cache
    folder = ExitStack()  # one writer a build folder (physeval.run_lock), released after the store closes
    folder.enter_context(hold_run_folder(out, "build"))
    store = folder.enter_context(BuildStore(out))
    result = BuildResult(Path(out))
    try:
        _check_settings(store, options.settings(), models.names())
        if invocation is not None:
            store.set_meta("invocation", invocation)
        caller = JsonCaller(store, response_cache, prompts, seed=options.seed, reply_attempts=options.reply_attempts,
                            json_mode=options.json_mode)
        roles: dict[str, Role] = {}
        if models.generator is not None:
            roles["generator"] = Role("generator", models.generator, options.temperature, options.max_tokens)
            roles["checker"] = Role("checker", models.checker or models.generator, 0.0, options.max_tokens)
            roles["reviewer"] = Role("reviewer", models.reviewer or models.generator, 0.0, options.max_tokens)
        if models.solver is not None:
            roles["solver"] = Role("solver", models.solver, options.solver_temperature, options.max_tokens)
        ctx = BuildContext(store, caller, options, concepts, roles, list(models.judges), console, progress)
        runners = {"basic": generate.basic_stage, "compose": generate.compose_stage, "filter": filters.filter_stage,
                   "plausibility": checks.plausibility_stage, "questions": checks.questions_stage,
                   "review": checks.review_stage, "split": solve.split_stage, "solve": solve.solve_stage}
        for stage in wanted:
            need = _NEEDS.get(stage)
            if need is not None and need not in wanted and not store.get_meta(f"complete:{need}", False):
                raise UserError(f"stage {stage} needs stage {need} to be finished first: run --stage {need}")
            if stage == "export":
                result.files = export_build(store, solved=models.solver is not None
                                            or bool(store.get_meta("complete:solve", False)))
                continue
            if stage == "solve" and models.solver is None:
                report = StageReport("solve", skipped_reason="no --solver given")
            else:
                report = await runners[stage](ctx)
                store.set_meta(f"complete:{stage}", report.complete)
            result.reports.append(report)
            if not report.complete and not report.skipped_reason:
                result.stopped_at = stage
                break
        result.requests = dict(caller.requests)
        result.cache_hits = dict(caller.cache_hits)
    finally:
        folder.close()
        if owns_cache and response_cache is not None:
            response_cache.close()
    return result


def export_build(store: BuildStore, *, solved: bool) -> dict[str, Path]:
    """Write the dataset, the review sheet and the card from what the store holds now."""
    from physeval.scene_builder.card import write_card
    from physeval.scene_builder.human import write_review_sheet
    from physeval.scene_builder.output import final_records, write_dataset

    records, human = final_records(store)
    files = dict(write_dataset(store.build_dir, records, solved=solved))
    sheet = write_review_sheet(store.build_dir, records)
    files |= {f"review_{k}": v for k, v in sheet.items()}
    card = write_card(store.build_dir, store, records, human=human, settings=store.get_meta("settings") or {},
                      models=store.get_meta("models") or {}, files=files, solved=solved)
    files["card"] = card
    return files
