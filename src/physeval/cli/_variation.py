"""``physeval vary`` and ``physeval audit``: problem variation and dataset audits."""

from __future__ import annotations

import argparse
import json
from typing import Any

from rich.console import Console


def add_commands(sub: Any) -> None:
    """``vary`` and ``audit``."""
    _add_variation_commands(sub)


def _add_variation_commands(sub: Any) -> None:
    vary = sub.add_parser("vary", help="generate variants of a problem template",
                          description="Variants of a template (a bank id or a YAML file): text and recomputed "
                                      "answer. The same seed gives the same variants on every machine.")
    vary.add_argument("template", help="bank template id (e.g. mech_projectile_range), a YAML path, or abench-b:MID")
    vary.add_argument("--data", help="abench-b:MID: Phy_B_dynamic_100.csv or its folder")
    vary.add_argument("--n", type=int, default=4, help="number of variants (variant 0 = canonical values)")
    vary.add_argument("--seed", type=int, default=0)
    vary.add_argument("--output", help="write JSONL here instead of printing")
    vary.set_defaults(func=_cmd_vary)

    audit = sub.add_parser("audit", help="check a dataset's answers for internal consistency",
                           description="Recompute answers that have a solution and check every family of released "
                                       "variants for consistency; list suspects with the evidence.")
    audit.add_argument("task", help="abench-a, abench-b, bank-numeric, or a CSV/JSONL file")
    audit.add_argument("--data", help="dataset file or folder (ABench tasks)")
    audit.add_argument("--solutions", help="JSON/YAML {problem id: formula} beside the problems")
    audit.add_argument("--min-severity", choices=["high", "medium", "figures", "low"], default="low",
                       help="drop weaker findings; 'figures': released answers within 1%% but wrong at the "
                            "asked significant figures")
    audit.add_argument("--json", action="store_true", help="print findings as JSON lines")
    audit.set_defaults(func=_cmd_audit)


def _cmd_vary(args: argparse.Namespace) -> int:
    from physeval.variation.commands import vary_command

    variants = vary_command(args.template, args.n, args.seed, data=args.data)
    if args.output:
        with open(args.output, "w", encoding="utf-8") as fh:
            for v in variants:
                fh.write(json.dumps(v, ensure_ascii=False) + "\n")
        print(args.output)
        return 0
    for v in variants:
        print(f"--- variant {v['index']}\n{v['question']}\n=> {v['answer']}")
    return 0


def _cmd_audit(args: argparse.Namespace) -> int:
    from rich.table import Table

    from physeval.variation.commands import audit_command

    findings = audit_command(args.task, data=args.data, solutions=args.solutions, min_severity=args.min_severity)
    if args.json:
        for f in findings:
            print(json.dumps(f, ensure_ascii=False, default=str))
        return 0
    table = Table(title=f"audit of {args.task}: {len(findings)} findings")
    for column in ("severity", "problem", "variant", "kind", "evidence"):
        table.add_column(column)
    for f in findings:
        table.add_row(str(f.get("severity")), str(f.get("problem_id")), str(f.get("variant", "")),
                      str(f.get("kind")), str(f.get("message") or f.get("evidence") or ""))
    Console().print(table)
    return 0
