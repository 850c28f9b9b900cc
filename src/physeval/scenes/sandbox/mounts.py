"""What of the host an isolating sandbox shows the program: the interpreter and the system, nothing else.

Why: a read-only view of the whole host still shows physeval's sources, the task data (the
scene bank's verification questions, which a program could caption onto its video), other
users' files and every unix socket under ``/tmp`` and ``/run``. Both isolating backends build
a fresh root from :func:`mount_plan` instead:

* ``/usr`` (system libraries, fonts, ffmpeg) and the merged-``/usr`` links (``/bin``,
  ``/lib``, ...), or real directories where the host has no merged ``/usr``;
* a few files and directories of ``/etc`` that the dynamic loader, fontconfig and time zones
  read (:data:`ETC_ENTRIES`), and a synthetic ``/etc/passwd`` and ``/etc/group`` naming only
  the sandbox user;
* the sandbox interpreter's installation: its prefixes and base prefixes, the directories of
  its symlink chain, and the entries of its ``sys.path`` that lie under those prefixes (an
  editable install's source directory lies outside them and stays invisible), plus the host
  interpreter that runs the sandbox's init;
* the program file.

Everything is bound read-only; ``/tmp``, ``/dev/shm`` and the working directory are fresh
size-limited tmpfs mounts, ``/dev`` holds only the harmless nodes and a private devpts.
"""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from physeval.scenes.sandbox.context import RunContext

__all__ = [
    "ETC_ENTRIES",
    "MINIMAL_PATH",
    "MountPlan",
    "interpreter_dirs",
    "mount_plan",
    "passwd_files",
]

MINIMAL_PATH = "/usr/local/bin:/usr/bin:/bin"
ETC_ENTRIES: tuple[str, ...] = (
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/alternatives",
    "/etc/fonts",
    "/etc/localtime",
    "/etc/mime.types",
)
"""Host ``/etc`` entries bound into the sandbox (when they exist)."""

_ROOT_LINKS = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
_probe_lock = threading.Lock()


@dataclass(frozen=True)
class MountPlan:
    """The host paths an isolating backend binds (read-only) and the links it recreates.

    Attributes:
        binds: ``(host path, kind)`` with kind ``"dir"`` or ``"file"``, outermost first, none
            inside another.
        symlinks: ``(link target, path)`` pairs recreated as symlinks (merged ``/usr``).
    """

    binds: tuple[tuple[str, str], ...]
    symlinks: tuple[tuple[str, str], ...]

    def visible(self, path: str) -> bool:
        """Whether ``path`` lies under something this plan binds."""
        real = os.path.realpath(path)
        return any(_under(real, src) for src, _ in self.binds)


def mount_plan(python: str) -> MountPlan:
    """The binds for running ``python`` (the sandbox interpreter) and the host's init interpreter."""
    binds: list[tuple[str, str]] = []
    symlinks: list[tuple[str, str]] = []
    for link in _ROOT_LINKS:
        if os.path.islink(link):
            symlinks.append((os.readlink(link), link))
        elif os.path.isdir(link):
            binds.append((link, "dir"))
    dirs = {"/usr", *interpreter_dirs(python), *_init_interpreter_dirs()}
    for entry in ETC_ENTRIES:
        if os.path.isdir(entry):
            dirs.add(entry)
        elif os.path.exists(entry):
            binds.append((entry, "file"))
    for d in sorted(_outermost(d for d in dirs if os.path.isdir(d))):
        binds.append((d, "dir"))
    return MountPlan(binds=tuple(binds), symlinks=tuple(symlinks))


def passwd_files(ctx: RunContext, uid: int, gid: int) -> tuple[str, str]:
    """A synthetic ``/etc/passwd`` and ``/etc/group`` naming only the sandbox user ``uid``/``gid``
    (as the program sees its ids; paths in the workdir)."""
    home = ctx.cfg["env"]["HOME"]
    passwd = ctx.write_file("passwd", f"sandbox:x:{uid}:{gid}:physeval sandbox:{home}:/bin/sh\n")
    group = ctx.write_file("group", f"sandbox:x:{gid}:\n")
    return passwd, group


def _init_interpreter_dirs() -> tuple[str, ...]:
    """The base installation of the interpreter running physeval (it runs the init, ``-I -S``)."""
    exe = os.path.realpath(getattr(sys, "_base_executable", None) or sys.executable)
    return tuple(os.path.realpath(d) for d in {sys.base_prefix, sys.base_exec_prefix, os.path.dirname(exe)})


def interpreter_dirs(python: str) -> tuple[str, ...]:
    """Directories the interpreter ``python`` needs: prefixes, symlink chain, sys.path under them."""
    with _probe_lock:
        return _interpreter_dirs(os.path.abspath(python))


@functools.lru_cache(maxsize=8)
def _interpreter_dirs(python: str) -> tuple[str, ...]:
    probe = (
        "import sys, json; print(json.dumps([[sys.prefix, sys.base_prefix, sys.exec_prefix, "
        "sys.base_exec_prefix], sys.path]))"
    )
    try:
        out = subprocess.run(
            [python, "-s", "-E", "-c", probe],
            capture_output=True,
            timeout=60,
            env={"PATH": MINIMAL_PATH},
            check=True,
        ).stdout
        prefixes, path = json.loads(out)
    except (OSError, subprocess.SubprocessError, ValueError):
        prefixes, path = [], []
    chain = [python]
    seen: set[str] = set()
    current = python
    while os.path.islink(current) and current not in seen:  # follow the symlink chain
        seen.add(current)
        current = os.path.join(os.path.dirname(current), os.readlink(current))
        chain.append(current)
    roots = {os.path.realpath(p) for p in prefixes if p} - {"/"}
    roots |= {os.path.dirname(os.path.realpath(p)) for p in chain}
    roots |= {os.path.dirname(os.path.abspath(p)) for p in chain}
    extra = {os.path.realpath(p) for p in path if p and any(_under(os.path.realpath(p), r) for r in roots)}
    return tuple(sorted(d for d in roots | extra if os.path.isdir(d)))


def _outermost(dirs: object) -> list[str]:
    """Drop every directory that lies inside another of the set."""
    ordered = sorted({os.path.abspath(str(d)) for d in dirs}, key=len)  # type: ignore[attr-defined]
    kept: list[str] = []
    for d in ordered:
        if not any(_under(d, k) for k in kept):
            kept.append(d)
    return kept


def _under(path: str, parent: str) -> bool:
    parent = parent.rstrip("/") or "/"
    return path == parent or path.startswith(parent + "/")
