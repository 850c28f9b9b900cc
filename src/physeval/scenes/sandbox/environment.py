"""The sandbox interpreter's environment, verified before the first program runs.

Why: a half-built environment (an interrupted or concurrent ``physeval sandbox setup``: a venv
without numpy or cv2) used to be used silently: every program then ended ``runtime_error``
("No module named 'numpy'"), the run exited 0, and the model was blamed for the host's fault.

:func:`verify_environment` runs one probe program through the sandbox itself, with the
interpreter programs will get, so it checks what programs will really see:

* with a lock file (:mod:`.lock`, written by ``physeval sandbox setup``): every distribution it
  pins is installed at the pinned version;
* always: the libraries the scene prompt promises (:data:`SANDBOX_MODULES`) import.

Any failure raises :class:`SandboxEnvironmentError`, a user error naming ``physeval sandbox
setup``; scene runs call it in their preflight, so a broken environment stops the run before
the first request. A verified environment is remembered for the process (by interpreter, lock
hash and backend), so later runs in one process do not pay the probe again.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from physeval.errors import UserError

__all__ = ["SANDBOX_MODULES", "SANDBOX_PACKAGES", "EnvironmentCheck", "SandboxEnvironmentError",
           "locked_packages", "verify_environment"]

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
problems = []
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
print(json.dumps(problems))
"""


class SandboxEnvironmentError(UserError):
    """The sandbox interpreter lacks a package, or disagrees with its lock file; the message says the fix."""


@dataclass(frozen=True)
class EnvironmentCheck:
    """A verified sandbox environment.

    Attributes:
        python: The interpreter programs run with.
        lock_file: Its lock file, ``None`` when it has none.
        sha256: The lock file's SHA-256 (``None`` without one).
        packages: The distributions checked against the lock (``name -> version``).
        modules: The modules found importable inside the sandbox.
        backend: The sandbox backend the probe ran in.
    """

    python: str
    lock_file: str | None
    sha256: str | None
    packages: dict[str, str] = field(default_factory=dict)
    modules: tuple[str, ...] = ()
    backend: str = ""

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable record (for provenance)."""
        return {"python": self.python, "lock_file": self.lock_file, "sha256": self.sha256,
                "packages_verified": len(self.packages), "modules_imported": list(self.modules),
                "backend": self.backend}


_verified: dict[tuple[str, str | None, str], EnvironmentCheck] = {}
_verified_lock = threading.Lock()


def locked_packages(lock_file: str | Path) -> dict[str, str]:
    """``name -> version`` of every ``name==version`` line of a lock file (comments skipped)."""
    out = {}
    for line in Path(lock_file).read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if line and not line.startswith("#") and "==" in line:
            name, _, version = line.partition("==")
            out[name.strip()] = version.strip()
    return out


def verify_environment(python: str | None = None, *, sandbox: str = "auto") -> EnvironmentCheck:
    """Check the sandbox interpreter inside the sandbox; raise :class:`SandboxEnvironmentError` if broken.

    ``python`` defaults to :func:`~.interpreter.default_sandbox_python`. Raises
    :class:`~.limits.SandboxUnavailable` when no sandbox can run the probe at all.
    """
    from physeval.scenes.sandbox.backend import choose_backend
    from physeval.scenes.sandbox.interpreter import default_sandbox_python
    from physeval.scenes.sandbox.limits import SandboxLimits
    from physeval.scenes.sandbox.lock import sandbox_lock

    python = python or default_sandbox_python()
    backend = choose_backend(sandbox)
    lock = sandbox_lock(python)
    key = (str(Path(python).absolute()), lock["sha256"], backend.name)
    with _verified_lock:
        if key in _verified:
            return _verified[key]
    if not Path(python).exists():
        raise SandboxEnvironmentError(f"the sandbox interpreter {python} does not exist: {FIX}")
    try:
        locked = locked_packages(lock["lock_file"]) if lock["lock_file"] else {}
    except (OSError, UnicodeDecodeError) as exc:
        raise SandboxEnvironmentError(f"the lock file {lock['lock_file']} cannot be read ({exc}): {FIX}") from exc
    want = {"locked": locked, "modules": SANDBOX_MODULES}
    result = backend.run(_PROBE, args=[json.dumps(want)], limits=SandboxLimits(wall_s=600),
                         python=str(Path(python).absolute()))
    if result.setup_error:
        from physeval.scenes.sandbox.limits import SandboxUnavailable

        raise SandboxUnavailable(f"the sandbox could not start its environment check: {result.setup_error}")
    try:
        problems = json.loads(result.stdout_tail.strip().splitlines()[-1]) if result.ok else None
    except (ValueError, IndexError):
        problems = None
    if problems is None:
        detail = result.stderr_tail.strip().splitlines()[-1:] or [f"exit status {result.exit_code}"]
        raise SandboxEnvironmentError(f"the sandbox interpreter {python} cannot run the environment check "
                                      f"({detail[0][:300]}): {FIX}")
    if problems:
        where = f"lock file {lock['lock_file']}" if lock["lock_file"] else "no lock file"
        raise SandboxEnvironmentError(f"the sandbox environment of {python} ({where}) is broken: "
                                      + "; ".join(problems[:8]) + f". Fix: {FIX}")
    check = EnvironmentCheck(python=key[0], lock_file=lock["lock_file"], sha256=lock["sha256"], packages=locked,
                             modules=tuple(SANDBOX_MODULES.values()), backend=backend.name)
    with _verified_lock:
        _verified[key] = check
    return check
