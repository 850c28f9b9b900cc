"""--executor ray runs the same render work as Ray tasks on a local Ray instance."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from _scene_programs import RENDER_GUARD_S
from physeval.tasks.base import GradeContext
from physeval.tasks.registry import get_task

ray = pytest.importorskip("ray", reason="the `ray` extra is not installed")
pytest.importorskip("cv2")

PROGRAM = """```python
import sys, cv2, numpy as np
out = cv2.VideoWriter(sys.argv[1], cv2.VideoWriter_fourcc(*"mp4v"), 10, (160, 120))
for i in range(20):
    frame = np.full((120, 160, 3), 20, np.uint8)
    cv2.rectangle(frame, (5 + 6 * i, 40), (25 + 6 * i, 60), (0, 255, 0), -1)
    out.write(frame)
out.release()
```"""


def test_ray_executor_renders_like_the_local_pool(ray_cluster: object, tmp_path: Path) -> None:
    """The session's Ray cluster (tests/conftest.py) is the one ``ray.is_initialized()`` finds."""
    problem = get_task("bank-scene").load()[0]
    via_ray = get_task("bank-scene", executor="ray", render_timeout=RENDER_GUARD_S)
    local = get_task("bank-scene", render_timeout=RENDER_GUARD_S)
    ray_grade = asyncio.run(via_ray.agrade(problem, PROGRAM, GradeContext(run_dir=tmp_path / "ray")))
    local_grade = asyncio.run(local.agrade(problem, PROGRAM, GradeContext(run_dir=tmp_path / "local")))
    assert ray_grade.stage == local_grade.stage == "playable"
    assert ray_grade.render["video"]["frame_count"] == local_grade.render["video"]["frame_count"] == 20
    assert Path(ray_grade.render["video_path"]).parent == tmp_path / "ray" / "videos"
