"""The commands that read runs: ``tasks``, ``export``, ``report``, ``compare``, ``leaderboard``, ``stats``."""

from __future__ import annotations

import argparse
import sys
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape

from physeval.cli._common import (
    console as _console,
)
from physeval.cli._foreign import as_run_dirs
from physeval.cli._run import _print_tokens
from physeval.errors import UserError


def add_commands(sub: Any) -> None:
    """``tasks``, ``export``, ``report``, ``compare``, ``stats`` and ``leaderboard``."""
    tasks = sub.add_parser("tasks", help="list the tasks", description="List the registered tasks; with --options, "
                                                                        "their options, types and defaults.")
    tasks.add_argument("--options", nargs="?", const="", metavar="TASK",
                       help="list the options (type, default, help) of TASK, or of every task when none is named")
    tasks.set_defaults(func=_cmd_tasks)

    export = sub.add_parser("export", help="export a run's samples", description="Export every sample of a run.")
    export.add_argument("run_dir")
    export.add_argument("--format", choices=["jsonl", "parquet"], default="jsonl")
    export.add_argument("--output", help="output file (default RUN_DIR/samples.FORMAT)")
    export.add_argument("--salvage", action="store_true",
                        help="every row a damaged samples.sqlite still holds (default output "
                             "RUN_DIR/samples.salvaged.FORMAT); `physeval repair` keeps them in the run instead")
    export.set_defaults(func=_cmd_export)

    report = sub.add_parser("report", help="print a run's summary",
                            description="Print the summary table of each run; --html writes the report (one run: "
                                        "its own; several: leaderboards, paired comparison, curves, outcomes).")
    report.add_argument("run_dirs", nargs="+", metavar="RUN_DIR",
                        help="physeval run directories, inspect logs (.eval/.json) or lm-eval samples_*.jsonl files")
    report.add_argument("--no-breakdowns", action="store_true",
                        help="headline metrics only (also in the HTML report: no per-group figures or rows)")
    report.add_argument("--robustness", action="store_true",
                        help="with --html over several symbolic runs: also EED's robustness and pairwise confidence "
                             "per scoring setting (PHYBench C.2, Table 6; rescores every sample six times)")
    report.add_argument("--scaling", action="store_true", help="also pass@k/maj@k for k = 1..K with the decay fit")
    report.add_argument("--lengths", action="store_true", help="also completion/reasoning token lengths per model")
    report.add_argument("--html", nargs="?", const="", metavar="PATH",
                        help="also write a self-contained HTML report with plots (default: RUN_DIR/report.html "
                             "for one run, ./physeval-report.html for several)")
    report.set_defaults(func=_cmd_report)

    compare = sub.add_parser("compare", help="compare runs side by side, paired by problem",
                             description="The metrics several runs share, one column per run, with 95% CIs; then "
                                         "paired differences by problem with sign-flip p-values, bootstrap "
                                         "intervals (from 20 problems) and tiers (runs of one task and problem "
                                         "set only).")
    compare.add_argument("run_dirs", nargs="+", metavar="RUN_DIR",
                         help="physeval run directories, inspect logs or lm-eval samples files")
    compare.add_argument("--breakdowns", action="store_true", help="include per-group metrics")
    compare.add_argument("--metric", help="metric to pair on: accuracy (default), static_accuracy, dynamic_accuracy, "
                                          "delta, eed, executable_rate, render_rate, playable_rate")
    compare.add_argument("--matched", choices=["executable", "rendered", "playable"],
                         help="scenes: downstream metrics on the samples every run brought to this stage")
    compare.set_defaults(func=_cmd_compare)
    _add_analysis_commands(sub)
    _add_leaderboard_command(sub)
    from physeval.cli import _folders

    _folders.add_commands(sub)


def _add_analysis_commands(sub: Any) -> None:
    stats = sub.add_parser("stats", help="statistics across runs",
                           description="sample-efficiency: how much better a partial-credit score (EED) "
                                       "separates models than accuracy, per pair of runs on the same problems; "
                                       "robustness: EED recomputed with other baseline scores, penalty slopes and "
                                       "subtree discounting off, with rank changes, sample efficiency and pairwise "
                                       "confidence per setting (PHYBench C.2 and Table 6).")
    analyses = stats.add_subparsers(dest="analysis", metavar="ANALYSIS", required=True)
    for name, text in (("sample-efficiency", "Per pair of runs on the same problems: accuracy and score "
                                             "differences, paired t statistics and (t_score / t_accuracy)^2."),
                       ("robustness", "Rescore every symbolic sample under other EED constants (baseline 50 "
                                      "and 70, penalty slopes 0.4 and 0.8, no subtree discount): mean EED and rank "
                                      "per run, rank changes, sample efficiency and, per pair, the confidence "
                                      "that A's EED beats B's (sign-flip test; PHYBench Table 6). Progress goes "
                                      "to stderr; rescoring takes about a fifth of a second a sample a setting.")):
        parser = analyses.add_parser(name, help=text.split(":")[0].split(".")[0], description=text)
        parser.add_argument("run_dirs", nargs="+", metavar="RUN_DIR")
        parser.set_defaults(func=_cmd_stats)


def _add_leaderboard_command(sub: Any) -> None:
    board = sub.add_parser("leaderboard", help="the papers' tables over runs, grouped by model",
                           description="ABench Table 2, PHYBench's main table and SimuScene Tables 2-3 from the "
                                       "runs given, one row per model (best first, the best of each column in "
                                       "bold), each cell with its 95% CI and n; numeric tasks other than ABench "
                                       "get ABench's columns under their own name.")
    board.add_argument("run_dirs", nargs="+", metavar="RUN_DIR",
                       help="physeval run directories, inspect logs or lm-eval samples files")
    board.add_argument("--layout", action="append", choices=["abench", "phybench", "simuscene"],
                       help="only these layouts (repeatable; default: every layout the runs fill)")
    board.add_argument("--format", choices=["terminal", "markdown", "csv", "latex", "html"], default="terminal")
    board.add_argument("--output", help="write to this file instead of printing")
    board.set_defaults(func=_cmd_leaderboard)


def _cmd_tasks(args: argparse.Namespace) -> int:
    from rich.table import Table

    from physeval.tasks.registry import task_class, task_listing

    wanted = getattr(args, "options", None)
    if wanted:
        return _print_task_options(task_class(wanted))
    table = Table(title="physeval tasks")
    for column in ("task", "track", "dynamic", "description"):
        table.add_column(column)
    if wanted is not None:
        table.add_column("options (-T KEY=VALUE)")
    for name, track, dynamic, description in task_listing():
        row = [escape(name), track, "yes" if dynamic else "", escape(description)]
        if wanted is not None:
            from physeval.tasks.options import describe_type, option_fields

            row.append(escape("\n".join(f"{f.name}: {describe_type(hint)} = {f.default!r}"
                                         for f, hint in option_fields(task_class(name).Options))))
        table.add_row(*row)
    Console().print(table)
    from physeval.tasks.registry import TASKS

    for problem in TASKS.plugin_problems():  # a broken plugin is named, and hides no other task
        _console.print(f"[yellow]skipped[/] {escape(problem)}")
    return 0


def _print_task_options(cls: Any) -> int:
    """One task's options: flag, type, default and help, each once."""
    from rich.table import Table

    from physeval.tasks.options import describe_type, option_fields

    table = Table(title=f"options of {cls.name} (as --flag VALUE or -T KEY=VALUE)")
    for column in ("option", "type", "default", "help"):
        table.add_column(column)
    for f, hint in option_fields(cls.Options):
        table.add_row(escape("--" + f.name.replace("_", "-")), escape(describe_type(hint)), escape(repr(f.default)),
                      escape(str(f.metadata.get("help", ""))))
    Console().print(table)
    return 0


def _cmd_export(args: argparse.Namespace) -> int:
    from physeval.store import RunStore

    if args.salvage:
        from physeval.cli._folders import salvage_export

        return salvage_export(args.run_dir, args.output, args.format)
    if not RunStore.exists(args.run_dir):
        raise UserError(f"{args.run_dir}: no physeval run there")
    output = Path(args.output) if args.output else Path(args.run_dir) / f"samples.{args.format}"
    with RunStore(args.run_dir) as store:
        store.export(output, args.format)
    print(output)
    return 0


def _cmd_report(args: argparse.Namespace) -> int:
    with ExitStack() as stack:
        given = list(args.run_dirs)
        args.run_dirs = as_run_dirs(given, stack)
        if args.html == "" and given != args.run_dirs and len(given) == 1:
            args.html = "physeval-report.html"  # the scored run directory is temporary
        return _report(args)


def _report(args: argparse.Namespace) -> int:
    from physeval.cli._folders import print_unfinished
    from physeval.report.tables import print_summary
    from physeval.store import RunStore
    from physeval.summary import SUMMARY_NAME, read_summary

    for run_dir in args.run_dirs:
        if RunStore.exists(run_dir):  # a damaged store is named (exit 5) before anything is printed
            with RunStore(run_dir) as store:
                store.rows()
        elif not (Path(run_dir) / SUMMARY_NAME).is_file():
            raise UserError(f"no {SUMMARY_NAME} in {run_dir}: is it a physeval run directory?")
    if len(args.run_dirs) == 1 and not (Path(args.run_dirs[0]) / SUMMARY_NAME).is_file():
        return print_unfinished(args.run_dirs[0])  # rows and no summary: a run killed (or still going)
    for run_dir in args.run_dirs:
        if not (Path(run_dir) / SUMMARY_NAME).is_file():
            raise UserError(f"no {SUMMARY_NAME} in {run_dir}: the run has not ended (`physeval report {run_dir}` "
                            "alone shows its rows so far)")
    for run_dir in args.run_dirs:
        summary = read_summary(run_dir)
        if not summary.complete:
            _console.print(f"[red bold]{summary.status.upper()}[/]: {summary.counts.errors} samples ended in "
                           f"errors, {summary.counts.missing} were not run")
        print_summary(summary, Console(), breakdowns=not args.no_breakdowns)
        _print_tokens(summary, None, run_dir)  # the token and cost lines the run printed
    if len(args.run_dirs) > 1 or args.scaling or args.lengths:
        _print_analyses(args)
    if args.html is not None:
        from physeval.report.html import MULTI_REPORT_NAME, write_html_report, write_multi_report

        if len(args.run_dirs) == 1:
            print(write_html_report(args.run_dirs[0], args.html or None, breakdowns=not args.no_breakdowns))
        else:
            print(write_multi_report(args.run_dirs, args.html or MULTI_REPORT_NAME,
                                     robustness=getattr(args, "robustness", False)))
    return 0


def _print_analyses(args: argparse.Namespace) -> None:
    """After several runs' summaries: why samples ended, per model; with the flags, scaling and lengths."""
    from physeval.analysis.lengths import run_lengths
    from physeval.analysis.outcomes import breakdowns_by_model
    from physeval.analysis.runs import load_runs, run_labels
    from physeval.analysis.scaling import scaling_curves
    from physeval.report.tables import lengths_table, outcome_table, scaling_table

    runs, console = load_runs(args.run_dirs), Console() if sys.stdout.isatty() else Console(width=200)
    if len(runs) > 1:
        console.print(outcome_table(breakdowns_by_model(runs)))
    if args.scaling:
        console.print(scaling_table([scaling_curves(r, label=label) for r, label in zip(runs, run_labels(runs))]))
    if args.lengths:
        console.print(lengths_table(run_lengths(runs)))


def _cmd_compare(args: argparse.Namespace) -> int:
    from physeval.report.compare import comparison_table, paired_report

    with ExitStack() as stack:
        run_dirs = as_run_dirs(args.run_dirs, stack)
        paired = paired_report(run_dirs, metric=args.metric, matched=args.matched)  # refusals before any table
        console = Console() if sys.stdout.isatty() else Console(width=200)
        console.print(comparison_table(run_dirs, breakdowns=args.breakdowns))
        for table in paired:
            console.print(table)
    return 0


def _cmd_leaderboard(args: argparse.Namespace) -> int:
    from physeval.analysis.leaderboard import LAYOUTS, leaderboards, render_boards
    from physeval.analysis.runs import load_runs

    with ExitStack() as stack:
        boards = leaderboards(load_runs(as_run_dirs(args.run_dirs, stack)), args.layout or LAYOUTS)
    if not boards:
        raise UserError("no run fills any leaderboard layout (numeric, symbolic or scene runs are needed)")
    rendered = render_boards(boards, args.format)
    if args.format == "terminal":
        if args.output:
            raise UserError("--output needs --format markdown, csv, latex or html")
        console = Console() if sys.stdout.isatty() else Console(width=240)  # a pipe gets whole tables
        for table in rendered:
            console.print(table)
        return 0
    if args.output:
        Path(args.output).write_text(rendered, encoding="utf-8")
        print(args.output)
    else:
        sys.stdout.write(rendered)
    return 0


def _cmd_stats(args: argparse.Namespace) -> int:
    from rich.table import Table

    from physeval.stats import sample_efficiency

    if len(args.run_dirs) < 2:
        raise UserError(f"{args.analysis} needs at least two runs")
    if args.analysis == "robustness":
        return _print_robustness(args.run_dirs)
    table = Table(title="sample efficiency of the score over accuracy, (t_score / t_accuracy)^2")
    for column in ("run A", "run B", "problems", "acc diff", "score diff", "t acc", "t score", "efficiency"):
        table.add_column(column)
    for pair in sample_efficiency(args.run_dirs):
        table.add_row(Path(pair.run_a).name, Path(pair.run_b).name, str(pair.problems),
                      f"{pair.accuracy_diff:+.3f}", f"{pair.score_diff:+.3f}", f"{pair.t_accuracy:.2f}",
                      f"{pair.t_score:.2f}", f"{pair.efficiency:.2f}")
    Console().print(table)
    return 0


def _print_robustness(run_dirs: list[str]) -> int:
    from rich.table import Table

    from physeval.analysis.paired import p_text, percent_text
    from physeval.analysis.robustness import metric_robustness

    def progress(line: str) -> None:
        _console.print(f"robustness: {escape(line)}", highlight=False)

    results = metric_robustness(run_dirs, progress=progress)
    table = Table(title="EED robustness (PHYBench C.2): mean EED and rank per run, efficiency over accuracy per pair")
    for column in ("setting", "runs: mean EED (rank)", "rank changes", "pairs: (t_EED / t_acc)^2"):
        table.add_column(column, overflow="fold")
    for result in results:
        runs = "; ".join(f"{escape(name)} {mean:.1f} ({rank})" for name, mean, rank in result.runs)
        pairs = "; ".join(f"{escape(a)}-{escape(b)} {eff:.2f} (n={n})" for a, b, n, eff in result.efficiency)
        table.add_row(result.setting, runs, str(result.rank_changes), pairs)
    Console().print(table)
    confidence = Table(title="pairwise confidence that A's EED beats B's, per setting (PHYBench Table 6; "
                             "sign-flip test over problems)")
    confidence.add_column("setting", overflow="fold")
    pairs_seen = [(a, b) for a, b, _, _ in results[0].confidence] if results else []
    for a, b in pairs_seen:
        confidence.add_column(f"{escape(a)} > {escape(b)}", justify="right", overflow="fold")
    for result in results:
        confidence.add_row(result.setting, *(f"{percent_text(c)} (p={p_text(p)})" for _, _, c, p in result.confidence))
    Console().print(confidence)
    return 0
