"""The task registry: names on the command line -> Task classes.

Three ways in, one lookup:

- built-in tasks register themselves with :func:`register_task` when their module is imported;
- plugin packages declare tasks in the entry-point group ``physeval.tasks`` (each entry point
  names a :class:`~physeval.tasks.base.Task` subclass, or a module whose import registers some);
  they are found on the first lookup, and a broken plugin is reported, not fatal;
- ``path/to/file.py:ClassName`` runs a task from a file without packaging it.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import threading
import warnings
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any

from physeval.errors import OptionError
from physeval.tasks.catalog import BUILTIN_TASKS, canonical_task_name, closest_task_names

if TYPE_CHECKING:  # the classes load with the first task, so listing and choosing tasks stays light
    from physeval.tasks.base import Task

__all__ = ["register_task", "get_task", "task_names", "task_classes", "task_class", "task_listing",
           "ENTRY_POINT_GROUP"]

ENTRY_POINT_GROUP = "physeval.tasks"

_TASKS: dict[str, type[Task]] = {}
_LOCK = threading.RLock()
_LOADED = False
_PLUGINS_LOADED = False


def register_task(cls: type[Task]) -> type[Task]:
    """Class decorator: make ``cls`` available as ``physeval run <cls.name>``."""
    if not cls.name:
        raise OptionError(f"{cls.__name__} has no name")
    with _LOCK:
        _TASKS[cls.name] = cls
    return cls


def task_classes() -> dict[str, type[Task]]:
    """Every registered task class by name (built-in modules and entry points loaded first)."""
    _load_all()
    with _LOCK:
        return dict(sorted(_TASKS.items()))


def task_names() -> list[str]:
    """Registered task names, sorted."""
    return list(task_classes())


def task_class(name: str) -> type[Task]:
    """The Task class named ``name`` (a registered name in any spelling, or ``FILE.py:Class``).

    A built-in task imports only its own module; plugins are looked up only for other names.
    """
    if ":" in name and name.split(":", 1)[0].endswith(".py"):
        return _class_from_file(name)
    wanted = canonical_task_name(name)
    with _LOCK:
        found = _TASKS.get(wanted) or _TASKS.get(name)
    if found is not None:
        return found
    entry = BUILTIN_TASKS.get(wanted)
    if entry is not None:
        importlib.import_module(entry.module)
        with _LOCK:
            return _TASKS[wanted]
    _load_plugins()
    with _LOCK:
        found = _TASKS.get(wanted) or _TASKS.get(name)
        known = sorted({*BUILTIN_TASKS, *_TASKS})
    if found is not None:
        return found
    from physeval.tasks.base import TaskError

    close = closest_task_names(wanted, known)
    hint = f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
    raise TaskError(f"unknown task {name!r}{hint} (known tasks: {', '.join(known)}; see `physeval tasks`)")


def task_listing() -> list[tuple[str, str, bool, str]]:
    """``(name, track, dynamic, description)`` of every task, built-ins read without importing them."""
    _load_plugins()
    rows = {name: (name, e.track, e.dynamic, e.description) for name, e in BUILTIN_TASKS.items()}
    with _LOCK:
        for name, cls in _TASKS.items():
            rows.setdefault(name, (name, cls.track, bool(cls.dynamic), cls.description))
    return [rows[name] for name in sorted(rows)]


def get_task(name: str, **options: Any) -> Task:
    """An instance of the task ``name`` with ``options`` checked against its ``Options``."""
    return task_class(name)(**options)


def _load_all() -> None:
    global _LOADED
    with _LOCK:
        if _LOADED:
            return
        for module in dict.fromkeys(entry.module for entry in BUILTIN_TASKS.values()):
            importlib.import_module(module)
        _LOADED = True
    _load_plugins()


def _load_plugins() -> None:
    """Tasks of plugin packages (entry points ``physeval.tasks``); a broken one is a warning."""
    global _PLUGINS_LOADED
    with _LOCK:
        if _PLUGINS_LOADED:
            return
        _PLUGINS_LOADED = True
        for entry in metadata.entry_points(group=ENTRY_POINT_GROUP):
            try:
                loaded = entry.load()
            except Exception as exc:  # noqa: BLE001 - one broken plugin must not hide the others
                warnings.warn(f"physeval task plugin {entry.name!r} ({entry.value}) failed to load: {exc}",
                              stacklevel=2)
                continue
            from physeval.tasks.base import Task

            if isinstance(loaded, type) and issubclass(loaded, Task):
                if not loaded.name:
                    loaded.name = entry.name
                _TASKS.setdefault(loaded.name, loaded)


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
