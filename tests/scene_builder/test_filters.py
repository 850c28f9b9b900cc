"""Length bounds and near-duplicate removal (rapidfuzz), and the error when rapidfuzz is missing."""

from __future__ import annotations

import random
import sys

import pytest

from physeval.errors import MissingExtraError
from physeval.scene_builder.filters import find_near_duplicates, token_count

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


@pytest.mark.parametrize("module", ["rapidfuzz", "datasketch"])
def test_without_the_libraries_the_error_names_the_extra(monkeypatch: pytest.MonkeyPatch, module: str) -> None:
    monkeypatch.setitem(sys.modules, module, None)
    with pytest.raises(MissingExtraError, match=rf"{module}.*pip install 'physeval\[build\]'"):
        find_near_duplicates([("a", BASE)], 90)


def test_candidates_from_the_index_miss_no_pair_that_scoring_every_pair_finds() -> None:
    from rapidfuzz import fuzz

    rng = random.Random(5)
    vocabulary = [f"w{i}" for i in range(3000)]
    weights = [1 / (rank + 1) for rank in range(3000)]  # word frequencies fall off as in prose
    texts: list[tuple[str, str]] = []
    for i in range(200):  # ten originals, each followed by variants with 0-30 of 150 words replaced
        if i % 20 == 0:
            words = rng.choices(vocabulary, weights, k=150)
        else:
            words = texts[i - i % 20][1].split()
            for _ in range(rng.randint(0, 30)):
                words[rng.randrange(len(words))] = rng.choice(vocabulary)
        texts.append((f"t{i:03d}", " ".join(words)))
    every_pair: dict[str, tuple[str, float]] = {}
    kept: list[tuple[str, str]] = []
    for rid, text in texts:
        scores = [(fuzz.token_sort_ratio(text, other), -pos, oid) for pos, (oid, other) in enumerate(kept)]
        top = max(scores, default=None)
        if top is not None and top[0] >= 90:
            every_pair[rid] = (top[2], round(top[0], 1))
        else:
            kept.append((rid, text))
    assert 40 < len(every_pair) < 170  # the variants straddle the threshold
    assert find_near_duplicates(texts, 90) == every_pair
