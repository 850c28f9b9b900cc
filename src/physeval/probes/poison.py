"""``phybench-poison``: PHYBench's chain-of-thought poisoning probe (arXiv 2504.16074, 5.2 and G.5).

Each item is one PHYBench problem with one perturbation kind (``variant`` = the kind): the
reference solution gets one rule-based error (:mod:`physeval.probes.perturbations`), is cut
after the perturbed equation (or at a fraction of its equations, ``truncation``), and the model
is asked to continue it rather than restart, boxing its final answer
(``probes/prompts/poison_continue.txt``; ``--prompt-file`` replaces it, ``{question}`` and
``{partial_solution}`` are filled in).

Grading: the final answer against the original reference (equivalence and EED, as the symbolic
track grades; ``correct`` is that verdict), then a classification of the continuation:

=================  ===============================================================================
class              definition
=================  ===============================================================================
superficial        carries the error through: the final answer is equivalent to the answer the
                   perturbed derivation implies (when that can be computed; see
                   :func:`physeval.probes.perturbations.implied_answer`), or the judge says the
                   error was used as if it were right (and not flagged)
genuine            flags the error, repairs it, and reaches the right answer
pseudo_genuine     the right answer without addressing the error, or flags the error without
                   repairing it (and a wrong answer)
wrong              a wrong answer that neither carries the error nor flags it
no_answer          no final answer could be found
undetermined       the checks could not decide and no judge did (no judge, judge failed, or the
                   answer's equivalence was undecided)
=================  ===============================================================================

Decided by the answer checks first (``decided_by = "answer"``: no answer; the implied answer
matched). Only what they cannot decide -- was the error flagged, repaired, carried? -- goes to
the ``poison_judge`` (``decided_by = "judge"``), which answers ``{flagged, repaired, carried}`` in
JSON. Without a judge those cases fall back to a lexical cue (``decided_by = "cue"``: the
continuation names an error with words such as "mistake", "typo", "should be", "incorrect"),
recorded as such; a wrong answer with no cue and no computable implied answer is
``undetermined``.

Metrics: accuracy, eed_mean, and one ``<class>_rate`` per class, each with its interval, per
perturbation kind (breakdown ``kind``) and per tag; a note gives the counts. Per model: one run
is one model; compare runs with ``physeval compare``.
"""

from __future__ import annotations

import asyncio
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from physeval.grading import pool as grading_pool
from physeval.metrics import MetricSet, SampleOutcome, rate_metrics
from physeval.probes.perturbations import (
    KINDS,
    find_equations,
    implied_answer,
    perturb,
    truncate,
    truncation_index,
)
from physeval.probes.track import JudgedSymbolicGrade
from physeval.problems import Outcome, Problem
from physeval.tasks.base import GradeContext, TaskError
from physeval.tasks.options import TaskOptions, option
from physeval.tasks.registry import register_task
from physeval.tasks.tracks.symbolic import SymbolicOptions, SymbolicTask

__all__ = [
    "CLASSES",
    "JudgeFacts",
    "PhyBenchPoison",
    "PoisonGrade",
    "PoisonOptions",
    "classify",
    "error_cue",
    "poison_item",
    "poison_items",
]

CLASSES: tuple[str, ...] = ("superficial", "genuine", "pseudo_genuine", "wrong", "no_answer", "undetermined")

_CUE = re.compile(
    r"\b(mistakes?|typos?|an error|the error|errors? in|erroneous(?:ly)?|incorrect(?:ly)?|is wrong|was wrong|"
    r"should (?:be|read|have been)|not correct|inconsistent|inconsistency|contradict(?:s|ion)?)\b",
    re.IGNORECASE)

JUDGE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"flagged": {"type": "boolean"}, "repaired": {"type": "boolean"}, "carried": {"type": "boolean"},
                   "justification": {"type": "string"}},
    "required": ["flagged", "repaired", "carried", "justification"],
    "additionalProperties": False,
}


@dataclass(frozen=True)
class PoisonOptions(SymbolicOptions):
    """The symbolic track's options and the probe's."""

    perturbations: tuple[str, ...] = option(KINDS, "phybench-poison: perturbation kinds (default: all seven)")
    truncation: str = option("after", "phybench-poison: cut 'after' the perturbed equation, or at a fraction "
                                      "of the solution's equations (e.g. 0.5)")
    poison_seed: int = option(0, "phybench-poison: seed of the perturbations (default 0)")
    poison_judge: str | None = option(None, "phybench-poison: judge model for what the answer checks cannot decide")
    poison_judge_base_url: str | None = option(None, "phybench-poison: judge server URL")


@dataclass(frozen=True)
class PoisonGrade(JudgedSymbolicGrade):
    """A poisoning-probe grade: the symbolic grade plus the classification of the continuation.

    Attributes:
        kind: The perturbation kind.
        classification: One of :data:`CLASSES`.
        decided_by: ``answer``, ``judge`` or ``cue``.
        classification_reason: Why.
        implied_answer: The answer the perturbed derivation implies (``None``: not computable).
        matches_implied: Whether the final answer is equivalent to it (``None``: not checked).
        cue: The error-flagging phrase found in the continuation, or ``""``.
        poison_judge: The judge's reply (``flagged``, ``repaired``, ``carried``...), when asked.
    """

    kind: str = ""
    classification: str = "undetermined"
    decided_by: str = "answer"
    classification_reason: str = ""
    implied_answer: str | None = None
    matches_implied: bool | None = None
    cue: str = ""
    poison_judge: dict[str, Any] | None = None


@dataclass(frozen=True)
class JudgeFacts:
    """What the judge said about the injected error."""

    flagged: bool
    repaired: bool
    carried: bool


def error_cue(text: str) -> str:
    """The first phrase of ``text`` that flags an error (``""`` if none); reasoning spans are ignored."""
    from physeval.answers.extract import strip_reasoning

    match = _CUE.search(strip_reasoning(text or ""))
    return match.group(0) if match else ""


def classify(*, answered: bool, correct: bool | None, matches_implied: bool | None, implied_known: bool,
             judge: JudgeFacts | None, cue: str) -> tuple[str, str, str]:
    """``(class, decided_by, reason)`` for one continuation (see the module doc's table). Pure."""
    if not answered:
        return "no_answer", "answer", "no final answer found"
    if matches_implied is True:
        return "superficial", "answer", "the final answer is the one the perturbed derivation implies"
    if judge is not None:
        if judge.carried and not judge.flagged:
            return "superficial", "judge", "the judge: the error was used as if it were right"
        if correct is True:
            if judge.flagged and judge.repaired:
                return "genuine", "judge", "right answer; the judge: the error was flagged and repaired"
            return "pseudo_genuine", "judge", "right answer; the judge: the error was not both flagged and repaired"
        if correct is False:
            if judge.flagged and not judge.repaired:
                return "pseudo_genuine", "judge", "wrong answer; the judge: the error was flagged but not repaired"
            return "wrong", "judge", "wrong answer; the judge: the error was neither carried nor left unrepaired"
        return "undetermined", "judge", "equivalence undecided and the judge saw no carried error"
    if correct is True:
        if cue:
            return "genuine", "cue", f"right answer and the continuation flags an error ({cue!r})"
        return "pseudo_genuine", "cue", "right answer; the continuation does not flag the error"
    if correct is False:
        if cue:
            return ("pseudo_genuine", "cue",
                    f"wrong answer; the continuation flags an error ({cue!r}) without repairing it")
        if implied_known:
            return "wrong", "cue", "wrong answer, neither the reference nor the implied one, and no error flagged"
        return "undetermined", "cue", "wrong answer and the implied answer is not computable: pass --poison-judge"
    return "undetermined", "answer", "equivalence undecided"


# --------------------------------------------------------------------------- items


def _cut_index(solution: str, edits: Sequence[Any], truncation: str, n: int) -> tuple[int | None, list[int] | None]:
    """``(equation to cut after, eligible equations)``; the cut is ``None`` until the edits are known."""
    if truncation == "after":
        return None, list(range(max(0, n - 1)))
    try:
        fraction = float(truncation)
    except ValueError:
        raise TaskError(f"truncation must be 'after' or a fraction in (0, 1], not {truncation!r}") from None
    try:
        cut = truncation_index(n, fraction)
    except ValueError as exc:
        raise TaskError(str(exc)) from None
    return cut, list(range(cut + 1))


def _after_edits(solution: str, edits: Sequence[Any], equations: Sequence[Any]) -> int:
    """The equation to cut after so every edit is shown: a math edit's own equation; for a prose
    edit, the first equation after it (never the last equation of the solution)."""
    last = len(equations) - 1

    def shown_by(edit: Any) -> int:
        if edit.equation is not None:
            return int(edit.equation)
        following = [s.index for s in equations if s.start >= edit.start]
        return max(0, min(following[0] if following else last, last - 1))

    return max(shown_by(e) for e in edits)


def poison_item(problem: Problem, kind: str, *, seed: int = 0,
                truncation: str = "after") -> tuple[dict[str, Any] | None, Counter[str]]:
    """The probe's fields of one (problem, kind) item (``None`` when the kind did not apply) and the
    rejected candidate edits counted as ``"<kind>: <reason>"``. Pure; JSON-serialisable fields."""
    rejected: Counter[str] = Counter()
    solution = str(problem.meta.get("solution") or "")
    equations = find_equations(solution)
    if len(equations) < 2:
        rejected["too few equations"] += 1
        return None, rejected
    cut, eligible = _cut_index(solution, (), truncation, len(equations))
    try:
        result = perturb(solution, kind, seed=seed, key=problem.id, eligible=eligible)
    except Exception as exc:  # noqa: BLE001 - a rule bug on one solution is counted, not fatal to the load
        rejected[f"{kind}: rule error ({type(exc).__name__}: {str(exc)[:80]})"] += 1
        return None, rejected
    for reason, count in result.rejected.items():
        rejected[f"{kind}: {reason}"] += count
    if not result.ok or result.text is None:
        rejected[f"{kind}: not applied"] += 1
        return None, rejected
    poisoned = result.text
    where = cut if cut is not None else _after_edits(solution, result.perturbations, equations)
    partial = truncate(poisoned, where, equations=find_equations(poisoned))
    implied = implied_answer(solution, problem.answer, result.perturbations)
    fields = {"kind": kind, "partial_solution": partial, "perturbations": [p.to_dict() for p in result.perturbations],
              "implied_answer": implied.answer, "implied_method": implied.method, "implied_reason": implied.reason,
              "truncated_after": where, "n_equations": len(equations), "poison_seed": seed}
    return fields, rejected


def _item(problem: Problem, kind: str, fields: dict[str, Any]) -> Problem:
    meta = {key: value for key, value in problem.meta.items()}
    meta.update(fields)
    return Problem(id=problem.id, question=problem.question, answer=problem.answer, variant=kind, meta=meta)


def poison_items(problem: Problem, kinds: Sequence[str], *, seed: int = 0, truncation: str = "after",
                 rejected: Counter[str] | None = None) -> list[Problem]:
    """The poisoned items of one problem with a reference solution (one per kind that applied).

    ``rejected`` (if given) collects the rejected candidate edits as ``"<kind>: <reason>"``.
    """
    if not problem.meta.get("solution"):
        return []
    items = []
    for kind in kinds:
        fields, why = poison_item(problem, kind, seed=seed, truncation=truncation)
        if rejected is not None:
            rejected.update(why)
        if fields is not None:
            items.append(_item(problem, kind, fields))
    return items


def _equivalent_job(response: str, reference: str, box: str, compat: str | None) -> bool | None:
    from physeval.grading.symbolic import grade_symbolic

    return grade_symbolic(response, reference, box=box, compat=compat).equivalent


@register_task
class PhyBenchPoison(SymbolicTask):
    """PHYBench problems whose reference solution is poisoned, truncated and handed over to be continued."""

    Options: ClassVar[type[TaskOptions]] = PoisonOptions
    opts: PoisonOptions
    name = "phybench-poison"
    description = "PHYBench CoT poisoning probe: continue a poisoned partial solution (--data PHYBench JSON)"
    breakdowns: ClassVar[tuple[str, ...]] = ("kind", "tag")

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        kinds = [k.strip() for item in self.opts.perturbations for k in str(item).split(",") if k.strip()]
        unknown = [k for k in kinds if k not in KINDS]
        if unknown or not kinds:
            raise TaskError(f"unknown perturbation kind(s) {', '.join(unknown) or '(none given)'}; "
                            f"known: {', '.join(KINDS)}")
        self.kinds = tuple(dict.fromkeys(kinds))
        if self.opts.truncation != "after":
            _cut_index("", (), self.opts.truncation, 2)  # a bad value fails now, not at load
        if not self.opts.prompt_file:
            from physeval.probes.prompts import load_prompt

            self.prompt_template = load_prompt("poison_continue")
        elif "{partial_solution}" not in self.prompt_template:
            raise TaskError(f"prompt file {self.opts.prompt_file} has no {{partial_solution}} placeholder")
        self._judge_prompt: str | None = None
        self.load_report = ""
        self._stand_ins: list[Problem] | None = None
        self._without = self._too_few = self._n_solutions = 0

    def load(self) -> list[Problem]:
        """Every (problem, kind) whose perturbation applied; what was rejected goes in ``load_report``."""
        return self._build(self.stand_ins(), chosen=False)

    def load_selected(self, select: Callable[[list[Problem]], list[Problem]]) -> list[Problem]:
        """The items of the problems ``select`` keeps: it chooses among :meth:`stand_ins` (one per
        problem with a solution of two or more equations and kind, nothing perturbed yet), and only
        the chosen are perturbed, so ``--limit 2`` costs two problems' worth."""
        return self._build(select(self.stand_ins()), chosen=True)

    def stand_ins(self) -> list[Problem]:
        """One unperturbed stand-in per (problem, kind): the problem with its ``kind``, for choosing."""
        if self._stand_ins is None:
            from physeval.tasks.phybench_data import load_phybench, load_phybench_hf

            if self.data is None:
                raise TaskError("phybench-poison needs --data: PHYBench-fullques_v1.json or its folder")
            text = str(self.data)
            problems = load_phybench_hf(text[3:]) if text.startswith("hf:") else load_phybench(self.data)
            self._without = sum(1 for p in problems if not p.meta.get("solution"))
            solved = [p for p in problems if p.meta.get("solution")]
            usable = [p for p in solved if len(find_equations(str(p.meta["solution"]))) >= 2]
            self._too_few = len(solved) - len(usable)
            self._n_solutions = len(solved)
            self._stand_ins = [Problem(id=p.id, question=p.question, answer=p.answer, variant=kind,
                                       meta={**p.meta, "kind": kind, "poison_seed": self.opts.poison_seed})
                               for p in usable for kind in self.kinds]
        return list(self._stand_ins)

    def _build(self, stand_ins: Sequence[Problem], *, chosen: bool) -> list[Problem]:
        from physeval.probes.poison_cache import PoisonCache, item_key

        cache = PoisonCache.open_or_none()
        rejected: Counter[str] = Counter()
        items: list[Problem] = []
        cached = 0
        try:
            for stand_in in stand_ins:
                kind = stand_in.variant
                key = item_key(stand_in.id, str(stand_in.meta.get("solution")), stand_in.answer, kind,
                               self.opts.poison_seed, self.opts.truncation)
                hit = cache.get(key) if cache is not None else None
                if hit is not None:
                    cached += 1
                    fields, why = hit.get("fields"), Counter(hit.get("rejected") or {})
                else:
                    fields, why = poison_item(stand_in, kind, seed=self.opts.poison_seed,
                                              truncation=self.opts.truncation)
                    if cache is not None:
                        cache.put(key, {"fields": fields, "rejected": dict(why)})
                rejected.update(why)
                if fields is not None:
                    items.append(_item(stand_in, kind, fields))
        finally:
            if cache is not None:
                cache.close()
        self.load_report = self._report(items, rejected, len({s.id for s in stand_ins}) if chosen else None, cached)
        return items

    def _report(self, items: Sequence[Problem], rejected: Counter[str], chosen: int | None, cached: int) -> str:
        per_kind = Counter(p.variant for p in items)
        counts = ", ".join(f"{k} {per_kind.get(k, 0)}" for k in self.kinds)
        lines = [f"phybench-poison: {len(items)} items from {self._n_solutions} solutions ({counts})"]
        if chosen is not None:
            usable = len({s.id for s in self.stand_ins()})
            lines.append(f"perturbed {chosen} of {usable} problems (the ones --limit/--sample-strategy chose)")
        if cached:
            lines.append(f"{cached} (problem, kind) results read from the perturbation cache")
        if self._without:
            lines.append(f"{self._without} problems without a reference solution skipped")
        if self._too_few:
            rejected["too few equations"] += self._too_few * len(self.kinds)
        if rejected:
            lines.append("rejected: " + ", ".join(f"{k} {n}" for k, n in sorted(rejected.items())))
        return "\n".join(lines)

    def judge_specs(self) -> list[tuple[str, str | None]]:
        """The symbolic track's judges and the poison judge."""
        extra = [(self.opts.poison_judge, self.opts.poison_judge_base_url)] if self.opts.poison_judge else []
        return super().judge_specs() + extra

    def prompt(self, problem: Problem) -> list[dict[str, Any]]:
        """The problem, the poisoned partial solution and the request to continue it."""
        from physeval.probes.prompts import fill

        messages: list[dict[str, Any]] = []
        if self.system_prompt:
            messages.append({"role": "system", "content": self.system_prompt})
        text = fill(self.prompt_template, question=problem.question,
                    partial_solution=str(problem.meta.get("partial_solution") or ""))
        messages.append({"role": "user", "content": text})
        return messages

    async def agrade(self, problem: Problem, response: str, context: GradeContext) -> PoisonGrade:
        """The symbolic grade, the implied-answer check, then (only if needed) the judge.

        The classification happens here, on the runner's path (``score`` and ``regrade`` use it too);
        the synchronous :meth:`grade` inherited from the symbolic track grades the answer only.
        """
        base = await super().agrade(problem, response, context)
        implied = problem.meta.get("implied_answer")
        matches: bool | None = None
        if implied and base.extracted is not None:
            if self.opts.grading_processes == 0:
                matches = _equivalent_job(response, implied, self.opts.box, self.opts.compat)
            else:
                future = grading_pool.submit(_equivalent_job, response, implied, self.opts.box, self.opts.compat)
                matches = await asyncio.wrap_future(future)
        cue = error_cue(response)
        answered = base.extracted is not None and base.outcome != Outcome.NO_ANSWER
        facts: JudgeFacts | None = None
        record: dict[str, Any] | None = None
        needs_judge = answered and matches is not True
        if needs_judge and self.opts.poison_judge:
            facts, record = await self._ask_judge(problem, response)
        label, decided_by, reason = classify(answered=answered, correct=base.equivalent, matches_implied=matches,
                                             implied_known=bool(implied), judge=facts, cue=cue)
        if record is not None and facts is None:
            reason += f" (the judge gave no verdict: {record.get('outcome')})"
        values = {name: getattr(base, name) for name in base.__dataclass_fields__}
        return PoisonGrade(**values, kind=str(problem.meta.get("kind") or problem.variant), classification=label,
                           decided_by=decided_by, classification_reason=reason, implied_answer=implied,
                           matches_implied=matches, cue=cue, poison_judge=record)

    async def _ask_judge(self, problem: Problem, response: str) -> tuple[JudgeFacts | None, dict[str, Any]]:
        from physeval.probes.judge_reply import ask_json
        from physeval.probes.prompts import fill, load_prompt
        from physeval.probes.track import judge_model

        if self._judge_prompt is None:
            self._judge_prompt = load_prompt("poison_judge")
        edits = "\n".join(f"- {p['kind']} ({p['rule']}), line {p['line']}: {p['context_before'].strip()!r} -> "
                          f"{p['context_after'].strip()!r}" for p in problem.meta.get("perturbations") or [])
        text = fill(self._judge_prompt, question=problem.question, perturbations=edits,
                    partial_solution=str(problem.meta.get("partial_solution") or ""), response=response)
        judge = judge_model(self, str(self.opts.poison_judge), self.opts.poison_judge_base_url)
        reply = await ask_json(judge, [{"role": "user", "content": text}], JUDGE_SCHEMA, name="poison_verdict")
        record = reply.to_dict()
        if reply.outcome != "ok":
            return None, record
        values = [reply.data.get(k) for k in ("flagged", "repaired", "carried")]
        if not all(isinstance(v, bool) for v in values):
            record["outcome"] = "invalid"
            return None, record
        return JudgeFacts(*values), record  # type: ignore[arg-type]

    def metrics(self, outcomes: Sequence[SampleOutcome]) -> MetricSet:
        """Accuracy, EED, one ``<class>_rate`` per class; per kind and tag; counts in a note."""
        counts = Counter(str((o.grade or {}).get("classification") or "undetermined") for o in outcomes)
        note = "classification counts: " + ", ".join(f"{c} {counts.get(c, 0)}" for c in CLASSES)
        return super().metrics(outcomes) | _class_rates(outcomes) | MetricSet(notes=(note,))

    def group_metrics(self, outcomes: Sequence[SampleOutcome]) -> MetricSet:
        """Per kind or tag: accuracy, eed_mean and the class rates."""
        return super().group_metrics(outcomes) | _class_rates(outcomes)


def _class_flag(label: str) -> Callable[[SampleOutcome], bool]:
    return lambda o: (o.grade or {}).get("classification") == label


def _class_rates(outcomes: Sequence[SampleOutcome]) -> MetricSet:
    metrics = MetricSet()
    for label in CLASSES:
        metrics |= rate_metrics(outcomes, f"{label}_rate", _class_flag(label))
    return metrics

