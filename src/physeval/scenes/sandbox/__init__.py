"""Run untrusted Python programs (model-written scene renderers) in isolation.

Why: a scene sample is a program a model wrote; it must not see API keys, physeval's sources or
the task data, reach the network or the host's sockets, leave IPC objects behind, write outside
its own directory, fork without end, or fill memory or disk.

The threat model and the layers, shared by every isolating backend:

* **Backends** (:mod:`.backend`): ``bwrap`` (bubblewrap; works as root and, with unprivileged
  user namespaces, as an ordinary user; preferred), ``namespaces`` (util-linux ``unshare``;
  root only) and ``none`` (no isolation; must be named, warns every run). ``auto`` picks the
  best available isolating one and never ``none``: with nothing available a run raises
  :class:`SandboxUnavailable` (a render's stage ``sandbox_error``), never runs unisolated.
* **Namespaces**: network (loopback only), IPC, PID, UTS, cgroup, mount (and user for bwrap).
* **Filesystem** (:mod:`.mounts`): an own root with only the interpreter, ``/usr`` and a few
  ``/etc`` files, read-only; private size-limited tmpfs ``/tmp``, ``/dev/shm`` and working
  directory; a private devpts. Nothing is mounted writable from the host: the program's
  collected files and the status come back through descriptors the host opened.
* **User**: a random unprivileged uid when physeval is root (so ``RLIMIT_NPROC`` binds), no
  capabilities, ``no_new_privs``; the environment is rebuilt from nothing.
* **Memory** (:mod:`.cgroup`, :mod:`.budget`): a per-run cgroup v2 (``memory.max``,
  ``pids.max``) where the host delegates one; otherwise ``RLIMIT_AS`` per process, a watcher
  of the run's total resident memory and a seccomp filter refusing memfd. Concurrent runs
  share a host-wide budget and queue rather than overcommit.
* **Limits and supervision** (:mod:`._init_program`): CPU, address space, file size, open
  files, processes, message queues, no core dumps; the wall clock; every process of the run is
  killed when the program ends; stdout and stderr are capped.

:func:`isolation_report` says what is in force; ``physeval sandbox check`` also measures it.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from physeval.scenes.sandbox import bwrap as _bwrap  # noqa: F401  (registers the backend)
from physeval.scenes.sandbox import namespaces as _namespaces  # noqa: F401
from physeval.scenes.sandbox import unsafe as _unsafe  # noqa: F401
from physeval.scenes.sandbox.backend import (
    AUTO,
    Backend,
    backend_names,
    choose_backend,
    get_backend,
    register_backend,
)
from physeval.scenes.sandbox.budget import MemoryBudget, default_budget
from physeval.scenes.sandbox.environment import (
    SANDBOX_PACKAGES,
    EnvironmentCheck,
    SandboxEnvironmentError,
    forget_verification,
    needs_verification,
    verify_environment,
    verify_on_this_node,
)
from physeval.scenes.sandbox.interpreter import (
    default_sandbox_python,
    pin_interpreter,
    sandbox_venv_path,
    sandbox_wheels_path,
)
from physeval.scenes.sandbox.limits import (
    SandboxLimits,
    SandboxResult,
    SandboxUnavailable,
)
from physeval.scenes.sandbox.report import check_properties, isolation_report
from physeval.scenes.sandbox.setup import setup_sandbox_env

__all__ = [
    "AUTO",
    "SANDBOX_PACKAGES",
    "Backend",
    "EnvironmentCheck",
    "MemoryBudget",
    "SandboxEnvironmentError",
    "SandboxLimits",
    "SandboxResult",
    "SandboxUnavailable",
    "backend_names",
    "check_properties",
    "choose_backend",
    "default_budget",
    "default_sandbox_python",
    "pin_interpreter",
    "get_backend",
    "isolation_report",
    "register_backend",
    "run_sandboxed",
    "sandbox_venv_path",
    "sandbox_wheels_path",
    "setup_sandbox_env",
    "forget_verification",
    "needs_verification",
    "verify_environment",
    "verify_on_this_node",
]

def run_sandboxed(
    code: str,
    *,
    args: Sequence[str] = (),
    limits: SandboxLimits | None = None,
    python: str | None = None,
    environment: EnvironmentCheck | None = None,
    collect: Sequence[str] = (),
    collect_dir: str | os.PathLike[str] | None = None,
    sandbox: str = AUTO,
    budget: MemoryBudget | None = None,
) -> SandboxResult:
    """Run the Python source ``code`` isolated and report how it ended.

    Args:
        code: The program's source text.
        args: Command-line arguments; ``"{workdir}"`` in them is replaced by the program's
            (absolute) working directory, e.g. ``("{workdir}/out.mp4",)``.
        limits: Resource limits; :class:`SandboxLimits` defaults when ``None``.
        python: Interpreter for the program; :func:`default_sandbox_python` when ``None``.
            Pinned and verified by :func:`verify_environment` before the program starts.
        environment: An environment :func:`verify_environment` already returned (a batch
            verifies once and hands it to every program, so all of them run under one build);
            it is verified again only when it was checked under another backend.
        collect: Plain file names in the working directory to copy out after the run
            (regular files only, symlinks refused).
        collect_dir: Where collected files go (created if needed; required with ``collect``).
        sandbox: A backend name (:func:`backend_names`) or ``"auto"``.
        budget: The memory budget the run reserves its footprint in (:func:`default_budget`).

    Never raises for anything the program does. Raises :class:`SandboxUnavailable` when the
    backend asked for cannot run here, when ``auto`` finds no isolating backend, or when
    ``none`` is asked for with ``limits.require_isolation``; :class:`SandboxEnvironmentError`
    when the interpreter's environment is broken; ``ValueError`` for bad arguments.
    """
    limits = limits or SandboxLimits()
    backend = choose_backend(sandbox, require_isolation=limits.require_isolation)
    if environment is not None and python is not None and environment.python != pin_interpreter(python):
        raise ValueError(f"python={python!r} disagrees with the environment's {environment.python!r}")
    if environment is None or environment.backend != backend.name or needs_verification(environment):
        environment = verify_environment(environment.python if environment else python, sandbox=backend.name,
                                         require_isolation=limits.require_isolation)
    return backend.run(
        code,
        args=args,
        limits=limits,
        python=environment.python,
        collect=collect,
        collect_dir=collect_dir,
        budget=budget,
    )
