"""The multiple-choice track: options shown as lettered lines, the chosen letter graded.

A multiple-choice physics set is then one module: subclass :class:`ChoiceTask`, set ``name``,
and return problems whose ``meta["choices"]`` lists the option texts and whose ``answer`` is
the right letter.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from physeval.grading.choice import grade_choice
from physeval.problems import Grade, Problem
from physeval.tasks.base import Task
from physeval.tasks.options import TaskOptions, option

__all__ = ["ChoiceTask", "ChoiceOptions", "CHOICE_PROMPT"]

CHOICE_PROMPT = (
    "Answer the following physics question. Think step by step, then give the letter of the correct option "
    "in \\boxed{}.\n\n{question}\n\n{choices}"
)


@dataclass(frozen=True)
class ChoiceOptions(TaskOptions):
    """Options of the multiple-choice track."""

    letters: str = option("ABCD", "choice: the option letters, in order (default ABCD)")


class ChoiceTask(Task):
    """Questions with lettered options (``meta["choices"]``); graded by :func:`grade_choice`."""

    Options: ClassVar[type[TaskOptions]] = ChoiceOptions
    opts: ChoiceOptions
    track = "choice"
    default_prompt = CHOICE_PROMPT

    def prompt(self, problem: Problem) -> list[dict[str, Any]]:
        """The question, then one ``A. ...`` line per option."""
        choices = "\n".join(f"{letter}. {text}" for letter, text in zip(self.opts.letters,
                                                                        problem.meta.get("choices", [])))
        template = self.prompt_template
        if "{choices}" not in template:  # a user prompt file with only {question}: options follow it
            template = template.replace("{question}", "{question}\n\n{choices}")
        return [{"role": "user", "content": template.replace("{choices}", choices).replace("{question}",
                                                                                           problem.question)}]

    def grade(self, problem: Problem, response: str) -> Grade:
        """The chosen letter against the reference letter."""
        return grade_choice(response, problem.answer, letters=self.opts.letters)
