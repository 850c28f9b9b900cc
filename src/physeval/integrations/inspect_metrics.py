"""Physeval's metrics as inspect_ai metrics (extra ``inspect``), computed by physeval's own code.

:func:`task_metrics` rebuilds physeval's :class:`~physeval.metrics.SampleOutcome` records from
inspect's unreduced scores (:func:`outcomes_from_scores`, through
:func:`~physeval.graded.graded_outcomes`: an unscored sample measured nothing) and returns the
task's own ``metrics()`` under the plan the scores imply, each with its 95 % interval and n;
:func:`reduced_metrics` does the same on the scores reduced by the epochs reducer;
:func:`per_variant` and :func:`breakdown` are the grouped ones (``group/value``);
:func:`static_accuracy`, :func:`dynamic_accuracy` and :func:`delta` work over variant groups for
any scorer whose samples carry ``problem_id`` and ``variant`` metadata. The contract is told in
:mod:`physeval.integrations.inspect`, which registers them and re-exports every name.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from physeval.errors import missing_extra
from physeval.graded import SampleRecord, graded_outcomes
from physeval.integrations.inspect_instance import INSTANCES_LOCK, task_instance
from physeval.metrics import (
    MetricSet,
    Plan,
    SampleOutcome,
    accuracy_metrics,
    breakdown_metrics,
    item_fraction,
    metric_from_values,
    problem_values,
    reduce_metric,
    with_plan,
)
from physeval.problems import Outcome

try:
    from inspect_ai.scorer import Metric, SampleScore, metric, value_to_float
except ImportError as exc:  # pragma: no cover - the message is the point
    raise missing_extra("physeval tasks in inspect", "inspect", "inspect_ai") from exc

__all__ = [
    "breakdown",
    "delta",
    "dynamic_accuracy",
    "outcomes_from_scores",
    "per_variant",
    "reduced_metrics",
    "static_accuracy",
    "task_metrics",
]

_to_float = value_to_float()


def outcomes_from_scores(scores: Sequence[SampleScore]) -> list[SampleOutcome]:
    """Physeval outcomes from inspect's unreduced scores (one per sample per epoch), through
    :func:`~physeval.graded.graded_outcomes`: an unscored sample (a grade whose outcome is
    ``error``, a NaN value) measured nothing and is left out, as physeval leaves error rows out.

    The problem and variant come from the sample metadata, the sample index from the score's
    ``epoch`` (order of appearance within an item when absent); correctness from the grade, or
    for another scorer's scores from the value (only a full 1.0 is right).
    """
    out: list[SampleRecord] = []
    seen: dict[tuple[str, str], int] = {}
    for s in scores:
        sample_meta = s.sample_metadata or {}
        score_meta = s.score.metadata or {}
        pid = str(sample_meta.get("problem_id", s.sample_id))
        variant = str(sample_meta.get("variant", "0"))
        index = seen.get((pid, variant), 0)
        seen[(pid, variant)] = index + 1
        sample = int(score_meta["epoch"]) - 1 if "epoch" in score_meta else index
        grade = score_meta.get("grade")
        value = _value(s.score.value)
        failed = score_meta.get("outcome") == Outcome.ERROR or math.isnan(value)
        correct = bool(score_meta["correct"]) if "correct" in score_meta else value == 1.0
        out.append(SampleRecord(pid, variant, sample, "error" if failed else "answered", None if failed else correct,
                                score_meta.get("score"), grade, sample_meta.get("meta") or {}))
    return graded_outcomes(out)


def _value(value: Any) -> float:
    """A score value as a float: a dict's ``correct`` entry (physeval's symbolic scores), else the value."""
    return _to_float(value["correct"] if isinstance(value, dict) and "correct" in value else value)


def _with_intervals(metrics: Mapping[str, Any]) -> dict[str, float]:
    """Each physeval metric's value, and its 95 % interval and n as ``NAME/ci_low``, ``NAME/ci_high``, ``NAME/n``."""
    out: dict[str, float] = {}
    for name, m in metrics.items():
        out[name] = m.value
        out[f"{name}/ci_low"], out[f"{name}/ci_high"], out[f"{name}/n"] = m.ci_low, m.ci_high, float(m.n)
    return _finite(out)


def _finite(values: Mapping[str, float]) -> dict[str, float]:
    """Inspect stores metric values as floats; a NaN (no value) is left out."""
    return {k: float(v) for k, v in values.items() if v is not None and not math.isnan(v)}


def _planned_metrics(task: str, options: dict[str, Any] | None, outcomes: list[SampleOutcome]) -> MetricSet:
    """The task's ``metrics()`` under the plan the scores imply (every variant of each problem they
    name, as many samples as the fullest item), so dynamic metrics leave incomplete problems out
    exactly as ``physeval score`` does."""
    physeval_task_obj, problems = task_instance(task, options)
    return physeval_task_obj.measure(with_plan(outcomes, Plan.named_by(outcomes, problems.keys())))


@metric(name="physeval", scores="unreduced")
def task_metrics(task: str, options: dict[str, Any] | None = None) -> Metric:
    """Every ungrouped metric of physeval task ``task``, computed by the task's own ``metrics()``
    on the unreduced scores: the names and values of its ``summary.json`` ``metrics``."""
    def compute(scores: list[SampleScore]) -> dict[str, float]:
        return _with_intervals(_planned_metrics(task, options, outcomes_from_scores(scores)))

    return compute


@metric(name="physeval_reduced", scores="reduced")
def reduced_metrics(task: str, options: dict[str, Any] | None = None) -> Metric:
    """Physeval's ungrouped metrics on inspect's *reduced* scores (``--epochs-reducer``): one sample
    per problem variant, right when its reduced score is 1 (``max``: some epoch right; ``mode``,
    ``majority``: most epochs; the default ``mean``: every epoch), EED the reduced EED; named
    ``reduced/<name>`` beside inspect's own metrics."""
    def compute(scores: list[SampleScore]) -> dict[str, float]:
        records = []
        for s in scores:
            meta = s.sample_metadata or {}
            value = s.score.value
            eed = value.get("eed") if isinstance(value, dict) else None
            reduced_value = _value(value)
            failed = math.isnan(reduced_value)  # every epoch unscored: nothing measured
            records.append(SampleRecord(str(meta.get("problem_id", s.sample_id)), str(meta.get("variant", "0")), 0,
                                        "error" if failed else "answered", None if failed else reduced_value == 1.0,
                                        None if eed is None else float(eed) / 100.0, None, meta.get("meta") or {}))
        reduced = _with_intervals(_planned_metrics(task, options, graded_outcomes(records)))
        return {f"reduced/{name}": value for name, value in reduced.items()}

    return compute


@metric(name="variant", scores="unreduced")
def per_variant() -> Metric:
    """Variant id -> accuracy over the problems that have that variant (physeval's ``variant``
    breakdown of a dynamic task); inspect shows the group as ``variant``."""
    def compute(scores: list[SampleScore]) -> dict[str, float]:
        table = breakdown_metrics(outcomes_from_scores(scores), "variant",
                                  lambda group: {"accuracy": accuracy_metrics(group)["accuracy"]},
                                  value_of=lambda o: o.variant)
        return _finite({f"variant/{value}": m["accuracy"].value
                        for value, m in table.breakdowns.get("variant", {}).items()})

    return compute


_BREAKDOWNS: dict[str, Callable[..., Metric]] = {}


def breakdown(key: str) -> Callable[..., Metric]:
    """The metric factory of the breakdown by problem meta field ``key``, registered as
    ``physeval/<key>`` so inspect shows the group under that name. The factory takes
    ``(task, options=None, name="accuracy")`` and its metric maps each value of ``key`` to metric
    ``name`` of that group as the task's ``group_metrics`` computes it (physeval's ``breakdowns[key]``)."""
    with INSTANCES_LOCK:
        if key not in _BREAKDOWNS:
            def factory(task: str, options: dict[str, Any] | None = None, name: str = "accuracy") -> Metric:
                def compute(scores: list[SampleScore]) -> dict[str, float]:
                    # the task's whole reduction, as in summary.json: a group is measured as the run is
                    # (a scene group whose videos never played scores 0 when the run was judged)
                    table = _planned_metrics(task, options, outcomes_from_scores(scores))
                    return _finite({f"{key}/{value}": m[name].value
                                    for value, m in table.breakdowns.get(key, {}).items() if name in m})

                return compute

            factory.__name__ = factory.__qualname__ = key
            _BREAKDOWNS[key] = metric(name=key, scores="unreduced")(factory)
        return _BREAKDOWNS[key]


@metric(scores="unreduced")
def static_accuracy() -> Metric:
    """Accuracy on variant ``"0"`` of each problem (the original, undisturbed problem)."""
    def compute(scores: list[SampleScore]) -> float:
        found = reduce_metric(outcomes_from_scores(scores), item_fraction(), "static")
        return found.value if found else math.nan

    return compute


@metric(scores="unreduced")
def dynamic_accuracy() -> Metric:
    """The mean over problems of the product of their variants' accuracies (K = 1: every variant right)."""
    def compute(scores: list[SampleScore]) -> float:
        found = reduce_metric(outcomes_from_scores(scores), item_fraction(), "product")
        return found.value if found else math.nan

    return compute


@metric(scores="unreduced")
def delta() -> Metric:
    """Static minus dynamic accuracy, paired per problem (how much the variants cost)."""
    def compute(scores: list[SampleScore]) -> float:
        outcomes = outcomes_from_scores(scores)
        static = problem_values(outcomes, item_fraction(), "static")
        dynamic = problem_values(outcomes, item_fraction(), "product")
        paired = [pid for pid in static if pid in dynamic]
        return metric_from_values([static[p][0] - dynamic[p][0] for p in paired]).value if paired else math.nan

    return compute
