"""A complete multiple-choice benchmark in one module: ten questions written for the tests.

It is all a new benchmark needs: a ChoiceTask subclass with a name and a loader. The tests run
it by file path, through an entry point and with ``-T`` options, without editing physeval.
"""

from __future__ import annotations

from physeval.problems import Problem
from physeval.tasks.tracks.choice import ChoiceTask

QUESTIONS = [
    ("A ball is thrown straight up. At the top of its path its acceleration is", ["zero", "g downward", "g upward",
                                                                                  "undefined", "2g downward"], "B"),
    ("Doubling the length of a simple pendulum multiplies its period by", ["2", "1/2", "sqrt(2)", "4", "1"], "C"),
    ("The SI unit of magnetic flux is the", ["tesla", "henry", "gauss", "weber", "farad"], "D"),
    ("An ideal gas expands isothermally. Its internal energy", ["rises", "falls", "stays the same",
                                                                "doubles", "halves"], "C"),
    ("Light passes from air into glass. Its frequency", ["increases", "decreases", "stays the same",
                                                         "becomes zero", "doubles"], "C"),
    ("Two resistors of 6 ohm in parallel have a resistance of", ["12 ohm", "6 ohm", "3 ohm", "2 ohm", "1 ohm"], "C"),
    ("The escape speed from a planet scales with its radius R at fixed density as", ["R", "R^2", "1/R",
                                                                                     "sqrt(R)", "R^0"], "A"),
    ("A photon's momentum is", ["h f", "h / lambda", "h lambda", "m c", "zero"], "B"),
    ("In a perfectly inelastic collision, what is conserved?", ["kinetic energy", "momentum", "both",
                                                                "neither", "speed"], "B"),
    ("The efficiency of a Carnot engine between 600 K and 300 K is", ["25 %", "33 %", "50 %", "67 %", "100 %"], "C"),
]


class MCPhysics(ChoiceTask):
    """Ten conceptual physics questions with five options each."""

    name = "mc-physics"
    description = "test fixture: 10 multiple-choice physics questions"

    def load(self) -> list[Problem]:
        return [Problem(id=str(i), question=q, answer=a, meta={"choices": choices})
                for i, (q, choices, a) in enumerate(QUESTIONS)]


def reply_for(prompt: str) -> str:
    """A scripted model that is right on the first seven questions and picks A on the rest."""
    for i, (question, _, answer) in enumerate(QUESTIONS):
        if question in prompt:
            return f"Thinking it through, the answer is \\boxed{{{answer if i < 7 else 'A'}}}."
    return "OK"
