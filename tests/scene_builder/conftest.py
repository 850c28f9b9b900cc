"""Fixtures of the build tests: one scripted build shared by the tests that only read it."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from scripted_build import BuildScript
from test_pipeline import build_args

from physeval.cli import main
from physeval.testing import ScriptedServer


@pytest.fixture(scope="session")
def built(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, BuildScript]]:
    """The scripted test build (3 concepts x 2 scenarios) and the script that answered it; read only."""
    root = tmp_path_factory.mktemp("built")
    script = BuildScript()
    with pytest.MonkeyPatch.context() as patch, ScriptedServer(script) as server:
        patch.setenv("PHYSEVAL_CACHE_DIR", str(root / "cache"))  # never the user's cache
        assert main(build_args(root / "scenes", server)) == 0
    yield root / "scenes", script


@pytest.fixture
def built_copy(built: tuple[Path, BuildScript], tmp_path: Path) -> Path:
    """A private copy of the test build, for tests that change it."""
    return Path(shutil.copytree(built[0], tmp_path / "scenes"))
