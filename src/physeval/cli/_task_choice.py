"""Which task a command line names, found before the parser is built (so it offers that task's flags).

``physeval run phybench --box last``: the parser must know the task to accept ``--box``, but the
task is itself an argument. This looks for it cheaply: a token that is a built-in task name in
any spelling (or ``FILE.py:Class``), then one a plugin package declares (its entry point, not
imported); else, for ``run``, the task of the run being resumed or of
the ``--config`` file, then the default task; for ``regrade``, the task recorded in the run. With
``--help`` and no task named, no task is chosen, so ``physeval run --help`` shows only the run's
own flags and imports no task.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from pathlib import Path

__all__ = ["task_named_in"]

_TASK_COMMANDS = ("run", "score", "regrade")


def task_named_in(argv: Sequence[str]) -> str | None:
    """The task whose options the command line ``argv`` may use, or ``None``."""
    from physeval.tasks.catalog import BUILTIN_TASKS, DEFAULT_TASK, canonical_task_name

    if not argv or argv[0] not in _TASK_COMMANDS:
        return None
    rest = list(argv[1:])
    candidates = [token for token in rest if not token.startswith("-")]
    for token in candidates:
        name = canonical_task_name(token)
        if name in BUILTIN_TASKS or (":" in token and token.split(":", 1)[0].endswith(".py")):
            return token
    plugins = _plugin_task_names() if candidates else set()
    for token in candidates:
        if canonical_task_name(token) in plugins:
            return token
    wants_help = any(token in ("-h", "--help") for token in rest)
    if argv[0] == "regrade":
        positional = [t for t in rest if not t.startswith("-")]
        return _recorded_task(positional[0]) if positional else None
    if argv[0] == "run":
        for flag in ("--resume", "--out"):
            value = _flag_value(rest, flag)
            recorded = _recorded_task(value) if value else None
            if recorded:
                return recorded
        config = _flag_value(rest, "--config")
        from_config = _config_task(config) if config else None
        if from_config:
            return from_config
        if wants_help:
            return None
        return DEFAULT_TASK
    positional = [t for t in rest if not t.startswith("-")]
    return positional[0] if positional and not wants_help else None


def _plugin_task_names() -> set[str]:
    """The names plugin packages declare for their tasks (read from entry points, nothing imported)."""
    from importlib import metadata

    from physeval.tasks.catalog import canonical_task_name
    from physeval.tasks.registry import ENTRY_POINT_GROUP

    return {canonical_task_name(entry.name) for entry in metadata.entry_points(group=ENTRY_POINT_GROUP)}


def _flag_value(argv: list[str], flag: str) -> str | None:
    for i, token in enumerate(argv):
        if token == flag and i + 1 < len(argv):
            return argv[i + 1]
        if token.startswith(flag + "="):
            return token.split("=", 1)[1]
    return None


def _recorded_task(run_dir: str) -> str | None:
    """The task recorded in a run directory's store, read with sqlite3 alone (``None`` if there is none)."""
    path = Path(run_dir) / "samples.sqlite"
    if not path.is_file():
        return None
    try:
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
            row = db.execute("SELECT value FROM meta WHERE key = 'run'").fetchone()
    except sqlite3.Error:
        return None
    try:
        task = json.loads(row[0]).get("task") if row else None
    except (ValueError, AttributeError):
        return None
    return str(task) if task else None


def _config_task(path: str) -> str | None:
    try:
        import yaml

        data = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError, ImportError):
        return None
    except Exception:  # noqa: BLE001 - a broken config is reported by the command itself
        return None
    task = data.get("task") if isinstance(data, dict) else None
    return str(task) if task else None
