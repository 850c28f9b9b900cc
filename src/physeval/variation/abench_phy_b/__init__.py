"""Solutions for the 100 ABench Phy_B problems: load them, and check them against the released variants.

Why: ABench-Physics' Phy_B set is "dynamic", but its variant engine was never released; only four
fixed variants per problem are public, and some of their answers are wrong. Each ``solutions_*.yaml``
beside this module holds, per problem ``mid``, a formula over the constant names that
:func:`physeval.variation.find_constants` reads from the question (never the question text: the data
is read from ``--data`` at run time), the physical constants it expects, per-parameter ranges that
keep the problem physical, and the outcome of checking it against the four released variants.

Entry fields (a mapping under the mid, as a string)::

    status: varied | static
    solution: "2*pi*A/v_m"          # or a list of "name = expression" steps; SI values
    constants: {g: "9.8 m/s^2"}     # physical constants by name ("VALUE UNIT" or a BUILTIN_CONSTANTS name)
    ranges: {A: [0.01, 0.1]}        # SI bounds per parameter, step name or answer (either bound may be null)
    draws: {c1: [1, 10]}            # SI intervals a parameter is drawn from instead of value +/- perturb
    integers: []                    # parameters drawn as integers
    fixed: []                       # constants of the question kept as written (a stated e or g)
    continuous: []                  # integer-written quantities drawn with decimals (4 s -> 4.3 s)
    vary_coefficients: []           # numbers read as formula coefficients that are data (cos(1.6 pi x))
    answer_unit: "h"                # the answer's unit where a variant's instruction names none
    perturb: 0.5                    # relative half-width of the draws (default 0.3), for few-valued counts
    confirmed: ["0", "1", "2", "3"] # released variants the formula reproduces
    dataset_errors: {"2": {stated: "46.25", recomputed: "48.75", reason: "..."}}  # recomputed as the variant asks
    figure_errors: {"1": {stated: "305.5", recomputed: "305.6", reason: "..."}}   # confirmed, wrong at the figures
    ill_posed: {"2": "no answer satisfies the question: ..."}                     # no recomputed value exists
    static_reason: ""               # why a static problem cannot be varied honestly
    notes: ""

Policy (one for both files): a problem is ``varied`` when its formula is confirmed by at least three
released variants, OR every released variant it does not confirm is a documented dataset error with a
recomputed value or a documented ill-posed text (so fresh variants start from a confirmed or a
corrected variant); otherwise it is ``static`` and says why. A ``recomputed`` value is the exact value
written with the significant figures and the notation the variant's instruction asks
(:func:`written_as_asked`); a confirmed variant (within 1 %) whose stated answer differs from that
writing is a ``figure_errors`` entry. A static entry may still keep a formula and its recorded errors, for the audit.

:func:`load_phy_b_solutions` reads and validates every file; :func:`check_solution` recomputes one
problem's released variants; :func:`convert_variant` gives the template of one released variant.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

__all__ = [
    "DatasetError",
    "PhyBSolution",
    "PhyBSolutionError",
    "SolutionReport",
    "VariantCheck",
    "check_solution",
    "convert_variant",
    "figures_verdict",
    "load_phy_b_solutions",
    "phy_b_rows",
    "same_at_asked_figures",
    "written_as_asked",
]

_HERE = Path(__file__).resolve().parent
_FIELDS = {"status", "solution", "constants", "ranges", "integers", "fixed", "continuous", "vary_coefficients",
           "answer_unit", "perturb", "draws", "confirmed", "dataset_errors", "figure_errors", "ill_posed",
           "static_reason", "notes"}
_SUBIDS = ("0", "1", "2", "3")


class PhyBSolutionError(ValueError):
    """A malformed solutions file or entry; the message names the file, the mid and the field."""


@dataclass(frozen=True)
class DatasetError:
    """A released answer found wrong by hand: what is stated, what it should be, and why."""

    stated: str
    recomputed: str
    reason: str


@dataclass(frozen=True)
class PhyBSolution:
    """One Phy_B problem's solution entry (see the module docstring for the fields)."""

    mid: str
    status: str
    solution: str | tuple[str, ...] = ""
    constants: Mapping[str, str] = field(default_factory=dict)
    ranges: Mapping[str, tuple[float | None, float | None]] = field(default_factory=dict)
    draws: Mapping[str, tuple[float | None, float | None]] = field(default_factory=dict)
    integers: tuple[str, ...] = ()
    fixed: tuple[str, ...] = ()
    continuous: tuple[str, ...] = ()
    vary_coefficients: tuple[str, ...] = ()
    answer_unit: str = ""
    perturb: float | None = None
    confirmed: tuple[str, ...] = ()
    dataset_errors: Mapping[str, DatasetError] = field(default_factory=dict)
    figure_errors: Mapping[str, DatasetError] = field(default_factory=dict)
    ill_posed: Mapping[str, str] = field(default_factory=dict)
    static_reason: str = ""
    notes: str = ""
    source: str = ""

    @property
    def varied(self) -> bool:
        """Whether the problem gets fresh variants."""
        return self.status == "varied"

    def options(self) -> dict[str, Any]:
        """The keyword options of ``template_from_plain`` / ``recompute`` this entry implies."""
        return {"constants": dict(self.constants), "ranges": dict(self.ranges), "integers": list(self.integers),
                "fixed": list(self.fixed), "continuous": list(self.continuous),
                "vary_coefficients": list(self.vary_coefficients), "answer_unit": self.answer_unit or None,
                **({"draws": dict(self.draws)} if self.draws else {}),
                **({"perturb": self.perturb} if self.perturb is not None else {})}


def _fail(source: str, mid: str, field_name: str, message: str) -> PhyBSolutionError:
    return PhyBSolutionError(f"{source}: mid {mid}: {field_name}: {message}")


def _strings(raw: Any, source: str, mid: str, name: str) -> tuple[str, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list) or not all(isinstance(x, (str, int)) and not isinstance(x, bool) for x in raw):
        raise _fail(source, mid, name, f"expected a list of names, got {raw!r}")
    return tuple(str(x) for x in raw)


def _number(raw: Any) -> float | None | bool:
    """A range bound: a number, a numeric string (YAML reads ``1e-3`` as text), None; False if invalid."""
    if raw is None:
        return None
    if isinstance(raw, bool):
        return False
    try:
        value = float(raw)
    except (TypeError, ValueError):
        return False
    return value if math.isfinite(value) else False


def _errors(raw: Mapping[str, Any], name: str, source: str, mid: str) -> dict[str, DatasetError]:
    """``dataset_errors`` or ``figure_errors``: {subid: {stated, recomputed, reason}}, validated."""
    errors_raw = raw.get(name) or {}
    if not isinstance(errors_raw, Mapping):
        raise _fail(source, mid, name, f"expected {{subid: {{stated, recomputed, reason}}}}, got {errors_raw!r}")
    errors: dict[str, DatasetError] = {}
    for subid, item in errors_raw.items():
        where = f"{name}.{subid}"
        if str(subid) not in _SUBIDS:
            raise _fail(source, mid, where, f"subid must be one of {', '.join(_SUBIDS)}")
        if not isinstance(item, Mapping) or set(item) != {"stated", "recomputed", "reason"}:
            raise _fail(source, mid, where, f"expected exactly stated, recomputed and reason, got {item!r}")
        if not all(isinstance(item[k], (str, int, float)) and str(item[k]).strip() for k in item):
            raise _fail(source, mid, where, "stated, recomputed and reason must be non-empty")
        errors[str(subid)] = DatasetError(str(item["stated"]), str(item["recomputed"]), str(item["reason"]))
    return errors


Interval = tuple[float | None, float | None]


def _intervals(raw: Mapping[str, Any], name: str, source: str, mid: str) -> dict[str, Interval]:
    """``ranges`` or ``draws``: {name: [low, high]} with numbers or null, low below high."""
    found = raw.get(name) or {}
    if not isinstance(found, Mapping):
        raise _fail(source, mid, name, f"expected {{name: [low, high]}}, got {found!r}")
    out: dict[str, Interval] = {}
    for key, bounds in found.items():
        parsed = [_number(b) for b in bounds] if isinstance(bounds, list) and len(bounds) == 2 else None
        if parsed is None or any(p is False for p in parsed):
            raise _fail(source, mid, f"{name}.{key}", f"expected [low, high] numbers (or null), got {bounds!r}")
        low, high = parsed
        if low is not None and high is not None and not low < high:
            raise _fail(source, mid, f"{name}.{key}", f"low {low} must be below high {high}")
        out[str(key)] = (low, high)
    return out


def _entry(mid: str, raw: Any, source: str) -> PhyBSolution:
    """Validate one entry; raises :class:`PhyBSolutionError` naming the mid and field."""
    if not isinstance(raw, Mapping):
        raise _fail(source, mid, "<entry>", f"expected a mapping of fields, got {type(raw).__name__}")
    unknown = sorted(set(map(str, raw)) - _FIELDS)
    if unknown:
        raise _fail(source, mid, unknown[0], f"unknown field (allowed: {', '.join(sorted(_FIELDS))})")
    status = raw.get("status")
    if status not in ("varied", "static"):
        raise _fail(source, mid, "status", f"expected varied or static, got {status!r}")
    solution = raw.get("solution", "") or ""
    if isinstance(solution, list):
        if not solution or not all(isinstance(s, str) and s.strip() for s in solution):
            raise _fail(source, mid, "solution", "a list of solution steps must hold non-empty strings")
        solution = tuple(s.strip() for s in solution)
    elif isinstance(solution, str):
        solution = solution.strip()
    else:
        raise _fail(source, mid, "solution", f"expected an expression or a list of steps, got {solution!r}")
    if status == "varied" and not solution:
        raise _fail(source, mid, "solution", "a varied problem needs a solution")
    constants = raw.get("constants") or {}
    if not isinstance(constants, Mapping) or not all(isinstance(k, str) and isinstance(v, str)
                                                    for k, v in constants.items()):
        raise _fail(source, mid, "constants", f"expected {{name: 'VALUE UNIT' or built-in name}}, got {constants!r}")
    ranges = _intervals(raw, "ranges", source, mid)
    draws = _intervals(raw, "draws", source, mid)
    for name, (low, high) in draws.items():
        if low is None or high is None:
            raise _fail(source, mid, f"draws.{name}", "a draw interval needs both bounds")
    confirmed = _strings(raw.get("confirmed"), source, mid, "confirmed")
    dataset_errors = _errors(raw, "dataset_errors", source, mid)
    figure_errors = _errors(raw, "figure_errors", source, mid)
    ill_posed_raw = raw.get("ill_posed") or {}
    if not isinstance(ill_posed_raw, Mapping) or not all(str(k) in _SUBIDS and isinstance(v, str) and v.strip()
                                                        for k, v in ill_posed_raw.items()):
        raise _fail(source, mid, "ill_posed", f"expected {{subid: reason}} with subids 0-3, got {ill_posed_raw!r}")
    ill_posed = {str(k): str(v) for k, v in ill_posed_raw.items()}
    for subid in confirmed:
        if subid not in _SUBIDS:
            raise _fail(source, mid, "confirmed", f"subid {subid!r} must be one of {', '.join(_SUBIDS)}")
        if subid in dataset_errors:
            raise _fail(source, mid, "confirmed", f"variant {subid} is both confirmed and a dataset error")
        if subid in ill_posed:
            raise _fail(source, mid, "confirmed", f"variant {subid} is both confirmed and ill-posed")
    for subid in figure_errors:
        if subid not in confirmed:
            raise _fail(source, mid, f"figure_errors.{subid}", "a figure error is a confirmed variant (within 1 %) "
                                                               "whose stated figures are wrong")
    for subid in ill_posed:
        if subid in dataset_errors:
            raise _fail(source, mid, f"ill_posed.{subid}", "an ill-posed variant has no recomputed answer")
    answer_unit = raw.get("answer_unit", "") or ""
    if not isinstance(answer_unit, str):
        raise _fail(source, mid, "answer_unit", f"expected a pint unit string such as 'm/s', got {answer_unit!r}")
    perturb = _number(raw.get("perturb"))
    if perturb is False or (perturb is not None and not 0 < perturb < 1):
        raise _fail(source, mid, "perturb", f"expected a number between 0 and 1, got {raw.get('perturb')!r}")
    static_reason = str(raw.get("static_reason", "") or "")
    if status == "static" and not static_reason.strip():
        raise _fail(source, mid, "static_reason", "a static problem says why it cannot be varied")
    return PhyBSolution(
        mid=mid, status=status, solution=solution, constants=dict(constants), ranges=ranges, draws=draws,
        integers=_strings(raw.get("integers"), source, mid, "integers"),
        fixed=_strings(raw.get("fixed"), source, mid, "fixed"),
        continuous=_strings(raw.get("continuous"), source, mid, "continuous"),
        vary_coefficients=_strings(raw.get("vary_coefficients"), source, mid, "vary_coefficients"),
        answer_unit=answer_unit.strip(), perturb=perturb,
        confirmed=confirmed,
        dataset_errors=dataset_errors, figure_errors=figure_errors, ill_posed=ill_posed,
        static_reason=static_reason, notes=str(raw.get("notes", "") or ""),
        source=source,
    )


def _load(paths: Iterable[Path]) -> dict[str, PhyBSolution]:
    merged: dict[str, PhyBSolution] = {}
    for path in paths:
        try:
            data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        except (OSError, yaml.YAMLError) as exc:
            raise PhyBSolutionError(f"{path.name}: cannot read: {exc}") from None
        if not isinstance(data, Mapping):
            raise PhyBSolutionError(f"{path.name}: expected a mapping mid -> entry")
        for key, raw in data.items():
            mid = str(key)
            if not re.fullmatch(r"[1-9][0-9]*", mid):
                raise PhyBSolutionError(f"{path.name}: {key!r} is not a mid (a positive integer as a string)")
            if mid in merged:
                raise PhyBSolutionError(f"{path.name}: mid {mid} is also defined in {merged[mid].source}")
            merged[mid] = _entry(mid, raw, path.name)
    return dict(sorted(merged.items(), key=lambda kv: int(kv[0])))


@lru_cache(maxsize=1)
def _load_packaged() -> dict[str, PhyBSolution]:
    return _load(sorted(_HERE.glob("solutions_*.yaml")))


def load_phy_b_solutions(paths: Sequence[str | Path] | None = None) -> dict[str, PhyBSolution]:
    """Every solution entry, by mid, from the ``solutions_*.yaml`` files beside this module (or ``paths``).

    Raises :class:`PhyBSolutionError` for a malformed file or entry (naming the mid and field) and for a
    mid defined twice.
    """
    if paths is None:
        return dict(_load_packaged())
    return _load(Path(p) for p in paths)


# --------------------------------------------------------------------------- checking


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
        if not entry.solution:
            checks.append(VariantCheck(subid, answer, None, None, False, "no solution (static)"))
            continue
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
        full = template_from_plain(question, answer, entry.solution, template_id=f"abench_b_{key}",
                                   rel_tol=rel_tol, **entry.options())
        checks.append(VariantCheck(subid, answer, None if value is None else float(value), rel, ok, why,
                                   full.ok, "" if full.ok else full.reason, written_as_asked(question, value),
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
