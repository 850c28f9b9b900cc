"""Worker processes that end with the process that started them.

Why: a pool worker (grading, rendering) blocks reading its task queue, and every worker holds
that queue's write end too, so when the parent is killed outright (``kill -9``, the OOM killer)
no worker ever reads end-of-file: the workers, and multiprocessing's resource tracker whose pipe
they keep open, live on under PID 1 for ever. A ``physeval serve`` or ``physeval run`` killed
that way left two workers and the tracker running (issue 33, finding 7).

:func:`die_with_parent` is a pool's worker initializer (``initializer=die_with_parent,
initargs=(os.getpid(),)``, or called first by an initializer of its own). It starts one daemon
thread that blocks until the parent has exited, then ends the worker with :data:`ORPHANED`. The
tracker then sees its pipe close and exits by itself.

How the thread waits: on Linux (5.3 and later) on a pidfd of the parent, which becomes readable
when that very process exits (a pid reused later cannot fool it); elsewhere by checking once a
second whether the worker's parent is still the original one. The pid is checked again after the
pidfd is opened, so a parent that died before the worker got here is noticed at once.

Not ``prctl(PR_SET_PDEATHSIG)``: the kernel sends that signal when the parent *thread* that
forked the worker ends, and a pool spawns workers from whichever thread submits work (an
``asyncio.to_thread`` helper, a caller's thread), so a worker would be killed mid-task when an
unrelated thread of a live parent finished.
"""

from __future__ import annotations

import os
import select
import threading
import time

__all__ = ["ORPHANED", "die_with_parent"]

ORPHANED = 75
"""Exit status of a worker whose parent is gone (nobody reads it; it tells a reader of ``ps`` or a trace why)."""

_POLL_SECONDS = 1.0


def _parent_fd(parent_pid: int) -> int | None:
    """A pidfd of ``parent_pid`` (``None`` where the platform has none)."""
    try:
        return os.pidfd_open(parent_pid)
    except (AttributeError, OSError):  # not Linux, an old kernel, or the parent already reaped
        return None


def die_with_parent(parent_pid: int) -> None:
    """End this worker when the process ``parent_pid`` (its parent) ends; returns at once."""
    fd = _parent_fd(parent_pid)
    if os.getppid() != parent_pid:  # gone already (then the pidfd may name nothing, or another process)
        os._exit(ORPHANED)

    def watch() -> None:
        if fd is not None:
            select.select([fd], [], [])  # readable once the parent has exited
        else:
            while os.getppid() == parent_pid:
                time.sleep(_POLL_SECONDS)
        os._exit(ORPHANED)

    threading.Thread(target=watch, name="physeval-parent-watch", daemon=True).start()
