"""The optional LLM equivalence fallback: asked only for undecided answers, its verdict recorded as a judge's."""

from __future__ import annotations

import asyncio

from physeval.grading.symbolic import SymbolicGrade
from physeval.probes.track import judge_symbolic
from physeval.problems import Outcome, Problem
from physeval.tasks.registry import get_task
from physeval.testing import Reply, ScriptedServer

PROBLEM = Problem(id="g", question="Write Gamma(x+1) another way.", answer=r"\Gamma(x+1)")


def _undecided() -> SymbolicGrade:
    return SymbolicGrade(correct=False, outcome=Outcome.UNDECIDED, reason="simplification did not reach 0",
                         score=0.4, extracted=r"x\Gamma(x)", equivalent=None, eed_score=40.0)


def _judged(reply: str, grade: SymbolicGrade) -> tuple[SymbolicGrade, list]:
    with ScriptedServer(lambda r: Reply.text(reply)) as server:
        task = get_task("bank-symbolic", grading_processes=0, equivalence_judge="openai/eq",
                        equivalence_judge_base_url=server.base_url)
        judged = asyncio.run(judge_symbolic(task, PROBLEM, r"so \boxed{x\Gamma(x)}", grade))
        return judged, list(server.requests)


def test_an_undecided_answer_is_decided_by_the_judge_and_says_so() -> None:
    judged, requests = _judged('{"equivalent": true, "justification": "the recurrence of Gamma"}', _undecided())
    assert len(requests) == 1 and "x\\Gamma(x)" in requests[0].prompt and "\\Gamma(x+1)" in requests[0].prompt
    assert requests[0].body["response_format"]["json_schema"]["name"] == "equivalence_verdict"
    assert judged.correct and judged.outcome == Outcome.CORRECT and judged.equivalent is True
    data = judged.to_dict()
    assert data["equivalence_by"] == "judge" and data["equivalence_judge"]["justification"] == "the recurrence of Gamma"
    assert "decided by the equivalence judge" in judged.reason and judged.answer_key == "=reference"
    assert judged.eed_score == 40.0  # EED is the checker's, untouched


def test_a_judge_saying_no_makes_it_wrong() -> None:
    judged, _ = _judged('{"equivalent": false, "justification": "differs"}', _undecided())
    assert not judged.correct and judged.outcome == Outcome.WRONG and judged.to_dict()["equivalence_by"] == "judge"


def test_an_unreadable_judge_leaves_it_undecided() -> None:
    judged, _ = _judged("no idea", _undecided())
    assert judged.outcome == Outcome.UNDECIDED and judged.to_dict()["equivalence_by"] == "checker"
    assert judged.to_dict()["equivalence_judge"]["outcome"] == "unparseable"


def test_decided_answers_never_reach_the_judge() -> None:
    decided = SymbolicGrade(correct=True, outcome=Outcome.CORRECT, score=1.0, extracted="x", equivalent=True)
    judged, requests = _judged('{"equivalent": false, "justification": "x"}', decided)
    assert requests == [] and judged is decided


def test_off_by_default() -> None:
    task = get_task("bank-symbolic", grading_processes=0)
    problem = task.load()[0]
    grade = asyncio.run(task.agrade(problem, f"\\boxed{{{problem.answer}}}", None))  # type: ignore[arg-type]
    assert type(grade) is SymbolicGrade and grade.correct
