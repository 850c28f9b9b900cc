"""Stage 7: hold out the test split, then (optionally) solve, render and judge the rest.

``split`` (pure, recomputed whole): each reviewed scenario goes to ``test`` when a hash of the
build seed and its id falls below ``test_fraction``, else to ``train``. The choice depends on
nothing but the seed and the id, so a scenario keeps its split when the build grows, and the
test split is fixed before any solver sees a scenario.

``solve`` (only with a solver model, over the train split): the solver is asked with exactly
the prompt evaluation uses (:func:`physeval.scenes.prompt.scene_prompt`), its program rendered
in the sandbox and the video judged with the scenario's questions, exactly as the ``simuscene``
task grades a sample; up to ``solve_samples`` samples, stopping at the first verified one. A
scenario with a verified program feeds the SFT split (the program and the solver's reasoning
kept), the rest the RL split. When every judge fails the record is left unfinished (a rerun
asks again), and when the sandbox cannot run programs at all the build stops: neither sends a
scenario to RL for a fault that is not the program's.
"""

from __future__ import annotations

import asyncio
from typing import Any

from physeval.errors import ModelError, UserError
from physeval.scene_builder.calls import CachedModel, Role, derived_seed
from physeval.scene_builder.context import BuildContext, StageReport, run_items
from physeval.scene_builder.store import Item

__all__ = ["solve_stage", "split_of", "split_stage"]


def split_of(seed: int, rid: str, test_fraction: float) -> str:
    """``test`` or ``train`` for record ``rid``: a seeded hash compared with ``test_fraction``."""
    return "test" if derived_seed(seed, "split", rid) / 0x80000000 < test_fraction else "train"


async def split_stage(ctx: BuildContext) -> StageReport:
    """Assign every reviewed scenario to ``test`` or ``train``."""
    opts = ctx.options
    records = ctx.live_items("review")
    items = [Item("split", r.key, "ok", {**r.data, "split": split_of(opts.seed, r.key, opts.test_fraction)})
             for r in records]
    ctx.store.replace_stage("split", items)
    return StageReport("split", total=len(items), ok=len(items))


async def _environment(sandbox: str) -> Any:
    """The verified sandbox environment of the solve stage, or a user error naming the fix."""
    from physeval.scenes.sandbox import SandboxEnvironmentError, SandboxUnavailable, verify_environment

    try:
        return await asyncio.to_thread(verify_environment, None, sandbox=sandbox)
    except (SandboxUnavailable, SandboxEnvironmentError) as exc:
        raise UserError(f"solve: the sandbox cannot run programs here: {exc}") from exc


async def solve_stage(ctx: BuildContext) -> StageReport:
    """Solver programs for the train split, rendered and judged as in evaluation."""
    from physeval.scenes.judge import judge_video
    from physeval.scenes.prompt import extract_code, scene_prompt
    from physeval.scenes.render import render_program

    opts = ctx.options
    solver: Role = ctx.role("solver")
    judges = [CachedModel(j, ctx.caller, "judge") for j in ctx.judges]
    renders = asyncio.Semaphore(max(1, opts.render_workers))
    video_dir = ctx.build_dir / "videos"

    async def work(key: str, record: dict[str, Any]) -> Item:
        attempts: list[dict[str, Any]] = []
        verified: dict[str, Any] | None = None
        messages = scene_prompt(record["scenario"])
        for sample in range(opts.solve_samples):
            completion, cached = await ctx.caller.complete(solver, messages, stage="solve", sample=sample,
                                                           seed=derived_seed(opts.seed, "solve", key, sample))
            code = extract_code(completion.text)
            ctx.store.record_call(stage="solve", key=key, round=0, attempt=sample, model=solver.model.name,
                                  messages=messages, reply=completion.text, reasoning=completion.reasoning,
                                  ok=code is not None, error=None if code else "no program in the reply", cached=cached)
            async with renders:
                render = await asyncio.to_thread(render_program, code, timeout=opts.render_timeout,
                                                 keep_dir=video_dir, video_name=f"{key}_s{sample}.mp4",
                                                 sandbox=opts.sandbox, environment=environment)
            if render.stage == "sandbox_error":  # not the program's fault: never route a scene to RL for it
                raise UserError(f"solve: the sandbox cannot run programs here: {render.reason} "
                                "(see `physeval sandbox check`, or pass --sandbox)")
            attempt: dict[str, Any] = {"sample": sample, "program": code, "reasoning": completion.reasoning,
                                       "stage": render.stage, "reason": render.reason,
                                       "video": _relative(render.video_path, ctx), "verdict": None,
                                       "sandbox": (render.environment or {}).get("build")}
            if render.playable:
                verdict = await judge_video(questions=[{"index": str(i), "question": q} for i, q in
                                                       enumerate(record["questions"], 1)],
                                            judges=judges, video_path=render.video_path, mode=opts.judge_mode,
                                            n_frames=opts.judge_frames, summarize=record.get("summarize"),
                                            scenario=record["scenario"], seed=derived_seed(opts.seed, "judge", key))
                if verdict.outcome == "error":
                    raise ModelError("judge", f"the judges could not decide: {verdict.reason}", retryable=True)
                attempt["verdict"] = {"correct": verdict.correct, "outcome": verdict.outcome,
                                      "reason": verdict.reason, "per_question": verdict.per_question}
            attempts.append(attempt)
            if attempt["verdict"] and attempt["verdict"]["correct"]:
                verified = attempt
                break
        data = {**record, "solve": {"attempts": attempts, "verified": verified is not None}}
        if verified is not None:
            data["solution"] = {"program": verified["program"], "reasoning": verified["reasoning"],
                                "video": verified["video"], "solver": solver.model.name}
        return Item("solve", key, "ok", data)

    inputs = [(i.key, i.data) for i in ctx.live_items("split") if i.data["split"] == "train"]
    # one verified build for every solver program of the stage (nothing to render: nothing to verify)
    environment = await _environment(opts.sandbox) if inputs else None
    return await run_items(ctx, "solve", inputs, work)


def _relative(path: str | None, ctx: BuildContext) -> str | None:
    if path is None:
        return None
    try:
        from pathlib import Path

        return str(Path(path).resolve().relative_to(ctx.build_dir.resolve()))
    except ValueError:
        return path
