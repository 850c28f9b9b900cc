"""One registry for everything physeval finds by name: tasks, model providers, sandbox backends, metrics.

Why one: each kind used to hand-roll its own table, and they drifted (a wrong task entry point
vanished with a warning, a wrong provider one was reported as a bug in physeval, a sandbox backend
had no entry-point group at all). A :class:`Registry` is a typed table with

* a check of what is registered (a base class or a protocol), so a wrong object fails where it is
  registered, not later in a run;
* collision errors: a name is registered once (the same object again is a no-op);
* built-ins that load lazily (the module that registers a name is imported when the name is asked);
* lazy entry points: a plugin package declares ``NAME = module:object`` in the registry's group
  (``physeval.tasks``, ``physeval.providers``, ``physeval.sandboxes``, ``physeval.metrics``); the
  name is known at once, the object is imported when the name is asked for;
* one error style: ``unknown KIND 'x'; did you mean 'y'? (known: ...)``, and for a plugin whose entry
  point is wrong one line naming the package, the entry point and what it should point to
  (:class:`PluginError`, exit status 2).
"""

from __future__ import annotations

import difflib
import importlib
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from importlib import metadata
from types import ModuleType
from typing import Any, Generic, TypeVar

from physeval.errors import UserError

__all__ = ["PluginError", "Registry", "RegistryError"]

T = TypeVar("T")


class RegistryError(UserError, TypeError):
    """Something registered under a name that is taken, or that is not what the registry holds."""


class PluginError(UserError):
    """A plugin package's entry point that cannot be used: one line naming the package, the entry
    point and what it should point to."""


@dataclass(frozen=True)
class _Lazy:
    """A name known before its object is imported: a built-in module, or a plugin's entry point."""

    module: str | None = None
    entry: metadata.EntryPoint | None = None


class Registry(Generic[T]):
    """Objects of one kind by name.

    Args:
        kind: What is registered, for messages (``task``, ``model provider``...).
        group: The entry-point group plugin packages declare names in.
        expects: What a registered object (and an entry point) must be, for messages
            (``a subclass of physeval.tasks.Task``).
        check: Whether an object is one (a base-class or protocol check).
        normalise: How a name is spelled in the table (tasks accept several spellings).
        error: The error type of an unknown name (a :class:`~physeval.errors.UserError`).
    """

    def __init__(self, kind: str, group: str, *, expects: str, check: Callable[[Any], bool],
                 normalise: Callable[[str], str] = str, error: type[UserError] = UserError) -> None:
        self.kind, self.group, self.expects = kind, group, expects
        self._check, self._normalise, self._error = check, normalise, error
        self._objects: dict[str, T] = {}
        self._origins: dict[str, str] = {}
        self._lazy: dict[str, _Lazy] = {}
        self._lock = threading.RLock()
        self._scanned = False
        self._problems: list[str] = []

    # -- filling the table ----------------------------------------------------------------------
    def register(self, name: str, obj: T, *, origin: str = "") -> T:
        """Register ``obj`` under ``name``; :class:`RegistryError` when it is not what this
        registry holds, or the name is taken by another object."""
        key = self._normalise(name)
        if not key:
            raise RegistryError(f"a {self.kind} needs a name: {obj!r}")
        if not self._check(obj):
            raise RegistryError(f"{self.kind} {key!r}: {_describe(obj)} is not {self.expects}")
        where = origin or _describe(obj)
        with self._lock:
            held = self._objects.get(key)
            if held is not None and held is not obj and not _same_definition(held, obj):
                raise RegistryError(f"{self.kind} {key!r} is registered twice: by {self._origins[key]} and by {where}")
            self._objects[key] = obj
            self._origins.setdefault(key, where)
        return obj

    def decorator(self, name: str | None = None) -> Callable[[T], T]:
        """A decorator registering what it decorates under ``name`` (default: its ``name`` attribute)."""
        def register(obj: T) -> T:
            return self.register(name if name is not None else str(getattr(obj, "name", "") or ""), obj)
        return register

    def builtin(self, name: str, module: str) -> None:
        """Make ``name`` known now and registered by importing ``module`` when it is asked for."""
        with self._lock:
            self._lazy.setdefault(self._normalise(name), _Lazy(module=module))

    # -- looking up ---------------------------------------------------------------------------------
    def get(self, name: str) -> T:
        """The object registered under ``name`` (importing its module or plugin if needed)."""
        key = self._normalise(name)
        found = self._resolve(key)
        if found is not None:
            return found
        self._scan()
        found = self._resolve(key)
        if found is not None:
            return found
        failures = self._load_module_entries()  # plugins whose module registers names on import
        found = self._objects.get(key)
        if found is not None:
            return found
        known = self.names()
        failures = failures[:1]
        close = difflib.get_close_matches(key, known, n=3, cutoff=0.5)
        hint = f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
        broken = f"; {failures[0]}" if failures else ""
        raise self._error(f"unknown {self.kind} {name!r}{hint} (known: {', '.join(known) or 'none'}{broken})")

    def names(self) -> list[str]:
        """Every name known, sorted: registered, built-in and declared by plugins (nothing imported)."""
        self._scan()
        with self._lock:
            return sorted({*self._objects, *self._lazy})

    def items(self) -> dict[str, T]:
        """Every object by name, sorted by name (every built-in module and plugin is imported; a plugin
        that cannot be used is left out and named by :meth:`plugin_problems`)."""
        for name in self.names():
            try:
                self.get(name)
            except PluginError:
                continue  # kept in the problems
        with self._lock:
            return dict(sorted(self._objects.items()))

    def copy(self) -> Registry[T]:
        """A registry holding what this one holds, filled apart from it from now on (for tests)."""
        other: Registry[T] = Registry(self.kind, self.group, expects=self.expects, check=self._check,
                                      normalise=self._normalise, error=self._error)
        with self._lock:
            other._objects, other._origins = dict(self._objects), dict(self._origins)
            other._lazy, other._scanned, other._problems = dict(self._lazy), self._scanned, list(self._problems)
        return other

    def plugin_problems(self) -> list[str]:
        """One line per plugin entry point that could not be used (so far), for listings to show."""
        self._scan()
        with self._lock:
            return list(dict.fromkeys(self._problems))

    def registered(self) -> dict[str, T]:
        """What is registered so far, without importing anything."""
        with self._lock:
            return dict(self._objects)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self._normalise(name) in self.names()

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    # -- the lazy parts -----------------------------------------------------------------------------
    def _resolve(self, key: str) -> T | None:
        with self._lock:
            found = self._objects.get(key)
            lazy = self._lazy.get(key) if found is None else None
        if found is not None or lazy is None:
            return found
        if lazy.module is not None:
            importlib.import_module(lazy.module)
            with self._lock:
                self._lazy.pop(key, None)
                found = self._objects.get(key)
            if found is None:
                raise RegistryError(f"{lazy.module} was to register {self.kind} {key!r} and did not")
            return found
        assert lazy.entry is not None
        return self._load_entry(key, lazy.entry)

    def _scan(self) -> None:
        """Learn the names plugin packages declare (their objects are imported when asked for)."""
        with self._lock:
            if self._scanned:
                return
            self._scanned = True
            for entry in metadata.entry_points(group=self.group):
                key = self._normalise(entry.name)
                if key in self._objects or key in self._lazy:  # physeval's own, or another plugin's
                    self._problems.append(f"{_plugin(entry)} declares {self.kind} {key!r}, which is taken: "
                                          f"rename the entry point in group {self.group}")
                    continue
                self._lazy[key] = _Lazy(entry=entry)

    def _load_entry(self, key: str, entry: metadata.EntryPoint) -> T:
        """The object behind ``entry``, registered under ``key``; a :class:`PluginError` (also kept
        for :meth:`plugin_problems`) when the entry point cannot be used."""
        try:
            return self._load_checked(key, entry)
        except PluginError as exc:
            with self._lock:
                self._problems.append(str(exc))
            raise

    def _load_checked(self, key: str, entry: metadata.EntryPoint) -> T:
        try:
            loaded = entry.load()
        except Exception as exc:  # noqa: BLE001 - the plugin's fault, said in one line
            raise PluginError(f"{_plugin(entry)}: {entry.value} cannot be imported ({type(exc).__name__}: {exc}); "
                              f"it should point to {self.expects}") from None
        if isinstance(loaded, ModuleType):  # a module whose import registered the name
            found = self.registered().get(key)
            if found is None:
                raise PluginError(f"{_plugin(entry)}: importing module {entry.value} registered no {self.kind} "
                                  f"{key!r}; it should point to {self.expects}")
        elif not self._check(loaded):
            raise PluginError(f"{_plugin(entry)}: {entry.value} is {_describe(loaded)}; it should point to "
                              f"{self.expects}")
        else:
            found = self.register(key, loaded, origin=_plugin(entry))
        with self._lock:
            self._lazy.pop(key, None)
        return found

    def _load_module_entries(self) -> list[str]:
        """Import every plugin entry point not loaded yet; the one-line reasons of those that fail."""
        with self._lock:
            pending = [(k, lazy.entry) for k, lazy in self._lazy.items() if lazy.entry is not None]
        for key, entry in pending:
            try:
                self._load_entry(key, entry)
            except PluginError:
                continue  # kept in the problems
        with self._lock:
            return list(dict.fromkeys(self._problems))


def _plugin(entry: metadata.EntryPoint) -> str:
    dist = getattr(entry, "dist", None)
    package = f"plugin package {dist.name!r}" if dist is not None else "a plugin"
    return f"{package} (entry point {entry.name} = {entry.value})"


def _describe(obj: Any) -> str:
    if isinstance(obj, type):
        return f"class {obj.__module__}.{obj.__qualname__}"
    if isinstance(obj, ModuleType):
        return f"module {obj.__name__}"
    if callable(obj):
        return f"{type(obj).__name__} {getattr(obj, '__module__', '?')}.{getattr(obj, '__qualname__', obj)!s}"
    return f"a {type(obj).__name__}"


def _same_definition(a: Any, b: Any) -> bool:
    """The same class or function defined again (a module imported twice under one name)."""
    return (getattr(a, "__module__", None), getattr(a, "__qualname__", None)) == \
        (getattr(b, "__module__", object()), getattr(b, "__qualname__", object()))
