"""The sandbox backend interface, the registry of backends by name, and the choice of ``auto``.

Why: how a program is isolated depends on the host (root or not, bubblewrap installed or
not, user namespaces allowed or not). Callers name what they want (``--sandbox``, the
``sandbox`` task option, ``render_program(..., sandbox=...)``); a backend is one registered
class with three duties:

* :meth:`Backend.available` says whether it can run here and why not (probed once by running
  a trivial program through it);
* :meth:`Backend.run` runs a program and reports how it ended (the host side is shared, see
  :mod:`.host`; a backend only builds its command line in :meth:`Backend.command`);
* :meth:`Backend.isolation_report` states what it isolates.

``auto`` is the first available *isolating* backend in rank order (``bwrap``, then
``namespaces``). ``none`` (no isolation) is never chosen by ``auto``: it must be named, and
it warns loudly every time. When nothing isolating is available ``auto`` raises
:class:`SandboxUnavailable` with every backend's reason, which renders turn into the stage
``sandbox_error``.
"""

from __future__ import annotations

import sys
import threading
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any, ClassVar, TypeVar

from physeval.errors import OptionError
from physeval.registry import Registry
from physeval.scenes.sandbox.budget import MemoryBudget
from physeval.scenes.sandbox.context import RunContext
from physeval.scenes.sandbox.host import execute
from physeval.scenes.sandbox.limits import (
    SandboxLimits,
    SandboxResult,
    SandboxUnavailable,
)

__all__ = [
    "AUTO",
    "BACKENDS",
    "ENTRY_POINT_GROUP",
    "Backend",
    "backend_names",
    "choose_backend",
    "get_backend",
    "register_backend",
]

AUTO = "auto"
PROBE_WALL_S = 300.0
ENTRY_POINT_GROUP = "physeval.sandboxes"
_INSTANCES: dict[str, Backend] = {}
_lock = threading.Lock()
B = TypeVar("B", bound="type[Backend]")


class Backend(ABC):
    """One way of isolating a program. Subclasses set ``name`` and ``rank`` and build a command."""

    name: ClassVar[str]
    rank: ClassVar[int] = 100
    """``auto`` tries isolating backends from the lowest rank up."""
    isolating: ClassVar[bool] = True
    """Whether the backend isolates at all (``none`` does not, and ``auto`` never picks it)."""

    def __init__(self) -> None:
        self._probe: tuple[bool, str] | None = None
        self._probe_lock = threading.Lock()

    def available(self) -> tuple[bool, str]:
        """``(True, what works)`` or ``(False, why not)``; probed once, thread-safe."""
        with self._probe_lock:
            if self._probe is None:
                self._probe = self._check()
            return self._probe

    @abstractmethod
    def _check(self) -> tuple[bool, str]:
        """Probe the host (run a trivial program through the backend, see :meth:`_probe_failure`)."""

    def _probe_failure(self) -> str | None:
        """Run ``pass`` through this backend with the host's interpreter: ``None``, or why it failed.

        The wall clock is generous (a trivial program on a loaded host is slow to start, and a
        probe that gave up early would make the backend look unavailable).
        """
        try:
            probe = self.run("pass\n", limits=SandboxLimits(wall_s=PROBE_WALL_S), python=sys.executable)
        except OSError as exc:
            return f"failed to start: {exc}"
        if probe.ok:
            return None
        return probe.setup_error or probe.stderr_tail.strip()[-300:] or f"exit {probe.exit_code}"

    @abstractmethod
    def command(self, ctx: RunContext) -> list[str]:
        """The command line that runs the init (``ctx.cfg``) inside this backend's isolation."""

    @abstractmethod
    def isolation_report(self) -> dict[str, Any]:
        """What this backend isolates, as ``property -> description`` plus ``warnings``."""

    def run(
        self,
        code: str,
        *,
        args: Sequence[str] = (),
        limits: SandboxLimits | None = None,
        python: str,
        collect: Sequence[str] = (),
        collect_dir: Any = None,
        budget: MemoryBudget | None = None,
    ) -> SandboxResult:
        """Run the Python source ``code`` with the interpreter ``python`` (see :func:`run_sandboxed`)."""
        return execute(
            self,
            code,
            args,
            limits or SandboxLimits(),
            python,
            collect,
            collect_dir,
            budget,
        )


def _is_backend_class(obj: Any) -> bool:
    return isinstance(obj, type) and issubclass(obj, Backend)


BACKENDS: Registry[type[Backend]] = Registry(
    "sandbox backend", ENTRY_POINT_GROUP, check=_is_backend_class, error=OptionError,
    expects="a subclass of physeval.scenes.sandbox.backend.Backend")
"""Every backend class by name: physeval's (registered on import), plugins' (entry points ``physeval.sandboxes``)."""


def register_backend(cls: B) -> B:
    """Class decorator: make a backend choosable by its ``name``."""
    BACKENDS.register(cls.name, cls)
    return cls


def backend_names() -> list[str]:
    """Every backend, plugins' included, in ``auto``'s order (``none`` last)."""
    return [c.name for c in sorted(BACKENDS.items().values(), key=lambda c: (not c.isolating, c.rank, c.name))]


def get_backend(name: str) -> Backend:
    """The (shared) instance of the backend called ``name`` (``auto`` is :func:`choose_backend`'s)."""
    cls = BACKENDS.get(name)
    with _lock:
        if name not in _INSTANCES:
            _INSTANCES[name] = cls()
        return _INSTANCES[name]


def choose_backend(name: str = AUTO, *, require_isolation: bool = False) -> Backend:
    """The backend to use for ``name`` (``auto``: the best available isolating one).

    Raises :class:`SandboxUnavailable` when the named backend cannot run here, when ``auto``
    finds no isolating backend, or when ``none`` is named but isolation is required.
    """
    if name == AUTO:
        reasons = []
        for candidate in backend_names():
            backend = get_backend(candidate)
            if not backend.isolating:
                continue
            ok, why = backend.available()
            if ok:
                return backend
            reasons.append(f"{candidate}: {why}")
        raise SandboxUnavailable(
            "no isolating sandbox backend works here (" + "; ".join(reasons) + "). Install bubblewrap "
            "(apt-get install bubblewrap) or run as root; --sandbox none runs programs unisolated"
        )
    backend = get_backend(name)
    if require_isolation and not backend.isolating:
        raise SandboxUnavailable(f"sandbox backend {name!r} does not isolate and isolation is required")
    ok, why = backend.available()
    if not ok:
        raise SandboxUnavailable(f"sandbox backend {name!r} is unavailable: {why}")
    return backend
