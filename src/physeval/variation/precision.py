"""mpmath's working precision, set safely from several threads.

Why: ``mpmath.workdps`` changes the precision of mpmath's one global context and restores
it on exit. Two threads doing that at once interleave their save and restore: one thread's
block can then run at the other's (or the default 15-digit) precision, and the process is
left at a precision nobody asked for (seen: 8 threads building the bank left ``mp.dps`` at
50). Every variation block that needs a precision takes :func:`working_digits`, which holds
one process-wide re-entrant lock for the block, so blocks run one at a time at their own
precision; the engine's entry points that also do SymPy work (whose ``evalf`` sets the same
global precision internally) hold it for the whole call (:func:`exclusive`). mpmath and SymPy
are pure Python under the GIL, so the lock costs no parallelism. Graders running SymPy in
other threads do not take this lock: they ask SymPy for explicit precisions and were found
unaffected, but while they run they can still change the precision a variation block sees.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

import mpmath

__all__ = ["exclusive", "working_digits"]

_LOCK = threading.RLock()
F = TypeVar("F", bound=Callable[..., Any])


@contextmanager
def working_digits(dps: int) -> Iterator[None]:
    """``mpmath.workdps(dps)`` for this block, exclusive among variation blocks (re-entrant)."""
    with _LOCK, mpmath.workdps(dps):
        yield


def exclusive(fn: F) -> F:
    """Run ``fn`` holding the same lock: for entry points whose SymPy work (``evalf``, ``simplify``)
    sets mpmath's precision inside, so it cannot change the precision of another thread's block."""

    @functools.wraps(fn)
    def locked(*args: Any, **kwargs: Any) -> Any:
        with _LOCK:
            return fn(*args, **kwargs)

    return locked  # type: ignore[return-value]
