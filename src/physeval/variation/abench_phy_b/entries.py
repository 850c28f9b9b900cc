"""The Phy_B solution entries: their fields, their validation, and loading the ``solutions_*.yaml`` files.

See :mod:`physeval.variation.abench_phy_b` for the fields and the policy they follow.
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

__all__ = ["DatasetError", "PhyBSolution", "PhyBSolutionError", "load_phy_b_solutions"]

_HERE = Path(__file__).resolve().parent
_FIELDS = {"status", "solution", "constants", "ranges", "integers", "fixed", "continuous", "vary_coefficients",
           "answer_unit", "perturb", "draws", "confirmed", "dataset_errors", "figure_errors", "ill_posed",
           "static_reason", "notes", "generator"}
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
    generator: str = ""
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
    generator = str(raw.get("generator", "") or "")
    if generator:
        from .generators import GENERATORS

        if generator not in GENERATORS:
            raise _fail(source, mid, "generator", f"unknown generator {generator!r} (known: {', '.join(GENERATORS)})")
        if solution:
            raise _fail(source, mid, "generator", "an entry has a solution formula or a generator, not both")
    if status == "varied" and not solution and not generator:
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
        source=source, generator=generator,
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
