"""Length bounds and near-duplicate removal (rapidfuzz), and the error when rapidfuzz is missing."""

from __future__ import annotations

import sys

import pytest

from physeval.build.filters import find_near_duplicates, token_count
from physeval.errors import MissingExtraError

BASE = ("A red ball is thrown horizontally at 12 m/s from the top of a 45 m cliff and follows a parabola to the "
        "ground, leaving a dotted trace; the time and speed are shown in the corner.")


def test_token_count_counts_words_and_punctuation() -> None:
    assert token_count("A ball, 2 kg, falls.") == 8
    assert token_count("") == 0


def test_a_near_duplicate_goes_and_the_earlier_stays() -> None:
    texts = [("a-01", BASE), ("a-02", BASE.replace("12 m/s", "13 m/s")),
             ("b-01", "A green laser beam enters a glass block at 45 degrees and bends towards the normal."),
             ("c-01", BASE.upper())]  # case does not make a scenario new
    duplicates = find_near_duplicates(texts, 90)
    assert set(duplicates) == {"a-02", "c-01"}
    assert duplicates["a-02"][0] == "a-01" and 90 <= duplicates["a-02"][1] < 100
    assert duplicates["c-01"] == ("a-01", 100.0)


def test_the_threshold_decides() -> None:
    texts = [("a", BASE), ("b", BASE.replace("red ball", "blue cube").replace("parabola", "curve"))]
    assert find_near_duplicates(texts, 99) == {}
    assert "b" in find_near_duplicates(texts, 80)


def test_without_rapidfuzz_the_error_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "rapidfuzz", None)
    with pytest.raises(MissingExtraError, match=r"pip install 'physeval\[build\]'"):
        find_near_duplicates([("a", BASE)], 90)
