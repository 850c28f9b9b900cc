"""Scripted-model runs shared by the analysis tests (built once per session, no response cache)."""

from __future__ import annotations

from pathlib import Path

import pytest

from analysis.scripted_runs import build_all


@pytest.fixture(scope="session")
def scripted_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[Path]]:
    """task kind (numeric, dynamic, symbolic, scene) -> the strong, medium and weak runs."""
    pytest.importorskip("cv2")
    return build_all(tmp_path_factory.mktemp("scripted-runs"))
