"""What a run set out to grade, and which problems are complete under it.

A :class:`Plan` lists each planned problem's variants and K samples per item. Dynamic metrics
(a product over a problem's variants) stand only on problems whose planned variants were all
graded K times (:func:`complete_problem_outcomes`): what was not answered can never make a
problem "all variants right". Kept apart from :mod:`physeval.metrics` so the runner, ``score``,
``regrade`` and the integrations can record and read plans without the metrics.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from physeval.sample_outcomes import SampleOutcome, group_items, samples_per_item

__all__ = ["Plan", "PlannedOutcomes", "with_plan", "plan_of", "complete_problem_outcomes", "PLAN_META",
           "recorded_plan"]

PLAN_META = "plan"
"""The run store's meta key of the :class:`Plan` a run set out to grade."""


@dataclass(frozen=True)
class Plan:
    """What a run set out to grade: each planned problem's variants, and ``samples`` (K) per item.

    ``physeval run`` plans the chosen problems x all their variants x ``--samples``; ``physeval
    score`` the problems its responses name x all their variants x the most samples any response
    has. A problem that is not in the plan is judged by the variants it shows.
    """

    variants: Mapping[str, tuple[str, ...]]
    samples: int = 1

    @classmethod
    def of(cls, keys: Iterable[tuple[str, str]], samples: int = 1) -> Plan:
        """The plan of the ``(problem id, variant)`` items ``keys``, with ``samples`` each."""
        variants: dict[str, dict[str, None]] = {}  # insertion-ordered sets: a list's `in` made this quadratic
        for pid, variant in keys:
            variants.setdefault(str(pid), {})[str(variant)] = None
        return cls({pid: tuple(vs) for pid, vs in variants.items()}, max(1, int(samples)))

    @classmethod
    def covering(cls, keys: Iterable[tuple[str, str, int]]) -> Plan:
        """The plan that ``(problem id, variant, sample)`` keys imply: every item seen, each with
        as many samples as the fullest item has (for runs that did not record their plan)."""
        counts: Counter[tuple[str, str]] = Counter((str(p), str(v)) for p, v, _ in keys)
        return cls.of(counts, max(counts.values(), default=1))

    @classmethod
    def named_by(cls, outcomes: Sequence[SampleOutcome], keys: Iterable[tuple[str, str]]) -> Plan:
        """Every variant among the task's ``(problem id, variant)`` ``keys`` of each problem that
        ``outcomes`` name, with as many samples as the fullest item has (inspect's plan: its metrics see
        only the scores, the task knows the variants)."""
        named = {o.problem_id for o in outcomes}
        return cls.of((k for k in keys if str(k[0]) in named), samples_per_item(outcomes))

    @property
    def total(self) -> int:
        """The number of planned samples."""
        return sum(len(vs) for vs in self.variants.values()) * self.samples

    def to_dict(self) -> dict[str, Any]:
        """``{"variants": {PROBLEM: [VARIANT, ...]}, "samples": K}`` (JSON-ready)."""
        return {"variants": {pid: list(vs) for pid, vs in self.variants.items()}, "samples": self.samples}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Plan:
        """Read back what :meth:`to_dict` wrote."""
        return cls({str(pid): tuple(str(v) for v in vs) for pid, vs in (data.get("variants") or {}).items()},
                   max(1, int(data.get("samples") or 1)))


class _Keyed(Protocol):
    @property
    def key(self) -> tuple[str, str, int]: ...


class _PlanSource(Protocol):
    """What :func:`recorded_plan` reads of a run store."""

    def get_meta(self, key: str, default: Any = None) -> Any: ...
    def rows(self) -> Sequence[_Keyed]: ...


def recorded_plan(store: _PlanSource, rows: Sequence[_Keyed] | None = None) -> Plan:
    """What the run in ``store`` set out to grade: the plan it recorded (meta :data:`PLAN_META`), or
    for a run that recorded none, the plan its rows imply (every item seen, as many samples as the
    fullest; ``rows``, when already read, spares a second read)."""
    recorded = store.get_meta(PLAN_META)
    if isinstance(recorded, dict):
        return Plan.from_dict(recorded)
    return Plan.covering(r.key for r in (store.rows() if rows is None else rows))


class PlannedOutcomes(list[SampleOutcome]):
    """Graded outcomes together with the :class:`Plan` they were drawn under.

    A task's ``metrics(outcomes)`` receives this list; a subclass that hands ``outcomes`` on to
    ``super().metrics`` hands the plan on with it, so dynamic metrics can leave incomplete problems out.
    """

    def __init__(self, outcomes: Iterable[SampleOutcome], plan: Plan) -> None:
        super().__init__(outcomes)
        self.plan = plan


def with_plan(outcomes: Iterable[SampleOutcome], plan: Plan | None) -> list[SampleOutcome]:
    """``outcomes`` carrying ``plan`` (a plain list when ``plan`` is ``None``)."""
    return PlannedOutcomes(outcomes, plan) if plan is not None else list(outcomes)


def plan_of(outcomes: Sequence[SampleOutcome]) -> Plan | None:
    """The plan ``outcomes`` carry (see :func:`with_plan`), or ``None``."""
    plan = getattr(outcomes, "plan", None)
    return plan if isinstance(plan, Plan) else None


_NAMED = 10  # problems named in a note before "..."


def complete_problem_outcomes(outcomes: Sequence[SampleOutcome], plan: Plan | None = None,
                              ) -> tuple[list[SampleOutcome], tuple[str, ...]]:
    """The outcomes of the problems whose planned variants were all graded, each ``plan.samples``
    times, and a note counting and naming the problems left out (empty when none is).

    ``plan`` defaults to the one ``outcomes`` carry, else to :meth:`Plan.covering` the outcomes.
    Dynamic metrics (the product over a problem's variants) stand only on what this keeps.
    """
    plan = plan or plan_of(outcomes) or Plan.covering((o.problem_id, o.variant, o.sample) for o in outcomes)
    graded = group_items(outcomes)
    problems = list(dict.fromkeys([*plan.variants, *graded]))
    short: dict[str, list[str]] = {}
    for pid in problems:
        have = graded.get(pid, {})
        planned = plan.variants.get(pid) or tuple(have)
        lacking = [f"variant {v}: {len(have.get(v, ()))} of {plan.samples} samples graded"
                   for v in planned if len(have.get(v, ())) < plan.samples]
        if lacking:
            short[pid] = lacking
    if not short:
        return PlannedOutcomes(outcomes, plan), ()
    kept = PlannedOutcomes((o for o in outcomes if o.problem_id not in short), plan)
    named = "; ".join(f"{pid} ({', '.join(why[:3])}{', ...' if len(why) > 3 else ''})"
                      for pid, why in list(short.items())[:_NAMED])
    more = f"; and {len(short) - _NAMED} more" if len(short) > _NAMED else ""
    note = (f"dynamic metrics leave out {len(short)} of {len(problems)} problems whose planned variants were "
            f"not all graded (missing or in error): {named}{more}")
    return kept, (note,)
