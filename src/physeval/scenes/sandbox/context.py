"""What a backend is given to build one run's command line, and the one way every backend starts the init.

Why a module of its own: the host side (:mod:`.host`), the mount plan (:mod:`.mounts`) and every
backend need :class:`RunContext`; kept here, each imports it without importing the others, so
the sandbox package has one direction of imports: backends -> host -> context, mounts -> context.

:meth:`RunContext.init_command` is the launch line shared by the backends: the host's base
interpreter runs the in-sandbox init (:mod:`._init_program`) as ``python -I -S -c <source> <cfg>``,
so the init needs nothing but the standard library. A backend only wraps it in its isolation.
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from physeval.scenes.sandbox.limits import SandboxLimits

__all__ = ["STAGE_ROOT", "Launcher", "RunContext", "init_interpreter", "init_source"]

STAGE_ROOT = "/tmp/physeval-stage"
"""Where the launcher stages binds when physeval is root (see :meth:`RunContext.stage`)."""

_INIT_PATH = Path(__file__).with_name("_init_program.py")


def init_source() -> str:
    """The text of the in-sandbox init program (:mod:`._init_program`)."""
    return _INIT_PATH.read_text(encoding="utf-8")


def init_interpreter() -> str:
    """The base interpreter that runs the init with ``-I -S`` (no site-packages needed)."""
    return os.path.realpath(getattr(sys, "_base_executable", None) or sys.executable)


class Launcher(Protocol):
    """What the host side needs of a backend: its name, whether it isolates, its command line."""

    @property
    def name(self) -> str:
        """The backend's registered name."""
        ...

    @property
    def isolating(self) -> bool:
        """Whether it isolates at all."""
        ...

    def command(self, ctx: RunContext) -> list[str]:
        """The command line that runs the init (``ctx.cfg``) inside the backend's isolation."""
        ...


@dataclass
class RunContext:
    """Everything a backend needs to build its command line for one run.

    Attributes:
        workdir: The run's private host directory (removed afterwards).
        box: The program's working directory path (a tmpfs inside isolating backends).
        script: The program file on the host (``workdir/program.py``, mode 0644).
        python: The sandbox interpreter.
        limits: The run's limits.
        uid / gid: Who the program runs as (a random unprivileged id when physeval is root).
        cfg: The init's configuration (a backend may add to it).
        pass_fds: Descriptors the sandbox inherits (a backend may add its own).
        drop_to: Uid/gid the launcher switches to before the backend starts, if any.
        staged: What the launcher binds below :data:`STAGE_ROOT` first (see :meth:`stage`).
    """

    workdir: str
    box: str
    script: str
    python: str
    limits: SandboxLimits
    uid: int
    gid: int
    cfg: dict[str, Any]
    pass_fds: list[int] = field(default_factory=list)
    drop_to: tuple[int, int] | None = None
    staged: list[tuple[str, str, str]] = field(default_factory=list)

    def init_command(self) -> list[str]:
        """``python -I -S -c <init source> <cfg JSON>``: the init, as every backend starts it."""
        return [init_interpreter(), "-I", "-S", "-c", init_source(), json.dumps(self.cfg)]

    def stage(self, src: str, kind: str) -> str:
        """Where the backend finds ``src`` once the launcher has staged it (``kind``: dir or file).

        Used when physeval is root and drops to the sandbox uid before the backend starts.
        The launcher, still root, opens ``src``, enters a private mount namespace (the host
        sees nothing of it), mounts a small tmpfs on ``/tmp`` and binds ``src`` at the returned
        path below it, so the sandbox uid reaches it even when a parent directory of ``src``
        (``/root``, a 0700 temporary directory) is closed to it.
        """
        path = f"{STAGE_ROOT}/{len(self.staged)}"
        self.staged.append((src, path, kind))
        return path

    def write_file(self, name: str, text: str) -> str:
        """A world-readable file in the working directory (e.g. the synthetic ``/etc/passwd``)."""
        path = os.path.join(self.workdir, name)
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.chmod(path, 0o644)
        return path
