"""Prompts are shipped text files; a user file replaces one, and a placeholder it cannot have is refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from physeval.errors import DataNotFoundError, OptionError
from physeval.scene_builder.prompts import PROMPT_FIELDS, load_prompts


def test_every_shipped_prompt_uses_only_its_placeholders() -> None:
    prompts = load_prompts()
    for name, fields in PROMPT_FIELDS.items():
        text = prompts.render(name, **dict.fromkeys(fields, "<v>"))
        assert "$" not in text and "<v>" in text


def test_an_override_replaces_one_prompt_and_changes_the_digest(tmp_path: Path) -> None:
    mine = tmp_path / "plaus.txt"
    mine.write_text("Is this possible? $scenario\nReply {\"plausible\": true, \"renderable\": true}")
    shipped, replaced = load_prompts(), load_prompts({"plausibility": mine})
    rendered = replaced.render("plausibility", scenario="a ball", domain="d", concept="c")
    assert rendered.startswith("Is this possible? a ball")
    assert replaced.sources["plausibility"] == str(mine) and replaced.sources["basic"] == "built-in"
    assert replaced.digest() != shipped.digest()


def test_bad_overrides_fail_before_any_request(tmp_path: Path) -> None:
    typo = tmp_path / "typo.txt"
    typo.write_text("Scenario: $scenari")
    with pytest.raises(OptionError, match="no placeholder scenari"):
        load_prompts({"questions": typo})
    with pytest.raises(OptionError, match="no such prompt"):
        load_prompts({"solver": typo})
    with pytest.raises(DataNotFoundError):
        load_prompts({"review": tmp_path / "absent.txt"})
