"""Playability against what a person would call playable: small moving objects on several
backgrounds are playable, truly still videos are not, whatever the codec.

Each video is 640x360, 20 frames at 10 fps (2 s), written by OpenCV (MPEG-4 Part 2, the codec
most scene programs use) and by FFmpeg's libx264. Colours are BGR as OpenCV draws them. The
issue's two failures lead the table: a 40x40 blue square on black and a red square on grey 60,
both "identical" to the former luma-only check (blue on black differs by about 25 grey levels,
red on grey 60 by about 16, under its threshold of 32).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np
import pytest

from physeval.scenes.video import probe_video

imageio = pytest.importorskip("imageio.v2")

W, H, FPS, FRAMES = 640, 360, 10, 20
Frames = list[np.ndarray]


def _background(kind: str) -> np.ndarray:
    if kind == "noise":  # full-range noise: the worst case for codec noise between re-encoded frames
        return np.random.default_rng(7).integers(0, 256, (H, W, 3), dtype=np.uint8)
    if kind == "gradient":
        x = np.linspace(0, 255, W, dtype=np.uint8)
        return np.dstack([np.tile(x, (H, 1)), np.tile(x[::-1], (H, 1)), np.full((H, W), 128, np.uint8)])
    level = {"black": 0, "grey60": 60, "white": 255}[kind]
    return np.full((H, W, 3), level, np.uint8)


def _moving(kind: str, colour: tuple[int, int, int], size: int, step: int = 29) -> Frames:
    frames = []
    for i in range(FRAMES):
        frame = _background(kind).copy()
        x = 20 + i * step
        frame[150:150 + size, x:x + size] = colour
        frames.append(frame)
    return frames


def _stamp(kind: str) -> Frames:
    frames = []
    for i in range(FRAMES):
        frame = _background(kind).copy()
        cv2.putText(frame, f"t={i / FPS:.2f} s", (8, 24), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (255, 255, 255), 1)
        frames.append(frame)
    return frames


def _grain(kind: str) -> Frames:
    """A still image with +-8 levels of fresh noise per frame: no one would call it moving."""
    rng = np.random.default_rng(1)
    base = _background(kind).astype(np.int16)
    return [np.clip(base + rng.integers(-8, 9, base.shape), 0, 255).astype(np.uint8) for _ in range(FRAMES)]


MOVING: dict[str, Callable[[], Frames]] = {
    "40x40 blue square on black": lambda: _moving("black", (255, 0, 0), 40),
    "40x40 red square on grey 60": lambda: _moving("grey60", (0, 0, 255), 40),
    "10x10 blue square on grey 60": lambda: _moving("grey60", (255, 0, 0), 10),
    "10x10 yellow square on white": lambda: _moving("white", (0, 255, 255), 10),
    "10x10 green square on a gradient": lambda: _moving("gradient", (0, 200, 0), 10),
    "10x10 dark-red square on black": lambda: _moving("black", (20, 20, 90), 10),
    "16x16 blue square on noise": lambda: _moving("noise", (255, 0, 0), 16),
    "6x6 blue square on noise": lambda: _moving("noise", (255, 0, 0), 6),
    "5x5 white dot on black": lambda: _moving("black", (255, 255, 255), 5),
    "10x10 square creeping 1 px a frame": lambda: _moving("grey60", (255, 0, 0), 10, step=1),
    "a time stamp on black": lambda: _stamp("black"),
    "a time stamp on noise": lambda: _stamp("noise"),
}
STILL: dict[str, Callable[[], Frames]] = {
    "black": lambda: [_background("black")] * FRAMES,
    "grey 60": lambda: [_background("grey60")] * FRAMES,
    "white": lambda: [_background("white")] * FRAMES,
    "a gradient": lambda: [_background("gradient")] * FRAMES,
    "full-range noise": lambda: [_background("noise")] * FRAMES,
    "a gradient with per-frame grain": lambda: _grain("gradient"),
    "noise with per-frame grain": lambda: _grain("noise"),
}


def _mp4v(path: Path, frames: Frames) -> Path:
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"mp4v"), FPS, (W, H))
    for frame in frames:
        writer.write(frame)
    writer.release()
    return path


def _x264(path: Path, frames: Frames) -> Path:
    writer = imageio.get_writer(str(path), fps=FPS, codec="libx264", macro_block_size=8)
    for frame in frames:
        writer.append_data(np.ascontiguousarray(frame[:, :, ::-1]))
    writer.close()
    return path


WRITERS = {"mpeg4": _mp4v, "h264": _x264}


@pytest.mark.parametrize("codec", WRITERS)
@pytest.mark.parametrize("name", MOVING)
def test_a_small_moving_object_is_playable(tmp_path: Path, name: str, codec: str) -> None:
    facts = probe_video(WRITERS[codec](tmp_path / "moving.mp4", MOVING[name]()))
    assert facts.codec == codec and facts.frame_count == FRAMES
    assert facts.all_identical is False and facts.playable, facts.reason


@pytest.mark.parametrize("codec", WRITERS)
@pytest.mark.parametrize("name", STILL)
def test_a_truly_still_video_is_not_playable(tmp_path: Path, name: str, codec: str) -> None:
    facts = probe_video(WRITERS[codec](tmp_path / "still.mp4", STILL[name]()))
    assert facts.codec == codec and facts.decodes and facts.frame_count == FRAMES
    assert facts.all_identical is True and facts.reason == f"all {FRAMES} frames are identical"
