"""Hostile videos: programs that write files built to hurt the host side that checks them.

Each program (written for this test) runs through ``render_program`` on every available
isolating backend, in a fresh physeval process, so that the process's own peak memory can be
measured: it must stay under 1 GB, whatever the file. Each ends at ``rendered`` with the
reason, never with an exception:

* a decompression bomb: six 16000x16000 16-bit RGBA PNG frames in an MP4 (50 MB on disk,
  3 GB per decoded frame), refused from the header before any frame is decoded;
* a million tiny frames, refused from the header's frame count;
* an MP4 whose codec FFmpeg does not know (it used to raise ``AttributeError`` in the probe);
* an animated GIF and a Matroska file at the ``.mp4`` path: real videos, but not MP4s.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("av")
pytestmark = pytest.mark.usefixtures("contained")

DECOMPRESSION_BOMB = r"""
import struct, sys, zlib
from fractions import Fraction
import av
W = H = 16000
def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
row = b"\0" * (1 + W * 8)  # filter byte + one row of 16-bit RGBA zeros
comp = zlib.compressobj(1)
idat = b"".join(comp.compress(row) for _ in range(H)) + comp.flush()
png = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", W, H, 16, 6, 0, 0, 0))
       + chunk(b"IDAT", idat) + chunk(b"IEND", b""))
out = av.open(sys.argv[1], "w", format="mp4")
stream = out.add_stream("png", rate=2)
stream.width, stream.height, stream.pix_fmt = W, H, "rgba64be"
for i in range(6):
    packet = av.Packet(png)
    packet.stream, packet.pts, packet.dts, packet.time_base = stream, i, i, Fraction(1, 2)
    out.mux(packet)
out.close()
"""

MILLION_FRAMES = r"""
import sys
from fractions import Fraction
import av, numpy as np
out = av.open(sys.argv[1], "w", format="mp4")
stream = out.add_stream("mpeg4", rate=1000)
stream.width = stream.height = 16
stream.pix_fmt = "yuv420p"
frame = av.VideoFrame.from_ndarray(np.zeros((16, 16, 3), np.uint8), format="rgb24").reformat(format="yuv420p")
data = bytes((list(stream.encode(frame)) + list(stream.encode(None)))[0])
for i in range(1_000_000):  # the same intra frame, muxed a million times (no re-encoding)
    packet = av.Packet(data)
    packet.stream, packet.pts, packet.dts, packet.time_base = stream, i, i, Fraction(1, 1000)
    packet.is_keyframe = True
    out.mux(packet)
out.close()
"""

UNKNOWN_CODEC = r"""
import sys
import imageio.v2 as imageio
import numpy as np
writer = imageio.get_writer(sys.argv[1], fps=15, codec="libx264", macro_block_size=16)
for i in range(30):
    img = np.zeros((240, 320, 3), np.uint8)
    img[100:140, 10 + 9 * i : 50 + 9 * i] = 255
    writer.append_data(img)
writer.close()
raw = open(sys.argv[1], "rb").read()
open(sys.argv[1], "wb").write(raw.replace(b"avc1", b"qqqq"))  # a sample-entry codec tag nobody knows
"""

GIF_AT_MP4 = r"""
import sys
from PIL import Image, ImageDraw
frames = []
for i in range(30):
    img = Image.new("RGB", (320, 240), "white")
    ImageDraw.Draw(img).ellipse((20 + 9 * i, 100, 50 + 9 * i, 130), fill="red")
    frames.append(img)
frames[0].save(sys.argv[1], format="GIF", save_all=True, append_images=frames[1:], duration=66, loop=0)
"""

MKV_AT_MP4 = r"""
import sys
import av, numpy as np
out = av.open(sys.argv[1], "w", format="matroska")
stream = out.add_stream("mpeg4", rate=15)
stream.width, stream.height, stream.pix_fmt = 320, 240, "yuv420p"
for i in range(30):
    img = np.zeros((240, 320, 3), np.uint8)
    img[100:140, 10 + 9 * i : 50 + 9 * i] = 255
    for packet in stream.encode(av.VideoFrame.from_ndarray(img, format="rgb24")):
        out.mux(packet)
for packet in stream.encode(None):
    out.mux(packet)
out.close()
"""

_RUNNER = r"""
import json, resource, sys
from physeval.scenes import render
from physeval.scenes.sandbox import host
code, backend, keep, lo = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
host.UID_RANGE = (lo, lo + 100_000)
result = render.render_program(code, timeout=900, keep_dir=keep, sandbox=backend)  # a hang guard
# VmHWM, the peak of this process's own memory: ru_maxrss would also carry the peak of the parent
# it was spawned from (Linux keeps the old memory's high-water mark across execve), so the verdict
# would depend on which tests the pytest worker ran before
peak_kb = next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmHWM:"))
print(json.dumps({"render": result.to_dict(), "peak_kb": peak_kb}))
"""


def _render_in_a_fresh_process(code: str, backend: str, keep: Path) -> dict:
    from physeval.scenes.sandbox import host

    env = {**os.environ, "TMPDIR": str(keep.parent / "tmp")}
    proc = subprocess.run(
        [sys.executable, "-c", _RUNNER, code, backend, str(keep), str(host.UID_RANGE[0])],
        capture_output=True, text=True, timeout=1800, env=env, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.slow
@pytest.mark.parametrize(
    ("program", "reason"),
    [
        (DECOMPRESSION_BOMB, "refused before decoding: 16000x16000 frames exceed"),
        (MILLION_FRAMES, "refused before decoding: 1000000 frames declared"),
        (UNKNOWN_CODEC, "unknown video codec"),
        (GIF_AT_MP4, "not an MP4 file: the container is gif"),
        (MKV_AT_MP4, "not an MP4 file: the container is matroska"),
    ],
    ids=["decompression-bomb", "million-frames", "unknown-codec", "gif", "matroska"],
)
def test_hostile_videos_are_rendered_not_playable_and_the_host_stays_small(
    backend: str, contained: Path, program: str, reason: str
) -> None:
    keep = contained / "run"
    outcome = _render_in_a_fresh_process(program, backend, keep)
    render = outcome["render"]
    assert render["stage"] == "rendered", render
    assert render["reason"].startswith("not playable: " + reason), render["reason"]
    assert render["video"]["decodes"] is False and render["video"]["frame_count"] == 0
    assert outcome["peak_kb"] * 1024 < 1 << 30, f"the host process peaked at {outcome['peak_kb'] >> 10} MiB"
