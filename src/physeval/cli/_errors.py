"""What the ``physeval`` command makes of an exception: a user's mistake (one line, exit 2) or a bug.

Most user errors are raised as :class:`~physeval.errors.UserError` where they are found. This
module is the net under them, for the mistakes that surface as a plain exception from deep
inside a library, and turns each into the line saying what to do:

- an optional package that is not installed (an ``ImportError`` naming a module of one of
  physeval's extras, anywhere in the exception's cause chain): the ``pip install`` line of the
  extra that brings it;
- a file or folder the command line named that is not there (or is not readable): that path;
- a closed standard output (``physeval vary ... | head``): no message at all, as Unix tools
  stop, with the status a process killed by SIGPIPE has (141);
- SIGTERM: raised as :class:`Terminated`, a ``KeyboardInterrupt``, so a command stops exactly
  as on Ctrl-C (a run prints its resume line), with status 143 (128 + SIGTERM).

Everything else stays a bug: the traceback and exit status 1.
"""

from __future__ import annotations

import errno
import os
import signal
import sys
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

__all__ = ["OPTIONAL_MODULES", "Terminated", "user_error_for", "stdout_is_closed", "rich_saw_a_broken_pipe",
           "quiet_broken_pipe", "sigterm_as_interrupt", "sigterm_received"]

OPTIONAL_MODULES: dict[str, str] = {
    "pyarrow": "parquet",
    "cyllama": "local",
    "ray": "ray",
    "rapidfuzz": "build",
    "datasketch": "build",
    "inspect_ai": "inspect",
    "lm_eval": "lm-eval",
    "tenacity": "lm-eval",
    "wandb": "wandb",
    "tensorboardX": "tensorboard",
    "fastapi": "serve",
    "uvicorn": "serve",
}
"""Top-level module -> the extra of ``pyproject.toml`` that installs it (a test checks both sides)."""


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where Ctrl-C raises ``KeyboardInterrupt``, so every command stops as on Ctrl-C."""


def user_error_for(exc: BaseException, argv: Sequence[str]) -> str | None:
    """The one line for a user's mistake hidden in ``exc``, or ``None`` when it is a bug."""
    for link in _chain(exc):
        if isinstance(link, ImportError) and link.name:
            module = link.name.split(".", 1)[0]
            extra = OPTIONAL_MODULES.get(module)
            if extra is not None:
                return (f"this command needs the {module!r} package, which is not installed: "
                        f"pip install 'physeval[{extra}]'")
    for link in _chain(exc):
        if isinstance(link, (FileNotFoundError, NotADirectoryError, IsADirectoryError, PermissionError)):
            named = _named_on_command_line(link.filename, argv)
            if named is not None:
                what = next(text for kind, text in _FILE_ERRORS if isinstance(link, kind))
                return f"{named}: {what} (check the path given on the command line)"
    return None


_FILE_ERRORS: tuple[tuple[type[OSError], str], ...] = (
    (FileNotFoundError, "no such file or folder"), (NotADirectoryError, "not a folder"),
    (IsADirectoryError, "a folder, where a file is expected"), (PermissionError, "not readable (permission denied)"),
)


def _chain(exc: BaseException) -> Iterator[BaseException]:
    """``exc`` and its causes and contexts, each once."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def _named_on_command_line(filename: object, argv: Sequence[str]) -> str | None:
    """The argument of ``argv`` that names ``filename``, or a missing folder on its path, if any."""
    if not isinstance(filename, (str, os.PathLike)):
        return None
    try:
        target = Path(filename).expanduser().absolute()
    except (OSError, ValueError):
        return None
    for argument in argv:
        value = argument.split("=", 1)[1] if argument.startswith("-") and "=" in argument else argument
        if not value or value.startswith("-"):
            continue
        try:
            named = Path(value).expanduser().absolute()
        except (OSError, ValueError):
            continue
        if named == target or (named in target.parents and not named.exists()):
            return value
    return None


def stdout_is_closed() -> bool:
    """Whether standard output is a pipe whose reader has gone (``| head`` after its lines).

    A failed write may already have dropped what was buffered, so flushing again can succeed:
    the pipe itself is asked (``poll`` reports ``POLLERR`` on a pipe nobody reads any more).
    """
    try:
        sys.stdout.flush()
    except (BrokenPipeError, ValueError):
        return True
    except OSError as exc:
        return exc.errno == errno.EPIPE
    try:
        import select

        poller = select.poll()
        poller.register(sys.stdout.fileno(), select.POLLOUT)
        return any(events & select.POLLERR for _, events in poller.poll(0))
    except (AttributeError, OSError, ValueError):  # no poll here, or no file descriptor behind stdout
        return False


def rich_saw_a_broken_pipe(exc: SystemExit) -> bool:
    """Whether ``exc`` is rich's exit on a closed standard output (``Console.on_broken_pipe``).

    rich catches the ``BrokenPipeError`` of its own writes, points stdout at /dev/null and
    raises ``SystemExit(1)``: the same event as a broken pipe, which is not a bug.
    """
    frames = []
    trace = exc.__traceback__
    while trace is not None:
        frames.append(trace.tb_frame.f_code.co_name)
        trace = trace.tb_next
    return exc.code == 1 and bool(frames) and frames[-1] == "on_broken_pipe"


def quiet_broken_pipe() -> None:
    """Point standard output at /dev/null, so the interpreter's last flush raises nothing more."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):
        pass


_SIGTERM_SEEN = threading.Event()


def sigterm_received() -> bool:
    """Whether a SIGTERM arrived inside the current :func:`sigterm_as_interrupt` (its status is 143)."""
    return _SIGTERM_SEEN.is_set()


@contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """While inside, SIGTERM stops a command as Ctrl-C does (once; a second SIGTERM kills as usual).

    It takes Ctrl-C's own road: inside ``asyncio.run`` the runner's SIGINT handler cancels the main
    task, which stops cleanly (rows kept, no task left with an exception nobody reads) and comes
    out as ``KeyboardInterrupt``; elsewhere :class:`Terminated` is raised where the program is.
    Either way the command's status is 143 (:func:`sigterm_received`). Raising inside whatever
    frame was running, as before, could land in one of aiohttp's writer tasks, which then logged
    "Task exception was never retrieved" with a traceback on the user's terminal.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    _SIGTERM_SEEN.clear()

    def handler(signum: int, frame: Any) -> None:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        _SIGTERM_SEEN.set()
        on_interrupt = signal.getsignal(signal.SIGINT)
        if callable(on_interrupt) and on_interrupt is not signal.default_int_handler:
            on_interrupt(signal.SIGINT, frame)  # asyncio's runner: cancel the main task, stop as on Ctrl-C
            return
        raise Terminated()

    previous = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    except KeyboardInterrupt as exc:
        if _SIGTERM_SEEN.is_set() and not isinstance(exc, Terminated):
            raise Terminated() from exc
        raise
    finally:
        signal.signal(signal.SIGTERM, previous)
