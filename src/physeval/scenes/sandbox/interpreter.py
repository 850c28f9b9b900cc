"""Which interpreter sandboxed programs run with, and where ``physeval sandbox setup`` puts it."""

from __future__ import annotations

import os
import sys
from pathlib import Path

__all__ = ["sandbox_venv_path", "default_sandbox_python"]


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
