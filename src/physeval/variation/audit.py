"""Answer audit: recompute problems that have a solution and check families of variants for consistency.

Why: released datasets contain wrong answers (ABench Phy_B's mid 10 variants 1-3 disagree with
the formula that reproduces its variant 0). The audit lists suspects *with the evidence*:

* **Recomputation** (``answer_mismatch``, high): a problem with a solution (a formula over its
  constants' names, see :mod:`.plain`, or a bank :class:`Template`) whose stated answer is more
  than ``rel_tol`` away from the recomputed one. A solution *entry* (a mapping ``{solution, constants,
  answer_unit}`` or a Phy_B :class:`~physeval.variation.abench_phy_b.PhyBSolution`) passes its physical
  constants and answer unit to :func:`.plain.recompute` and is judged by the rule its variants were
  confirmed by (``rel_tol`` or the stated answer's written precision); a variant the entry records as a
  text the converter misreads is ``unread_variant`` (low), not a data error.
* **Figures** (``figure_mismatch``, its own severity ``figures``, between medium and low): a
  released answer within 1 % of a Phy_B solution entry's value that is still not the exact value
  at the significant figures its instruction asks (``459.2`` where 458.33 asks for 4 figures),
  unless the entry's constants at their textbook figures (g = 9.80, R = 8.31) give it; the
  entry's ``figure_errors`` records each. A variant the entry records as ``ill_posed`` (no answer
  satisfies its text) is ``ill_posed`` (medium), with no recomputed value.
* **Dimensional scaling** (``scaling_violation``, medium): when a variant's changed constants
  amount to a pure change of units (e.g. only the one velocity changes while lengths stay), the
  answer must scale by the matching power; a different answer is inconsistent with *any*
  formula, unless the problem depends on an unstated dimensional constant (stated in the
  evidence).
* **Power-law fit** (``power_law_outlier`` medium, ``no_power_law`` low): the answer is fitted
  as a product of powers of the changed constants (log-linear, exponents searched among simple
  rationals, written precision as tolerance); a law that fits all variants but one names the
  outlier; a family that no such law explains is listed as a weaker suspect.
* Smaller checks: unparseable answers, variants whose constants match but answers differ, and
  significant-figure instructions that change within a family.
"""


from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ..problems import Problem
from .audit_families import audit_family
from .audit_finding import SEVERITY_ORDER, Finding
from .audit_recompute import recompute_findings
from .template import Template

__all__ = ["Finding", "audit_problems", "audit_family", "phy_b_consistency", "read_abench_csv", "SEVERITY_ORDER"]


def audit_problems(
    problems: Iterable[Problem],
    solutions: Mapping[str, str | Sequence[str] | Template] | None = None,
    *,
    rel_tol: float = 0.01,
    families: bool = True,
) -> list[Finding]:
    """Audit ``problems``: recompute those with a solution, check every family of variants.

    ``solutions`` maps a problem id to a formula over its constants' names (an expression, a list
    of ``name = expression`` steps, or LaTeX equations; see :func:`physeval.variation.template_from_plain`)
    or to the :class:`Template` that generated it; families without a solution get the heuristic
    consistency checks (see the module docstring). Findings are sorted by severity, then id.
    Never raises on bad data: a problem that cannot be checked yields a finding saying why.
    """
    items = list(problems)
    solutions = dict(solutions or {})
    findings: list[Finding] = []
    groups: dict[str, list[Problem]] = defaultdict(list)
    for p in items:
        groups[p.id].append(p)
        if p.id in solutions:
            findings.extend(recompute_findings(p, solutions[p.id], rel_tol))
    if families:
        for pid, members in groups.items():
            if len(members) > 1 and pid not in solutions:  # a solution already decided each variant
                try:
                    findings.extend(audit_family(pid, members))
                except (ValueError, ArithmeticError) as exc:
                    findings.append(Finding(pid, None, "structure_mismatch", "low", f"family not checked: {exc}", {}))
    return sorted(findings, key=lambda f: (SEVERITY_ORDER.get(f.severity, 9), _id_key(f.problem_id), str(f.variant)))


def _id_key(pid: str) -> tuple[int, Any]:
    return (0, int(pid)) if pid.isdigit() else (1, pid)


def read_abench_csv(path: str | Path) -> list[Problem]:
    """ABench rows as Problems (``mid`` -> id, ``subid`` -> variant), read by the one ABench loader.

    ``path`` is a CSV file; a file with a ``subid`` column is read as Phy_B, else as Phy_A.
    """
    from physeval.tasks.abench_data import load_abench

    with open(path, encoding="utf-8-sig", newline="") as handle:
        header = handle.readline()
    return load_abench(path, "b" if "subid" in header else "a")


def phy_b_consistency(path: str | Path, solutions: Mapping[str, Any] | None = None) -> list[Finding]:
    """The ABench Phy_B consistency check: audit every mid family of ``Phy_B_dynamic_100.csv``.

    ``path`` is the CSV or the folder holding it.
    """
    from physeval.tasks.abench_data import load_abench

    return audit_problems(load_abench(path, "b"), solutions)
