"""Real scene programs, written for these tests, each end at the right stage.

Every program runs through the sandbox with ``render_program`` (the hostile ones once per
available isolating backend); afterwards no sandboxed process may be alive, no sandbox
directory may remain and only the kept video may exist. Videos are short (2 s, 15 fps,
320x240) to keep the suite fast.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from _scene_programs import RENDER_GUARD_S
from physeval.scenes.render import STAGES, Render, render_program
from physeval.scenes.sandbox import SandboxLimits, SandboxUnavailable

pytest.importorskip("imageio")

FALLING_BALL_MATPLOTLIB = """
import sys
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import imageio.v2 as imageio

g, h0, fps, seconds = 9.81, 20.0, 15, 2.0
fig, ax = plt.subplots(figsize=(3.2, 2.4), dpi=100)
writer = imageio.get_writer(sys.argv[1], fps=fps, codec="libx264", macro_block_size=16)
for i in range(int(fps * seconds)):
    t = i / fps
    y = max(h0 - 0.5 * g * t * t, 0.0)
    ax.clear()
    ax.set_xlim(-5, 5)
    ax.set_ylim(0, 22)
    ax.add_patch(plt.Circle((0, y), 0.8, color="tab:red"))
    ax.set_title(f"t = {t:.2f} s   g = {g} m/s^2   h0 = {h0} m", fontsize=7)
    fig.canvas.draw()
    frame = np.asarray(fig.canvas.buffer_rgba())[:, :, :3]
    writer.append_data(frame)
writer.close()
"""

PENDULUM_OPENCV = """
import math, sys
import cv2
import numpy as np

L, g, theta0, fps, seconds = 1.0, 9.81, 0.6, 15, 2.0
w, h = 320, 240
out = cv2.VideoWriter(sys.argv[1], cv2.VideoWriter_fourcc(*"mp4v"), fps, (w, h))
omega = math.sqrt(g / L)
for i in range(int(fps * seconds)):
    t = i / fps
    theta = theta0 * math.cos(omega * t)
    img = np.full((h, w, 3), 255, np.uint8)
    pivot = (w // 2, 30)
    bob = (int(pivot[0] + 150 * math.sin(theta)), int(pivot[1] + 150 * math.cos(theta)))
    cv2.line(img, pivot, bob, (0, 0, 0), 2)
    cv2.circle(img, bob, 14, (0, 0, 200), -1)
    cv2.putText(img, f"t={t:.2f}s L={L}m", (5, h - 10), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (0, 0, 0), 1)
    out.write(img)
out.release()
"""

RAISES = """
import numpy as np
positions = np.zeros(3)
print(positions[10])
"""

WRITES_NO_FILE = """
import numpy as np
t = np.linspace(0, 2, 31)
print("max height", float((20 - 4.9 * t**2).max()))
"""

SINGLE_FRAME = """
import sys
import cv2
import numpy as np
rng = np.random.default_rng(0)
img = rng.integers(0, 255, size=(240, 320, 3), dtype=np.uint8)
out = cv2.VideoWriter(sys.argv[1], cv2.VideoWriter_fourcc(*"mp4v"), 15, (320, 240))
out.write(img)
out.release()
"""

IDENTICAL_FRAMES = """
import sys
import numpy as np
import imageio.v2 as imageio
rng = np.random.default_rng(0)
img = rng.integers(0, 255, size=(240, 320, 3), dtype=np.uint8)
writer = imageio.get_writer(sys.argv[1], fps=15, codec="libx264", macro_block_size=16)
for _ in range(30):
    writer.append_data(img)
writer.close()
"""

LOOPS_FOREVER = """
import sys
x = 0
while True:
    x += 1
"""

ALLOCATES_50_GB = """
import numpy as np
field = np.ones(50 * 10**9, dtype=np.uint8)
print(field.sum())
"""

FORK_BOMB = """
import os
while True:
    try:
        os.fork()
    except OSError:
        pass
"""

PRINTS_GIGABYTES = """
import sys
line = b"frame " * 100000 + b"\\n"
while True:
    sys.stdout.buffer.write(line)
"""

WRITES_OUTSIDE = """
import sys
for path in sys.argv[1:] + ["/tmp/physeval-render-escape", "../escape.txt"]:
    try:
        open(path, "w").write("escaped")
    except OSError:
        pass
"""


@pytest.fixture
def keep(contained: Path) -> Path:
    """The run directory the video is kept in (``contained`` checks nothing leaked afterwards)."""
    return contained / "run"


@pytest.fixture(autouse=True)
def only_the_video_is_kept(tmp_path: Path) -> Iterator[None]:
    yield
    keep_dir = tmp_path / "run"
    if keep_dir.exists():
        assert {p.name for p in keep_dir.iterdir()} <= {"video.mp4"}


def _check(render: Render, stage: str) -> None:
    assert render.stage == stage, render.to_dict()
    assert render.stage in STAGES
    record = json.loads(json.dumps(render.to_dict()))
    assert record["stage"] == stage
    assert record["executable"] == (stage in ("executable", "rendered", "playable"))
    assert record["rendered"] == (stage in ("rendered", "playable"))
    assert record["playable"] == (stage == "playable")


def test_falling_ball_drawn_with_matplotlib_is_playable(keep: Path) -> None:
    render = render_program(FALLING_BALL_MATPLOTLIB, timeout=RENDER_GUARD_S, keep_dir=keep)
    _check(render, "playable")
    assert render.video_path == str((keep / "video.mp4").resolve())
    assert render.video is not None and render.video.codec == "h264"
    assert (render.video.width, render.video.height, render.video.frame_count) == (
        320,
        240,
        30,
    )
    assert render.exit_code == 0 and render.reason == ""
    assert render.peak_memory_bytes and render.peak_memory_bytes > 10 << 20


def test_pendulum_drawn_with_opencv_is_playable(keep: Path) -> None:
    render = render_program(PENDULUM_OPENCV, timeout=RENDER_GUARD_S, keep_dir=keep)
    _check(render, "playable")
    assert render.video is not None and render.video.codec == "mpeg4"
    assert render.video.duration_s == pytest.approx(2.0)


def test_a_program_that_raises_is_an_error(keep: Path, backend: str) -> None:
    render = render_program(RAISES, timeout=RENDER_GUARD_S, keep_dir=keep, sandbox=backend)
    _check(render, "error")
    assert render.exit_code == 1 and "IndexError" in render.reason
    assert "Traceback" in render.stderr_tail


def test_a_program_that_writes_no_file_is_only_executable(keep: Path) -> None:
    render = render_program(WRITES_NO_FILE, timeout=RENDER_GUARD_S, keep_dir=keep)
    _check(render, "executable")
    assert render.reason == "no video at sys.argv[1]" and render.video_path is None


def test_a_single_frame_video_is_rendered_not_playable(keep: Path) -> None:
    render = render_program(SINGLE_FRAME, timeout=RENDER_GUARD_S, keep_dir=keep)
    _check(render, "rendered")
    assert render.video is not None and render.video.frame_count == 1
    assert "only 0.0667 s of frames" in render.reason


def test_identical_frames_are_rendered_not_playable(keep: Path) -> None:
    render = render_program(IDENTICAL_FRAMES, timeout=RENDER_GUARD_S, keep_dir=keep)
    _check(render, "rendered")
    assert render.reason == "not playable: all 30 frames are identical"


def test_a_program_that_loops_forever_times_out(keep: Path, backend: str) -> None:
    start = time.monotonic()
    render = render_program(LOOPS_FOREVER, timeout=1.5, keep_dir=keep, sandbox=backend)
    _check(render, "timeout")
    assert render.killed_reason == "timeout" and render.signal == 9
    assert time.monotonic() - start < 300  # a hang guard: the reason above says what stopped it


def test_a_program_that_allocates_50_gb_fails_cleanly(keep: Path, backend: str) -> None:
    render = render_program(ALLOCATES_50_GB, timeout=RENDER_GUARD_S, keep_dir=keep, sandbox=backend)
    _check(render, "error")
    assert "MemoryError" in render.reason or "Unable to allocate" in render.reason


def test_a_fork_bomb_is_contained(keep: Path, backend: str) -> None:
    start = time.monotonic()
    render = render_program(
        FORK_BOMB,
        timeout=2,
        limits=SandboxLimits(processes=32),
        keep_dir=keep,
        sandbox=backend,
    )
    _check(render, "timeout")
    assert time.monotonic() - start < 300  # a hang guard: the reason above says what stopped it


def test_a_program_printing_gigabytes_is_stopped(keep: Path, backend: str) -> None:
    start = time.monotonic()
    limits = SandboxLimits(max_output_bytes=4 << 20)
    render = render_program(PRINTS_GIGABYTES, timeout=RENDER_GUARD_S, limits=limits, keep_dir=keep, sandbox=backend)
    _check(render, "error")
    assert render.killed_reason == "output_limit" and "more than" in render.reason
    assert time.monotonic() - start < 300  # a hang guard: the reason above says what stopped it


def test_writes_outside_the_directory_do_not_land(keep: Path, tmp_path: Path, backend: str) -> None:
    target = tmp_path / "escaped.txt"
    code = WRITES_OUTSIDE.replace("sys.argv[1:]", f"[{str(target)!r}]")
    render = render_program(code, timeout=RENDER_GUARD_S, keep_dir=keep, sandbox=backend)
    _check(render, "executable")
    assert not target.exists()
    assert not os.path.exists("/tmp/physeval-render-escape")
    assert not (keep.parent / "escape.txt").exists()


def test_no_code_never_runs() -> None:
    for code in (None, "", "   \n"):
        render = render_program(code)
        _check(render, "no_code")
        assert render.wall_s is None and render.sandbox_mode is None


def test_a_program_writing_elsewhere_is_diagnosed(keep: Path) -> None:
    code = "open('output.mp4', 'wb').write(b'x' * 4096)\n"
    render = render_program(code, timeout=RENDER_GUARD_S, keep_dir=keep)
    _check(render, "executable")
    assert "output.mp4 (4096 B)" in render.reason


def test_a_tiny_file_is_not_rendered(keep: Path) -> None:
    render = render_program("import sys\nopen(sys.argv[1], 'wb').write(b'x' * 1024)\n", keep_dir=keep)
    _check(render, "executable")
    assert "only 1024 bytes" in render.reason


def test_a_big_non_video_is_rendered_but_not_playable(keep: Path) -> None:
    render = render_program("import sys\nopen(sys.argv[1], 'wb').write(b'x' * 5000)\n", keep_dir=keep)
    _check(render, "rendered")
    assert render.reason.startswith("not playable: does not decode")


def test_no_sandbox_available_is_a_sandbox_error_not_an_unisolated_run(
    keep: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from physeval.scenes.sandbox import backend as registry

    def nothing_works(name: str = "auto", *, require_isolation: bool = False) -> object:
        raise SandboxUnavailable("no isolating sandbox backend works here (forced by the test)")

    monkeypatch.setattr(registry, "choose_backend", nothing_works)
    monkeypatch.setattr("physeval.scenes.sandbox.choose_backend", nothing_works)
    render = render_program("open('/tmp/ran', 'w')\n", keep_dir=keep)
    _check(render, "sandbox_error")
    assert "no isolating sandbox backend" in render.reason and render.wall_s is None


def test_an_unknown_backend_name_is_refused_loudly(keep: Path) -> None:
    with pytest.raises(ValueError, match="unknown sandbox backend"):
        render_program("pass\n", keep_dir=keep, sandbox="docker")
