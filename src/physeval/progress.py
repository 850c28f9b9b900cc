"""A rich progress bar for runs: done/total, rate, errors and running accuracy."""

from __future__ import annotations

import time

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

__all__ = ["RunProgress"]


class RunProgress:
    """Progress of one run; a no-op when ``enabled`` is false (tests, pipes)."""

    def __init__(self, total: int, already: int = 0, label: str = "run", enabled: bool = True,
                 console: Console | None = None) -> None:
        self.enabled = enabled
        self.graded = 0
        self.correct = 0
        self.errors = 0
        self._started = time.perf_counter()
        self._new = 0
        if not enabled:
            self._progress = None
            return
        self._progress = Progress(
            TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
            TextColumn("{task.fields[rate]}"), TextColumn("[red]{task.fields[errors]}"),
            TextColumn("[green]{task.fields[acc]}"), TimeElapsedColumn(),
            console=console or Console(stderr=True), transient=False,
        )
        self._task = self._progress.add_task(label, total=total, completed=already, rate="", errors="", acc="")

    def __enter__(self) -> RunProgress:
        if self._progress is not None:
            self._progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._progress is not None:
            self._progress.stop()

    def advance(self, *, correct: bool | None, error: bool) -> None:
        """Count one finished sample."""
        self._new += 1
        self.errors += error
        if correct is not None:
            self.graded += 1
            self.correct += bool(correct)
        if self._progress is None:
            return
        elapsed = max(time.perf_counter() - self._started, 1e-9)
        acc = f"acc {self.correct / self.graded:.1%}" if self.graded else ""
        self._progress.update(self._task, advance=1, rate=f"{self._new / elapsed:.1f}/s",
                              errors=f"{self.errors} errors" if self.errors else "", acc=acc)
