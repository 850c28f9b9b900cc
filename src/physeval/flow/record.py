"""The run's record: its folder, what defines it, the plan it set out to grade.

The store (:mod:`physeval.store`) keeps one row per sample, written by execution the moment each
is known, and the run's sessions. This step writes what defines the run beside them, once per
session, before the first request: the :class:`~physeval.store.RunMeta` (task and its options,
model, settings, data hashes, the command line) and the plan. It also guards the folder: one
task per folder, and a resume that would change what a sample is is refused with the difference
spelled out (``force`` accepts it and records both).
"""

from __future__ import annotations

import json
import re
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from physeval.errors import UserError
from physeval.flow.config import RunConfig
from physeval.plan import PLAN_META, Plan
from physeval.provenance import config_diff, file_sha256, utc_iso
from physeval.store import RunMeta, RunStore, SampleRow
from physeval.tasks.base import Task

__all__ = ["RESUMABLE_FREELY", "check_run_dir", "claim_run_dir", "default_run_dir", "jsonable",
           "record_rows", "record_run", "run_settings", "task_options_of"]

RESUMABLE_FREELY = ("samples", "limit", "max_connections", "use_cache", "retry_errors", "grade_concurrency",
                    "max_consecutive_errors", "preflight", "price_in", "price_out")
"""Run settings that may change on resume without changing what a sample is."""

def default_run_dir(task: str, model: str, root: str | Path = "runs", *, now: datetime | None = None) -> Path:
    """``runs/<UTC timestamp>_<task>_<model>`` with the model name made path-safe: the name a new
    run asks :func:`claim_run_dir` for."""
    stamp = (now or datetime.now(UTC)).strftime("%Y%m%dT%H%M%SZ")
    safe_model = re.sub(r"[^A-Za-z0-9._-]+", "-", model).strip("-") or "model"
    return Path(root) / f"{stamp}_{task}_{safe_model}"


def claim_run_dir(preferred: Path) -> Path:
    """Make ``preferred`` for a new run, or the first of ``preferred-2``, ``-3``... that does not exist.

    The default name has one-second resolution: two runs of one task and model started in the
    same second (a script's runs one after the other, or a sweep launched with ``&``) named one
    folder, and all but the first stopped ("run with other settings", or on its lock) or resumed
    it. ``mkdir`` is atomic, so each gets a folder of its own. An explicit ``--out`` is never
    renamed.
    """
    path, number = preferred, 1
    while True:
        try:
            path.mkdir(parents=True)
            return path
        except FileExistsError:
            number += 1
            path = preferred.with_name(f"{preferred.name}-{number}")


def task_options_of(task: Task) -> dict[str, Any]:
    """The options that rebuild ``task`` with :func:`get_task` (for ``regrade``)."""
    options: dict[str, Any] = {k: v for k, v in task.options.items()}
    if task.data is not None:
        options["data"] = str(task.data)
    return options


def run_settings(task: Task, config: RunConfig, model_identity: str) -> dict[str, Any]:
    """What decides a sample (model, sampling, task config): a resume with other settings is refused."""
    return {"model": model_identity, **{k: v for k, v in config.to_dict().items() if k not in RESUMABLE_FREELY},
            "task": task.config()}


def record_run(store: RunStore, task: Task, *, model: str, config: dict[str, Any], plan: Plan,
               settings: dict[str, Any] | None = None, invocation: dict[str, Any] | None = None) -> None:
    """Write what defines the run (one :class:`RunMeta`, replacing the previous session's) and its plan.

    Data hashes and the command line are kept from the first session (a resume reads the same
    data; ``--resume DIR`` reuses the recorded flags).
    """
    previous = store.run_meta()
    store.set_run_meta(RunMeta(
        task=task.name, task_options=jsonable(task_options_of(task)), model=model, config=config,
        settings=jsonable(settings or {}), planned={"problems": len(plan.variants), "samples": plan.total},
        data_sha256=(previous.data_sha256 if previous and previous.data_sha256
                     else {str(p): file_sha256(p) for p in task.data_files()}),
        invocation=jsonable(invocation or (previous.invocation if previous else {})),
    ))
    store.set_meta(PLAN_META, plan.to_dict())  # what dynamic metrics and completeness are measured against


def record_rows(store: RunStore, rows: list[SampleRow]) -> None:
    """Write rows graded elsewhere (``physeval score``)."""
    for row in rows:
        store.append(row)


def check_run_dir(run_dir: Path, task_name: str, settings: dict[str, Any], *, force: bool) -> None:
    """Refuse a run directory of another task, or a resume that would change what a sample is."""
    if not RunStore.exists(run_dir):
        return
    with RunStore(run_dir) as store:
        meta = store.run_meta()
        if meta is not None and meta.task != task_name:
            raise UserError(f"{run_dir} holds a run of task {meta.task!r}, not {task_name!r}: "
                            "choose another --out")
        recorded = meta.settings if meta is not None else None
        if not recorded or store.count() == 0:
            return
        diff = config_diff(_flatten(recorded), _flatten(jsonable(settings)))
        if not diff:
            return
        if not force:
            raise UserError(f"{run_dir} was run with other settings; resuming would mix samples drawn "
                            f"differently:\n  " + "\n  ".join(diff) +
                            "\nuse another --out, or --force to accept the change (both are recorded)")
        history = store.get_meta("settings_history", []) or []
        history.append({"at": utc_iso(time.time()), "from": recorded, "changes": diff})
        store.set_meta("settings_history", history)


def _flatten(settings: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in settings.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            out.update(_flatten(value, f"{name}."))
        else:
            out[name] = value
    return out


def jsonable(value: Any) -> Any:
    """``value`` as JSON would read it back (tuples as lists, objects as text)."""
    return json.loads(json.dumps(value, default=str))
