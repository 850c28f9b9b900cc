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
- SIGTERM: stops a command exactly as Ctrl-C does (a run prints its resume line), with status
  143 (128 + SIGTERM): :mod:`physeval.interrupts`.

Everything else stays a bug: the traceback and exit status 1.
"""

from __future__ import annotations

import errno
import os
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

from physeval.interrupts import Terminated, sigterm_as_interrupt

__all__ = ["OPTIONAL_MODULES", "Terminated", "user_error_for", "stdout_is_closed", "rich_saw_a_broken_pipe",
           "quiet_broken_pipe", "sigterm_as_interrupt"]

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
