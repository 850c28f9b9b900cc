"""Progress of a run on stderr: done/total, rate, errors and running accuracy.

Three modes (``physeval run --progress``): ``rich`` redraws a bar in place (for a terminal);
``plain`` prints one line at each tenth of the run and at its end, nothing redrawn, so a CI log
or a file stays readable (the default when stdout is not a terminal); ``none`` prints nothing.
The lines are counts of finished samples; the rate is wall-clock and only ever shown, never stored.
"""

from __future__ import annotations

import sys
import time
from typing import Literal, TextIO

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

__all__ = ["PROGRESS_MODES", "ProgressMode", "RunProgress", "default_progress_mode"]

ProgressMode = Literal["rich", "plain", "none"]
PROGRESS_MODES: tuple[ProgressMode, ...] = ("rich", "plain", "none")


def default_progress_mode() -> ProgressMode:
    """``rich`` when both stdout and stderr are terminals, else ``plain`` (CI logs, pipes, files)."""
    return "rich" if sys.stdout.isatty() and sys.stderr.isatty() else "plain"


class RunProgress:
    """Progress of one run. ``enabled`` is a mode, or a bool (``True``: rich, ``False``: none)."""

    def __init__(self, total: int, already: int = 0, label: str = "run", enabled: bool | ProgressMode = True,
                 console: Console | None = None, stream: TextIO | None = None) -> None:
        self.mode: ProgressMode = ("rich" if enabled else "none") if isinstance(enabled, bool) else enabled
        self.enabled = self.mode != "none"
        self.total, self.done, self.label = total, already, label
        self.graded = 0
        self.correct = 0
        self.errors = 0
        self._started = time.perf_counter()
        self._new = 0
        self._stream = stream
        self._step = max(1, total // 10)
        self._progress: Progress | None = None
        if self.mode != "rich":
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
        elif self.mode == "plain" and self.total:
            self._line(f"{self.done} kept from before" if self.done else "started")
        return self

    def __exit__(self, *exc: object) -> None:
        if self._progress is not None:
            self._progress.stop()
        elif self.mode == "plain" and self._new and self._new % self._step:
            self._line()  # the last line: where the run ended

    def advance(self, *, correct: bool | None, error: bool) -> None:
        """Count one finished sample."""
        self._new += 1
        self.done += 1
        self.errors += error
        if correct is not None:
            self.graded += 1
            self.correct += bool(correct)
        if self.mode == "plain":
            if self._new % self._step == 0:
                self._line()
            return
        if self._progress is None:
            return
        self._progress.update(self._task, advance=1, rate=self._rate(), errors=self._errors(), acc=self._acc())

    def _rate(self) -> str:
        return f"{self._new / max(time.perf_counter() - self._started, 1e-9):.1f}/s"

    def _errors(self) -> str:
        return f"{self.errors} errors" if self.errors else ""

    def _acc(self) -> str:
        return f"acc {self.correct / self.graded:.1%} (n={self.graded})" if self.graded else ""

    def _line(self, note: str | None = None) -> None:
        percent = f" ({self.done / self.total:.0%})" if self.total else ""
        parts = [f"{self.label}: {self.done}/{self.total}{percent}", note or self._rate(), self._errors(), self._acc()]
        print(" ".join(p for p in parts if p), file=self._stream or sys.stderr, flush=True)
