"""Every public PHYBench reference answer converts and scores 100 against equivalent forms."""

import json
import re
from pathlib import Path

import pytest

from physeval.answers.latex import latex_to_sympy, strip_to_rhs
from physeval.grading.eed import eed

DATA = Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "phybench" / "PHYBench-fullques_v1.json"


def _references() -> list[tuple[str, str]]:
    if not DATA.is_file():
        return []
    return [(str(r["id"]), r["answer"]) for r in json.loads(DATA.read_text(encoding="utf-8"))]


REFERENCES = _references()
pytestmark = pytest.mark.skipif(not REFERENCES, reason="shared PHYBench data not present")


def _rhs(answer: str) -> str:
    text = answer.replace("$", " ").replace("\\[", " ").replace("\\]", " ")
    match = re.search(r"\\boxed\{(.*)\}", text, re.S)
    return strip_to_rhs(match.group(1) if match else text)


def test_all_100_reference_answers_convert() -> None:
    assert len(REFERENCES) == 100
    failed = [(pid, latex_to_sympy(ans).reason) for pid, ans in REFERENCES if not latex_to_sympy(ans).ok]
    assert failed == []


@pytest.mark.slow
@pytest.mark.parametrize(("pid", "reference"), REFERENCES, ids=[pid for pid, _ in REFERENCES])
def test_reference_scores_100_against_itself_and_a_rewritten_form(pid: str, reference: str) -> None:
    assert eed(reference, reference).score == 100
    rhs = _rhs(reference)
    assert eed(reference, rhs).score == 100, rhs  # the bare right-hand side, as a model writes it
    rewritten = r"\frac{2\left(" + rhs + r"\right)}{2}"
    result = eed(reference, rewritten)
    assert result.score == 100 and result.equivalent is True, result.reason
