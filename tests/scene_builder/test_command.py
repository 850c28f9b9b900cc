"""The ``physeval build`` command line: a light import, and the prompts a user starts from."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from physeval.cli import main
from physeval.scene_builder.prompts import PROMPT_DIR, PROMPT_FIELDS


def test_importing_the_build_package_and_its_parser_loads_nothing_heavy() -> None:
    code = ("import sys, physeval.scene_builder, physeval.scene_builder.command; "
            "print(sorted(m for m in ('pydantic', 'rapidfuzz', 'matplotlib', 'numpy', 'openai') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_build_prompts_writes_the_shipped_prompts_to_edit(tmp_path: Path) -> None:
    assert main(["build", "prompts", str(tmp_path / "mine")]) == 0
    written = sorted(p.name for p in (tmp_path / "mine").iterdir())
    assert written == sorted(f"{name}.txt" for name in PROMPT_FIELDS)
    assert (tmp_path / "mine" / "review.txt").read_text() == (PROMPT_DIR / "review.txt").read_text()


def test_an_unknown_stage_or_a_bad_level_is_a_user_error(tmp_path: Path) -> None:
    base = ["build", "scenes", "--out", str(tmp_path / "b"), "--generator", "openai/gen", "--no-progress"]
    assert main([*base, "--stage", "polish"]) == 2
    assert main([*base, "--levels", "1,5"]) == 2
    assert main([*base, "--prompt", "questions"]) == 2
