"""Deciding from per-question answers: one judge's rule, the ensemble vote, the aggregation.

* :func:`decide_answers`: one judge's booleans under a protocol. ``physeval`` takes the reply's
  booleans as they are ("Not sure" is false); ``simuscene`` applies AgentFly's rule, so a
  "Not sure" with confidence below 4 counts true (:mod:`physeval.scenes.judge.protocol`).
* :func:`ensemble_vote`: with several judges each question is decided by majority, ties false.
* :func:`aggregate`: ``binary`` (score 1 only when every question is true) or ``ratio``
  (weighted fraction true).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Literal

from physeval.scenes.data import VerificationQuestion
from physeval.scenes.judge.protocol import JudgeProtocol, check_protocol, unsure_passes
from physeval.scenes.judge.questions import JudgeQuestion

__all__ = ["Aggregation", "aggregate", "decide_answers", "ensemble_vote"]

Aggregation = Literal["binary", "ratio"]


def decide_answers(results: Mapping[str, bool], unsure: Mapping[str, int],
                   protocol: JudgeProtocol = "physeval") -> dict[str, bool]:
    """One judge's per-question verdicts under ``protocol`` (keys as in ``results``).

    ``unsure`` maps the keys answered "Not sure" to their confidence; under ``simuscene`` those
    below confidence 4 become true, under ``physeval`` they stay false.
    """
    check_protocol(protocol)
    decided = {key: bool(value) for key, value in results.items()}
    if protocol == "simuscene":
        for key, confidence in unsure.items():
            if key in decided:
                decided[key] = unsure_passes(confidence)
    return decided


def aggregate(
    results: Mapping[str, bool],
    questions: Sequence[JudgeQuestion | VerificationQuestion],
    aggregation: Aggregation = "binary",
) -> tuple[bool, float, float]:
    """``(correct, score, ratio)`` for per-question results keyed by question key/index.

    ``correct`` = every question true (a question absent from ``results`` is false);
    ``ratio`` = weighted fraction true (plain fraction when all weights are 0);
    ``score`` = 1/0 for ``binary``, ``ratio`` for ``ratio``.
    """
    if aggregation not in ("binary", "ratio"):
        raise ValueError(f"aggregation must be 'binary' or 'ratio', not {aggregation!r}")
    keys = [q.key if isinstance(q, JudgeQuestion) else q.index for q in questions]
    weights = [float(q.weight) for q in questions]
    flags = [bool(results.get(k, False)) for k in keys]
    if not keys:
        return False, 0.0, 0.0
    total = sum(w for w in weights if math.isfinite(w) and w > 0)
    if total > 0:
        ratio = sum(w for w, f in zip(weights, flags) if f and math.isfinite(w) and w > 0) / total
    else:
        ratio = sum(flags) / len(flags)
    correct = all(flags)
    score = (1.0 if correct else 0.0) if aggregation == "binary" else ratio
    return correct, score, ratio


def ensemble_vote(per_judge: Sequence[Mapping[str, bool]], keys: Sequence[str]) -> dict[str, bool]:
    """Majority vote per question key over judges; a tie (or no judge) is false."""
    out: dict[str, bool] = {}
    for key in keys:
        yes = sum(1 for r in per_judge if r.get(key, False))
        out[key] = yes * 2 > len(per_judge)
    return out
