"""Facts about a rendered video and whether it counts as playable.

Why: the reference implementation counts a video as playable when one frame can be read.
physeval decodes the whole stream once (PyAV, threaded) and states the rule exactly:

    playable = the file decodes without error, its decoded frames span at least 1 s at a
    rate of at least 1 frame per second, and not all frames are identical.

Frames are compared on their luma plane (every other row and column): two frames differ
when at least 16 of those samples differ by more than 32 grey levels, which ignores codec
noise between re-encoded copies of one image but catches a moving ball or a changing time
stamp. Work is bounded by a frame budget, not a clock.
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["VideoFacts", "probe_video", "MIN_DURATION_S", "MIN_FPS"]

MIN_DURATION_S = 1.0
MIN_FPS = 1.0
_DIFF_LEVEL = 32
_DIFF_COUNT = 16
_MAX_FRAMES = 7200  # 4 minutes at 30 fps: far beyond a 10-20 s scene
_MAX_PIXELS = 4_000_000_000  # decoded pixels, so a huge resolution cannot stall a probe
_LUMA_FORMATS = {
    "yuv420p", "yuvj420p", "yuv422p", "yuvj422p", "yuv444p", "yuvj444p",
    "yuv411p", "yuv410p", "yuv440p", "nv12", "nv21", "gray",
}  # fmt: skip


@dataclass(frozen=True)
class VideoFacts:
    """What decoding a video file showed.

    Attributes:
        path: The file probed.
        exists: The file exists and is a regular file.
        size_bytes: File size (0 when missing).
        container: Container format name(s) as FFmpeg reports them (e.g. ``"mov,mp4,..."``).
        codec: Video codec name (``"h264"``, ``"mpeg4"``, ...).
        width: Frame width in pixels.
        height: Frame height in pixels.
        fps: Decoded frames per second of the decoded span (``frame_count / duration_s``).
        duration_s: Seconds spanned by the decoded frames (last - first time stamp plus one
            frame period).
        frame_count: Frames decoded.
        decodes: The container opened, a video stream exists and every packet decoded.
        all_identical: Every decoded frame equals the first (``None`` when nothing decoded).
        budget_exhausted: Decoding stopped at the frame/pixel budget; facts cover what was read.
        error: The decoding error, if any.
    """

    path: str
    exists: bool
    size_bytes: int = 0
    container: str | None = None
    codec: str | None = None
    width: int | None = None
    height: int | None = None
    fps: float | None = None
    duration_s: float | None = None
    frame_count: int = 0
    decodes: bool = False
    all_identical: bool | None = None
    budget_exhausted: bool = False
    error: str | None = None

    @property
    def playable(self) -> bool:
        """Decodes, >= 1 s of frames at >= 1 fps, and not all frames identical."""
        return self.reason is None

    @property
    def reason(self) -> str | None:
        """Why the video is not playable, or ``None`` when it is."""
        if not self.exists:
            return "no video file"
        if not self.decodes:
            return f"does not decode: {self.error or 'no frames'}"
        if self.duration_s is None or self.duration_s < MIN_DURATION_S:
            return f"only {self.duration_s or 0:.3g} s of frames (need >= {MIN_DURATION_S:g} s)"
        if self.fps is None or self.fps < MIN_FPS:
            return f"{self.fps or 0:.3g} frames per second (need >= {MIN_FPS:g})"
        if self.all_identical:
            return f"all {self.frame_count} frames are identical"
        return None

    def to_dict(self) -> dict[str, Any]:
        """Every field plus ``playable`` and ``reason``, JSON-serialisable."""
        data = dataclasses.asdict(self)
        data["playable"] = self.playable
        data["reason"] = self.reason
        return data


def probe_video(path: str | os.PathLike[str]) -> VideoFacts:
    """Decode the first video stream of ``path`` once and report its facts. Never raises."""
    p = Path(path)
    if not p.is_file():
        return VideoFacts(path=str(p), exists=False)
    size = p.stat().st_size
    try:
        import av
    except ImportError as exc:  # pragma: no cover - av is a dependency
        return VideoFacts(path=str(p), exists=True, size_bytes=size, error=f"PyAV missing: {exc}")
    facts: dict[str, Any] = {"path": str(p), "exists": True, "size_bytes": size}
    try:
        container = av.open(str(p), mode="r")
    except Exception as exc:  # noqa: BLE001 - any FFmpeg failure means "does not decode"
        return VideoFacts(**facts, error=f"{type(exc).__name__}: {exc}")
    with container:
        facts["container"] = container.format.name if container.format else None
        if not container.streams.video:
            return VideoFacts(**facts, error="no video stream")
        stream = container.streams.video[0]
        stream.thread_type = "AUTO"
        facts["codec"] = stream.codec_context.name
        facts["width"] = stream.codec_context.width or None
        facts["height"] = stream.codec_context.height or None
        rate = float(stream.average_rate or stream.guessed_rate or 0) or None
        scan = _scan(container, stream)
    first, last, count = scan["first_t"], scan["last_t"], scan["count"]
    duration = None
    if count:
        duration = (last - first) + (1.0 / rate if rate else 0.0)
        if duration <= 0 and rate:
            duration = count / rate
    fps = count / duration if count and duration else None
    facts.update(
        frame_count=count,
        duration_s=round(duration, 6) if duration is not None else None,
        fps=round(fps, 6) if fps is not None else None,
        decodes=scan["error"] is None and count > 0,
        all_identical=scan["identical"] if count else None,
        budget_exhausted=scan["budget"],
        error=scan["error"],
        width=scan["width"] or facts["width"],
        height=scan["height"] or facts["height"],
    )
    return VideoFacts(**facts)


def _scan(container: Any, stream: Any) -> dict[str, Any]:
    """Decode every frame (within budget), tracking time stamps and frame identity."""
    out: dict[str, Any] = {
        "count": 0, "first_t": 0.0, "last_t": 0.0, "identical": True,
        "budget": False, "error": None, "width": None, "height": None,
    }  # fmt: skip
    reference: np.ndarray | None = None
    pixels = 0
    try:
        for frame in container.decode(stream):
            t = _frame_time(frame, out["count"], stream)
            if out["count"] == 0:
                out["first_t"] = t
                out["width"], out["height"] = frame.width, frame.height
            out["last_t"] = max(out["last_t"], t)
            out["count"] += 1
            if out["identical"]:
                luma = _luma(frame)
                if reference is None:
                    reference = luma
                elif _differs(reference, luma):
                    out["identical"] = False
            pixels += frame.width * frame.height
            if out["count"] >= _MAX_FRAMES or pixels >= _MAX_PIXELS:
                out["budget"] = True
                break
    except Exception as exc:  # noqa: BLE001 - corrupt streams raise assorted FFmpeg errors
        out["error"] = f"{type(exc).__name__}: {exc}"
    return out


def _frame_time(frame: Any, index: int, stream: Any) -> float:
    if frame.pts is not None and frame.time_base is not None:
        return float(frame.pts * frame.time_base)
    rate = float(stream.average_rate or stream.guessed_rate or 0)
    return index / rate if rate else float(index)


def _luma(frame: Any) -> np.ndarray:
    """A subsampled 8-bit grey view of ``frame`` without colour conversion where possible."""
    if frame.format.name in _LUMA_FORMATS:
        plane = frame.planes[0]
        rows = np.frombuffer(plane, np.uint8, count=plane.line_size * plane.height)
        rows = rows.reshape(plane.height, plane.line_size)
        return rows[::2, : plane.width : 2].copy()
    return frame.to_ndarray(format="gray")[::2, ::2].copy()


def _differs(a: np.ndarray, b: np.ndarray) -> bool:
    if a.shape != b.shape:
        return True
    diff = np.abs(a.astype(np.int16) - b.astype(np.int16))
    return int(np.count_nonzero(diff > _DIFF_LEVEL)) >= _DIFF_COUNT
