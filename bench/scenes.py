"""Scene-track costs: sandbox overhead, playable check and frame sampling.

Prints, each as the median of N runs:
  1. the same program run directly (plain ``subprocess.run``, the reference's approach) and
     through ``run_sandboxed``; the difference is the sandbox's overhead (target < 300 ms);
  2. for a 15 s 640x480 30 fps H.264 video: ``probe_video`` (the playable check: full decode),
     ``sample_frames(n=16)`` and both together (target < 1 s), next to the reference's check
     (``cv2.VideoCapture`` + read one frame) as a ratio.
The reference implementation (AgentFly) is not installable here; its approach is reproduced
from the issue's description (subprocess with a timeout, file > 1 kB, read one frame).

Usage: /work/venv/bin/python bench/scenes.py [--runs N]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from physeval.scenes.frames import sample_frames
from physeval.scenes.sandbox import SandboxLimits, isolation_report, run_sandboxed
from physeval.scenes.video import probe_video

PROGRAMS = {
    "empty program": "pass\n",
    "numpy + small file": (
        "import sys\nimport numpy as np\n"
        "np.save(sys.argv[1], np.arange(1000))\n"
    ),
}


def _median(fn: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def _make_video(path: Path) -> None:
    import cv2
    import imageio.v2 as imageio
    import numpy as np

    writer = imageio.get_writer(str(path), fps=30, codec="libx264", macro_block_size=16)
    for i in range(450):
        img = np.full((480, 640, 3), 245, np.uint8)
        cv2.circle(img, (40 + i, 240 + int(100 * np.sin(i / 15))), 25, (30, 90, 200), -1)
        cv2.putText(img, f"t = {i / 30:.2f} s  g = 9.81 m/s^2", (10, 30), cv2.FONT_HERSHEY_SIMPLEX, 0.8, (0, 0, 0), 2)
        writer.append_data(img)
    writer.close()


def _reference_check(path: Path) -> bool:
    import cv2

    if not path.exists() or path.stat().st_size <= 1024:
        return False
    cap = cv2.VideoCapture(str(path))
    ok, _ = cap.read()
    cap.release()
    return bool(ok)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=10)
    runs = parser.parse_args().runs
    report = isolation_report()
    print(f"sandbox mode: {report['mode']} ({report['detail']}); python: {report['python']}")
    limits = SandboxLimits(wall_s=60)
    with tempfile.TemporaryDirectory() as tmp:
        tmpdir = Path(tmp)
        print(f"\n1. sandbox overhead (median of {runs} runs)")
        print(f"   {'program':<22}{'direct (ref)':>14}{'sandboxed':>12}{'overhead':>11}{'ratio':>8}")
        for name, code in PROGRAMS.items():
            script = tmpdir / "prog.py"
            script.write_text(code)
            out = str(tmpdir / "out.npy")

            # defaults bind this iteration's values (both are timed before the loop moves on)
            def direct(script: Path = script, out: str = out) -> None:
                subprocess.run([sys.executable, str(script), out], check=True, timeout=120, capture_output=True)

            def sandboxed(code: str = code) -> None:
                result = run_sandboxed(code, args=["{workdir}/out.npy"], limits=limits)
                assert result.ok, result.stderr_tail

            direct()
            sandboxed()  # warm caches (interpreter probe, page cache)
            d, s = _median(direct, runs), _median(sandboxed, runs)
            verdict = "ok" if s - d < 0.300 else "OVER TARGET"
            print(f"   {name:<22}{d * 1000:>11.1f} ms{s * 1000:>9.1f} ms{(s - d) * 1000:>8.1f} ms"
                  f"{s / d:>7.2f}x  {verdict}")

        video = tmpdir / "scene.mp4"
        _make_video(video)
        facts = probe_video(video)
        print(f"\n2. 15 s 640x480 30 fps video ({facts.codec}, {facts.frame_count} frames, "
              f"{os.path.getsize(video) / 1e6:.2f} MB), median of {runs} runs")
        assert facts.playable, facts.reason
        probe = _median(lambda: probe_video(video), runs)
        sample = _median(lambda: sample_frames(video, n=16), runs)
        both = _median(lambda: (probe_video(video), sample_frames(video, n=16)), runs)
        ref = _median(lambda: _reference_check(video), runs)
        print(f"   playable check (probe_video, full decode) {probe * 1000:8.1f} ms")
        print(f"   sample_frames(n=16, max_side=448)         {sample * 1000:8.1f} ms")
        verdict = "ok" if both < 1.0 else "OVER TARGET"
        print(f"   both                                      {both * 1000:8.1f} ms  (target < 1000 ms: {verdict})")
        print(f"   reference check (cv2, read one frame)     {ref * 1000:8.1f} ms  "
              f"(physeval playable check / reference = {probe / ref:.1f}x)")


if __name__ == "__main__":
    main()
