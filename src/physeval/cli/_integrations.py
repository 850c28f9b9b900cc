"""``physeval export-lm-eval``: physeval tasks as lm-evaluation-harness tasks."""

from __future__ import annotations

import argparse
from typing import Any

from physeval.cli._options import _add_task_options, _task_options


def add_commands(sub: Any) -> None:
    """``export-lm-eval``."""
    export = sub.add_parser(
        "export-lm-eval", help="write lm-eval task YAMLs for physeval tasks",
        description="Write, for each TASK, an lm-evaluation-harness YAML (absolute data path, the system prompt, "
                    "a few-shot sampler that never shows the question's own template, physeval's metrics) and "
                    "its documents into --out; run them with `lm_eval --include_path OUT --tasks physeval_NAME`.")
    export.add_argument("tasks", nargs="+", metavar="TASK", help="physeval task names (e.g. bank-numeric phybench)")
    export.add_argument("--out", required=True, help="folder for the YAMLs, documents and physeval_hooks.py")
    export.add_argument("--max-fewshot", type=int, default=5,
                        help="worked examples exported per question (the most --num_fewshot can show; default 5)")
    _add_task_options(export)
    export.set_defaults(func=_cmd_export_lm_eval)


def _cmd_export_lm_eval(args: argparse.Namespace) -> int:
    from physeval.integrations.lm_eval_export import export_lm_eval

    for done in export_lm_eval(args.tasks, args.out, _task_options(args), max_fewshot=args.max_fewshot):
        print(f"{done.yaml}  ({done.count} documents; metrics: {', '.join(done.metrics)}; "
              f"lm_eval --include_path {done.yaml.parent} --tasks {done.lm_eval_name})")
    return 0
