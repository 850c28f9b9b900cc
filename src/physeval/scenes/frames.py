"""Uniformly sampled, resized JPEG frames of a video, ready for a vision-language judge.

Why: judges see a video as N still frames with their time stamps (``image_url`` parts).
Sampling is deterministic: frame indices ``round(linspace(0, count - 1, n))`` over the
decoded frames, so the first and last frame are always shown. One demux pass counts the
frames, one threaded decode pass converts only the chosen ones.

The video is untrusted, so the work runs in the same bounded child process as the probe
(:func:`physeval.scenes.video.run_media_child`): the header is checked against
:class:`~physeval.scenes.video.VideoBounds` first, and a refused, crashing or runaway decode
gives no frames rather than an exception or a stalled host.
"""

from __future__ import annotations

import base64
import io
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from physeval.scenes.video import VideoBounds, inspect_stream, run_media_child

__all__ = ["Frame", "frames_in_process", "sample_frames"]


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
        return {
            "index": self.index,
            "time_s": self.time_s,
            "width": self.width,
            "height": self.height,
        }


def sample_frames(
    video_path: str | os.PathLike[str],
    n: int = 16,
    *,
    max_side: int = 448,
    quality: int = 85,
    bounds: VideoBounds | None = None,
) -> list[Frame]:
    """``n`` uniformly spaced frames of ``video_path``, each resized to fit ``max_side``.

    Returns fewer frames when the video has fewer, and ``[]`` when it cannot be decoded or is
    refused by ``bounds`` (the caller has already recorded why through
    :func:`physeval.scenes.video.probe_video`). Never raises for the file's content.
    """
    if n < 1:
        raise ValueError("n must be at least 1")
    if max_side < 16:
        raise ValueError("max_side must be at least 16")
    path = str(Path(video_path))
    if not Path(path).is_file():
        return []
    params = {"n": n, "max_side": max_side, "quality": quality}
    data, failure = run_media_child("physeval.scenes.frames:frames_job", path, bounds or VideoBounds(), params)
    if failure is not None or not isinstance(data, list):
        return []
    return [
        Frame(
            index=int(d["index"]),
            time_s=float(d["time_s"]),
            jpeg=base64.b64decode(d["jpeg"]),
            width=int(d["width"]),
            height=int(d["height"]),
        )
        for d in data
    ]


def frames_in_process(path: str, bounds: VideoBounds, *, n: int, max_side: int, quality: int) -> list[dict[str, Any]]:
    """The sampling itself (runs in the child): JSON-ready frames, ``[]`` when refused or broken."""
    import av
    import numpy as np

    try:
        count = _count_frames(path, bounds)
        if count == 0:
            return []
        wanted = sorted({round(x) for x in np.linspace(0, count - 1, n)})
        frames = _decode_selected(path, wanted, max_side, quality)
    except (av.FFmpegError, OSError, ValueError):
        return []
    return [{**f.to_dict(), "jpeg": base64.b64encode(f.jpeg).decode("ascii")} for f in frames]


def _count_frames(path: str, bounds: VideoBounds) -> int:
    import av

    with av.open(path) as container:
        _, stream, refused = inspect_stream(container, bounds)
        if refused is not None or stream is None:
            return 0
        count = 0
        for packet in container.demux(stream):
            if packet.size:
                count += 1
                if count > bounds.max_frames:
                    return 0
        return count


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
    width = max(2, round(frame.width * scale))
    height = max(2, round(frame.height * scale))
    image = frame.to_image(width=width, height=height)
    buf = io.BytesIO()
    image.save(buf, format="JPEG", quality=quality)
    return Frame(
        index=index,
        time_s=round(time_s, 6),
        jpeg=buf.getvalue(),
        width=width,
        height=height,
    )


def frames_job(path: str, limits: dict[str, Any], **params: Any) -> list[dict[str, Any]]:
    """The sampling as a media-child job (see :func:`physeval.scenes.video.run_media_child`)."""
    return frames_in_process(path, VideoBounds(**limits), **params)
