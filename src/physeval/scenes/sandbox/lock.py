"""The sandbox interpreter's lock file: the exact package versions scene programs run with.

Why: a scene's score depends on the libraries its program imports (a matplotlib or OpenCV
release changes what renders). ``physeval sandbox setup`` writes, next to the venv it creates,
a lock file ``<venv>.lock.txt`` holding the interpreter's version and ``pip freeze --all`` of the
venv (``name==version`` lines, sorted); every scene run records the file's SHA-256
(:func:`sandbox_lock`), so two runs can be compared only when their render environments match.
An interpreter without a lock file (the current one, or one named by
``$PHYSEVAL_SANDBOX_PYTHON``) is recorded as such: ``lock_file`` and ``sha256`` are ``None``.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

__all__ = ["LOCK_SUFFIX", "lock_path_for", "sandbox_lock", "write_lock"]

LOCK_SUFFIX = ".lock.txt"


def lock_path_for(venv_root: str | os.PathLike[str]) -> Path:
    """Where the lock file of the venv at ``venv_root`` lives: beside it, ``<name>.lock.txt``.

    A ``venv_root`` that is a symlink (``physeval sandbox setup`` makes one, see :mod:`.setup`) is
    followed: the lock lies beside the build it points at, so the two switch together.
    """
    root = Path(venv_root).absolute()
    if root.is_symlink():
        root = root.resolve()
    return root.with_name(root.name + LOCK_SUFFIX)


def write_lock(python: str | os.PathLike[str], venv_root: str | os.PathLike[str]) -> Path:
    """Write the lock file of ``venv_root`` from what ``python -m pip freeze --all`` reports.

    The file starts with a ``# python X.Y.Z`` comment line; then one ``name==version`` line per
    installed distribution, sorted case-insensitively, so the same environment always gives the
    same bytes (and hash). Raises ``subprocess.CalledProcessError`` when pip fails.
    """
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIP_")}  # no user pip config in a lock
    # -I: the venv's own packages only (a PYTHONPATH of the caller's would otherwise be frozen into the lock)
    freeze = subprocess.run([str(python), "-I", "-m", "pip", "freeze", "--all", "--disable-pip-version-check"],
                            check=True, capture_output=True, text=True, env=env).stdout
    version = subprocess.run([str(python), "-I", "-c", "import platform; print(platform.python_version())"],
                             check=True, capture_output=True, text=True).stdout.strip()
    lines = sorted({line.strip() for line in freeze.splitlines() if line.strip() and not line.startswith("#")},
                   key=str.lower)
    path = lock_path_for(venv_root)
    path.write_text(f"# python {version}\n" + "".join(f"{line}\n" for line in lines), encoding="utf-8")
    os.chmod(path, 0o644)
    return path


def sandbox_lock(python: str | os.PathLike[str] | None = None) -> dict[str, Any]:
    """``{"python", "lock_file", "sha256"}`` of the interpreter scene programs run with.

    ``python`` defaults to :func:`physeval.scenes.sandbox.default_sandbox_python`. The venv of
    ``<root>/bin/python`` is ``<root>``; its lock file is :func:`lock_path_for` of it. Without a
    lock file ``lock_file`` and ``sha256`` are ``None``. Never raises for a missing or unreadable
    file.
    """
    from physeval.provenance import file_sha256

    if python is None:
        from physeval.scenes.sandbox.interpreter import default_sandbox_python

        python = default_sandbox_python()
    interpreter = Path(python).absolute()  # not resolved: a venv's python is a symlink to the base one
    lock = lock_path_for(interpreter.parent.parent)
    try:
        digest = file_sha256(lock) if lock.is_file() else None
    except OSError:
        digest = None
    return {"python": str(interpreter), "lock_file": str(lock) if digest else None, "sha256": digest}
