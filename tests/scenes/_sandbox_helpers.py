"""Helpers of the sandbox tests: the backends here, processes by uid, the host's SysV IPC objects, POSIX queues."""

from __future__ import annotations

import ctypes
import glob
import os
from pathlib import Path

from physeval.scenes.sandbox import backend_names, get_backend

ISOLATING = [n for n in backend_names() if get_backend(n).isolating]
"""Every registered backend that isolates (``none`` is not one)."""
AVAILABLE = [n for n in ISOLATING if get_backend(n).available()[0]]
"""The isolating backends that work on this host, best first."""
WHY_NOT = {n: get_backend(n).available()[1] for n in ISOLATING if n not in AVAILABLE}
"""Why each unavailable isolating backend cannot run here."""


def _uid_of(pid_dir: str) -> int | None:
    try:
        line = next(ln for ln in Path(pid_dir, "status").read_text().splitlines() if ln.startswith("Uid:"))
    except (OSError, StopIteration):
        return None
    return int(line.split()[1])


def pids_in_uid_range(lo: int, hi: int) -> set[int]:
    """Live processes whose real uid is in ``[lo, hi)``."""
    found = set()
    for pid_dir in glob.glob("/proc/[0-9]*"):
        uid = _uid_of(pid_dir)
        if uid is not None and lo <= uid < hi:
            found.add(int(pid_dir.rsplit("/", 1)[1]))
    return found


_CUID_COLUMN = {"shm": 9, "msg": 9, "sem": 6}


def host_sysv_objects() -> set[tuple[str, str, int]]:
    """Every SysV shared-memory segment, message queue and semaphore set on the host: (kind, id, creator uid)."""
    out = set()
    for kind, column in _CUID_COLUMN.items():
        try:
            lines = Path(f"/proc/sysvipc/{kind}").read_text().splitlines()[1:]
        except OSError:
            lines = []
        for ln in lines:
            fields = ln.split()
            out.add((kind, fields[1], int(fields[column])))
    return out


def posix_mq_exists(name: str) -> bool:
    """Whether the POSIX message queue ``name`` exists in the host's IPC namespace."""
    librt = ctypes.CDLL("librt.so.1", use_errno=True)
    librt.mq_open.restype = ctypes.c_int
    fd = librt.mq_open(name.encode(), os.O_RDONLY)
    if fd >= 0:
        librt.mq_close(fd)
        return True
    return False


def render_worker_dies(*args: object) -> None:
    """A render job that kills the pool worker running it (as the host's OOM killer would)."""
    os._exit(137)


def process_state(pid: int) -> str | None:
    """The process state letter of ``pid`` (``Z`` for a zombie), ``None`` once it is gone."""
    try:
        line = next(ln for ln in Path(f"/proc/{pid}/status").read_text().splitlines() if ln.startswith("State:"))
    except (OSError, StopIteration):
        return None
    return line.split()[1]


def in_another_pid_namespace(pid: int) -> bool:
    """Whether ``pid`` lives in a PID namespace other than this process's (a sandboxed one)."""
    try:
        return os.readlink(f"/proc/{pid}/ns/pid") != os.readlink("/proc/self/ns/pid")
    except OSError:
        return False


def wait_until_gone(pids: set[int], bound_s: float = 300.0) -> None:
    """Block until every process in ``pids`` has exited (pidfds become readable on exit).

    ``bound_s`` only keeps a broken sandbox from hanging the suite; a healthy one returns as soon
    as the kernel has killed the processes.
    """
    import select

    fds = []
    for pid in pids:
        try:
            fds.append(os.pidfd_open(pid))
        except ProcessLookupError:
            continue
    try:
        while fds:
            ready, _, _ = select.select(fds, [], [], bound_s)
            if not ready:
                return
            for fd in ready:
                fds.remove(fd)
                os.close(fd)
    finally:
        for fd in fds:
            os.close(fd)


PF_EXITING = 0x4
"""The kernel's task flag for a process inside exit (``/proc/PID/stat``, field 9)."""


def dying(pid: int) -> bool:
    """Whether ``pid`` can never run the program again: gone, a zombie, inside exit (``PF_EXITING``),
    or with SIGKILL pending. Read from the kernel's state, not from a clock."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        fields = dict(ln.split(":", 1) for ln in Path(f"/proc/{pid}/status").read_text().splitlines() if ":" in ln)
    except OSError:
        return True
    after_name = stat.rsplit(")", 1)[1].split()  # state is the first field after the command name
    if after_name[0] in ("Z", "X") or int(after_name[6]) & PF_EXITING:
        return True
    pending = int(fields.get("SigPnd", "0").strip(), 16) | int(fields.get("ShdPnd", "0").strip(), 16)
    return bool(pending & (1 << 8))
