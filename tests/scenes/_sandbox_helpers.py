"""Helpers of the sandbox tests: the backends here, processes by uid, the host's SysV IPC objects, POSIX queues."""

from __future__ import annotations

import ctypes
import glob
import os
import threading
from pathlib import Path
from typing import Self

import pytest

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


KERNEL_MEMORY = pytest.mark.xdist_group("kernel-memory")
"""The mark of tests that fill the host's Shmem or Slab, or measure them (``RunMemory``)."""
KERNEL_MEMORY_KINDS = ("Shmem:", "SUnreclaim:")
"""The /proc/meminfo kinds a run's files and IPC hold outside any process: tmpfs, memfd and SysV
pages (Shmem) and tmpfs inodes (SUnreclaim: ``shmem_inode_cache`` is not reclaimable slab). Not
all of Slab: its reclaimable part is the disk cache's dentries and inodes, which any process
reading files moves by hundreds of MiB (CI failed an inode test at "442 MiB" for a run that holds
about 50 while the other worker read files)."""


def _kernel_memory() -> int:
    total = 0
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith(KERNEL_MEMORY_KINDS):
            total += int(line.split()[1]) * 1024
    return total


def _descendants(root: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for stat in glob.glob("/proc/[0-9]*/stat"):
        try:
            text = Path(stat).read_text()
        except OSError:
            continue
        ppid = int(text[text.rindex(")") + 2 :].split()[1])
        children.setdefault(ppid, []).append(int(stat.split("/")[2]))
    found, todo = [], [root]
    while todo:
        kids = children.get(todo.pop(), [])
        found += kids
        todo += kids
    return found


def _anonymous_memory(pids: list[int]) -> int:
    total = 0
    for pid in pids:
        try:
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            continue
        for line in status.splitlines():
            if line.startswith("RssAnon:"):
                total += int(line.split()[1]) * 1024
    return total


class RunMemory:
    """The most memory a sandboxed run held while it ran, sampled every 20 ms from the host.

    It counts the run's own processes' pages (the anonymous memory of this test process's
    descendants born since it began: a session fixture's process, an embedded model of 1.1 GiB,
    is a descendant too) and the kernel memory any process's files and IPC hold (Shmem and
    unreclaimable Slab, ``KERNEL_MEMORY_KINDS``): their
    rise over the lowest level seen before, not over the start, because the teardown of an
    earlier run's tmpfs mounts frees inodes while this run makes its own. Not the host's MemAvailable: under ``pytest -n 2`` the
    other worker loading the embedded model moved that by hundreds of MiB and failed the test.
    Both are host-wide, so every test that fills them carries ``KERNEL_MEMORY``: one
    worker runs them one after another.
    """

    def __init__(self) -> None:
        self._before = set(_descendants(os.getpid()))  # the session's own (an embedded model, a Ray cluster)
        self._kernel_low = _kernel_memory()
        self.peak = 0
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def _held(self) -> int:
        kernel = _kernel_memory()
        self._kernel_low = min(self._kernel_low, kernel)
        born = [pid for pid in _descendants(os.getpid()) if pid not in self._before]
        return kernel - self._kernel_low + _anonymous_memory(born)

    def measure(self) -> int:
        """Take one sample now (the thread takes one every 20 ms) and return the peak so far."""
        with self._lock:
            self.peak = max(self.peak, self._held())
            return self.peak

    def _sample(self) -> None:
        while not self._stop.wait(0.02):
            self.measure()

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
