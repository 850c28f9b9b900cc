"""Scripted-model runs shared by the report tests: built once per session, without the response cache."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def scripted_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[Path]]:
    """task kind (numeric, dynamic, symbolic, scene) -> the strong, medium and weak runs, in that order."""
    pytest.importorskip("cv2")  # scene programs draw with OpenCV
    from analysis.scripted_runs import build_all

    return build_all(tmp_path_factory.mktemp("scripted-runs"))
