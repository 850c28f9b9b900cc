"""What every command module shares: the stderr console and the exit statuses."""

from __future__ import annotations

from rich.console import Console

__all__ = ["console", "EXIT_OK", "EXIT_BUG", "EXIT_USER_ERROR", "EXIT_INCOMPLETE", "EXIT_ABORTED", "EXIT_INTERRUPTED"]

console = Console(stderr=True, soft_wrap=True)  # paths in messages must stay copy-pasteable

EXIT_OK = 0
EXIT_BUG = 1
EXIT_USER_ERROR = 2
EXIT_INCOMPLETE = 3
EXIT_ABORTED = 4
EXIT_INTERRUPTED = 130
