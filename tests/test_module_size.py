"""No module of physeval is over 500 lines: small modules with one job are a rule of the project.

A module that grows past the limit is split at its seams (a lexer from its parser, metrics from
the task that registers them) or, when it is data, turned into a data file shipped as package
data. The exceptions are listed with their reason; a listed module that is back under the limit
is named, so the list cannot go stale.
"""

from __future__ import annotations

from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "physeval"
LIMIT = 500

EXCEPTIONS: dict[str, str] = {
    "scenes/sandbox/_init_program.py": "passed into the sandbox as one stdlib-only source text "
                                       "(python -I -S -c SOURCE): it cannot import a sibling module",
}


def too_long(root: Path, limit: int = LIMIT) -> dict[str, int]:
    """Every ``.py`` under ``root`` over ``limit`` lines, by path relative to ``root``."""
    out = {}
    for path in sorted(root.rglob("*.py")):
        with path.open("rb") as handle:
            lines = sum(1 for _ in handle)
        if lines > limit:
            out[path.relative_to(root).as_posix()] = lines
    return out


def test_no_module_is_over_500_lines() -> None:
    over = {name: n for name, n in too_long(SRC).items() if name not in EXCEPTIONS}
    assert over == {}, f"modules over {LIMIT} lines (split them at their seams): {over}"


def test_every_listed_exception_is_still_over_the_limit() -> None:
    long = too_long(SRC)
    assert [name for name in EXCEPTIONS if name not in long] == [], "an exception no longer needed: remove it"


def test_a_long_module_would_be_found(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "long.py").write_text("x = 1\n" * (LIMIT + 1))
    (tmp_path / "pkg" / "short.py").write_text("x = 1\n" * LIMIT)
    assert too_long(tmp_path) == {"pkg/long.py": LIMIT + 1}
