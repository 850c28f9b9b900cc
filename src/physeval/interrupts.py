"""SIGTERM stops a command as Ctrl-C does, with no traceback, in plain code and in asyncio code.

The command line (and only it: a library call leaves its caller's signal handling alone) enters
:func:`sigterm_as_interrupt`. Outside an event loop a SIGTERM raises :class:`Terminated` (a
``KeyboardInterrupt``) where the program is, as Ctrl-C raises ``KeyboardInterrupt``. Inside one,
raising where the program is can land in a task nobody awaits (aiohttp's writer task), which then
logs "Task exception was never retrieved" with a traceback; so :func:`run_stoppable`, the
``asyncio.run`` of physeval's commands, answers SIGTERM in the loop: it cancels the main task,
which stops cleanly (finished rows kept), and raises :class:`Terminated` once it has. This does not
rely on Ctrl-C's handler, which asyncio installs only when SIGINT is not ignored (a shell's
background job ignores it). A second SIGTERM kills as usual.
"""

from __future__ import annotations

import asyncio
import signal
import threading
from collections.abc import Coroutine, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

__all__ = ["Terminated", "interrupted_status", "run_stoppable", "sigterm_as_interrupt"]

T = TypeVar("T")
_MARK = "_physeval_stops_as_ctrl_c"


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where Ctrl-C raises ``KeyboardInterrupt``, so every command stops as on Ctrl-C."""


def interrupted_status(exc: BaseException) -> int:
    """The exit status of a command stopped by ``exc``: 143 for SIGTERM (:class:`Terminated`), else 130
    (Ctrl-C): 128 + the signal, as a shell reports it."""
    return 128 + (signal.SIGTERM if isinstance(exc, Terminated) else signal.SIGINT)


@contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """While inside, SIGTERM stops a command as Ctrl-C does (once; a second SIGTERM kills as usual)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum: int, frame: object) -> None:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        raise Terminated()

    setattr(handler, _MARK, True)
    previous = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _stops_as_ctrl_c() -> bool:
    """Whether the command line asked for SIGTERM as Ctrl-C (:func:`sigterm_as_interrupt` is active)."""
    return bool(getattr(signal.getsignal(signal.SIGTERM), _MARK, False))


def run_stoppable(coro: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run(coro)``; inside :func:`sigterm_as_interrupt`, a SIGTERM cancels the main task
    (in the loop, never inside another task) and raises :class:`Terminated` once it has stopped."""
    if threading.current_thread() is not threading.main_thread() or not _stops_as_ctrl_c():
        return asyncio.run(coro)
    previous = signal.getsignal(signal.SIGTERM)
    terminated = False

    async def main() -> T:
        loop = asyncio.get_running_loop()
        task = asyncio.current_task()
        assert task is not None

        def on_sigterm() -> None:
            nonlocal terminated
            terminated = True
            loop.remove_signal_handler(signal.SIGTERM)  # a second SIGTERM kills as usual
            task.cancel()

        loop.add_signal_handler(signal.SIGTERM, on_sigterm)
        try:
            return await coro
        finally:
            if not terminated:
                loop.remove_signal_handler(signal.SIGTERM)

    try:
        return asyncio.run(main())
    except asyncio.CancelledError:
        if terminated:
            raise Terminated() from None
        raise
    finally:
        if not terminated:
            signal.signal(signal.SIGTERM, previous)  # remove_signal_handler leaves the default
