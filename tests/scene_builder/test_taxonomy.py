"""The shipped taxonomy has SimuScene's Table 5 shape; user taxonomies are read and checked."""

from __future__ import annotations

from pathlib import Path

import pytest

from physeval.errors import DataError, OptionError
from physeval.scene_builder.taxonomy import load_taxonomy, slugify


def test_the_shipped_taxonomy_has_five_domains_and_52_concepts() -> None:
    taxonomy = load_taxonomy()
    assert taxonomy.counts() == {"mechanics": 24, "electromagnetism": 16, "optics": 6, "fluid mechanics": 2,
                                 "thermodynamics": 4}
    assert len({c.slug for c in taxonomy.concepts}) == 52


def test_concepts_are_selected_by_name_slug_or_domain_in_taxonomy_order() -> None:
    taxonomy = load_taxonomy()
    chosen = taxonomy.select(["Refraction", "simple-pendulum"])
    assert [c.name for c in chosen] == ["simple pendulum", "refraction"]
    assert [c.domain for c in taxonomy.select(["fluid mechanics"])] == ["fluid mechanics"] * 2
    assert len(taxonomy.select(None, limit=3)) == 3
    with pytest.raises(OptionError, match="unknown concept"):
        taxonomy.select(["phlogiston"])


def test_a_user_taxonomy_with_descriptions(tmp_path: Path) -> None:
    path = tmp_path / "mine.yaml"
    path.write_text("domains:\n  - name: acoustics\n    concepts:\n      - Doppler effect\n"
                    "      - {name: standing waves, description: strings and pipes}\n")
    taxonomy = load_taxonomy(path)
    assert [(c.domain, c.slug, c.description) for c in taxonomy.concepts] == [
        ("acoustics", "doppler-effect", ""), ("acoustics", "standing-waves", "strings and pipes")]


@pytest.mark.parametrize("text, message", [
    ("domains: []\n", "non-empty 'domains'"),
    ("domains:\n  - name: a\n    concepts: [x, X]\n", "share the id"),
    ("domains:\n  - name: a\n    concepts: [{description: no name}]\n", "expected a name"),
])
def test_a_malformed_taxonomy_says_what_is_wrong(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    with pytest.raises(DataError, match=message):
        load_taxonomy(path)


def test_slugs() -> None:
    assert slugify("Newton's laws of motion") == "newtons-laws-of-motion"
    assert slugify("RC charging and discharging") == "rc-charging-and-discharging"
