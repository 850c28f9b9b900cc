"""Metrics over sample records, reduced in one declared order, with reproducible intervals.

Vocabulary: a *problem* has one or more *variants* (a static task has only variant ``"0"``);
an *item* is one (problem id, variant); an item's *samples* are the model's K draws on it.
Metrics stand on graded samples only. A sample whose request failed for good, or whose grader
or judge failed, measured nothing: it never reaches a metric (it is not a zero), it is counted
as an error beside the metrics and makes the run incomplete. The outcomes a metric receives
come from :func:`physeval.graded.graded_outcomes`, the one place that rule is applied.

Order of reduction (every metric of every task goes through these three steps, in this
order; modelled on "reduce a sample's epochs first, then compute metrics across samples"):

1. **Samples of one item -> the item's value.** One of: the fraction of its samples that
   are right (or that hold a flag, or their mean score); the unbiased pass@k of its n
   samples (Chen et al. 2021; an item with n < k samples has no pass@k); maj@k: 1 when the
   most frequent answer class among its first k samples is a right one, else 0 (an item with
   fewer than k samples has no maj@k). Answer classes are the grade's ``answer_key``; a
   sample without one is a class of its own; a tie goes to the class seen first in sample
   order (so with no repeated class, sample 0 decides).
2. **Variants of a problem -> the problem's value.** ``mean`` over its variants (the
   per-variant metrics: ``accuracy``, ``pass@K``, ``maj@K``), ``product`` (the dynamic
   metrics: the chance that every variant is right; with 0/1 item values, "all right"), or
   ``static``: variant ``"0"`` alone. A variant without a value (too few samples) is left out
   of a mean; under ``product`` it leaves its whole problem out.
3. **Problems -> the metric.** The mean over problems, with a 95 % percentile bootstrap
   interval over problems (fixed seed, so a summary is reproducible).

Every :class:`Metric` says what it stands on: ``n`` problems and ``n_samples`` samples.

Definitions, with K the largest number of samples of any item:

- ``accuracy`` (also ``avg@K`` when K > 1): item = fraction right; mean over variants.
- ``pass@K`` (per-variant): item = unbiased pass@K; mean over variants.
- ``maj@K`` (per-variant): item = maj@K; mean over variants. Omitted, with a note, when no
  grade carries an answer class (a vote between unlabelled samples would only read sample 0).
- Dynamic tasks (problems in variant families): ``static_accuracy``, ``static_pass@K``,
  ``static_maj@K`` (variant ``"0"``); ``dynamic_accuracy``: the product over variants of the
  item fractions, i.e. the chance that one sample of each variant, drawn independently, are
  all right (with K = 1: every variant right); ``dynamic_pass@K``: a problem counts if every
  variant has at least one right sample among its K; with n > k samples per item this is
  the product over variants of the unbiased per-item pass@k, so ``dynamic_accuracy`` is
  dynamic pass@1; ``dynamic_maj@K``: every variant's majority answer is right; ``delta`` =
  static - dynamic accuracy per problem (paired); per-variant accuracy in the ``variant``
  breakdown.
- Items with fewer than K samples are left out of pass@K and maj@K (a note says how many);
  accuracy uses every sample.
- **Dynamic metrics stand only on complete problems** (every ``product`` reduction does). A
  :class:`Plan` says what a run set out to grade (each problem's variants, K samples each). A
  problem with a planned variant missing, in error, or graded fewer than K times is left out of
  ``dynamic_accuracy``, ``dynamic_pass@K``, ``dynamic_maj@K`` and ``delta``, and a note counts
  and names it: what was not answered can never make a problem "all variants right". The plan
  rides with the outcomes (:func:`with_plan`); without one it is inferred from the outcomes
  themselves (every variant seen, K samples each), which still
  catches a missing sample but not a variant that left no graded sample at all.

Grouped metrics are structured: :class:`MetricSet` keeps the ungrouped metrics by name and the
groups as ``breakdowns[KEY][VALUE][NAME]``, never as names encoded in strings.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, TypeVar

from physeval.plan import Plan, PlannedOutcomes, complete_problem_outcomes, plan_of, with_plan
from physeval.registry import Registry
from physeval.sample_outcomes import STATIC_VARIANT, SampleOutcome, group_items, samples_per_item


def _numpy() -> Any:
    """numpy, imported on first use: a run imports this module before its first request, and numpy's
    import (about 0.1 s of CPU) belongs to the summary, not to the start-up."""
    import numpy

    return numpy


__all__ = [
    "Metric", "MetricSet", "SampleOutcome", "Across", "STATIC_VARIANT", "bootstrap_ci", "pass_at_k",
    "metric_from_values", "group_items", "problem_values", "reduce_metric", "item_fraction", "item_pass_at",
    "item_majority", "item_mean_score", "samples_per_item", "accuracy_metrics", "dynamic_metrics", "rate_metrics",
    "mean_score_metric", "breakdown_metrics", "majority_metrics",
    "Plan", "PlannedOutcomes", "with_plan", "plan_of", "complete_problem_outcomes",
    "MetricFunction", "METRICS", "register_metric", "named_metrics",
]

BOOTSTRAP_RESAMPLES = 1000
BOOTSTRAP_SEED = 20240601

Across = Literal["mean", "product", "static"]


@dataclass(frozen=True)
class Metric:
    """A metric's value with its 95 % bootstrap interval over ``n`` problems, which stand on
    ``n_samples`` samples."""

    value: float
    ci_low: float
    ci_high: float
    n: int
    n_samples: int

    def to_dict(self) -> dict[str, float | int]:
        """``{"value", "ci_low", "ci_high", "n", "n_samples"}``."""
        return {"value": self.value, "ci_low": self.ci_low, "ci_high": self.ci_high, "n": self.n,
                "n_samples": self.n_samples}


Breakdowns = Mapping[str, Mapping[str, Mapping[str, Metric]]]


@dataclass(frozen=True)
class MetricSet(Mapping[str, Metric]):
    """The metrics of a run: ungrouped ones by name, grouped ones as a mapping, and notes.

    It reads as the mapping of its ungrouped metrics (``metrics["accuracy"]``, ``"maj@4" in
    metrics``); groups are ``breakdowns[KEY][VALUE][NAME]`` (e.g. ``["language"]["zh"]
    ["accuracy"]``); ``notes`` say what was omitted or left out, and why. ``a | b`` merges two
    sets (``b`` wins on equal names; notes keep their first-seen order, without repeats).
    """

    metrics: Mapping[str, Metric] = field(default_factory=dict)
    breakdowns: Breakdowns = field(default_factory=dict)
    notes: tuple[str, ...] = ()

    def __getitem__(self, name: str) -> Metric:
        return self.metrics[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self.metrics)

    def __len__(self) -> int:
        return len(self.metrics)

    def __or__(self, other: Mapping[str, Metric]) -> MetricSet:
        if not isinstance(other, MetricSet):
            other = MetricSet(dict(other))
        breakdowns: dict[str, dict[str, dict[str, Metric]]] = {}
        for source in (self.breakdowns, other.breakdowns):
            for key, groups in source.items():
                for value, metrics in groups.items():
                    breakdowns.setdefault(key, {}).setdefault(value, {}).update(metrics)
        notes = tuple(dict.fromkeys((*self.notes, *other.notes)))
        return MetricSet({**self.metrics, **other.metrics}, breakdowns, notes)

    def to_dict(self) -> dict[str, Any]:
        """``{"metrics": {NAME: {...}}, "breakdowns": {KEY: {VALUE: {NAME: {...}}}}, "notes": [...]}``."""
        return {
            "metrics": {name: m.to_dict() for name, m in self.metrics.items()},
            "breakdowns": {key: {value: {name: m.to_dict() for name, m in metrics.items()}
                                 for value, metrics in groups.items()}
                           for key, groups in self.breakdowns.items()},
            "notes": list(self.notes),
        }


ItemValue = Callable[[Sequence[SampleOutcome]], "float | None"]
"""Step 1 of the reduction: an item's samples (in sample order) -> its value, or ``None`` (no value)."""


# -- building blocks ----------------------------------------------------------------------
def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k (Chen et al. 2021): 1 - C(n-c, k) / C(n, k)."""
    if k > n:
        raise ValueError(f"pass@{k} needs at least {k} samples, got {n}")
    if n - c < k:
        return 1.0
    return 1.0 - math.prod((n - c - i) / (n - i) for i in range(k))


def bootstrap_ci(values: Sequence[float], *, resamples: int = BOOTSTRAP_RESAMPLES,
                 seed: int = BOOTSTRAP_SEED) -> tuple[float, float]:
    """Percentile 95 % interval of the mean of ``values`` (one value per problem); NaN (no
    interval) for fewer than two problems: resampling one value can only return it, and a
    zero-width interval such as [75.0, 75.0] would claim a certainty one problem cannot give."""
    np = _numpy()
    arr = np.asarray(values, dtype=float)
    if arr.size < 2:
        return (math.nan, math.nan)
    if np.all(arr == arr[0]):
        return (float(arr.mean()),) * 2
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, arr.size, size=(resamples, arr.size))
    means = arr[idx].mean(axis=1)
    return (float(np.percentile(means, 2.5)), float(np.percentile(means, 97.5)))


def metric_from_values(values: Sequence[float], *, n_samples: int | None = None) -> Metric:
    """Mean of per-problem values with its bootstrap interval; ``n_samples`` (default: one
    sample per value) is the number of samples the values stand on."""
    samples = len(values) if n_samples is None else n_samples
    if not values:
        return Metric(math.nan, math.nan, math.nan, 0, samples)
    low, high = bootstrap_ci(values)
    return Metric(float(_numpy().mean(values)), low, high, len(values), samples)


def item_fraction(flag: Callable[[SampleOutcome], bool] | None = None) -> ItemValue:
    """Step 1, fraction: the share of an item's samples that are right (or hold ``flag``)."""
    test = flag or (lambda o: o.correct)

    def value(samples: Sequence[SampleOutcome]) -> float:
        # the count over n, exactly numpy.mean's float of the flags, without numpy's per-call cost
        # (12,610 calls in the summary of a 2,080-sample run: half its time)
        return sum(bool(test(o)) for o in samples) / len(samples) if samples else math.nan
    return value


def item_pass_at(k: int, flag: Callable[[SampleOutcome], bool] | None = None) -> ItemValue:
    """Step 1, unbiased pass@k of an item's n samples; ``None`` (no value) when n < k."""
    test = flag or (lambda o: o.correct)

    def value(samples: Sequence[SampleOutcome]) -> float | None:
        if len(samples) < k:
            return None
        return pass_at_k(len(samples), sum(bool(test(o)) for o in samples), k)
    return value


def item_majority(k: int) -> ItemValue:
    """Step 1, maj@k: 1.0 when the most frequent answer class among the item's first ``k``
    samples is right; a tie goes to the class seen first; ``None`` when fewer than k samples."""
    def value(samples: Sequence[SampleOutcome]) -> float | None:
        if len(samples) < k:
            return None
        first = list(samples[:k])
        labels: list[tuple[str, Any]] = [("class", o.answer_key) if o.answer_key is not None else ("sample", i)
                                         for i, o in enumerate(first)]
        counts = Counter(labels)
        best = max(counts.values())
        winner = next(label for label in labels if counts[label] == best)
        return float(any(o.correct for o, label in zip(first, labels) if label == winner))
    return value


def item_mean_score(scale: float = 1.0) -> ItemValue:
    """Step 1, the mean partial-credit score of an item's samples, scaled (a missing score is 0)."""
    return lambda samples: float(_numpy().mean([(o.score or 0.0) * scale for o in samples]))


def problem_values(outcomes: Iterable[SampleOutcome], item: ItemValue, across: Across = "mean",
                   ) -> dict[str, tuple[float, int]]:
    """Steps 1 and 2: problem id -> (its value, the number of samples that value stands on).

    ``item`` reduces one item's samples to a value (or ``None``: no value); ``across`` reduces
    a problem's item values: ``mean``, ``product`` (a problem with any valueless variant is
    left out, and so is one whose planned variants were not all graded: see
    :func:`complete_problem_outcomes`) or ``static`` (variant ``"0"`` alone). Problems without a
    value are absent.
    """
    if across == "product":
        outcomes, _ = complete_problem_outcomes(outcomes if isinstance(outcomes, Sequence) else list(outcomes))
    out: dict[str, tuple[float, int]] = {}
    for pid, variants in group_items(outcomes).items():
        if across == "static":
            variants = {STATIC_VARIANT: variants[STATIC_VARIANT]} if STATIC_VARIANT in variants else {}
        values = [(item(samples), len(samples)) for samples in variants.values()]
        kept = [(value, n) for value, n in values if value is not None]
        if not kept or (across == "product" and len(kept) < len(values)):
            continue
        if across == "product":
            reduced = math.prod(v for v, _ in kept)
        else:  # the mean of one value is that value (numpy's, exactly): no numpy call per problem
            reduced = kept[0][0] if len(kept) == 1 else float(_numpy().mean([v for v, _ in kept]))
        out[pid] = (float(reduced), sum(n for _, n in kept))
    return out


def reduce_metric(outcomes: Iterable[SampleOutcome], item: ItemValue, across: Across = "mean") -> Metric | None:
    """Steps 1-3: the mean over problems of :func:`problem_values`, with its interval;
    ``None`` when no problem has a value."""
    per_problem = problem_values(outcomes, item, across)
    if not per_problem:
        return None
    return metric_from_values([v for v, _ in per_problem.values()], n_samples=sum(n for _, n in per_problem.values()))


def _short_items(outcomes: Sequence[SampleOutcome], k: int) -> tuple[int, int]:
    """(items with fewer than ``k`` samples, all items)."""
    sizes = [len(s) for variants in group_items(outcomes).values() for s in variants.values()]
    return sum(size < k for size in sizes), len(sizes)


def _short_note(outcomes: Sequence[SampleOutcome], k: int, names: str) -> tuple[str, ...]:
    short, total = _short_items(outcomes, k)
    if not short:
        return ()
    return (f"{names}: {short} of {total} items have fewer than {k} samples and are left out",)


def _put(metrics: dict[str, Metric], name: str, metric: Metric | None) -> None:
    if metric is not None:
        metrics[name] = metric


# -- metric families ----------------------------------------------------------------------
def accuracy_metrics(outcomes: Sequence[SampleOutcome]) -> MetricSet:
    """``accuracy``; with K > 1 samples also ``avg@K`` (the same number, named as papers do)
    and per-variant unbiased ``pass@K``."""
    return rate_metrics(outcomes, "accuracy", lambda o: o.correct)


def rate_metrics(outcomes: Sequence[SampleOutcome], name: str, flag: Callable[[SampleOutcome], bool]) -> MetricSet:
    """``name`` = the per-item fraction of samples where ``flag`` holds, reduced as accuracy is;
    with K > 1 samples also ``<base>_avg@K`` and ``<base>_pass@K`` (``base`` is ``name`` without
    ``_rate``; for ``accuracy`` plain ``avg@K``/``pass@K``), e.g. ``executable_pass@8``."""
    metrics: dict[str, Metric] = {}
    _put(metrics, name, reduce_metric(outcomes, item_fraction(flag)))
    if not metrics:
        return MetricSet()
    k = samples_per_item(outcomes)
    notes: tuple[str, ...] = ()
    if k > 1:
        prefix = "" if name == "accuracy" else f"{name.removesuffix('_rate')}_"
        metrics[f"{prefix}avg@{k}"] = metrics[name]
        _put(metrics, f"{prefix}pass@{k}", reduce_metric(outcomes, item_pass_at(k, flag)))
        notes = _short_note(outcomes, k, f"{prefix}pass@{k}")
    return MetricSet(metrics, notes=notes)


def majority_metrics(outcomes: Sequence[SampleOutcome]) -> MetricSet:
    """Per-variant ``maj@K`` (K > 1), or a note saying why it is omitted (no answer classes)."""
    k = samples_per_item(outcomes)
    if k <= 1:
        return MetricSet()
    if not any(o.answer_key is not None for o in outcomes):
        note = f"maj@{k} omitted: no grade carries an answer class (answer_key), so a vote could only read sample 0"
        return MetricSet(notes=(note,))
    metrics: dict[str, Metric] = {}
    _put(metrics, f"maj@{k}", reduce_metric(outcomes, item_majority(k)))
    return MetricSet(metrics, notes=_short_note(outcomes, k, f"maj@{k}"))


def dynamic_metrics(outcomes: Sequence[SampleOutcome], plan: Plan | None = None) -> MetricSet:
    """Variant families: static (variant ``"0"``) and dynamic (every variant) accuracy, their
    per-problem ``delta``; with K > 1 static/dynamic ``pass@K`` and, when grades carry answer
    classes, ``maj@K``; per-variant accuracy as the ``variant`` breakdown. See the module doc.

    The dynamic ones (and ``delta``) stand only on the problems whose planned variants were all
    graded (:func:`complete_problem_outcomes` with ``plan``, or the plan ``outcomes`` carry)."""
    metrics: dict[str, Metric] = {}
    complete, notes = complete_problem_outcomes(outcomes, plan)
    static = problem_values(outcomes, item_fraction(), "static")
    dynamic = problem_values(complete, item_fraction(), "product")
    _put(metrics, "static_accuracy", reduce_metric(outcomes, item_fraction(), "static"))
    _put(metrics, "dynamic_accuracy", reduce_metric(complete, item_fraction(), "product"))
    paired = [pid for pid in static if pid in dynamic]
    if paired:
        metrics["delta"] = metric_from_values([static[p][0] - dynamic[p][0] for p in paired],
                                              n_samples=sum(dynamic[p][1] for p in paired))
    k = samples_per_item(outcomes)
    if k > 1:
        for kind in ("static", "dynamic"):
            across: Across = "static" if kind == "static" else "product"
            source = outcomes if kind == "static" else complete
            _put(metrics, f"{kind}_pass@{k}", reduce_metric(source, item_pass_at(k), across))
            if any(o.answer_key is not None for o in outcomes):
                _put(metrics, f"{kind}_maj@{k}", reduce_metric(source, item_majority(k), across))
        notes += _short_note([o for o in outcomes if o.variant == STATIC_VARIANT], k, f"static pass@{k} and maj@{k}")
    variants = breakdown_metrics(outcomes, "variant", lambda group: _only(accuracy_metrics(group), "accuracy"),
                                 value_of=lambda o: o.variant)
    return MetricSet(metrics, notes=notes) | variants


def _natural(value: str) -> tuple[int, int, str]:
    """Sort key: numbers by value first ("2" before "10"), then text."""
    return (0, int(value), "") if value.isdigit() else (1, 0, value)


def _only(metrics: MetricSet, *names: str) -> MetricSet:
    return MetricSet({n: m for n, m in metrics.items() if n in names})


def mean_score_metric(outcomes: Sequence[SampleOutcome], name: str, *, scale: float = 1.0) -> MetricSet:
    """``name``: the mean partial-credit score (e.g. EED), scaled, reduced as accuracy is."""
    metrics: dict[str, Metric] = {}
    _put(metrics, name, reduce_metric(outcomes, item_mean_score(scale)))
    return MetricSet(metrics)


def breakdown_metrics(outcomes: Sequence[SampleOutcome], key: str,
                      compute: Callable[[Sequence[SampleOutcome]], Mapping[str, Metric]] = accuracy_metrics,
                      *, value_of: Callable[[SampleOutcome], Any] | None = None) -> MetricSet:
    """``compute`` within each value of the problem meta field ``key`` (or of ``value_of``):
    ``breakdowns[key][value][name]``, values in sorted order (numbers by value). The groups' notes are dropped:
    every item of a group is an item of the whole, whose notes already count it."""
    get = value_of or (lambda o: (o.meta or {}).get(key))
    groups: dict[str, list[SampleOutcome]] = defaultdict(list)
    for o in outcomes:
        value = get(o)
        if value is not None and value != "":
            groups[str(value)].append(o)
    if not groups:
        return MetricSet()
    table = {value: dict(compute(groups[value])) for value in sorted(groups, key=_natural)}
    return MetricSet(breakdowns={key: {value: metrics for value, metrics in table.items() if metrics}})


# -- metrics by name ----------------------------------------------------------------------------
class MetricFunction(Protocol):
    """A metric anyone can add: graded outcomes (carrying the run's plan) -> metrics by name.

    Register one with :func:`register_metric` (or the entry-point group ``physeval.metrics``) and a
    run names it with the task option ``metrics`` (``--metrics NAME``, ``-T metrics=NAME``): its
    values land in ``summary.json`` beside the task's own. Build it from the blocks of this module
    (:func:`reduce_metric`, :func:`item_fraction`...) so it reduces in the declared order and
    carries its n.
    """

    def __call__(self, outcomes: Sequence[SampleOutcome]) -> Mapping[str, Metric]:
        """The metrics of ``outcomes`` (a :class:`MetricSet`, or a plain mapping of name to Metric)."""
        ...


M = TypeVar("M", bound=MetricFunction)

METRICS: Registry[MetricFunction] = Registry(
    "metric", "physeval.metrics", check=callable,
    expects="a function (outcomes: Sequence[SampleOutcome]) -> MetricSet | Mapping[str, Metric]")
"""Metrics by name (plugins add theirs); a task option ``metrics`` names the ones a run adds."""


def register_metric(name: str) -> Callable[[M], M]:
    """Function decorator: make ``--metrics NAME`` add this metric to a run's summary."""
    def decorate(function: M) -> M:
        METRICS.register(name, function)
        return function
    return decorate


def named_metrics(names: Iterable[str], outcomes: Sequence[SampleOutcome]) -> MetricSet:
    """The registered metrics ``names`` over ``outcomes``, merged in order."""
    out = MetricSet()
    for name in names:
        found = METRICS.get(name)(outcomes)
        out |= found if isinstance(found, MetricSet) else MetricSet(dict(found))
    return out
