"""Uniformly sampled, resized JPEG frames of a video, ready for a vision-language judge.

Why: judges see a video as N still frames with their time stamps (``image_url`` parts).
Sampling is deterministic: frame indices ``round(linspace(0, count - 1, n))`` over the
decoded frames, so the first and last frame are always shown. One demux pass counts the
frames, one threaded decode pass converts only the chosen ones.
"""

from __future__ import annotations

import base64
import io
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["Frame", "sample_frames"]


@dataclass(frozen=True)
class Frame:
    """One sampled frame.

    Attributes:
        index: Position of the frame among the decoded frames (0-based).
        time_s: Seconds since the first frame.
        jpeg: The frame as JPEG bytes (RGB).
        width: Width of the JPEG in pixels.
        height: Height of the JPEG in pixels.
    """

    index: int
    time_s: float
    jpeg: bytes
    width: int
    height: int

    def data_url(self) -> str:
        """The frame as a ``data:image/jpeg;base64,...`` URL for an ``image_url`` part."""
        return "data:image/jpeg;base64," + base64.b64encode(self.jpeg).decode("ascii")

    def to_dict(self) -> dict[str, Any]:
        """Index, time and size (without the image bytes), JSON-serialisable."""
        return {"index": self.index, "time_s": self.time_s, "width": self.width, "height": self.height}


def sample_frames(
    video_path: str | os.PathLike[str], n: int = 16, *, max_side: int = 448, quality: int = 85
) -> list[Frame]:
    """``n`` uniformly spaced frames of ``video_path``, each resized to fit ``max_side``.

    Returns fewer frames when the video has fewer, and ``[]`` when it cannot be decoded
    (the caller has already recorded why through :func:`physeval.scenes.video.probe_video`).
    """
    if n < 1:
        raise ValueError("n must be at least 1")
    if max_side < 16:
        raise ValueError("max_side must be at least 16")
    import av

    path = str(Path(video_path))
    try:
        count = _count_frames(path)
        if count == 0:
            return []
        wanted = sorted({int(round(x)) for x in np.linspace(0, count - 1, n)})
        return _decode_selected(path, wanted, max_side, quality)
    except (av.FFmpegError, OSError, ValueError):
        return []


def _count_frames(path: str) -> int:
    import av

    with av.open(path) as container:
        if not container.streams.video:
            return 0
        stream = container.streams.video[0]
        return sum(1 for packet in container.demux(stream) if packet.size)


def _decode_selected(path: str, wanted: list[int], max_side: int, quality: int) -> list[Frame]:
    import av

    frames: list[Frame] = []
    targets = set(wanted)
    last_wanted = wanted[-1]
    first_t: float | None = None
    with av.open(path) as container:
        stream = container.streams.video[0]
        stream.thread_type = "AUTO"
        try:
            for index, frame in enumerate(container.decode(stream)):
                t = float(frame.time) if frame.time is not None else 0.0
                if first_t is None:
                    first_t = t
                if index in targets:
                    frames.append(_to_frame(frame, index, t - first_t, max_side, quality))
                if index >= last_wanted:
                    break
        except av.FFmpegError:
            pass  # keep the frames decoded before the damage
    return frames


def _to_frame(frame: Any, index: int, time_s: float, max_side: int, quality: int) -> Frame:
    scale = min(1.0, max_side / max(frame.width, frame.height))
    width = max(2, int(round(frame.width * scale)))
    height = max(2, int(round(frame.height * scale)))
    image = frame.to_image(width=width, height=height)
    buf = io.BytesIO()
    image.save(buf, format="JPEG", quality=quality)
    return Frame(index=index, time_s=round(time_s, 6), jpeg=buf.getvalue(), width=width, height=height)
