"""The ``physeval`` command line: a thin layer over :mod:`physeval.flow` and friends.

Subcommands: run, score, tasks, export, report (and the track-specific ones each track adds).
Every subcommand has ``--help``. Errors a user can fix (missing data, unknown task, bad
model name) print one clear line and exit 2; nothing prints a traceback for them.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import NoReturn

from physeval.cli._common import (
    EXIT_ABORTED,
    EXIT_BROKEN_PIPE,
    EXIT_BUG,
    EXIT_INCOMPLETE,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_STORAGE,
    EXIT_TERMINATED,
    EXIT_USER_ERROR,
)
from physeval.cli._common import (
    console as _console,
)
from physeval.errors import UserError

__all__ = ["main", "console_main", "build_parser", "EXIT_OK", "EXIT_BUG", "EXIT_USER_ERROR", "EXIT_INCOMPLETE",
           "EXIT_ABORTED", "EXIT_STORAGE", "EXIT_INTERRUPTED", "EXIT_TERMINATED", "EXIT_BROKEN_PIPE"]


def build_parser(task: str | None = None) -> argparse.ArgumentParser:
    """The argument parser for every subcommand; ``run``/``score``/``regrade`` offer ``task``'s options."""
    from physeval.cli import _cache, _integrations, _local, _run, _runs, _scenes, _variation
    from physeval.cli._options import choose_task
    from physeval.version import __version__

    choose_task(task)
    parser = argparse.ArgumentParser(prog="physeval", description="Evaluate language models on physics.")
    parser.add_argument("--version", action="version", version=f"physeval {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    _run.add_commands(sub)
    _runs.add_commands(sub)
    _variation.add_commands(sub)
    _scenes.add_commands(sub)
    _integrations.add_commands(sub)
    _local.add_commands(sub)
    _cache.add_commands(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``physeval`` console script.

    Exit status: 0 when every planned sample was answered and graded; 3 when some ended in
    errors or were not run; 4 when the run was aborted (model unreachable, wrong key or model
    name, circuit breaker); 5 when the run folder's storage failed (a full or read-only disk, an
    I/O error, a damaged ``samples.sqlite``: one line with the cause and what to do, every
    committed row kept); 2 for a user error (one line saying what to do); 1 for a bug in
    physeval (with its traceback); 130 when interrupted (Ctrl-C), 143 when terminated (SIGTERM,
    which stops a command as Ctrl-C does); 141, silently, when the reader of standard output has
    gone (``physeval vary ... | head``), as for any Unix tool.
    """
    arguments = list(sys.argv[1:] if argv is None else argv)
    if arguments == ["--version"]:  # answered before any command module is imported
        from physeval.version import __version__

        print(f"physeval {__version__}")
        return EXIT_OK
    import traceback

    from rich.markup import escape

    from physeval.cli._task_choice import task_named_in
    from physeval.errors import ModelError, RunAborted, StorageError

    parser = build_parser(task_named_in(arguments))
    args = parser.parse_args(arguments)
    if not getattr(args, "func", None):
        parser.print_help()
        return EXIT_OK
    from physeval.cli._cache import grading_cache_switch_kept
    from physeval.cli._errors import (
        Terminated,
        quiet_broken_pipe,
        rich_saw_a_broken_pipe,
        sigterm_as_interrupt,
        stdout_is_closed,
        user_error_for,
    )

    try:
        with sigterm_as_interrupt(), grading_cache_switch_kept():  # --no-cache lasts one command
            return int(args.func(args) or 0)
    except StorageError as exc:  # the disk, not the evaluation: the cause and what to do
        _console.print(f"[red]error:[/] {escape(str(exc))}" + (f"; what to do: {escape(exc.hint)}" if exc.hint else ""))
        return EXIT_STORAGE
    except UserError as exc:
        _console.print(f"[red]error:[/] {escape(str(exc))}")
        return EXIT_USER_ERROR
    except (ModelError, RunAborted) as exc:
        _console.print(f"[red]error:[/] {escape(str(exc))}")
        return EXIT_ABORTED
    except Terminated:
        return EXIT_TERMINATED
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        if not stdout_is_closed():
            return _bug(traceback.format_exc())
        quiet_broken_pipe()  # the reader of our output has gone: stop quietly, as `seq 1000000 | head` does
        return EXIT_BROKEN_PIPE
    except SystemExit as exc:
        if rich_saw_a_broken_pipe(exc):
            return EXIT_BROKEN_PIPE
        raise
    except Exception as exc:  # noqa: BLE001 - a user's mistake found late, or a bug
        message = user_error_for(exc, arguments)
        if message is not None:
            _console.print(f"[red]error:[/] {escape(message)}")
            return EXIT_USER_ERROR
        return _bug(traceback.format_exc())


def console_main() -> NoReturn:
    """The ``physeval`` console script: :func:`main`, then an exit a late Ctrl-C cannot change.

    A Ctrl-C or SIGTERM after the command has returned (while the grading workers stop) says the
    command had ended and exits with its status, instead of killing a finished run by the signal
    (see :mod:`physeval.cli._exit`).
    """
    from physeval.cli._exit import exit_with, prepare_exit

    prepare_exit()
    exit_with(main())


def _bug(trace: str) -> int:
    """Show everything and ask for a report: exit status 1."""
    from rich.markup import escape

    _console.print(escape(trace), highlight=False)
    _console.print("[red bold]internal error[/]: this is a bug in physeval, not in your input; please report it "
                   "with the traceback above and the command you ran")
    return EXIT_BUG

if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
