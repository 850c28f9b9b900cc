"""The built bank on disk: read back equal to a fresh build, never rebuilt per process, never stale."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from physeval.variation.bank import BANK_DIR, bank_problems, build_bank_problems
from physeval.variation.bank_cache import bank_cache_dir, cache_key


@pytest.fixture(autouse=True)
def _own_bank_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests count, damage and rebuild entries: a bank directory of their own, empty at the start
    (every other test shares the run's built bank: tests/_shared_bank.py)."""
    monkeypatch.setenv("PHYSEVAL_CACHE_DIR", str(tmp_path / "own-cache"))


@pytest.mark.parametrize(("kind", "variants", "seed"), [("numeric", 4, 0), ("symbolic", 2, 7)])
def test_cached_problems_equal_a_fresh_build(kind: str, variants: int, seed: int) -> None:
    fresh = build_bank_problems(kind, variants, seed)  # type: ignore[arg-type]
    first = bank_problems(kind, variants=variants, seed=seed)  # type: ignore[arg-type]
    again = bank_problems(kind, variants=variants, seed=seed)  # type: ignore[arg-type]
    assert first == fresh and again == fresh
    assert len(list(bank_cache_dir().glob(f"{kind}-*.json"))) == 1


def test_a_second_process_reads_the_bank_without_sympy() -> None:
    bank_problems("numeric", variants=3, seed=1)  # fills this test's cache directory
    code = ("import sys; from physeval.tasks.registry import get_task\n"
            "problems = get_task('bank-numeric', variants=3, variant_seed=1).load()\n"
            "print(len(problems), 'sympy' in sys.modules, 'pint' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == [str(65 * 3), "False", "False"]


def test_a_damaged_entry_is_rebuilt() -> None:
    fresh = bank_problems("numeric", variants=1, seed=0)
    [entry] = bank_cache_dir().glob("numeric-*.json")
    data = json.loads(entry.read_text())
    data["problems"][0]["answer"] = "999"
    entry.write_text(json.dumps(data))
    assert bank_problems("numeric", variants=1, seed=0) == fresh
    assert json.loads(entry.read_text())["problems"][0]["answer"] != "999"  # and rewritten
    entry.write_text(entry.read_text()[:100])  # truncated
    assert bank_problems("numeric", variants=1, seed=0) == fresh


def test_the_key_changes_with_the_templates_and_the_arguments(tmp_path: Path) -> None:
    copy = tmp_path / "numeric"
    shutil.copytree(BANK_DIR / "numeric", copy)
    key = cache_key("numeric", 4, 0, copy)
    assert key == cache_key("numeric", 4, 0, BANK_DIR / "numeric")
    assert len({key, cache_key("numeric", 5, 0, copy), cache_key("numeric", 4, 1, copy),
                cache_key("symbolic", 4, 0, copy)}) == 4
    first = sorted(copy.glob("*.yaml"))[0]
    first.write_text(first.read_text() + "\n# edited\n")
    assert cache_key("numeric", 4, 0, copy) != key


def test_a_cached_read_hashes_the_text_as_read_and_serialises_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    """The check of a stored bank hashes the problems' text as the file holds it: serialising 20,800
    problems again to hash them was a fifth of a run's start-up."""
    import types

    from physeval.variation import bank_cache

    first = bank_problems("numeric", variants=2, seed=0)
    key = cache_key("numeric", 2, 0, BANK_DIR / "numeric")
    [path] = bank_cache_dir().glob(f"numeric-{key}.json")

    def no_dumps(*_args: object, **_kwargs: object) -> str:
        raise AssertionError("json.dumps called on a cached read")

    monkeypatch.setattr(bank_cache, "json", types.SimpleNamespace(loads=json.loads, dumps=no_dumps))
    assert bank_cache._read(path, key) == first
