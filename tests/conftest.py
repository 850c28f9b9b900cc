"""Shared fixtures: an isolated response cache, a scripted server, and the arithmetic task."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from physeval.testing import Reply, ScriptedServer

SHARED_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"

os.environ["PHYSEVAL_NO_FETCH"] = "1"  # no test downloads the embedded model's weights (nor do its children)


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test gets its own response cache, never the user's."""
    monkeypatch.setenv("PHYSEVAL_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))


@pytest.fixture
def arithmetic_server() -> Iterator[ScriptedServer]:
    """A server that answers the arithmetic task: right for most ids, wrong when id % 3 == 0."""
    from fixture_tasks import arithmetic_reply

    with ScriptedServer(arithmetic_reply) as server:
        yield server


@pytest.fixture
def shared_data() -> Path:
    """The shared public datasets folder; skips the test when it is absent."""
    if not SHARED_DATA.is_dir():
        pytest.skip("../shared/data is not present")
    return SHARED_DATA


__all__ = ["Reply", "ScriptedServer", "SHARED_DATA"]
