"""Which interpreter sandboxed programs run with, and where ``physeval sandbox setup`` puts it."""

from __future__ import annotations

import os
import sys
from pathlib import Path

__all__ = ["sandbox_venv_path", "default_sandbox_python", "pinned_sandbox_python"]


def sandbox_venv_path() -> Path:
    """Where ``physeval sandbox setup`` puts the dedicated interpreter environment."""
    import platformdirs

    return Path(platformdirs.user_data_dir("physeval")) / "sandbox-venv"


def default_sandbox_python() -> str:
    """The interpreter programs run with: ``$PHYSEVAL_SANDBOX_PYTHON``, else the dedicated venv
    made by ``physeval sandbox setup`` when it exists, else the current interpreter.
    """
    env = os.environ.get("PHYSEVAL_SANDBOX_PYTHON")
    if env:
        return env
    dedicated = sandbox_venv_path() / "bin" / "python"
    return str(dedicated) if dedicated.exists() else sys.executable


def pinned_sandbox_python(python: str | None = None) -> str:
    """``python`` (default :func:`default_sandbox_python`) with its venv's symlink followed.

    ``physeval sandbox setup`` makes the venv path a symlink to a complete build and switches it
    atomically (:mod:`.setup`); a run that renders with the build it verified at preflight is not
    switched to another environment half-way by a setup running meanwhile. Only the venv
    directory is followed, never the interpreter's own symlink (that would leave the venv).
    """
    path = Path(python or default_sandbox_python()).absolute()
    root = path.parent.parent
    if root.is_symlink():
        return str(root.resolve() / path.parent.name / path.name)
    return str(path)
