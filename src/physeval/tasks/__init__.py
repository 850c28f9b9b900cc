"""Benchmarks as tasks, and the registry that names them on the command line.

The names below load on first use, so ``physeval.tasks.catalog`` (what the command line reads
to list tasks and choose one) imports nothing heavy.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from physeval.tasks.base import GradeContext, Task, TaskError
    from physeval.tasks.registry import get_task, register_task, task_classes, task_names

__all__ = ["GradeContext", "Task", "TaskError", "get_task", "register_task", "task_classes", "task_names"]

_HOMES = {"GradeContext": "physeval.tasks.base", "Task": "physeval.tasks.base", "TaskError": "physeval.tasks.base",
          "get_task": "physeval.tasks.registry", "register_task": "physeval.tasks.registry",
          "task_classes": "physeval.tasks.registry", "task_names": "physeval.tasks.registry"}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'physeval.tasks' has no attribute {name!r}")
    return getattr(importlib.import_module(home), name)
