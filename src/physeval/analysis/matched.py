"""Matched-stage analysis (SimuScene Table 9): downstream scene metrics where every run got as far.

A model that writes fewer runnable programs is judged on fewer, easier videos, so its raw
accuracy mixes two skills. Here only the samples (problem, variant, sample index) at which
*every* compared run reached ``stage`` are kept, and the stages after it are measured on that
common subset, with its size. Stages, in order: ``executable`` (the program ran), ``rendered``
(a video file came out), ``playable`` (the video decodes); downstream of ``executable`` are
the render rate, the playable rate and accuracy; of ``rendered`` the playable rate and
accuracy; of ``playable`` accuracy. Metrics are reduced as :mod:`physeval.metrics` declares
(samples -> item -> problem -> mean with its interval).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from physeval.analysis.runs import Run, run_labels
from physeval.errors import UserError
from physeval.metrics import Metric, SampleOutcome, item_fraction, reduce_metric

__all__ = ["STAGES", "MatchedRun", "MatchedStage", "Stage", "matched_keys", "matched_stage"]

Stage = Literal["executable", "rendered", "playable"]
STAGES: tuple[str, ...] = ("executable", "rendered", "playable")
_FLAG = {"executable": "executable", "rendered": "rendered", "playable": "playable"}
_DOWNSTREAM = {"executable": ("render_rate", "playable_rate", "accuracy"),
               "rendered": ("playable_rate", "accuracy"), "playable": ("accuracy",)}


@dataclass(frozen=True)
class MatchedRun:
    """One run's downstream metrics on the matched subset (a metric absent: nothing to measure)."""

    label: str
    metrics: tuple[tuple[str, Metric], ...]


@dataclass(frozen=True)
class MatchedStage:
    """``size`` of the ``common`` samples every run holds reached ``stage`` in every run;
    they span ``problems`` problems; ``runs`` holds each run's downstream metrics on them."""

    stage: str
    size: int
    common: int
    problems: int
    runs: tuple[MatchedRun, ...]


def matched_keys(runs: Sequence[Run], stage: str) -> tuple[set[tuple[str, str, int]], int]:
    """(samples every run brought to ``stage``, samples every run holds, graded or not)."""
    if stage not in STAGES:
        raise UserError(f"unknown stage {stage!r}: use one of {', '.join(STAGES)}")
    if not runs:
        raise UserError("matched-stage analysis needs at least one run")
    tasks = {r.task for r in runs}
    if len(tasks) > 1:
        raise UserError(f"matched-stage analysis needs runs of one task, got {', '.join(sorted(tasks))}")
    if any(r.track != "scene" for r in runs):
        raise UserError(f"--matched {stage} applies to scene runs; {runs[0].task} is a {runs[0].track} task")
    flag = _FLAG[stage]
    held = [{r.key for r in run.rows} for run in runs]
    reached = [{r.key for r in run.graded if (r.grade or {}).get(flag)} for run in runs]
    return set.intersection(*reached), len(set.intersection(*held))


def matched_stage(runs: Sequence[Run], stage: str) -> MatchedStage:
    """Downstream metrics of each run on the samples every run brought to ``stage``."""
    keys, common = matched_keys(runs, stage)
    out = []
    for label, run in zip(run_labels(runs), runs):
        kept = [o for o in run.outcomes() if (o.problem_id, o.variant, o.sample) in keys]
        metrics = []
        for name in _DOWNSTREAM[stage]:
            if name == "accuracy":
                if not any((o.grade or {}).get("judged") for o in kept):
                    continue
                metric = reduce_metric(kept, item_fraction())
            else:
                flag = {"render_rate": "rendered", "playable_rate": "playable"}[name]
                def reached(o: SampleOutcome, f: str = flag) -> bool:
                    return bool((o.grade or {}).get(f))

                metric = reduce_metric(kept, item_fraction(reached))
            if metric is not None:
                metrics.append((name, metric))
        out.append(MatchedRun(label, tuple(metrics)))
    return MatchedStage(stage, len(keys), common, len({k[0] for k in keys}), tuple(out))
