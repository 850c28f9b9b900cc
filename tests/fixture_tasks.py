"""A tiny task written for the tests: add two numbers, answer in \\boxed{}.

Used to drive the runner end to end before (and independently of) the physics tracks.
``arithmetic_reply`` is the matching server script: it answers right unless id % 3 == 0,
so every run has a known accuracy.
"""

from __future__ import annotations

import re

from physeval.answers import extract_final_answer
from physeval.problems import Grade, Problem
from physeval.tasks.base import Task
from physeval.testing import Reply, Request

_QUESTION = re.compile(r"\[id=(\d+)\] Compute (\d+) \+ (\d+)")


class ArithmeticTask(Task):
    """``n`` problems ``a + b`` with ``variants`` variants each (variant v adds v to b)."""

    name = "arithmetic"
    description = "test fixture: integer addition"
    track = "numeric"
    breakdowns = ("parity",)

    def __init__(self, n: int = 12, variants: int = 1, **options: object) -> None:
        super().__init__(**options)
        self.n, self.variants = n, variants
        self.dynamic = variants > 1

    def load(self) -> list[Problem]:
        out = []
        for i in range(self.n):
            for v in range(self.variants):
                a, b = 3 * i + 1, 2 * i + 5 + v
                out.append(Problem(id=str(i), variant=str(v), question=f"[id={i}] Compute {a} + {b}.",
                                   answer=str(a + b), meta={"parity": "even" if i % 2 == 0 else "odd"}))
        return out

    def grade(self, problem: Problem, response: str) -> Grade:
        found = extract_final_answer(response)
        if found.text is None:
            return Grade(False, "no_answer", "no boxed answer")
        ok = found.text.strip() == problem.answer
        return Grade(ok, "correct" if ok else "wrong", f"{found.text} vs {problem.answer}", extracted=found.text)


def arithmetic_reply(request: Request) -> Reply:
    """Right answer unless id % 3 == 0 (then off by one); the reasoning goes in <think>."""
    match = _QUESTION.search(request.prompt)
    if match is None:
        return Reply.text("I cannot read the question.")
    i, a, b = (int(g) for g in match.groups())
    value = a + b + (1 if i % 3 == 0 else 0)
    return Reply.text(f"<think>{a} plus {b}</think>The sum is \\boxed{{{value}}}.")
