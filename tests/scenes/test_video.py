"""Video facts, the exact playable rule, and uniform frame sampling, on videos made here."""

from __future__ import annotations

import io
import json
from pathlib import Path

import cv2
import numpy as np
import pytest
from PIL import Image

from physeval.scenes.frames import sample_frames
from physeval.scenes.video import VideoBounds, probe_video

imageio = pytest.importorskip("imageio.v2")

W, H, FPS = 320, 240, 15


def _frame(i: int, *, move: bool = True, stamp: bool = False) -> np.ndarray:
    rng = np.random.default_rng(7)  # same texture every frame, so only what we draw changes
    img = rng.integers(0, 60, size=(H, W, 3), dtype=np.uint8)
    x = 40 + (i * 8 if move else 0)
    cv2.circle(img, (x % W, H // 2), 20, (255, 200, 0), -1)
    if stamp:
        cv2.putText(
            img,
            f"t={i / FPS:.2f} s",
            (8, 24),
            cv2.FONT_HERSHEY_SIMPLEX,
            0.7,
            (255, 255, 255),
            2,
        )
    return img


def _x264(path: Path, frames: list[np.ndarray], fps: float = FPS) -> Path:
    writer = imageio.get_writer(str(path), fps=fps, codec="libx264", macro_block_size=16)
    for f in frames:
        writer.append_data(f)
    writer.close()
    return path


def _mp4v(path: Path, frames: list[np.ndarray], fps: float = FPS) -> Path:
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"mp4v"), fps, (W, H))
    for f in frames:
        writer.write(f)
    writer.release()
    return path


@pytest.mark.parametrize("write", [_x264, _mp4v])
def test_moving_ball_is_playable(tmp_path: Path, write) -> None:
    facts = probe_video(write(tmp_path / "ball.mp4", [_frame(i) for i in range(2 * FPS)]))
    assert facts.playable and facts.reason is None
    assert (facts.width, facts.height, facts.frame_count) == (W, H, 30)
    assert facts.fps == pytest.approx(15.0) and facts.duration_s == pytest.approx(2.0)
    assert facts.codec in ("h264", "mpeg4") and facts.decodes and facts.all_identical is False
    assert json.loads(json.dumps(facts.to_dict()))["playable"] is True


@pytest.mark.parametrize("write", [_x264, _mp4v])
def test_identical_frames_are_not_playable(tmp_path: Path, write) -> None:
    facts = probe_video(write(tmp_path / "still.mp4", [_frame(0)] * (2 * FPS)))
    assert facts.decodes and facts.duration_s == pytest.approx(2.0)
    assert facts.all_identical is True and not facts.playable
    assert facts.reason == "all 30 frames are identical"


def test_a_changing_time_stamp_alone_is_motion(tmp_path: Path) -> None:
    frames = [_frame(i, move=False, stamp=True) for i in range(2 * FPS)]
    assert probe_video(_x264(tmp_path / "stamp.mp4", frames)).playable


def test_a_single_frame_is_too_short(tmp_path: Path) -> None:
    facts = probe_video(_mp4v(tmp_path / "one.mp4", [_frame(0)]))
    assert facts.frame_count == 1 and not facts.playable
    assert facts.reason is not None and facts.reason.startswith("only 0.0667 s of frames")


def test_below_one_frame_per_second_is_not_playable(tmp_path: Path) -> None:
    facts = probe_video(_x264(tmp_path / "slow.mp4", [_frame(i * 5) for i in range(3)], fps=0.5))
    assert facts.duration_s == pytest.approx(6.0) and facts.fps == pytest.approx(0.5)
    assert facts.reason == "0.5 frames per second (need >= 1)"


def test_missing_garbage_and_truncated_files(tmp_path: Path) -> None:
    missing = probe_video(tmp_path / "absent.mp4")
    assert not missing.exists and missing.reason == "no video file"
    garbage = tmp_path / "garbage.mp4"
    garbage.write_bytes(b"\x00not a video" * 500)
    facts = probe_video(garbage)
    assert facts.exists and not facts.decodes and facts.reason.startswith("does not decode")
    good = _x264(tmp_path / "full.mp4", [_frame(i) for i in range(2 * FPS)]).read_bytes()
    cut = tmp_path / "cut.mp4"
    cut.write_bytes(good[: len(good) // 2])
    assert not probe_video(cut).playable
    assert sample_frames(garbage) == [] and sample_frames(tmp_path / "absent.mp4") == []


def test_sample_frames_is_uniform_resized_and_jpeg(tmp_path: Path) -> None:
    video = _x264(tmp_path / "ball.mp4", [_frame(i, stamp=True) for i in range(2 * FPS)])
    frames = sample_frames(video, n=4, max_side=160)
    assert [f.index for f in frames] == [0, 10, 19, 29]
    assert [f.time_s for f in frames] == pytest.approx([0.0, 10 / 15, 19 / 15, 29 / 15])
    for f in frames:
        assert (f.width, f.height) == (160, 120)
        image = Image.open(io.BytesIO(f.jpeg))
        assert image.format == "JPEG" and image.size == (160, 120)
    assert frames[0].data_url().startswith("data:image/jpeg;base64,/9j/")
    assert frames[0].jpeg != frames[-1].jpeg
    assert frames[0].to_dict() == {
        "index": 0,
        "time_s": 0.0,
        "width": 160,
        "height": 120,
    }


def test_sample_frames_defaults_and_short_videos(tmp_path: Path) -> None:
    video = _mp4v(tmp_path / "ball.mp4", [_frame(i) for i in range(2 * FPS)])
    frames = sample_frames(video)
    assert len(frames) == 16 and frames[0].index == 0 and frames[-1].index == 29
    assert max(frames[0].width, frames[0].height) == 320  # never upscaled beyond the source
    short = _mp4v(tmp_path / "short.mp4", [_frame(i) for i in range(5)])
    assert [f.index for f in sample_frames(short, n=16)] == [0, 1, 2, 3, 4]
    with pytest.raises(ValueError):
        sample_frames(video, n=0)


@pytest.mark.parametrize(
    ("bounds", "refusal"),
    [
        (
            VideoBounds(max_pixels=320 * 239),
            "refused before decoding: 320x240 frames exceed 76480 pixels",
        ),
        (
            VideoBounds(max_frames=29),
            "refused before decoding: 30 frames declared (bound 29)",
        ),
        (
            VideoBounds(max_duration_s=1.5),
            "refused before decoding: 2 s declared (bound 1.5 s)",
        ),
        (
            VideoBounds(max_bit_depth=7),
            "refused before decoding: 8-bit samples (bound 7)",
        ),
    ],
    ids=["pixels", "frames", "duration", "bit-depth"],
)
def test_streams_over_a_bound_are_refused_before_decoding(tmp_path: Path, bounds: VideoBounds, refusal: str) -> None:
    video = _x264(tmp_path / "ball.mp4", [_frame(i) for i in range(2 * FPS)])
    facts = probe_video(video, bounds)
    assert facts.refused == refusal and facts.reason == refusal and not facts.playable
    assert facts.frame_count == 0 and (facts.width, facts.height) == (
        W,
        H,
    )  # header facts are still reported
    assert sample_frames(video, n=4, bounds=bounds) == []
    assert probe_video(video).playable  # within the default bounds it plays


def test_a_quicktime_file_at_the_mp4_path_is_not_an_mp4(tmp_path: Path) -> None:
    import av

    path = tmp_path / "movie.mp4"
    with av.open(str(path), "w", format="mov") as out:
        stream = out.add_stream("mpeg4", rate=FPS)
        stream.width, stream.height, stream.pix_fmt = W, H, "yuv420p"
        for i in range(2 * FPS):
            for packet in stream.encode(av.VideoFrame.from_ndarray(_frame(i), format="rgb24")):
                out.mux(packet)
        for packet in stream.encode(None):
            out.mux(packet)
    facts = probe_video(path)
    assert facts.brand is not None and facts.brand.strip() == "qt"
    assert facts.reason == "not an MP4 file: a QuickTime (MOV) file (major brand 'qt')"


def test_a_decoder_that_runs_out_of_memory_or_time_is_a_reason_not_a_crash(
    tmp_path: Path,
) -> None:
    video = _x264(tmp_path / "ball.mp4", [_frame(i) for i in range(2 * FPS)])
    starved = probe_video(video, VideoBounds(memory_bytes=64 << 20))
    assert starved.exists and not starved.playable
    assert starved.error  # the child hit its address-space limit: a reason, never a crash of the host
    hurried = probe_video(video, VideoBounds(wall_s=0.01))
    assert hurried.error == "the decoder did not finish within 0.01 s (killed)"
    assert sample_frames(video, n=4, bounds=VideoBounds(memory_bytes=64 << 20)) == []
