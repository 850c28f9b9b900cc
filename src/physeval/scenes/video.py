"""Facts about a rendered video and whether it counts as playable, decoded in a bounded child process.

Why: the reference implementation counts a video as playable when one frame can be read.
physeval states the rule exactly:

    playable = the file is an MP4 (the ISO base-media container, not a QuickTime MOV, GIF or
    Matroska file at the .mp4 path), its first video stream has a codec an MP4 player plays
    (:data:`PLAYABLE_CODECS`), the stream is within :class:`VideoBounds` (pixels per frame,
    frame count, duration, bit depth), it decodes without error, its decoded frames span at
    least 1 s at a rate of at least 1 frame per second, and not all frames are identical.

The video is untrusted: a model's program wrote it. So the header is read first and a stream
over the bounds is refused *before* any frame is decoded (a 16000x16000 16-bit PNG-in-MOV of
13 MB would otherwise need gigabytes), and everything (header and decode) runs in a child
process with its own address-space and CPU limits and a wall-clock deadline. A failure of any
kind (unknown codec, crash, limit, garbage) becomes facts with a reason, never an exception;
the render stage ladder turns it into ``rendered`` (see :mod:`physeval.scenes.render`).

Frames are compared in colour: each frame is reduced to a thumbnail of 4x4-pixel block means
(RGB, area-averaged by FFmpeg's scaler), and two frames differ when at least
:data:`_DIFF_COUNT` (3) thumbnail pixels change by more than :data:`_DIFF_LEVEL` (32) levels
in some channel. Averaging blocks removes codec noise, which is spread pixel by pixel (a still
full-range noise image re-encoded as MPEG-4 Part 2 changes no block by more than 26), while an
object keeps its change over the blocks it covers: a 5x5 white dot or a 10x10 dark-red square
moving on black, a blue square on grey 60 (the same brightness as grey to a luma-only check),
and a changing time stamp all count (tests/scenes/test_playability.py holds the table).
Decoding work is bounded by a frame budget, not a clock.
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = [
    "MIN_DURATION_S",
    "MIN_FPS",
    "PLAYABLE_CODECS",
    "VideoBounds",
    "VideoFacts",
    "probe_video",
    "run_media_child",
]

MIN_DURATION_S = 1.0
MIN_FPS = 1.0
PLAYABLE_CODECS = frozenset({"h264", "hevc", "mpeg4", "av1", "vp9", "mpeg2video", "mpeg1video", "mjpeg", "h263"})
"""Video codecs an MP4 may carry and still count as playable."""
_DIFF_LEVEL = 32
_DIFF_COUNT = 3
_BLOCK = 4


@dataclass(frozen=True)
class VideoBounds:
    """What the host agrees to decode, and the child process's limits.

    Attributes:
        max_pixels: Largest frame (width x height) decoded at all.
        max_frames: Largest frame count the header may declare (and that counting may reach).
        max_duration_s: Longest duration the header may declare.
        max_bit_depth: Deepest sample (bits per component) decoded.
        decode_frames: Frames decoded at most for the playable check (a budget, not a refusal).
        memory_bytes: Address space of the child process.
        cpu_s: CPU seconds of the child process.
        wall_s: Seconds before the child is killed (its facts then say so).
    """

    max_pixels: int = 4096 * 4096
    max_frames: int = 18_000
    max_duration_s: float = 600.0
    max_bit_depth: int = 10
    decode_frames: int = 7200
    memory_bytes: int = 1536 << 20
    cpu_s: int = 60
    wall_s: float = 90.0


@dataclass(frozen=True)
class VideoFacts:
    """What reading a video file showed.

    Attributes:
        path: The file probed.
        exists: The file exists and is a regular file.
        size_bytes: File size (0 when missing).
        container: Container format name(s) as FFmpeg reports them (e.g. ``"mov,mp4,..."``).
        brand: The ISO major brand (``"isom"``, ``"mp42"``; ``"qt  "`` is QuickTime), if any.
        codec: Video codec name (``"h264"``, ``"mpeg4"``, ...), ``None`` when FFmpeg knows none.
        codec_tag: The stream's four-character code as stored (e.g. ``"avc1"``).
        pix_fmt: Pixel format of the stream (``"yuv420p"``, ...).
        bit_depth: Bits per sample component of ``pix_fmt``.
        width: Frame width in pixels.
        height: Frame height in pixels.
        declared_frames: Frame count in the header (0 when absent).
        declared_duration_s: Duration in the header, if any.
        fps: Decoded frames per second of the decoded span (``frame_count / duration_s``).
        duration_s: Seconds spanned by the decoded frames (last - first time stamp plus one
            frame period).
        frame_count: Frames decoded.
        decodes: The container opened, a video stream exists and every packet decoded.
        all_identical: Every decoded frame equals the first (``None`` when nothing decoded).
        budget_exhausted: Decoding stopped at the frame budget; facts cover what was read.
        refused: Why the file was not decoded at all (container, codec or a bound), if so.
        error: The decoding error (or how the child process failed), if any.
    """

    path: str
    exists: bool
    size_bytes: int = 0
    container: str | None = None
    brand: str | None = None
    codec: str | None = None
    codec_tag: str | None = None
    pix_fmt: str | None = None
    bit_depth: int | None = None
    width: int | None = None
    height: int | None = None
    declared_frames: int = 0
    declared_duration_s: float | None = None
    fps: float | None = None
    duration_s: float | None = None
    frame_count: int = 0
    decodes: bool = False
    all_identical: bool | None = None
    budget_exhausted: bool = False
    refused: str | None = None
    error: str | None = None

    @property
    def playable(self) -> bool:
        """An MP4 within bounds that decodes, >= 1 s of frames at >= 1 fps, frames not all identical."""
        return self.reason is None

    @property
    def reason(self) -> str | None:
        """Why the video is not playable, or ``None`` when it is."""
        if not self.exists:
            return "no video file"
        if self.refused:
            return self.refused
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


def probe_video(path: str | os.PathLike[str], bounds: VideoBounds | None = None) -> VideoFacts:
    """Check and decode the first video stream of ``path`` in a bounded child process. Never raises."""
    bounds = bounds or VideoBounds()
    p = Path(path)
    if not p.is_file():
        return VideoFacts(path=str(p), exists=False)
    size = p.stat().st_size
    data, failure = run_media_child("physeval.scenes.video:probe_job", str(p), bounds, {})
    if failure is not None or not isinstance(data, dict):
        return VideoFacts(
            path=str(p),
            exists=True,
            size_bytes=size,
            error=failure or "no facts from the probe",
        )
    known = {f.name for f in dataclasses.fields(VideoFacts)}
    return VideoFacts(**{k: v for k, v in data.items() if k in known})


def run_media_child(target: str, path: str, bounds: VideoBounds, params: dict[str, Any]) -> tuple[Any, str | None]:
    """Run the job ``target`` (``"physeval.module:function"``, called as ``function(path, limits,
    **params)``) on ``path`` in a bounded child process; ``(result, failure)``.

    The child is forked from a warm media server (:mod:`physeval.scenes.media_child`) and
    limited to ``bounds.memory_bytes`` of address space, ``bounds.cpu_s`` CPU seconds and
    ``bounds.wall_s`` seconds.
    """
    from physeval.scenes.media_child import run_bounded

    return run_bounded(target, path, dataclasses.asdict(bounds), params)


def probe_job(path: str, limits: dict[str, Any]) -> dict[str, Any]:
    """The probe as a media-child job (see :func:`run_media_child`)."""
    return probe_in_process(path, VideoBounds(**limits))


def inspect_stream(container: Any, bounds: VideoBounds) -> tuple[dict[str, Any], Any, str | None]:
    """Header facts of ``container``'s first video stream and why it is refused (before decoding)."""
    facts: dict[str, Any] = {}
    fmt = container.format.name if container.format else ""
    facts["container"] = fmt or None
    brand = (container.metadata or {}).get("major_brand")
    facts["brand"] = brand
    if not container.streams.video:
        return facts, None, "no video stream"
    stream = container.streams.video[0]
    ctx = stream.codec_context
    facts["codec"] = ctx.name if ctx is not None else None
    tag = getattr(ctx, "codec_tag", None) if ctx is not None else None
    facts["codec_tag"] = str(tag) if tag else None
    vfmt = ctx.format if ctx is not None else None
    facts["pix_fmt"] = vfmt.name if vfmt is not None else None
    facts["bit_depth"] = max((c.bits for c in vfmt.components), default=0) if vfmt is not None else None
    facts["width"] = (ctx.width if ctx is not None else 0) or None
    facts["height"] = (ctx.height if ctx is not None else 0) or None
    facts["declared_frames"] = int(stream.frames or 0)
    duration = None
    if stream.duration is not None and stream.time_base is not None:
        duration = float(stream.duration * stream.time_base)
    elif container.duration is not None:
        duration = container.duration / 1_000_000
    facts["declared_duration_s"] = round(duration, 6) if duration is not None else None
    return facts, stream, _refusal(facts, bounds)


def _refusal(facts: dict[str, Any], bounds: VideoBounds) -> str | None:
    if "mp4" not in (facts["container"] or "").split(","):
        return f"not an MP4 file: the container is {facts['container'] or 'unknown'}"
    if (facts["brand"] or "").strip() == "qt":
        return "not an MP4 file: a QuickTime (MOV) file (major brand 'qt')"
    if facts["codec"] is None:
        return "unknown video codec: FFmpeg has no decoder for the stream's codec tag"
    pixels = (facts["width"] or 0) * (facts["height"] or 0)
    if pixels > bounds.max_pixels:
        return f"refused before decoding: {facts['width']}x{facts['height']} frames exceed {bounds.max_pixels} pixels"
    if facts["declared_frames"] > bounds.max_frames:
        return f"refused before decoding: {facts['declared_frames']} frames declared (bound {bounds.max_frames})"
    if (facts["declared_duration_s"] or 0) > bounds.max_duration_s:
        return (
            f"refused before decoding: {facts['declared_duration_s']:g} s declared (bound {bounds.max_duration_s:g} s)"
        )
    if (facts["bit_depth"] or 0) > bounds.max_bit_depth:
        return f"refused before decoding: {facts['bit_depth']}-bit samples (bound {bounds.max_bit_depth})"
    if facts["codec"] not in PLAYABLE_CODECS:
        return f"the video codec {facts['codec']} is not one an MP4 player plays"
    return None


def probe_in_process(path: str, bounds: VideoBounds) -> dict[str, Any]:
    """The probe itself (runs in the bounded child): header checks, then one bounded decode pass."""
    import av

    facts: dict[str, Any] = {
        "path": path,
        "exists": True,
        "size_bytes": os.path.getsize(path),
    }
    try:
        container = av.open(path, mode="r")
    except Exception as exc:  # noqa: BLE001 - any FFmpeg failure means "does not decode"
        return {**facts, "error": f"{type(exc).__name__}: {exc}"}
    with container:
        try:
            header, stream, refused = inspect_stream(container, bounds)
        except Exception as exc:  # noqa: BLE001 - a header FFmpeg cannot describe is refused
            return {
                **facts,
                "refused": f"unreadable stream header: {type(exc).__name__}: {exc}",
            }
        facts.update(header)
        if refused is not None:
            return {**facts, "refused": refused}
        stream.thread_type = "AUTO"
        rate = float(stream.average_rate or stream.guessed_rate or 0) or None
        scan = _scan(container, stream, bounds)
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
        width=scan["width"] or facts.get("width"),
        height=scan["height"] or facts.get("height"),
    )
    return facts


def _scan(container: Any, stream: Any, bounds: VideoBounds) -> dict[str, Any]:
    """Decode every frame (within budget), tracking time stamps and frame identity."""
    import numpy as np

    out: dict[str, Any] = {
        "count": 0, "first_t": 0.0, "last_t": 0.0, "identical": True,
        "budget": False, "error": None, "width": None, "height": None,
    }  # fmt: skip
    reference: np.ndarray | None = None
    try:
        for frame in container.decode(stream):
            if frame.width * frame.height > bounds.max_pixels:  # the header lied about the size
                out["error"] = f"a {frame.width}x{frame.height} frame exceeds {bounds.max_pixels} pixels"
                break
            t = _frame_time(frame, out["count"], stream)
            if out["count"] == 0:
                out["first_t"] = t
                out["width"], out["height"] = frame.width, frame.height
            out["last_t"] = max(out["last_t"], t)
            out["count"] += 1
            if out["identical"]:
                thumbnail = _thumbnail(frame)
                if reference is None:
                    reference = thumbnail
                elif _differs(reference, thumbnail):
                    out["identical"] = False
            if out["count"] >= bounds.decode_frames:
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


def _thumbnail(frame: Any) -> Any:
    """``frame`` as RGB means of its 4x4-pixel blocks (FFmpeg's area scaler), 8 bits per channel."""
    small = frame.reformat(width=max(1, frame.width // _BLOCK), height=max(1, frame.height // _BLOCK),
                           format="rgb24", interpolation="AREA")
    return small.to_ndarray()


def _differs(a: Any, b: Any) -> bool:
    """Whether two thumbnails differ: at least ``_DIFF_COUNT`` blocks changed by more than
    ``_DIFF_LEVEL`` in some colour channel."""
    import numpy as np

    if a.shape != b.shape:
        return True
    diff = np.abs(a.astype(np.int16) - b.astype(np.int16)).max(axis=2)
    return int(np.count_nonzero(diff > _DIFF_LEVEL)) >= _DIFF_COUNT
