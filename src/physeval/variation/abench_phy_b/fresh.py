"""Fresh Phy_B variants: new numbers in the released question texts, answers recomputed by the solutions.

Why: ABench-Physics meant Phy_B to be dynamic (credit only for solving every variant), but only four
fixed variants per problem were released, so a model trained on them can memorise them. Fresh
variants are drawn from each varied problem's solution entry (:mod:`physeval.variation.abench_phy_b`)
and are deterministic for a seed on every machine and in every process (the draws come from
:func:`physeval.variation.sampling.derive_key` over the seed, the template id ``abench_b_<mid>`` and the
variant index, never from ``hash`` or a global random state).

Per problem ``mid`` (:func:`fresh_problems`):

* varied: the released variant ``"0"`` (its answer corrected when it is a recorded dataset error or
  a figure error -- within 1 % but wrong at the asked figures --, the stated one kept in
  ``meta["released_answer"]``) followed by ``n`` fresh variants ``"f1"`` ..
  ``"fn"``, each written from one released variant's text (the first confirmed one, else the first
  corrected one) with the significant figures its instruction asks for; static accuracy is then
  the released variant 0, dynamic accuracy needs variant 0 and every fresh one right.
* static (no honest formula, or a text the converter cannot read): its four released variants,
  unchanged, with ``meta["fresh"] = "static"`` and the reason in ``meta["static_reason"]``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from physeval.problems import Problem

from . import PhyBSolution, convert_variant, load_phy_b_solutions

__all__ = ["fresh_problems", "fresh_variants", "base_subid"]

_ORDER = ("0", "1", "2", "3")


def base_subid(entry: PhyBSolution) -> str | None:
    """The released variant fresh variants are written from: the first confirmed one, else the first corrected."""
    for pool in (entry.confirmed, tuple(entry.dataset_errors)):
        ordered = [s for s in _ORDER if s in pool]
        if ordered:
            return ordered[0]
    return None


def fresh_variants(entry: PhyBSolution, members: Sequence[Problem], n: int, seed: int) -> list[Problem]:
    """``n`` fresh variants (``"f1"``..) of one varied problem from its released ``members``.

    Raises ValueError when the entry is static, names no usable released variant, or its conversion
    is flagged; :class:`physeval.variation.engine.SamplingError` when ``n`` distinct valid variants
    cannot be drawn.
    """
    if n < 1:
        raise ValueError(f"n must be at least 1, got {n}")
    subid = base_subid(entry)
    base = next((p for p in members if p.variant == subid), None)
    if base is None:
        raise ValueError(f"mid {entry.mid}: no released variant to write fresh ones from")
    if entry.generator:
        return _generated(entry, base, subid, n, seed)
    conv = convert_variant(entry, base.question, base.answer, subid, template_id=f"abench_b_{entry.mid}")
    if not conv.ok:
        raise ValueError(f"mid {entry.mid}: variant {subid} does not convert: {conv.reason}")
    out = []
    for v in conv.vary(n + 1, seed)[1:]:
        meta = {**base.meta, "fresh": True, "variant_seed": seed, "from_variant": subid,
                "params": dict(v.params), "value": v.value}
        out.append(Problem(id=base.id, question=v.question, answer=v.answer, variant=f"f{v.index}", meta=meta))
    return out


def _generated(entry: PhyBSolution, base: Problem, subid: str | None, n: int, seed: int) -> list[Problem]:
    """Fresh variants of a problem written in whole nuclei (:mod:`.generators`)."""
    from .generators import generate

    out = []
    for index, v in enumerate(generate(entry.generator, base.question, n, seed, f"abench_b_{entry.mid}"), start=1):
        meta = {**base.meta, "fresh": True, "variant_seed": seed, "from_variant": subid, "params": dict(v.params),
                "value": str(v.value), "generator": entry.generator}
        out.append(Problem(id=base.id, question=v.question, answer=v.answer, variant=f"f{index}", meta=meta))
    return out


def _static(members: Iterable[Problem], reason: str) -> list[Problem]:
    return [dataclasses.replace(p, meta={**p.meta, "fresh": "static", "static_reason": reason}) for p in members]


def fresh_problems(problems: Iterable[Problem], n: int, seed: int = 0,
                   solutions: Mapping[str, PhyBSolution] | None = None) -> list[Problem]:
    """The released Phy_B ``problems`` with ``n`` fresh variants per varied problem (see the module docstring).

    A problem whose fresh variants cannot be made (its conversion flagged, too few distinct draws)
    keeps its released variants as a static one, with the reason: a run never silently loses a problem.
    """
    table = load_phy_b_solutions() if solutions is None else solutions
    groups: dict[str, list[Problem]] = {}
    for p in problems:
        groups.setdefault(p.id, []).append(p)
    out: list[Problem] = []
    for mid, members in groups.items():
        entry = table.get(mid)
        if entry is None or not entry.varied:
            out.extend(_static(members, entry.static_reason if entry else "no solution entry"))
            continue
        try:
            fresh = fresh_variants(entry, members, n, seed)
        except Exception as exc:  # noqa: BLE001 - the problem stays, static, with the reason
            out.extend(_static(members, f"fresh variants failed: {type(exc).__name__}: {exc}"))
            continue
        first = next((p for p in members if p.variant == "0"), members[0])
        error = entry.dataset_errors.get(first.variant) or entry.figure_errors.get(first.variant)
        meta: dict[str, Any] = {**first.meta, "fresh": True, "variant_seed": seed}
        if error is not None:
            meta |= {"released_answer": first.answer, "correction": error.reason}
            first = dataclasses.replace(first, answer=error.recomputed)
        out.append(dataclasses.replace(first, meta=meta))
        out.extend(fresh)
    return out
