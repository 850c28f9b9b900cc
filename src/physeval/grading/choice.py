"""Grade a multiple-choice answer: the chosen letter against the reference letter.

Pure, deterministic and never raising: every response ends as ``correct``, ``wrong``,
``no_answer`` or ``ambiguous`` with the reason and the rule that read the letter; the letter is
the answer class maj@K votes over.
"""

from __future__ import annotations

from physeval.answers.choice import extract_choice
from physeval.problems import Grade, Outcome

__all__ = ["grade_choice"]


def grade_choice(response: str, reference: str, *, letters: str = "ABCD") -> Grade:
    """Whether ``response`` chose ``reference`` (a letter, ``B`` or ``(B)``) among ``letters``."""
    want = "".join(c for c in str(reference).upper() if c.isalpha())[:1]
    if not want or want not in letters.upper():
        return Grade(False, Outcome.ERROR, f"the reference {reference!r:.200} is not one of the letters {letters}")
    found = extract_choice(response, letters)
    if found.rule == "ambiguous":
        return Grade(False, Outcome.AMBIGUOUS, f"more than one option in {found.text!r}", extracted=found.text)
    if found.letter is None:
        return Grade(False, Outcome.NO_ANSWER, "no option letter found")
    ok = found.letter == want
    return Grade(ok, Outcome.CORRECT if ok else Outcome.WRONG,
                 f"chose {found.letter} ({found.rule}), reference {want}", extracted=found.letter,
                 answer_key=found.letter)
