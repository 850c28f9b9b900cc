"""The task registry: names on the command line -> Task classes."""

from __future__ import annotations

from typing import Any

from physeval.tasks.base import Task, TaskError

__all__ = ["register_task", "get_task", "task_names", "task_classes"]

_TASKS: dict[str, type[Task]] = {}


def register_task(cls: type[Task]) -> type[Task]:
    """Class decorator: make ``cls`` available as ``physeval run <cls.name>``."""
    if not cls.name:
        raise ValueError(f"{cls.__name__} has no name")
    _TASKS[cls.name] = cls
    return cls


def task_classes() -> dict[str, type[Task]]:
    """Every registered task class by name (importing the built-in task modules first)."""
    _load_builtin()
    return dict(sorted(_TASKS.items()))


def task_names() -> list[str]:
    """Registered task names, sorted."""
    return list(task_classes())


def get_task(name: str, **options: Any) -> Task:
    """An instance of the task ``name`` with ``options`` (``data``, ``prompt_file``, ...)."""
    classes = task_classes()
    if name not in classes:
        raise TaskError(f"unknown task {name!r}; known tasks: {', '.join(classes) or '(none)'}")
    return classes[name](**options)


def _load_builtin() -> None:
    import importlib

    for module in _BUILTIN_MODULES:
        importlib.import_module(module)


_BUILTIN_MODULES: tuple[str, ...] = ("physeval.tasks.abench", "physeval.tasks.bank", "physeval.tasks.phybench",
                                     "physeval.tasks.scene")
