"""A host-wide memory budget for concurrent sandbox runs: renders queue instead of overcommitting.

Why: each run may hold up to :meth:`SandboxLimits.footprint_bytes` of host memory (its memory
limit plus its tmpfs mounts). A render pool of N workers, a second physeval run on the same
machine or Ray workers on one node would each start runs without knowing of the others; the
host then runs out of memory instead of the run that asked too much.

How: the budget is cut into slots of :data:`SLOT_BYTES`, one lock file each, in a directory
private to the user (``physeval-budget-<uid>``); processes configured with different totals
share the first slots, so together they never pass the largest of their totals.
A run takes as many slots as its footprint needs with non-blocking ``flock`` calls; when it
cannot get them all it drops what it took and retries a moment later (no deadlock, and a run
that holds slots can never block another run's release). Locks die with their process, so a
killed worker never leaks budget. A run larger than the whole budget takes every slot and so
runs alone.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import os
import random
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass

__all__ = ["SLOT_BYTES", "MemoryBudget", "default_budget"]

SLOT_BYTES = 256 << 20


@dataclass(frozen=True)
class MemoryBudget:
    """A total number of bytes that concurrent runs of this user may reserve.

    Attributes:
        total_bytes: The budget (at least one slot).
        directory: Where the slot lock files live (default: under the temporary directory).
    """

    total_bytes: int
    directory: str | None = None

    @property
    def slots(self) -> int:
        """How many slots the budget has."""
        return max(1, self.total_bytes // SLOT_BYTES)

    def _dir(self) -> str:
        path = self.directory or os.path.join(tempfile.gettempdir(), f"physeval-budget-{os.getuid()}")
        os.makedirs(path, mode=0o700, exist_ok=True)
        st = os.lstat(path)
        if st.st_uid != os.getuid() or st.st_mode & 0o077:
            raise PermissionError(f"{path} must be a directory of uid {os.getuid()} with mode 0700")
        return path

    @contextlib.contextmanager
    def reserve(self, nbytes: int, *, poll_s: float = 0.1) -> Iterator[int]:
        """Hold enough slots for ``nbytes`` while the block runs; yields the number of slots held."""
        need = min(self.slots, max(1, -(-nbytes // SLOT_BYTES)))
        directory = self._dir()
        held: list[int] = []
        order = list(range(self.slots))
        try:
            while True:
                random.shuffle(order)  # spread concurrent callers over the slots
                for i in order:
                    fd = os.open(
                        os.path.join(directory, f"slot-{i:05d}"),
                        os.O_RDWR | os.O_CREAT,
                        0o600,
                    )
                    try:
                        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    except BlockingIOError:
                        os.close(fd)
                        continue
                    held.append(fd)
                    if len(held) == need:
                        break
                if len(held) == need:
                    break
                _release(held)
                time.sleep(poll_s * (0.5 + random.random()))
            yield need
        finally:
            _release(held)


def _release(fds: list[int]) -> None:
    while fds:
        os.close(fds.pop())  # closing the descriptor drops its flock


@functools.lru_cache(maxsize=1)
def _default(env: str | None) -> MemoryBudget:
    if env:
        return MemoryBudget(int(float(env) * (1 << 20)))
    return MemoryBudget(max(SLOT_BYTES, int(_mem_total() * 0.6)))


def default_budget() -> MemoryBudget:
    """``$PHYSEVAL_RENDER_MEMORY_MB`` MiB, else 60 % of the host's memory (the same in every process)."""
    return _default(os.environ.get("PHYSEVAL_RENDER_MEMORY_MB"))


def _mem_total() -> int:
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
