"""The compose draw: the level is the number of conditions, and it depends only on the seed and the id."""

from __future__ import annotations

from collections import Counter

from physeval.scene_builder.generate import draw_conditions, record_id
from physeval.scene_builder.solve import split_of

CONDITIONS = ["air resistance", "friction 0.2", "a second ball", "wind from the left"]


def test_the_draw_is_seeded_by_seed_and_id_only() -> None:
    first = draw_conditions(3, "free-fall-01-1", CONDITIONS, (0, 1, 2, 3))
    assert draw_conditions(3, "free-fall-01-1", list(CONDITIONS), (0, 1, 2, 3)) == first
    draws = {tuple(draw_conditions(seed, "free-fall-01-1", CONDITIONS, (0, 1, 2, 3))) for seed in range(40)}
    assert len(draws) > 10


def test_levels_are_drawn_uniformly_and_conditions_without_repeats() -> None:
    levels = Counter()
    for i in range(400):
        drawn = draw_conditions(0, record_id("c", i, 0), CONDITIONS, (0, 1, 2, 3))
        assert len(set(drawn)) == len(drawn) and set(drawn) <= set(CONDITIONS)
        levels[len(drawn)] += 1
    assert set(levels) == {0, 1, 2, 3} and min(levels.values()) > 70
    assert draw_conditions(0, "x", ["only one"], (3,)) == ["only one"]  # fewer conditions than the level


def test_record_ids_and_splits() -> None:
    assert record_id("simple-pendulum", 0, 0) == "simple-pendulum-01-1"
    tests = sum(split_of(1, record_id("c", i, 0), 0.2) == "test" for i in range(1000))
    assert 150 < tests < 250
    assert split_of(1, "any", 0.0) == "train" and split_of(1, "any", 1.0) == "test"
