"""A reference-based process judge: how well a derivation follows the reference solution.

EED sees only the final expression (PHYBench's own stated limitation, appendix B.3). The
maintained PHYBench pipeline (``phybench-pipeline``, ``model_judge``) therefore also has an LLM
compare the response with the reference solution, weighting answer and process 50/50. physeval
keeps the answer part deterministic (its own equivalence check) and asks the judge only for the
process, on a rubric of three criteria, each an integer 0-100:

=========================  ======  ====================================================
criterion                  weight  what it measures
=========================  ======  ====================================================
physical_modelling         0.5     principles, laws, approximations, model of the system
mathematical_derivation    0.3     equations set up and manipulated correctly
completeness               0.2     the essential steps and results of the reference
=========================  ======  ====================================================

The weights are the pipeline's 25 : 15 : 10 split of its process half. Definitions:

* ``process_score`` = sum(weight x criterion) / 100, in [0, 1].
* ``combined_score`` = ``answer_weight`` x answer + (1 - ``answer_weight``) x ``process_score``,
  where answer is 1 when the final answer is equivalent to the reference, else 0
  (``answer_weight`` 0.5 by default, as the pipeline uses).

The judge is asked for JSON against :data:`SCHEMA` with structured output first (see
:mod:`physeval.probes.judge_reply`), a forgiving parser after. A criterion that is missing, not a
number, or outside 0-100 is **invalid, never clamped** (a 150 means the judge misread the scale):
the verdict's outcome is then ``invalid``, it carries no process score, and the row says which
criterion was wrong. Outcomes: ``ok``, ``invalid``, ``unparseable``, ``error`` (the request
failed), ``no_reference`` (the problem carries no reference solution). Only ``ok`` verdicts
enter the process metrics; the others are counted in a note. A failed process judge never turns
the answer's verdict into an error: the answer was graded; only the process is missing.

The prompt is ``physeval/probes/prompts/process_judge.txt``; ``process_judge_prompt`` replaces it
with a file holding the placeholders ``{question}``, ``{reference_solution}``,
``{reference_answer}`` and ``{response}``.

Metrics (:func:`process_metrics`), reduced like every metric (samples of an item, variants of a
problem, problems, with bootstrap intervals): ``process_score``, ``combined_score``, one
``process_<criterion>`` (0-100) each, and the judge's agreement with the deterministic graders:
``process_accuracy_agreement`` (fraction of samples where ``process_score >= 0.5`` agrees with
the answer being right), ``process_accuracy_auc`` (probability that a right sample has a higher
process score than a wrong one, ties half) and ``process_eed_correlation`` (Pearson correlation
of process score and EED score over samples); the last three with 95 % intervals from a
bootstrap over problems.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from physeval.metrics import Metric, MetricSet, SampleOutcome, mean_score_metric

__all__ = [
    "RUBRIC",
    "SCHEMA",
    "ProcessVerdict",
    "agreement",
    "build_process_messages",
    "combined_score",
    "judge_process",
    "load_prompt_file",
    "process_metrics",
    "read_rubric",
    "reference_solution",
]

RUBRIC: tuple[tuple[str, float], ...] = (("physical_modelling", 0.5), ("mathematical_derivation", 0.3),
                                         ("completeness", 0.2))
SCALE = 100

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        **{name: {"type": "integer", "minimum": 0, "maximum": SCALE} for name, _ in RUBRIC},
        "justification": {"type": "string"},
    },
    "required": [name for name, _ in RUBRIC] + ["justification"],
    "additionalProperties": False,
}

_BOOTSTRAP_SEED = 20240601
_BOOTSTRAP_RESAMPLES = 1000


def reference_solution(meta: Mapping[str, Any]) -> str | None:
    """The reference solution a problem carries (``meta["solution"]``), or ``None``."""
    value = meta.get("solution") or meta.get("reference_solution")
    return value.strip() if isinstance(value, str) and value.strip() else None


@dataclass(frozen=True)
class ProcessVerdict:
    """The process judge's decision on one response.

    Attributes:
        outcome: ``ok``, ``invalid``, ``unparseable``, ``error`` or ``no_reference``.
        scores: Criterion -> its valid score (0-100); invalid criteria are absent.
        process_score: The weighted rubric score in [0, 1] (``None`` unless ``ok``).
        justification: The judge's short justification.
        problems: What was wrong with the reply (missing, non-numeric or out-of-range criteria).
        judge: The judge model's name.
        method: How the JSON was read (see :func:`physeval.probes.judge_reply.parse_json_object`).
        structured: Whether structured output was used.
        error: The failure message of an ``error``.
        reply: The raw reply.
        tokens: Prompt plus completion tokens.
    """

    outcome: str
    scores: dict[str, float] = field(default_factory=dict)
    process_score: float | None = None
    justification: str = ""
    problems: tuple[str, ...] = ()
    judge: str = ""
    method: str = "none"
    structured: bool = False
    error: str | None = None
    reply: str = ""
    tokens: int = 0

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable dict of every field."""
        return asdict(self)


def _number(value: Any) -> float | None:
    """A score as a number: ints, integral floats, ``"85"``, ``"85/100"``; else ``None``."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value) if math.isfinite(value) else None
    if isinstance(value, str):
        text = value.strip().rstrip("%").strip()
        if text.endswith(f"/{SCALE}"):
            text = text[: -len(f"/{SCALE}")].strip()
        try:
            number = float(text)
        except ValueError:
            return None
        return number if math.isfinite(number) else None
    return None


def read_rubric(data: Mapping[str, Any]) -> tuple[dict[str, float], str, tuple[str, ...]]:
    """``(valid scores, justification, problems)`` from a decoded judge object.

    Keys are matched ignoring case and spaces (``"Physical Modelling"``); values may be numbers
    or numeric strings; a value outside 0-100 or not a number is a problem, not a score.
    """
    folded = {str(k).strip().lower().replace(" ", "_").replace("-", "_"): v for k, v in data.items()}
    scores: dict[str, float] = {}
    problems: list[str] = []
    for name, _ in RUBRIC:
        if name not in folded:
            problems.append(f"{name}: missing")
            continue
        number = _number(folded[name])
        if number is None:
            problems.append(f"{name}: not a number ({str(folded[name])[:40]!r})")
        elif not 0 <= number <= SCALE:
            problems.append(f"{name}: {number:g} is outside 0-{SCALE}")
        else:
            scores[name] = number
    justification = folded.get("justification", folded.get("commentary", ""))
    return scores, str(justification or "").strip()[:2000], tuple(problems)


def build_process_messages(*, question: str, reference_solution: str, reference_answer: str, response: str,
                           prompt: str | None = None) -> list[dict[str, Any]]:
    """One user message: the rubric prompt with the problem, reference solution and answer, and the response."""
    from physeval.probes.prompts import fill, load_prompt

    template = prompt if prompt is not None else load_prompt("process_judge")
    text = fill(template, question=question, reference_solution=reference_solution,
                reference_answer=reference_answer, response=response)
    return [{"role": "user", "content": text}]


async def judge_process(judge: Any, *, question: str, reference_solution: str | None, reference_answer: str,
                        response: str, prompt: str | None = None, max_tokens: int = 2048) -> ProcessVerdict:
    """Ask ``judge`` to score ``response``'s derivation against ``reference_solution``; never raises."""
    from physeval.probes.judge_reply import ask_json

    if not reference_solution:
        return ProcessVerdict("no_reference", problems=("the problem carries no reference solution",))
    messages = build_process_messages(question=question, reference_solution=reference_solution,
                                      reference_answer=reference_answer, response=response, prompt=prompt)
    reply = await ask_json(judge, messages, SCHEMA, name="process_judgement", max_tokens=max_tokens)
    base: dict[str, Any] = {"judge": reply.judge, "method": reply.method, "structured": reply.structured,
                            "reply": reply.reply, "tokens": reply.prompt_tokens + reply.completion_tokens}
    if reply.outcome == "error":
        return ProcessVerdict("error", error=reply.error, problems=(reply.error or "the judge failed",), **base)
    if reply.outcome != "ok":
        return ProcessVerdict("unparseable", problems=("no JSON object could be read from the reply",), **base)
    scores, justification, problems = read_rubric(reply.data)
    if problems:
        return ProcessVerdict("invalid", scores=scores, justification=justification, problems=problems, **base)
    total = sum(weight * scores[name] for name, weight in RUBRIC) / SCALE
    return ProcessVerdict("ok", scores=scores, process_score=round(total, 6), justification=justification, **base)


def combined_score(answer_correct: bool, process_score: float | None, answer_weight: float = 0.5) -> float | None:
    """``answer_weight`` x (1 if right else 0) + (1 - ``answer_weight``) x ``process_score``; ``None`` without one."""
    if not 0.0 <= answer_weight <= 1.0:
        raise ValueError(f"answer_weight must be in [0, 1], not {answer_weight}")
    if process_score is None:
        return None
    return round(answer_weight * (1.0 if answer_correct else 0.0) + (1.0 - answer_weight) * process_score, 6)


# --------------------------------------------------------------------------- metrics


def _judged(outcomes: Sequence[SampleOutcome]) -> list[SampleOutcome]:
    return [o for o in outcomes if (o.grade or {}).get("process_score") is not None]


def _with_score(outcomes: Sequence[SampleOutcome], value: Any) -> list[SampleOutcome]:
    from dataclasses import replace

    return [replace(o, score=float(value(o))) for o in outcomes]


def _by_problem(outcomes: Sequence[SampleOutcome]) -> dict[str, list[SampleOutcome]]:
    groups: dict[str, list[SampleOutcome]] = {}
    for o in outcomes:
        groups.setdefault(o.problem_id, []).append(o)
    return groups


def _auc(pairs: Sequence[tuple[float, bool]]) -> float | None:
    """Mann-Whitney AUC with average ranks for ties: P(right sample scores higher), ties counted half."""
    import numpy as np

    scores = np.array([s for s, _ in pairs], dtype=float)
    labels = np.array([ok for _, ok in pairs], dtype=bool)
    positives = int(labels.sum())
    negatives = len(labels) - positives
    if positives == 0 or negatives == 0:
        return None
    order = np.argsort(scores, kind="mergesort")
    _, first, counts = np.unique(scores[order], return_index=True, return_counts=True)
    ranks = np.empty(len(scores))
    ranks[order] = np.repeat(first + (counts + 1) / 2.0, counts)
    return float((ranks[labels].sum() - positives * (positives + 1) / 2) / (positives * negatives))


def _pearson(xs: Sequence[float], ys: Sequence[float]) -> float | None:
    n = len(xs)
    if n < 3:
        return None
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    if sxx == 0 or syy == 0:
        return None
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / math.sqrt(sxx * syy)


def agreement(outcomes: Sequence[SampleOutcome]) -> dict[str, float | None]:
    """The judge's agreement with accuracy and EED over judged samples (see the module doc)."""
    judged = _judged(outcomes)
    process = [float((o.grade or {})["process_score"]) for o in judged]
    correct = [bool(o.correct) for o in judged]
    eed = [float((o.grade or {}).get("eed_score") or 0.0) for o in judged]
    agree = sum((p >= 0.5) == c for p, c in zip(process, correct)) / len(judged) if judged else None
    return {"process_accuracy_agreement": agree, "process_accuracy_auc": _auc(list(zip(process, correct))),
            "process_eed_correlation": _pearson(process, eed)}


def _bootstrap(outcomes: Sequence[SampleOutcome], values: Mapping[str, float]) -> dict[str, Metric]:
    """Each agreement statistic with a 95 % percentile interval from resampling problems (fixed seed)."""
    import numpy as np

    groups = list(_by_problem(outcomes).values())
    rng = np.random.default_rng(_BOOTSTRAP_SEED)
    draws: dict[str, list[float]] = {name: [] for name in values}
    for _ in range(_BOOTSTRAP_RESAMPLES):
        picked = rng.integers(0, len(groups), size=len(groups))
        stats = agreement([o for k in picked for o in groups[k]])
        for name in values:
            if stats[name] is not None:
                draws[name].append(float(stats[name]))  # type: ignore[arg-type]
    out = {}
    for name, value in values.items():
        low, high = ((float(np.percentile(draws[name], 2.5)), float(np.percentile(draws[name], 97.5)))
                     if draws[name] else (value, value))
        out[name] = Metric(float(value), low, high, len(groups), len(outcomes))
    return out


def process_metrics(outcomes: Sequence[SampleOutcome]) -> MetricSet:
    """Process-judge metrics over the samples whose grade carries a valid process score (see the module doc).

    Empty when no sample was sent to a process judge; a note counts verdicts that were not ``ok``.
    """
    asked = [o for o in outcomes if isinstance((o.grade or {}).get("process"), Mapping)]
    if not asked:
        return MetricSet()
    judged = _judged(asked)
    notes: tuple[str, ...] = ()
    failed: dict[str, int] = {}
    for o in asked:
        outcome = str((o.grade or {})["process"].get("outcome"))
        if outcome != "ok":
            failed[outcome] = failed.get(outcome, 0) + 1
    if failed:
        listing = ", ".join(f"{n} {k}" for k, n in sorted(failed.items()))
        notes = (f"process judge: {listing} of {len(asked)} samples left out of the process metrics",)
    if not judged:
        return MetricSet(notes=notes)
    metrics = (mean_score_metric(_with_score(judged, lambda o: o.grade["process_score"]), "process_score")
               | mean_score_metric(_with_score(judged, lambda o: o.grade["combined_score"]), "combined_score"))
    for name, _ in RUBRIC:
        metrics |= mean_score_metric(_with_score(judged, lambda o, n=name: o.grade["process"]["scores"][n]),
                                     f"process_{name}")
    stats = {name: value for name, value in agreement(judged).items() if value is not None}
    return metrics | MetricSet(_bootstrap(judged, stats) if stats else {}, notes=notes)


def load_prompt_file(path: str | Path | None) -> str:
    """The process-judge prompt: the shipped one, or ``path`` checked for its placeholders."""
    from physeval.probes.prompts import load_prompt

    return load_prompt("process_judge", path)

