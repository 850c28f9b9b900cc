"""A finished run's metrics and samples to Weights & Biases and TensorBoard.

What is logged is read from the run directory alone (``summary.json`` and the run store), so a
resumed or regraded run logs what its summary says:

- **scalars**: every metric of the summary under its own name (``accuracy``, ``dynamic_accuracy``,
  ``pass@4``) and every grouped one as ``<key>/<value>/<name>`` (``language/zh/accuracy``), plus
  the sample counts as ``counts/<name>`` (see :func:`scalars`);
- **a per-sample table** (W&B only): one row per sample with its status, verdict, outcome,
  reason, extracted answer and completion (see :func:`sample_table`);
- **the run's config** (W&B run config; a TensorBoard text entry);
- **TensorBoard**: each run in its own subdirectory of the log directory, the headline metrics
  as a curve over the run (one step per tenth of the graded samples) ending in every scalar, under
  the same names as W&B's (see :func:`log_to_tensorboard`).

Weights & Biases honours ``WANDB_MODE`` (``offline`` writes the run under ``WANDB_DIR`` and needs
no network; ``wandb sync`` uploads it later). TensorBoard uses ``tensorboardX``'s summary writer
(protobuf only, no TensorFlow or torch). Each library is imported only when its logger is used;
a missing one is a :class:`~physeval.errors.MissingExtraError` naming the extra to install.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from physeval.errors import missing_extra
from physeval.summary import Counts, RunSummary, read_summary

__all__ = ["SAMPLE_COLUMNS", "log_run", "log_to_tensorboard", "log_to_wandb", "sample_table", "scalars",
           "tensorboard_run_name"]

SAMPLE_COLUMNS = ("problem_id", "variant", "sample", "status", "correct", "outcome", "score", "extracted",
                  "reason", "error_kind", "completion")


def scalars(summary: RunSummary) -> dict[str, float]:
    """Every finite metric of ``summary`` by name; grouped ones as ``key/value/name``; counts as
    ``counts/name``. A metric without a value (NaN, null) is left out."""
    out: dict[str, float] = {}

    def put(name: str, value: Any) -> None:
        if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
            out[name] = float(value)

    for key, metric in summary.entries():
        put(key.name if key.key is None else f"{key.key}/{key.value}/{key.name}", metric.value)
    for name in Counts.__dataclass_fields__:
        put(f"counts/{name}", getattr(summary.counts, name))
    return out


def sample_table(run_dir: str | Path) -> list[list[Any]]:
    """One row per stored sample, in :data:`SAMPLE_COLUMNS` order (store order)."""
    from physeval.store import RunStore

    rows = []
    with RunStore(run_dir) as store:
        for r in store.rows():
            grade = r.grade or {}
            rows.append([r.problem_id, r.variant, r.sample, r.status, r.correct, r.outcome, r.score,
                         grade.get("extracted"), grade.get("reason") or r.error_message, r.error_kind, r.completion])
    return rows


def _summary(run_dir: str | Path) -> RunSummary:
    return read_summary(run_dir)


def _run_name(summary: RunSummary, run_dir: Path) -> str:
    return f"{summary.task or 'task'}:{summary.model or 'model'}:{run_dir.name}"


def log_to_wandb(run_dir: str | Path, project: str, *, name: str | None = None, mode: str | None = None) -> str:
    """Log the run in ``run_dir`` to W&B ``project`` as one W&B run; returns its local directory.

    ``mode`` is W&B's (``online``, ``offline``, ``disabled``); ``None`` leaves it to ``WANDB_MODE``.
    The scalars go to the run's summary and as one logged step; the samples as the table
    ``samples``; ``summary.json``'s config (the task's own as ``task_config``), task name, model
    and run directory as the run config.
    """
    try:
        import wandb
    except ImportError as exc:
        raise missing_extra("--wandb", "wandb", "wandb") from exc
    run_dir = Path(run_dir)
    summary = _summary(run_dir)
    values = scalars(summary)
    recorded = dict(summary.config)
    config = {**recorded, "task": summary.task, "task_config": recorded.get("task"),
              "model": summary.model, "run_dir": str(run_dir)}
    run = wandb.init(project=project, name=name or _run_name(summary, run_dir), config=config,
                     mode=mode,  # type: ignore[arg-type]  # the WANDB_MODE value, passed through
                     reinit="create_new")
    try:
        run.log({**values, "samples": wandb.Table(columns=list(SAMPLE_COLUMNS),
                                                   data=[[_cell(v) for v in row] for row in sample_table(run_dir)])})
        run.summary.update(values)
        directory = str(Path(run.dir).parent)
    finally:
        run.finish()
    return directory


def _cell(value: Any) -> Any:
    """W&B tables take scalars; anything else is shown as JSON text."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return json.dumps(value, default=str)


def tensorboard_run_name(run_dir: str | Path) -> str:
    """The subdirectory of a TensorBoard log directory that holds one physeval run: the run
    directory's name (``20261201T2000Z_bank-numeric_qwen``), so several runs sit side by side."""
    return Path(run_dir).resolve().name or "run"


def _running_scalars(run_dir: Path, batches: int) -> list[tuple[int, dict[str, float]]]:
    """``(samples graded so far, headline metrics on them)`` after each of ``batches`` equal slices
    of the graded samples in the order they were stored, measured against the run's plan (so the
    dynamic metrics of a point leave out the problems not yet whole); empty when the task cannot
    be rebuilt."""
    from physeval.graded import graded_outcomes
    from physeval.plan import recorded_plan, with_plan
    from physeval.store import RunStore
    from physeval.tasks.registry import get_task

    with RunStore(run_dir) as store:
        meta = store.run_meta()
        rows = store.rows()
        plan = recorded_plan(store, rows)
    rows.sort(key=lambda r: r.created_at)  # the order the run stored them
    outcomes = graded_outcomes(rows)
    if meta is None or not outcomes:
        return []
    try:
        task = get_task(meta.task, **meta.task_options)
    except Exception:  # noqa: BLE001 - a plugin task or data no longer there: the final scalars still go
        return []
    size = max(1, -(-len(outcomes) // max(1, batches)))
    points = []
    for end in range(size, len(outcomes) + size, size):
        done = with_plan(outcomes[: min(end, len(outcomes))], plan)
        metrics = task.measure(done)
        points.append((len(done), {name: m.value for name, m in metrics.items()
                                   if m.value is not None and math.isfinite(m.value)}))
    return points


def log_to_tensorboard(run_dir: str | Path, log_dir: str | Path, *, step: int | None = None,
                       batches: int = 10) -> Path:
    """Write the run's scalars to a TensorBoard event file in ``log_dir/<run name>`` (see
    :func:`tensorboard_run_name`); returns that directory.

    The headline metrics are a curve: at step ``k`` they are recomputed on the first ``k`` graded
    samples (in the order the run stored them), one step per ``1/batches`` of the run; at the last
    step (the number of graded samples, or ``step`` when given) every scalar of the summary, the
    names W&B gets (``pass@4``, ``language/zh/accuracy``: tags are written as they are, not
    rewritten to TensorFlow node names), and the config as text.
    """
    try:
        from tensorboardX import SummaryWriter
        from tensorboardX.proto.summary_pb2 import Summary
    except ImportError as exc:
        raise missing_extra("--tensorboard", "tensorboard", "tensorboardX") from exc
    run_dir = Path(run_dir)
    target = Path(log_dir) / tensorboard_run_name(run_dir)
    summary = _summary(run_dir)
    curve = _running_scalars(run_dir, batches) if step is None else []
    last = step if step is not None else (curve[-1][0] if curve else 0)
    writer = SummaryWriter(logdir=str(target))

    def write(values: Mapping[str, float], at: int) -> None:
        proto = Summary(value=[Summary.Value(tag=tag, simple_value=value) for tag, value in values.items()])
        writer.file_writer.add_summary(proto, global_step=at)

    try:
        for at, values in curve[:-1]:
            write(values, at)
        write(scalars(summary), last)
        config = {"task": summary.task, "model": summary.model, "config": summary.config}
        writer.add_text("config", "```\n" + json.dumps(config, indent=2, default=str) + "\n```", global_step=last)
    finally:
        writer.close()
    return target


def log_run(run_dir: str | Path, *, wandb_project: str | None = None, tensorboard_dir: str | Path | None = None,
            ) -> dict[str, str]:
    """Log the finished run in ``run_dir`` wherever asked (``physeval run --wandb/--tensorboard``);
    returns ``{"wandb": local dir, "tensorboard": log dir}`` for what was written."""
    written: dict[str, str] = {}
    if wandb_project:
        written["wandb"] = log_to_wandb(run_dir, wandb_project)
    if tensorboard_dir:
        written["tensorboard"] = str(log_to_tensorboard(run_dir, tensorboard_dir))
    return written
