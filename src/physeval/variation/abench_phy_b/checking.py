"""Checking the Phy_B solution entries against the released variants, and writing answers as asked.

:func:`check_solution` recomputes each released variant of one problem (within 1 % or the written
precision confirms it; the figures it asks for decide :attr:`VariantCheck.figures_right`);
:func:`written_as_asked` writes an exact value with the figures and notation an instruction asks;
:func:`convert_variant` gives the template of one released variant.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .entries import PhyBSolution, load_phy_b_solutions

__all__ = ["SolutionReport", "TEXTBOOK_FIGURES", "VariantCheck", "check_solution", "convert_variant",
           "figures_verdict", "phy_b_rows", "same_at_asked_figures", "written_as_asked"]

@dataclass(frozen=True)
class VariantCheck:
    """One released variant recomputed.

    ``confirmed``: the formula (with the entry's physical constants) reproduces the stated answer within
    1 % or its written precision. ``convertible``: the full conversion with the entry's ranges, integers
    and fixed constants builds a template from this variant (a variant outside the ranges is not).
    """

    subid: str
    stated: str
    recomputed: float | None
    rel_error: float | None
    confirmed: bool
    reason: str
    convertible: bool = False
    convert_reason: str = ""
    asked: str = ""
    """The recomputed value written as the variant's instruction asks ("" when it cannot be)."""
    figures_right: bool | None = None
    """Whether the stated answer is the recomputed one at the asked figures (``None``: not known)."""


@dataclass(frozen=True)
class SolutionReport:
    """The released variants of one mid checked against its solution."""

    mid: str
    checks: tuple[VariantCheck, ...]

    @property
    def confirmed(self) -> tuple[str, ...]:
        """Subids the solution reproduces."""
        return tuple(c.subid for c in self.checks if c.confirmed)

    @property
    def mismatched(self) -> tuple[str, ...]:
        """Subids it does not reproduce (a wrong formula or a wrong released answer)."""
        return tuple(c.subid for c in self.checks if not c.confirmed)

    def summary(self) -> str:
        """One line per variant: subid, stated, recomputed, relative error, verdict."""
        lines = []
        for c in self.checks:
            got = "-" if c.recomputed is None else f"{c.recomputed:.6g}"
            rel = "-" if c.rel_error is None else f"{c.rel_error:.3%}"
            lines.append(f"mid {self.mid} v{c.subid}: stated {c.stated.strip()} recomputed {got} ({rel}) "
                         f"{'ok' if c.confirmed else 'MISMATCH: ' + c.reason}"
                         f"{'' if c.convertible else ' [no template: ' + c.convert_reason + ']'}")
        return "\n".join(lines)


def same_at_asked_figures(question: str, stated: Any, value: Any) -> bool | None:
    """Whether ``stated`` and the exact ``value`` round to the same number at the significant figures
    the instruction of ``question`` asks (``None`` when there is no instruction or no value)."""
    from decimal import Decimal

    from ..plain import read_instruction
    from ..writing import round_sig

    instruction = read_instruction(question)
    if instruction is None or instruction.sig_figs is None or value is None or stated is None:
        return None
    n = instruction.sig_figs
    return bool(round_sig(Decimal(str(stated)), n) == round_sig(Decimal(str(value)), n))


TEXTBOOK_FIGURES = 3
"""Significant figures of the textbook value of a physical constant (g = 9.80, R = 8.31, h = 6.63e-34)."""


def _textbook(constants: Mapping[str, str]) -> dict[str, str]:
    """The entry's physical constants rounded to :data:`TEXTBOOK_FIGURES` figures, as "VALUE UNIT"."""
    from decimal import Decimal

    from ..constants import BUILTIN_CONSTANTS
    from ..writing import round_sig

    out = {}
    for name, spec in constants.items():
        value, _, unit = (" ".join(BUILTIN_CONSTANTS[spec]) if spec in BUILTIN_CONSTANTS else spec).partition(" ")
        try:
            out[name] = f"{round_sig(Decimal(value), TEXTBOOK_FIGURES)} {unit}".strip()
        except ArithmeticError:
            out[name] = spec
    return out


def figures_verdict(entry: PhyBSolution, question: str, stated: Any, value: Any) -> bool | None:
    """Whether ``stated`` is right at the figures ``question`` asks: equal to the exact ``value`` at
    those figures, or to the value with the entry's constants at their textbook figures (a released
    answer computed with g = 9.8 or R = 8.31 is not wrong in its last figure). ``None``: not known."""
    verdict = same_at_asked_figures(question, stated, value)
    if verdict is False and entry.constants:
        from ..plain import recompute

        textbook, _ = recompute(question, entry.solution, constants=_textbook(entry.constants),
                                answer_unit=entry.answer_unit or None)
        if same_at_asked_figures(question, stated, textbook):
            return True
    return verdict


def written_as_asked(question: str, value: Any) -> str:
    """``value`` (exact) written with the significant figures and notation the instruction of
    ``question`` asks (``12.188`` for 5 figures, ``2.196 \\times 10^{-5}`` in scientific notation);
    ``""`` when the question has no readable instruction."""
    from decimal import Decimal

    from ..plain import read_instruction
    from ..writing import write_figures

    instruction = read_instruction(question)
    if instruction is None or instruction.sig_figs is None or value is None:
        return ""
    return write_figures(Decimal(str(value)) if not isinstance(value, Decimal) else value,
                         instruction.sig_figs, instruction.scientific)


def _row(row: Any) -> tuple[str, str, str]:
    """(subid, question, answer) of a CSV row dict or a :class:`physeval.problems.Problem`."""
    if isinstance(row, Mapping):
        return str(row.get("subid", "0")).strip(), str(row["standard_question"]), str(row["standard_answer"])
    return str(row.variant), str(row.question), str(row.answer)


def convert_variant(entry: PhyBSolution, question: str, answer: str, subid: str | None = None,
                    **kwargs: Any) -> Any:
    """``template_from_plain`` of one released variant with the entry's solution and options.

    When ``subid`` names a recorded dataset error, its recomputed answer stands in for the wrong stated
    one, so fresh variants can be made from any released variant. Extra keyword arguments
    (``template_id``, ``perturb``, ``rel_tol``...) are passed on. Raises ValueError for a static entry.
    """
    from ..plain import template_from_plain

    if not entry.varied:
        raise ValueError(f"mid {entry.mid} is static: {entry.static_reason}")
    if subid is not None and str(subid) in entry.dataset_errors:
        answer = entry.dataset_errors[str(subid)].recomputed
    return template_from_plain(question, answer, entry.solution, **entry.options(), **kwargs)


def check_solution(mid: str | int, rows: Sequence[Any], solutions: Mapping[str, PhyBSolution] | None = None,
                   rel_tol: float = 0.01) -> SolutionReport:
    """Recompute each released variant of ``mid`` (CSV row dicts or Problems) with its solution.

    A variant is confirmed when the formula with the entry's physical constants reproduces the stated
    answer within ``rel_tol`` (1 %) or the answer's written precision, the rule ``template_from_plain``
    applies; whether the full conversion (ranges, integers, fixed constants...) builds a template from
    it is reported beside it. Never raises for a bad formula:
    the reason is in the report.
    """
    from physeval.answers.written import parse_written_number, written_precision

    from ..plain import recompute, template_from_plain

    key = str(mid)
    table = load_phy_b_solutions() if solutions is None else solutions
    if key not in table:
        raise KeyError(f"no Phy_B solution for mid {key}")
    entry = table[key]
    checks = []
    for row in sorted(rows, key=lambda r: _row(r)[0]):
        subid, question, answer = _row(row)
        if not entry.solution and not entry.generator:
            checks.append(VariantCheck(subid, answer, None, None, False, "no solution (static)"))
            continue
        if entry.generator:
            from .generators import recompute_generated

            value = recompute_generated(entry.generator, question)
            why = "" if value is not None else f"{entry.generator}: no whole nucleus fits this text"
        else:
            value, why = recompute(question, entry.solution, constants=dict(entry.constants),
                                   answer_unit=entry.answer_unit or None)
        stated = parse_written_number(answer)
        rel, ok = None, False
        if value is not None and stated is not None:
            rel = float(abs(value - stated) / abs(stated)) if stated != 0 else float(abs(value))
            ok = rel <= max(rel_tol, written_precision(answer, stated))
            why = "" if ok else (f"recomputed {float(value):.6g} but the answer is {answer.strip()} ({rel:.2%} off, "
                                 f"beyond {rel_tol:.0%} and the written precision)")
        elif stated is None:
            why = f"the answer {answer!r} is not a number"
        if entry.generator:
            convertible, convert_reason = value is not None, why
        else:
            full = template_from_plain(question, answer, entry.solution, template_id=f"abench_b_{key}",
                                       rel_tol=rel_tol, **entry.options())
            convertible, convert_reason = full.ok, "" if full.ok else full.reason
        checks.append(VariantCheck(subid, answer, None if value is None else float(value), rel, ok, why,
                                   convertible, convert_reason, written_as_asked(question, value),
                                   figures_verdict(entry, question, stated, value)))
    return SolutionReport(key, tuple(checks))


def phy_b_rows(path: str | Path) -> dict[str, list[dict[str, str]]]:
    """The rows of ``Phy_B_dynamic_100.csv`` (or the folder holding it), grouped by mid."""
    import csv

    target = Path(path)
    if target.is_dir():
        target = target / "Phy_B_dynamic_100.csv"
    groups: dict[str, list[dict[str, str]]] = {}
    with open(target, encoding="utf-8-sig", newline="") as handle:
        for row in csv.DictReader(handle):
            groups.setdefault(str(row["mid"]).strip(), []).append(dict(row))
    return groups
