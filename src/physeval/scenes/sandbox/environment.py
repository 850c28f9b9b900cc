"""The sandbox interpreter's environment: resolved, pinned and verified once, used by every entry point.

Why: scene programs used to reach the sandbox interpreter by several roads. ``physeval run``
pinned the build behind ``physeval sandbox setup``'s symlink and verified it; ``physeval
render``, :func:`~physeval.scenes.render.render_program`, the scene reward and the builder
started programs through the symlink itself, which inside bwrap or namespaces loses the venv
(the bind of ``<link>/bin`` hides ``pyvenv.cfg``): none of the promised libraries imported and
every good program was scored as the model's error. A half-built environment (an interrupted
or concurrent setup) was likewise blamed on the model.

:func:`verify_environment` is now the one road. It

1. names the interpreter (:func:`~.interpreter.default_sandbox_python` unless one is given),
2. pins it to the build it stands for now (:func:`~.interpreter.pin_interpreter`), and
3. runs one probe program through the chosen backend with the pinned interpreter, exactly as
   programs run, checking that every distribution of the lock file (written by ``physeval
   sandbox setup``) is installed at its version and that the libraries the scene prompt
   promises (:data:`SANDBOX_MODULES`) import.

It returns an :class:`EnvironmentCheck` (picklable: a render pool or a batch carries it to its
workers, so every program of one run, batch, reward call or render uses the same build and
records it) or raises :class:`SandboxEnvironmentError`, a user error naming ``physeval sandbox
setup``; entry points turn it into the stage ``sandbox_error`` (a render), a reward of ``None``
(not measured) or a stop before the first request (a run). A verified build is remembered for
the process by (pinned interpreter, lock hash, backend): a build never changes once set up, and
a new setup is a new build, so a later call after a switch verifies the new one.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from physeval.errors import UserError

__all__ = ["SANDBOX_MODULES", "SANDBOX_PACKAGES", "EnvironmentCheck", "SandboxEnvironmentError",
           "forget_verification", "locked_packages", "needs_verification", "verify_environment",
           "verify_on_this_node"]

SANDBOX_MODULES: dict[str, str] = {
    "numpy": "numpy",
    "matplotlib": "matplotlib",
    "opencv-python-headless": "cv2",
    "imageio": "imageio",
    "imageio-ffmpeg": "imageio_ffmpeg",
    "av": "av",
    "scipy": "scipy",
}
"""Each library of the sandbox interpreter (what the scene prompt promises) and the module it provides."""

SANDBOX_PACKAGES: tuple[str, ...] = tuple(SANDBOX_MODULES)
"""The exact libraries ``physeval sandbox setup`` installs."""

FIX = "run `physeval sandbox setup` (it rebuilds the environment atomically), or point PHYSEVAL_SANDBOX_PYTHON " \
      "at an interpreter that has them"

_PROBE = r"""
import importlib, importlib.metadata, json, sys
want = json.loads(sys.argv[1])
problems, missing = [], []
for name, version in want["locked"].items():
    try:
        found = importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        problems.append(f"{name}=={version} is locked but not installed")
        continue
    if found != version:
        problems.append(f"{name}=={version} is locked but {found} is installed")
for dist, module in want["modules"].items():
    try:
        importlib.import_module(module)
    except Exception as exc:
        problems.append(f"{dist} (import {module}): {type(exc).__name__}: {exc}")
        missing.append(dist)
print(json.dumps({"problems": problems, "missing": missing}))
"""


class SandboxEnvironmentError(UserError):
    """The sandbox interpreter lacks a package, or disagrees with its lock file; the message says the fix.

    Attributes:
        problems: Each thing found wrong, one line each (empty when the check could not run).
        missing: The promised libraries that did not import inside the sandbox.
    """

    def __init__(self, message: str, *, problems: list[str] | None = None, missing: list[str] | None = None) -> None:
        super().__init__(message)
        self.problems = list(problems or [])
        self.missing = list(missing or [])


@dataclass(frozen=True)
class EnvironmentCheck:
    """A verified sandbox environment.

    Attributes:
        python: The interpreter programs run with: pinned to one build (never the switching symlink).
        lock_file: Its lock file, ``None`` when it has none.
        sha256: The lock file's SHA-256 (``None`` without one).
        packages: The distributions checked against the lock (``name -> version``).
        modules: The modules found importable inside the sandbox.
        backend: The sandbox backend the probe ran in.
        requested: The interpreter as it was named (``$PHYSEVAL_SANDBOX_PYTHON``, the venv's
            symlinked path, or the caller's ``python``), before pinning.
    """

    python: str
    lock_file: str | None
    sha256: str | None
    packages: dict[str, str] = field(default_factory=dict)
    modules: tuple[str, ...] = ()
    backend: str = ""
    requested: str = ""

    @property
    def build(self) -> str:
        """The environment's root directory (the venv build that ``python`` belongs to)."""
        return str(Path(self.python).parent.parent)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable record (for provenance)."""
        return {"python": self.python, "requested": self.requested, "build": self.build,
                "lock_file": self.lock_file, "sha256": self.sha256,
                "packages_verified": len(self.packages), "modules_imported": list(self.modules),
                "backend": self.backend}


_verified: dict[tuple[str, str | None, str], EnvironmentCheck] = {}
_dropped: set[tuple[str, str | None, str]] = set()  # verified once, then found broken: verify before any use
_verified_lock = threading.Lock()


def _key(check: EnvironmentCheck) -> tuple[str, str | None, str]:
    return (check.python, check.sha256, check.backend)


def forget_verification(check: EnvironmentCheck) -> None:
    """Drop the process's verification of ``check``'s build: the next use verifies it again
    (:func:`needs_verification` says so to a caller that holds ``check``)."""
    with _verified_lock:
        _verified.pop(_key(check), None)
        _dropped.add(_key(check))


def needs_verification(check: EnvironmentCheck) -> bool:
    """Whether ``check``'s build was found broken in this process since it was verified (so a
    caller holding ``check`` must verify again before running anything under it)."""
    with _verified_lock:
        return _key(check) in _dropped


def locked_packages(lock_file: str | Path) -> dict[str, str]:
    """``name -> version`` of every ``name==version`` line of a lock file (comments skipped)."""
    out = {}
    for line in Path(lock_file).read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if line and not line.startswith("#") and "==" in line:
            name, _, version = line.partition("==")
            out[name.strip()] = version.strip()
    return out


def verify_environment(python: str | None = None, *, sandbox: str = "auto",
                       require_isolation: bool = False) -> EnvironmentCheck:
    """Resolve, pin and verify the interpreter programs run with, inside the backend they run in.

    Args:
        python: The interpreter (default :func:`~.interpreter.default_sandbox_python`); pinned to
            its build before anything runs.
        sandbox: The backend name, or ``"auto"``.
        require_isolation: Refuse the ``none`` backend (as :class:`~.limits.SandboxLimits` can).

    Raises :class:`SandboxEnvironmentError` when the environment is broken (the message says
    what is wrong and names the fix) and :class:`~.limits.SandboxUnavailable` when no sandbox
    can run the probe at all. Thread-safe; the probe runs once per build and backend a process.
    """
    from physeval.scenes.sandbox.backend import choose_backend
    from physeval.scenes.sandbox.interpreter import default_sandbox_python, pin_interpreter
    from physeval.scenes.sandbox.limits import SandboxLimits, SandboxUnavailable
    from physeval.scenes.sandbox.lock import sandbox_lock

    requested = str(Path(python or default_sandbox_python()).absolute())
    pinned = pin_interpreter(requested)
    backend = choose_backend(sandbox, require_isolation=require_isolation)
    lock = sandbox_lock(pinned)
    key = (pinned, lock["sha256"], backend.name)
    with _verified_lock:
        cached = _verified.get(key)
    if cached is not None:  # the same build, already verified; named perhaps another way
        return cached if cached.requested == requested else replace(cached, requested=requested)
    if not Path(pinned).exists():
        link = Path(requested).parent.parent
        dangling = f" ({link} links to {pinned.rsplit('/', 2)[0]}, which is gone)" if link.is_symlink() else ""
        raise SandboxEnvironmentError(f"the sandbox interpreter {requested} does not exist{dangling}: {FIX}",
                                      missing=list(SANDBOX_MODULES))
    try:
        locked = locked_packages(lock["lock_file"]) if lock["lock_file"] else {}
    except (OSError, UnicodeDecodeError) as exc:
        raise SandboxEnvironmentError(f"the lock file {lock['lock_file']} cannot be read ({exc}): {FIX}") from exc
    want = {"locked": locked, "modules": SANDBOX_MODULES}
    try:
        result = backend.run(_PROBE, args=[json.dumps(want)], limits=SandboxLimits(wall_s=600), python=pinned)
    except OSError as exc:
        raise SandboxUnavailable(f"the sandbox could not start its environment check: {exc}") from exc
    if result.setup_error:
        raise SandboxUnavailable(f"the sandbox could not start its environment check: {result.setup_error}")
    try:
        if not result.ok:
            raise ValueError(f"exit status {result.exit_code}")
        found = json.loads(result.stdout_tail.strip().splitlines()[-1])
        problems, missing = list(found["problems"]), list(found["missing"])
    except (ValueError, IndexError, KeyError, TypeError):
        detail = result.stderr_tail.strip().splitlines()[-1:] or [f"exit status {result.exit_code}"]
        raise SandboxEnvironmentError(f"the sandbox interpreter {requested} cannot run the environment check "
                                      f"under {backend.name} ({detail[0][:300]}): {FIX}",
                                      missing=list(SANDBOX_MODULES)) from None
    if problems:
        where = f"lock file {lock['lock_file']}" if lock["lock_file"] else "no lock file"
        raise SandboxEnvironmentError(f"the sandbox environment of {requested} ({where}) is broken under "
                                      f"{backend.name}: " + "; ".join(problems[:8]) + f". Fix: {FIX}",
                                      problems=problems, missing=missing)
    check = EnvironmentCheck(python=pinned, lock_file=lock["lock_file"], sha256=lock["sha256"], packages=locked,
                             modules=tuple(SANDBOX_MODULES.values()), backend=backend.name, requested=requested)
    with _verified_lock:
        _verified[key] = check
        _dropped.discard(key)
    return check


def verify_on_this_node(hint: str | None, *, sandbox: str = "auto") -> EnvironmentCheck:
    """:func:`verify_environment` on a worker of a cluster (a Ray task): the build ``hint`` names
    (the driver's pinned interpreter) when this machine has it, else this machine's own default.

    A node of a cluster has its own data directory; when it shares the driver's (one machine, or
    a shared file system) every program of a batch runs under the driver's build.
    """
    return verify_environment(hint if hint and Path(hint).exists() else None, sandbox=sandbox)
