"""Progress of a run on stderr: done/total, rate, tokens per second, time left, errors, accuracy.

Three modes (``physeval run --progress``): ``rich`` redraws a bar in place (for a terminal);
``plain`` prints one line at each tenth of the run and at its end, nothing redrawn, so a CI log
or a file stays readable (the default when stdout is not a terminal); ``none`` prints nothing.
The lines are counts of finished samples. The rate (samples a second, or seconds a sample when
slower than one a second, as the embedded model on a CPU is), the completion tokens a second
and the time left (``ETA``: the samples still to do at this session's pace) are wall-clock and
only ever shown, never stored. Answers from the response cache are counted apart (``10 from
cache``) and add no tokens: the token rate is what the server generated in this session.
"""

from __future__ import annotations

import math
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
        self.tokens = 0
        self.cached = 0
        self._started = time.perf_counter()
        self._new = 0
        self._stream = stream
        self._step = max(1, total // 10)
        self._progress: Progress | None = None
        if self.mode != "rich":
            return
        self._progress = Progress(
            TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
            TextColumn("{task.fields[rate]}"), TextColumn("{task.fields[tokens]}"), TextColumn("{task.fields[cached]}"),
            TextColumn("{task.fields[eta]}"),
            TextColumn("[red]{task.fields[errors]}"),
            TextColumn("[green]{task.fields[acc]}"), TimeElapsedColumn(),
            console=console or Console(stderr=True), transient=False,
        )
        self._task = self._progress.add_task(label, total=total, completed=already, rate="", tokens="", cached="",
                                             eta="", errors="", acc="")

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

    def advance(self, *, correct: bool | None, error: bool, tokens: int | None = None, cached: bool = False) -> None:
        """Count one finished sample (``tokens``: its completion tokens, when the server said;
        ``cached``: answered from the response cache, so its tokens were not generated now)."""
        self._new += 1
        self.done += 1
        self.errors += error
        self.cached += cached
        self.tokens += 0 if cached else tokens or 0
        if correct is not None:
            self.graded += 1
            self.correct += bool(correct)
        if self.mode == "plain":
            if self._new % self._step == 0:
                self._line()
            return
        if self._progress is None:
            return
        self._progress.update(self._task, advance=1, rate=self._rate(), tokens=self._tokens(),
                              cached=self._cached(), eta=self._eta(),
                              errors=self._errors(), acc=self._acc())

    def _elapsed(self) -> float:
        return max(time.perf_counter() - self._started, 1e-9)

    def _rate(self) -> str:
        """``12.3/s``, or ``14.2 s each`` when a sample takes over a second (never a bare ``0.0/s``)."""
        per_second = self._new / self._elapsed()
        if per_second >= 1 or not self._new:
            return f"{per_second:.1f}/s"
        return f"{self._elapsed() / self._new:.1f} s each"

    def _tokens(self) -> str:
        """Completion tokens a second over this session (empty when no sample reported its usage)."""
        return f"{self.tokens / self._elapsed():.1f} tok/s" if self.tokens else ""

    def _cached(self) -> str:
        return f"{self.cached} from cache" if self.cached else ""

    def _eta(self) -> str:
        """The time the samples still to do take at this session's pace."""
        left = self.total - self.done
        if not self._new or left <= 0:
            return ""
        seconds = math.ceil(left * self._elapsed() / self._new)
        hours, rest = divmod(seconds, 3600)
        return f"ETA {hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"ETA {rest // 60}:{rest % 60:02d}"

    def _errors(self) -> str:
        return f"{self.errors} errors" if self.errors else ""

    def _acc(self) -> str:
        return f"acc {self.correct / self.graded:.1%} (n={self.graded})" if self.graded else ""

    def _line(self, note: str | None = None) -> None:
        percent = f" ({self.done / self.total:.0%})" if self.total else ""
        rates = [note] if note else [self._rate(), self._tokens(), self._cached(), self._eta()]
        parts = [f"{self.label}: {self.done}/{self.total}{percent}", *rates, self._errors(), self._acc()]
        try:
            print(" ".join(p for p in parts if p), file=self._stream or sys.stderr, flush=True)
        except (OSError, ValueError):  # the reader of the pipe is gone (`| head`): the run goes on unseen
            self.mode = "none"
