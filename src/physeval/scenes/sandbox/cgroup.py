"""A cgroup v2 directory per run: one memory and pids limit for the whole run, where the host allows.

Why: ``RLIMIT_AS`` bounds each process, not the run; memfd pages, SysV segments and forked
children all escape it. A cgroup counts every page the run's processes charge, whatever kind.

Where the cgroup comes from (:func:`cgroup_support`):

* ``$PHYSEVAL_CGROUP``: a cgroup v2 directory delegated to physeval (for example one made by
  ``systemd-run --user --scope -p Delegate=yes`` or by an administrator). physeval enables the
  ``memory`` and ``pids`` controllers for its children and makes one child per run.
* otherwise, when running as root on a host whose ``/sys/fs/cgroup`` is the cgroup v2
  hierarchy with ``memory`` and ``pids`` available: ``/sys/fs/cgroup/physeval``.

Nothing else is touched: a cgroup v1 or hybrid host, or one that delegates nothing, gets
per-process limits plus the in-sandbox memory watcher, and ``physeval sandbox check`` says so.
"""

from __future__ import annotations

import functools
import os
import secrets
import signal
import time
from dataclasses import dataclass
from pathlib import Path

__all__ = ["CgroupSupport", "RunCgroup", "cgroup_support"]

_V2_ROOT = Path("/sys/fs/cgroup")


@dataclass(frozen=True)
class CgroupSupport:
    """Whether per-run cgroups can be made here, and where.

    Attributes:
        base: The directory runs get their child cgroup in, or ``None``.
        reason: What was found (shown by ``physeval sandbox check``).
    """

    base: str | None
    reason: str

    @property
    def available(self) -> bool:
        """A per-run cgroup can be made."""
        return self.base is not None


@functools.lru_cache(maxsize=4)
def _support(env: str | None) -> CgroupSupport:
    if env:
        return _check_base(Path(env), "PHYSEVAL_CGROUP")
    if not _is_v2(_V2_ROOT):
        return CgroupSupport(None, "/sys/fs/cgroup is not a cgroup v2 hierarchy (v1 or hybrid host)")
    if os.geteuid() != 0:
        return CgroupSupport(None, "not root and no delegated cgroup given in PHYSEVAL_CGROUP")
    base = _V2_ROOT / "physeval"
    try:
        base.mkdir(exist_ok=True)
    except OSError as exc:
        return CgroupSupport(None, f"cannot create {base}: {exc}")
    return _check_base(base, "own cgroup")


def cgroup_support() -> CgroupSupport:
    """Probe (once per ``$PHYSEVAL_CGROUP`` value) for a place to make per-run cgroups."""
    return _support(os.environ.get("PHYSEVAL_CGROUP"))


def _is_v2(path: Path) -> bool:
    return (path / "cgroup.controllers").is_file()


def _check_base(base: Path, origin: str) -> CgroupSupport:
    try:
        controllers = set((base / "cgroup.controllers").read_text().split())
    except OSError as exc:
        return CgroupSupport(None, f"{origin} {base} is not a cgroup v2 directory: {exc}")
    missing = {"memory", "pids"} - controllers
    if missing:
        return CgroupSupport(
            None,
            f"{origin} {base} lacks the {', '.join(sorted(missing))} controller(s)",
        )
    try:
        enabled = set((base / "cgroup.subtree_control").read_text().split())
        if not {"memory", "pids"} <= enabled:
            (base / "cgroup.subtree_control").write_text("+memory +pids")
    except OSError as exc:
        return CgroupSupport(None, f"cannot enable memory and pids for children of {base}: {exc}")
    return CgroupSupport(str(base), f"{origin} {base} (memory and pids controllers)")


class RunCgroup:
    """One child cgroup with ``memory.max``, ``memory.swap.max = 0`` and ``pids.max``; removed on close."""

    def __init__(self, base: str, memory_bytes: int, processes: int) -> None:
        self.path = Path(base) / f"run-{os.getpid()}-{secrets.token_hex(4)}"
        self.path.mkdir(mode=0o755)
        self._write("memory.max", str(memory_bytes))
        self._write("memory.swap.max", "0", optional=True)
        self._write("memory.oom.group", "1", optional=True)
        self._write("pids.max", str(processes))

    @property
    def procs(self) -> str:
        """The ``cgroup.procs`` file a process writes ``0`` into to join."""
        return str(self.path / "cgroup.procs")

    def _write(self, name: str, value: str, optional: bool = False) -> None:
        try:
            (self.path / name).write_text(value)
        except OSError:
            if not optional:
                raise

    def peak_bytes(self) -> int | None:
        """``memory.peak`` (kernel >= 5.19), else ``None``."""
        try:
            return int((self.path / "memory.peak").read_text())
        except (OSError, ValueError):
            return None

    def oom_killed(self) -> bool:
        """Whether the kernel killed a process of the run for passing ``memory.max``."""
        try:
            for line in (self.path / "memory.events").read_text().splitlines():
                key, _, value = line.partition(" ")
                if key in ("oom_kill", "oom_group_kill") and int(value) > 0:
                    return True
        except (OSError, ValueError):
            pass
        return False

    def close(self) -> None:
        """Kill whatever is left in the cgroup and remove it."""
        for _ in range(50):
            try:
                pids = [int(p) for p in (self.path / "cgroup.procs").read_text().split()]
            except (OSError, ValueError):
                pids = []
            if not pids:
                break
            if (self.path / "cgroup.kill").exists():
                self._write("cgroup.kill", "1", optional=True)
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
            time.sleep(0.02)
        try:
            self.path.rmdir()
        except OSError:
            pass
