"""The shipped scene bank is complete, well-formed and spread over the taxonomy."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from physeval.scenes.bank_data import BANK_DIR, BANK_DOMAINS, load_scene_bank

BANK = load_scene_bank()


def test_at_least_sixty_scenes_with_unique_ids() -> None:
    assert len(BANK) >= 60
    ids = [p.id for p in BANK]
    assert len(set(ids)) == len(ids)


def test_every_domain_has_at_least_ten_scenes() -> None:
    counts = Counter(p.meta["domain"] for p in BANK)
    assert set(counts) == set(BANK_DOMAINS)
    assert min(counts.values()) >= 10


def test_levels_one_to_three_all_used() -> None:
    levels = Counter(p.meta["level"] for p in BANK)
    assert set(levels) == {1, 2, 3}
    assert levels[3] >= 5


def test_question_counts_and_shapes() -> None:
    for problem in BANK:
        questions = problem.meta["questions"]
        assert 4 <= len(questions) <= 12, problem.id
        assert [q["index"] for q in questions] == [str(i) for i in range(1, len(questions) + 1)]
        texts = [q["question"] for q in questions]
        assert len(set(texts)) == len(texts), problem.id
        assert all(t.endswith("?") for t in texts), problem.id
        assert all(q["weight"] > 0 for q in questions)


def test_every_scene_has_text_a_concept_and_a_summary() -> None:
    for problem in BANK:
        assert len(problem.question) > 80, problem.id
        assert problem.meta["concept"] and problem.meta["summarize"], problem.id
        assert problem.answer == "" and problem.meta["source"] == "physeval-bank"


@pytest.mark.parametrize(
    "concept",
    ["angular momentum", "elastic collision", "damped oscillation", "projectile motion", "Faraday's law",
     "Lorentz force", "refraction", "interference", "diffraction", "fluid statics", "buoyancy",
     "Bernoulli's principle", "ideal gas law", "heat conduction"],
)
def test_the_core_taxonomy_is_covered(concept: str) -> None:
    assert any(p.meta["concept"] == concept for p in BANK)


def test_at_least_forty_distinct_concepts() -> None:
    assert len({p.meta["concept"] for p in BANK}) >= 40


def test_filters() -> None:
    optics = load_scene_bank(domains=["Optics"])
    assert optics and all(p.meta["domain"] == "optics" for p in optics)
    hard = load_scene_bank(levels=[3])
    assert hard and all(p.meta["level"] == 3 for p in hard)


def test_a_malformed_bank_entry_raises(tmp_path: Path) -> None:
    (tmp_path / "x.yaml").write_text(
        "domain: optics\nscenes:\n  - id: bad\n    concept: c\n    level: 1\n    scenario: s\n    questions: []\n"
    )
    with pytest.raises(ValueError, match="bad"):
        load_scene_bank(tmp_path)


def test_bank_files_live_in_the_package() -> None:
    assert sorted(p.name for p in BANK_DIR.glob("*.yaml")) == [
        "electromagnetism.yaml", "fluid_mechanics.yaml", "mechanics.yaml", "optics.yaml", "thermodynamics.yaml"]
