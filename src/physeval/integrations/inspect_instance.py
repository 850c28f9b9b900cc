"""One physeval Task instance per (inspect task name, options), shared by physeval's inspect task,
scorer and metrics (:mod:`physeval.integrations.inspect`, :mod:`physeval.integrations.inspect_metrics`).

Inspect builds the task, the scorer and each metric from their logged arguments, separately; all
of them must see the same problems (the checked loader, no problem twice) and the same task
object, loaded once. This module holds that cache; it imports nothing of inspect.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping
from typing import Any

from physeval.problems import Problem
from physeval.tasks.base import Task
from physeval.tasks.registry import get_task

__all__ = ["INSTANCES_LOCK", "physeval_task", "task_instance"]

_INSTANCES: dict[str, tuple[Task, dict[tuple[str, str], Problem]]] = {}
INSTANCES_LOCK = threading.RLock()
"""Held while the cache or a registry of inspect objects built from it changes (re-entrant)."""


def _instance_key(name: str, options: Mapping[str, Any] | None) -> str:
    return json.dumps([name, dict(options or {})], sort_keys=True, default=str)


def task_instance(name: str, options: Mapping[str, Any] | None) -> tuple[Task, dict[tuple[str, str], Problem]]:
    """The physeval task ``name`` with ``options`` and its problems by (id, variant), loaded once."""
    key = _instance_key(name, options)
    with INSTANCES_LOCK:
        found = _INSTANCES.get(key)
        if found is None:
            from physeval.flow.plan import load_problems  # the checked loader (no problem twice)

            task = get_task(name, **dict(options or {}))
            found = (task, {p.key: p for p in load_problems(task)})
            _INSTANCES[key] = found
        return found


def physeval_task(name: str, options: Mapping[str, Any] | None = None) -> Task:
    """The physeval :class:`~physeval.tasks.base.Task` behind an inspect task (one per options)."""
    return task_instance(name, options)[0]
