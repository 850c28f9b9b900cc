"""What every command module shares: the stderr console and the exit statuses.

The console is built on first use, so a command that prints nothing through it (``--version``,
``--help``) never imports rich.
"""

from __future__ import annotations

from typing import Any

__all__ = ["console", "EXIT_OK", "EXIT_BUG", "EXIT_USER_ERROR", "EXIT_INCOMPLETE", "EXIT_ABORTED", "EXIT_STORAGE",
           "EXIT_INTERRUPTED", "EXIT_TERMINATED", "EXIT_BROKEN_PIPE", "interrupted_status"]


class _LazyConsole:
    """A ``rich.console.Console(stderr=True, soft_wrap=True)`` made when first used."""

    def __init__(self) -> None:
        self._console: Any = None

    def __getattr__(self, name: str) -> Any:
        if self._console is None:
            from rich.console import Console

            self._console = Console(stderr=True, soft_wrap=True)  # paths in messages must stay copy-pasteable
        return getattr(self._console, name)


console: Any = _LazyConsole()

EXIT_OK = 0
EXIT_BUG = 1
EXIT_USER_ERROR = 2
EXIT_INCOMPLETE = 3
EXIT_ABORTED = 4
EXIT_STORAGE = 5  # the run folder's disk: full, read-only, failing, or a damaged samples.sqlite
EXIT_INTERRUPTED = 130
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE: what the shell reports for a tool whose reader went away
EXIT_TERMINATED = 143  # 128 + SIGTERM


def interrupted_status(exc: BaseException) -> int:
    """130 for Ctrl-C, 143 for SIGTERM (raised as ``Terminated``, a ``KeyboardInterrupt``)."""
    from physeval.interrupts import interrupted_status as status

    return status(exc)
