"""Run folders that did not end well: ``report`` of an unfinished run, ``export --salvage`` and ``repair``.

Why: a run killed with its machine leaves rows and no ``summary.json``; a disk that failed can
leave a damaged ``samples.sqlite``. Neither is "not a physeval run directory": the first gets
what its rows say and the resume line, the second its readable rows back (written out, or kept
in a new ``samples.sqlite`` that ``--resume`` continues).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape

from physeval.cli._common import EXIT_INCOMPLETE, EXIT_OK
from physeval.cli._common import console as _console
from physeval.errors import StoreDamaged, UserError

__all__ = ["add_commands", "salvage_export", "print_unfinished"]


def add_commands(sub: Any) -> None:
    """``repair``."""
    repair = sub.add_parser("repair", help="rebuild a damaged samples.sqlite from its readable rows",
                            description="Keep every row a damaged RUN_DIR/samples.sqlite still holds in a new "
                                        "one, with the run record; the damaged file is renamed "
                                        "samples.sqlite.damaged-TIME, never deleted. Then `physeval run --resume "
                                        "RUN_DIR` asks again only for the samples that were lost.")
    repair.add_argument("run_dir")
    repair.set_defaults(func=_cmd_repair)


def salvage_export(run_dir: str, output: str | None, fmt: str) -> int:
    """``export --salvage``: every readable row of a (possibly damaged) store, written out."""
    from physeval.store import DB_NAME, RunStore, export_rows

    if not (Path(run_dir) / DB_NAME).is_file():
        raise UserError(f"{run_dir}: no {DB_NAME} there")
    rows, undecodable = RunStore.salvage(run_dir)
    path = Path(output) if output else Path(run_dir) / f"samples.salvaged.{fmt}"
    export_rows(rows, path, fmt)
    lost = f"; {undecodable} more rows were read but could not be decoded" if undecodable else ""
    _console.print(f"{len(rows)} readable rows written{lost}")
    print(path)
    return EXIT_OK


def _cmd_repair(args: argparse.Namespace) -> int:
    from physeval.run_lock import hold_run_folder
    from physeval.sqlite_file import integrity_problems
    from physeval.store import DB_NAME, RunStore, repair

    run_dir = Path(args.run_dir)
    if not (run_dir / DB_NAME).is_file():
        raise UserError(f"{run_dir}: no {DB_NAME} there")
    with hold_run_folder(run_dir, "repair"):
        try:
            with RunStore(run_dir) as store:
                store.rows()
                store.get_meta("run")
            healthy = not integrity_problems(run_dir / DB_NAME)
        except StoreDamaged:
            healthy = False
        if healthy:
            _console.print(f"{run_dir / DB_NAME} is not damaged (every row reads, the integrity check is ok): "
                           "nothing to repair")
            return EXIT_OK
        kept = repair(run_dir)
    undecodable = f" ({kept.undecodable} unreadable rows left out)" if kept.undecodable else ""
    record = "with its run record" if "run" in kept.meta_keys else "[yellow]without a run record[/] (it was lost)"
    _console.print(f"repaired: {kept.rows} rows kept{undecodable} in a new {DB_NAME}, {record}; the damaged file "
                   f"is {escape(str(kept.damaged))}")
    if "run" in kept.meta_keys:
        _console.print(f"what to do: `physeval run --resume {escape(str(run_dir))}` asks again for the samples "
                       "that were lost (the kept ones are not asked again)")
    else:
        kept_rows = f"; `physeval export {escape(str(run_dir))}` writes out the kept rows" if kept.rows else ""
        _console.print("what to do: without its run record the run cannot be resumed: start it again with its "
                       f"options and `--out {escape(str(run_dir))}`{kept_rows}")
    return EXIT_OK


def print_unfinished(run_dir: str | Path) -> int:
    """``report`` of a folder with rows and no ``summary.json``: what the rows say, and the resume line
    (or who is writing it now). Exit 3: the numbers stand on part of the plan."""
    from physeval.flow.summarise import summarise
    from physeval.report.tables import print_summary
    from physeval.run_lock import holder
    from physeval.store import RunStore
    from physeval.tasks.registry import get_task

    run_dir = Path(run_dir)
    with RunStore(run_dir) as store:
        meta = store.run_meta()
        rows = store.rows()
        if meta is None:
            raise UserError(f"{run_dir}: samples.sqlite holds no run record ({len(rows)} rows) and there is no "
                            "summary.json: there is no run to report")
        info = holder(run_dir)
        writing = bool(info and info.get("alive") and info.get("what") in ("run", "score", "regrade"))
        ungraded = sum(r.ungraded for r in rows)
        errors = sum(r.status == "error" for r in rows) - ungraded
        planned = meta.planned.get("samples", len(rows))
        if writing and info is not None:
            state = (f"physeval {info.get('what')} (pid {info.get('pid')} on {info.get('host')}, since "
                     f"{info.get('started_at')}) is writing it now")
        else:
            state = "its last session ended without writing one (it was killed, or its machine stopped)"
        _console.print(f"[yellow bold]UNFINISHED[/]: {escape(str(run_dir))} has no summary.json: {escape(state)}. "
                       f"{len(rows)} of {planned} planned samples are stored: {len(rows) - errors - ungraded} "
                       f"graded, {errors} errors, {ungraded} answers not graded yet")
        try:
            task = get_task(meta.task, **meta.task_options)
        except Exception as exc:  # noqa: BLE001 - the counts above stand without the task
            _console.print(f"(no metrics: the task {escape(meta.task)!r} cannot be loaded here: {escape(str(exc))})")
            task = None
        if task is not None:
            print_summary(summarise(task, store, model=meta.model, config=meta.config), Console())
    if not writing:
        _console.print(f"what to do: `physeval run --resume {escape(str(run_dir))}` finishes it (stored samples "
                       "are kept, stored answers graded without asking the model again)")
    return EXIT_INCOMPLETE
