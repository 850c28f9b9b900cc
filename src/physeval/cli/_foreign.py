"""Another tool's output where a command takes run directories (``report``, ``compare``, ``leaderboard``).

An inspect log or an lm-eval samples file given in place of ``RUN_DIR`` is scored, for the
command's lifetime, into a temporary run directory named after the file (so tables label it by
the file and the tool's model), with the physeval task and options the file records.
"""

from __future__ import annotations

import tempfile
from contextlib import ExitStack
from pathlib import Path

from rich.markup import escape

from physeval.cli._common import console
from physeval.errors import UserError

__all__ = ["as_run_dirs"]


def as_run_dirs(paths: list[str], stack: ExitStack) -> list[str]:
    """``paths`` with each foreign file replaced by a run directory scored from it (removed when
    ``stack`` closes); directories and physeval files are returned as given."""
    out = []
    for given in paths:
        path = Path(given)
        if not path.is_file():
            out.append(given)
            continue
        from physeval.flow.score import score_responses
        from physeval.imports import not_readable, read_foreign

        foreign = read_foreign(path)
        if foreign is None:
            raise not_readable(path, "a file, not a run directory")
        if not foreign.task:
            raise UserError(f"{path}: the {foreign.format} output does not name a physeval task; score it with "
                            f"`physeval score TASK --responses {path} --out DIR` and pass DIR")
        root = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="physeval-foreign-")))
        run_dir = root / path.stem
        summary, report = score_responses(foreign.task, foreign.records, run_dir=run_dir,
                                          task_options=foreign.task_options, model_label=foreign.model or path.stem)
        console.print(f"read {escape(str(path))} ({foreign.format}) as a run of {escape(foreign.task)}: "
                      f"{report.graded} samples graded, {report.skipped_errors} failed in the tool, "
                      f"{len(report.unknown_ids)} matching no problem")
        out.append(str(run_dir))
    return out
