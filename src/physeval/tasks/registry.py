"""The task registry: names on the command line -> Task classes.

Three ways in, one lookup:

- built-in tasks register themselves with :func:`register_task` when their module is imported;
- plugin packages declare tasks in the entry-point group ``physeval.tasks`` (each entry point
  names a :class:`~physeval.tasks.base.Task` subclass, or a module whose import registers some);
  they are found on the first lookup, and a broken plugin is reported, not fatal;
- ``path/to/file.py:ClassName`` runs a task from a file without packaging it.
"""

from __future__ import annotations

import importlib.util
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from physeval.errors import OptionError
from physeval.registry import PluginError, Registry
from physeval.tasks.catalog import BUILTIN_TASKS, canonical_task_name

if TYPE_CHECKING:  # the classes load with the first task, so listing and choosing tasks stays light
    from physeval.tasks.base import Task

__all__ = ["register_task", "get_task", "task_names", "task_classes", "task_class", "task_listing",
           "ENTRY_POINT_GROUP", "TASKS"]

ENTRY_POINT_GROUP = "physeval.tasks"

_LOCK = threading.RLock()
TaskClass = TypeVar("TaskClass", bound="type[Task]")


def _is_task_class(obj: Any) -> bool:
    from physeval.tasks.base import Task

    return isinstance(obj, type) and issubclass(obj, Task)


def _unknown_task(message: str) -> Exception:
    from physeval.tasks.base import TaskError

    return TaskError(message + "; see `physeval tasks`")


class _TaskError(OptionError):
    """Raised by the registry for an unknown name; turned into a TaskError by :func:`task_class`."""


TASKS: Registry[type[Task]] = Registry("task", ENTRY_POINT_GROUP, expects="a subclass of physeval.tasks.Task "
                                       "(or a module whose import registers some with @register_task)",
                                       check=_is_task_class, normalise=canonical_task_name, error=_TaskError)
"""Every task class by name: the built-ins (imported when asked for), plugins' entry points, registered classes."""
for _entry in BUILTIN_TASKS.values():
    TASKS.builtin(_entry.name, _entry.module)


def register_task(cls: TaskClass) -> TaskClass:
    """Class decorator: make ``cls`` available as ``physeval run <cls.name>``."""
    if not cls.name:
        raise OptionError(f"{cls.__name__} has no name")
    TASKS.register(cls.name, cls)
    return cls


def task_classes() -> dict[str, type[Task]]:
    """Every registered task class by name (built-in modules and entry points loaded first)."""
    return TASKS.items()


def task_names() -> list[str]:
    """Registered task names, sorted."""
    return TASKS.names()


def task_class(name: str) -> type[Task]:
    """The Task class named ``name`` (a registered name in any spelling, or ``FILE.py:Class``).

    A built-in task imports only its own module; plugins are looked up only for other names. A
    plugin whose entry point is wrong is a :class:`~physeval.registry.PluginError` naming it.
    """
    if ":" in name and name.split(":", 1)[0].endswith(".py"):
        return _class_from_file(name)
    try:
        cls = TASKS.get(name)
    except _TaskError as exc:
        raise _unknown_task(str(exc)) from None
    if not cls.name:  # a plugin's class without a name of its own takes its entry point's
        cls.name = canonical_task_name(name)
    return cls


def task_listing() -> list[tuple[str, str, bool, str]]:
    """``(name, track, dynamic, description)`` of every task, built-ins read without importing them
    (plugins are imported: their facts live on their classes; one that cannot be used is left out,
    and :meth:`TASKS.plugin_problems <physeval.registry.Registry.plugin_problems>` names it)."""
    rows = {name: (name, e.track, e.dynamic, e.description) for name, e in BUILTIN_TASKS.items()}
    for name in TASKS.names():
        if name in rows:
            continue
        try:
            cls = task_class(name)
        except PluginError:
            continue
        rows[name] = (name, cls.track, bool(cls.dynamic), cls.description)
    for name, cls in TASKS.registered().items():
        rows.setdefault(name, (name, cls.track, bool(cls.dynamic), cls.description))
    return [rows[name] for name in sorted(rows)]


def get_task(name: str, **options: Any) -> Task:
    """An instance of the task ``name`` with ``options`` checked against its ``Options``."""
    return task_class(name)(**options)


def _class_from_file(spec: str) -> type[Task]:
    from physeval.tasks.base import Task, TaskError

    path_text, _, class_name = spec.rpartition(":")
    path = Path(path_text).expanduser().resolve()
    if not path.is_file():
        raise TaskError(f"task file not found: {path_text}")
    module_name = f"physeval_user_task_{abs(hash(str(path)))}"
    with _LOCK:
        module = sys.modules.get(module_name)
        if module is None:
            loader_spec = importlib.util.spec_from_file_location(module_name, path)
            if loader_spec is None or loader_spec.loader is None:
                raise TaskError(f"cannot import {path_text} as a Python module")
            module = importlib.util.module_from_spec(loader_spec)
            sys.modules[module_name] = module
            try:
                loader_spec.loader.exec_module(module)
            except Exception:
                del sys.modules[module_name]
                raise
    cls = getattr(module, class_name, None)
    if not (isinstance(cls, type) and issubclass(cls, Task)):
        raise TaskError(f"{path_text} has no Task subclass named {class_name!r}")
    if not cls.name:
        cls.name = class_name
    return cls
