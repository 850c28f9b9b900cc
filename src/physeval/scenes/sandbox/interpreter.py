"""Which interpreter sandboxed programs run with, and where ``physeval sandbox setup`` puts it.

:func:`default_sandbox_python` names the interpreter a caller asked for (or the default);
:func:`pin_interpreter` turns that name into the build it stands for at this moment. Nothing
starts a program through the unpinned name: ``physeval sandbox setup`` switches the venv's
symlink atomically, and a program started through the link could meet another build than the
one that was verified (and, inside an isolating backend, none at all: bind-mounting
``<link>/bin`` hides the ``pyvenv.cfg`` beside it, so the interpreter starts without its
venv). :func:`~physeval.scenes.sandbox.environment.verify_environment` is the one caller that
pins and verifies; every entry point goes through it.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

__all__ = ["sandbox_venv_path", "sandbox_wheels_path", "default_sandbox_python", "pin_interpreter"]


def sandbox_venv_path() -> Path:
    """Where ``physeval sandbox setup`` puts the dedicated interpreter: ``sandbox-venv`` in the data dir.

    The data dir is :func:`physeval.paths.data_dir` (``$PHYSEVAL_DATA_DIR`` moves it).
    """
    from physeval.paths import data_dir

    return data_dir() / "sandbox-venv"


def sandbox_wheels_path(venv_root: str | os.PathLike[str] | None = None) -> Path:
    """The wheels the last setup of ``venv_root`` installed from (``<venv>.wheels``), kept for offline rebuilds."""
    root = Path(venv_root).absolute() if venv_root is not None else sandbox_venv_path()
    return root.with_name(root.name + ".wheels")


def default_sandbox_python() -> str:
    """The interpreter programs run with, by name (not yet pinned, see :func:`pin_interpreter`):
    ``$PHYSEVAL_SANDBOX_PYTHON``, else the dedicated venv made by ``physeval sandbox setup`` when
    it exists, else the current interpreter.

    A ``sandbox-venv`` that is there but does not resolve (a symlink to a build that is gone) is
    a broken setup, not an absent one: its interpreter is named all the same, so that the
    verification fails with the fix instead of programs quietly running under physeval's own
    interpreter.
    """
    env = os.environ.get("PHYSEVAL_SANDBOX_PYTHON")
    if env:
        return env
    venv = sandbox_venv_path()
    dedicated = venv / "bin" / "python"
    return str(dedicated) if dedicated.exists() or venv.is_symlink() or venv.exists() else sys.executable


def pin_interpreter(python: str | os.PathLike[str]) -> str:
    """``python`` with its venv's symlink followed: the build the name stands for right now.

    ``physeval sandbox setup`` makes the venv path a symlink to a complete build and switches it
    atomically (:mod:`.setup`); the pinned path keeps naming the same build whatever setup does
    later (setup keeps the previous build, so renders under way can finish). Only the venv
    directory is followed, never the interpreter's own symlink (that would leave the venv).
    """
    path = Path(python).absolute()
    root = path.parent.parent
    if root.is_symlink():
        return str(root.resolve() / path.parent.name / path.name)
    return str(path)
