"""Precision and recall of the heuristic Phy_B audit against the exact one, on the 100 released problems.

The exact audit (``physeval audit abench-b``) recomputes every released answer with physeval's Phy_B
solutions and lists the hand-worked errors of static problems: its wrong answers are the truth here.
The heuristic audit is the same command's family checks run without any solution (scaling, power-law
fits, same constants with different answers, format changes), as physeval did before the solutions.

Counted per variant (a finding naming a variant) at each severity threshold; a family-level finding
(no variant) counts as right when its problem has at least one wrong answer. Variants whose answer
neither the formula confirms nor a documented error explains (a text the converter misreads) are
"unknown" and left out of precision.

Run: ``python bench/phy_b_audit.py --data ../shared/data/abench [--json out.json]``
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from physeval.tasks.abench_data import load_abench
from physeval.variation.abench_phy_b import load_phy_b_solutions
from physeval.variation.audit import audit_problems
from physeval.variation.commands import audit_command

LEVELS = {"high": ("high",), "medium": ("high", "medium"), "low": ("high", "medium", "low")}


def measure(data: str) -> dict[str, Any]:
    """The exact audit's wrong answers and the heuristic audit's precision and recall per severity threshold."""
    problems = load_abench(data, "b")
    entries = load_phy_b_solutions()
    exact = {(f["problem_id"], f["variant"]) for f in audit_command("abench-b", data=data)
             if f["kind"] in ("answer_mismatch", "documented_error")}
    confirmed = {(m, v) for m, e in entries.items() for v in e.confirmed}
    wrong_mids = {m for m, _ in exact}
    heuristic = audit_problems(problems, {})
    out: dict[str, Any] = {"exact_wrong": len(exact), "exact_wrong_problems": len(wrong_mids),
                           "confirmed_right": len(confirmed), "thresholds": {}}
    for name, severities in LEVELS.items():
        found = [f for f in heuristic if f.severity in severities]
        variants = {(f.problem_id, str(f.variant)) for f in found
                    if f.variant is not None and "," not in str(f.variant)}
        families = {f.problem_id for f in found if f.variant is None or "," in str(f.variant)}
        tp = variants & exact
        fp = variants & confirmed
        unknown = variants - exact - confirmed
        fam_tp = families & wrong_mids
        out["thresholds"][name] = {
            "variant_findings": len(variants), "true": len(tp), "false": len(fp), "unknown": len(unknown),
            "precision": round(len(tp) / max(len(tp) + len(fp), 1), 3),
            "recall": round(len(tp) / max(len(exact), 1), 3),
            "false_list": sorted(fp, key=lambda k: (int(k[0]), k[1])),
            "family_findings": len(families), "family_true": len(fam_tp),
            "problems_recall": round(len({m for m, _ in tp} | fam_tp) / max(len(wrong_mids), 1), 3),
        }
    return out


def main(argv: list[str] | None = None) -> int:
    """Print the measurement (``--json PATH`` also writes it)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", required=True, help="Phy_B_dynamic_100.csv or its folder")
    parser.add_argument("--json", help="write the figures here")
    args = parser.parse_args(argv)
    result = measure(args.data)
    print(f"exact audit: {result['exact_wrong']} wrong released answers in {result['exact_wrong_problems']} problems; "
          f"{result['confirmed_right']} variants confirmed right")
    for name, r in result["thresholds"].items():
        print(f"heuristic >= {name}: {r['variant_findings']} variant findings, {r['true']} real, {r['false']} false, "
              f"{r['unknown']} unknown; precision {r['precision']:.1%}, recall {r['recall']:.1%}; "
              f"{r['family_findings']} family findings ({r['family_true']} on a problem with an error); "
              f"problems found {r['problems_recall']:.1%}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(result, fh, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
