"""EED gives the same scores and ``budget`` fields in every process: another PYTHONHASHSEED, a loaded core.

Two fresh processes score the same pairs side by side with the on-disk cache off: one with one
hash seed, undisturbed, one with another seed on a machine made busy. Nothing may differ, because the
budget is a count, never a clock, and no count depends on iteration order.

The busy machine is what a scorer sees of one: it is stopped for a few milliseconds, then runs
for a few, over and over (SIGSTOP / SIGCONT), so half of every stretch of wall time passes
while it cannot run, as on a core it shares with a busy loop. Unlike a busy loop this burns no
CPU (a spinning core cost as much CPU as the scorer: about 80 s of the PHYBench test's 248 s).
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "phybench" / "PHYBench-fullques_v1.json"

_SCORE = r"""
import json, sys
from physeval.grading.eed import eed
pairs = json.loads(sys.stdin.read())
rows = []
for reference, answer in pairs:
    r = eed(reference, answer)
    rows.append([r.score, r.budget, str(r.outcome), r.distance, r.size, r.equivalent])
print(json.dumps(rows))
"""

_PAIRS = [
    (r"2mg+4\frac{mv_0^2}{l}", r"2mg+2\frac{mv_0^2}{l}"),
    (r"\sqrt{a+b+c+d+f+g+h} \cdot \frac{k}{2}", r"\sqrt{a+b+c+d+f+g+h} \cdot \frac{k}{3}"),  # radical budget
    (r"\sin(a+b+c+d+f+g) \cos(a+b+c+d+f+g) \tan(a+b+c+d+f+g)", r"\sin(a+b) \cos(a+b)"),  # trigonometric budget
    (r"\frac{1}{(a+b)^{33}} + c", r"\frac{1}{(a+b)^{32}} + c"),  # degree budget
    (r"\frac{q b}{2\pi \varepsilon_0} (x^2 + y^2 + z^2)^{-3/2}", r"\frac{q b}{\pi \varepsilon_0} (x^2 + y^2)^{-3/2}"),
    (r"(a+b)^{40} (a+c)^{40} + d", r"(a+b)^{40} (a+c)^{41} + d"),  # expand budget
    (r"\frac{1}{2} m v^{2} + m g h", r"\frac{m v^2}{2} + m g h"),
    (r"2\pi\sqrt{\frac{l}{g}}", r"\pi\sqrt{\frac{l}{g}}"),
]


class _Busy:
    """Stop and continue a process in turns of ``period`` seconds until it ends (a loaded core).

    Signals go through a pidfd, which names this process even once it is reaped, so a pid the
    kernel has given to another process is never stopped.
    """

    def __init__(self, process: subprocess.Popen[bytes], period: float = 0.004) -> None:
        self.period = period
        self.turns = 0
        self._pidfd = os.pidfd_open(process.pid)
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _signal(self, number: int) -> bool:
        try:
            signal.pidfd_send_signal(self._pidfd, number)
        except ProcessLookupError:  # it has ended
            return False
        return True

    def _run(self) -> None:
        try:
            while self._signal(signal.SIGSTOP):
                self.turns += 1
                time.sleep(self.period)  # load made, not a wait: the verdict does not depend on it
                if not self._signal(signal.SIGCONT):
                    break
                time.sleep(self.period)
        finally:
            self._signal(signal.SIGCONT)
            os.close(self._pidfd)

    def join(self) -> None:
        self._thread.join()


@dataclass
class _Scoring:
    """One scorer process started on a file of pairs (so that two can run at once)."""

    process: subprocess.Popen[bytes]
    busy: _Busy | None
    out: Path

    def result(self) -> list[list[object]]:
        try:
            self.process.wait()
        finally:
            if self.process.poll() is None:
                self.process.kill()
                self.process.wait()
            if self.busy is not None:
                self.busy.join()
        text = self.out.read_text()
        assert self.process.returncode == 0, self.out.with_suffix(".err").read_text()[-2000:]
        assert self.busy is None or self.busy.turns > 0  # it did run on the busy machine
        return json.loads(text)


def _start(pairs: list[tuple[str, str]], seed: str, *, loaded: bool, tmp: Path) -> _Scoring:
    env = {**os.environ, "PYTHONHASHSEED": seed, "PHYSEVAL_EED_CACHE": "off"}
    pairs_file, out = tmp / f"pairs-{seed}.json", tmp / f"scores-{seed}.json"
    pairs_file.write_text(json.dumps(pairs))
    with pairs_file.open("rb") as stdin, out.open("wb") as stdout, out.with_suffix(".err").open("wb") as stderr:
        process = subprocess.Popen([sys.executable, "-c", _SCORE], stdin=stdin, stdout=stdout, stderr=stderr, env=env)
    return _Scoring(process, _Busy(process) if loaded else None, out)


def _score_both(pairs: list[tuple[str, str]], seeds: tuple[str, str], tmp: Path) -> tuple[list[list[object]], ...]:
    """The scores of an undisturbed process (first seed) and a busy one (second), run side by side."""
    idle = _start(pairs, seeds[0], loaded=False, tmp=tmp)
    loaded = _start(pairs, seeds[1], loaded=True, tmp=tmp)
    return idle.result(), loaded.result()


def test_two_processes_with_different_hash_seeds_agree_on_scores_and_budgets(tmp_path: Path) -> None:
    idle, loaded = _score_both(_PAIRS, ("1", "4242"), tmp_path)
    assert idle == loaded
    budgets = [row[1] for row in idle]
    assert sum(bool(b) for b in budgets) >= 4  # the budget applied, and applied alike
    assert idle[0][0] == pytest.approx(46.67, abs=0.005)


def _rhs(answer: str) -> str:
    from physeval.answers.latex import strip_to_rhs

    text = answer.replace("$", " ").replace("\\[", " ").replace("\\]", " ")
    match = re.search(r"\\boxed\{(.*)\}", text, re.S)
    return strip_to_rhs(match.group(1) if match else text)


@pytest.mark.slow
@pytest.mark.timeout(4200)  # two fresh processes simplify all 100 references and 300 answers: 306-381 s of CPU
@pytest.mark.skipif(not DATA.is_file(), reason="shared PHYBench data not present")
def test_every_phybench_reference_scores_alike_across_hash_seeds(tmp_path: Path) -> None:
    references = [r["answer"] for r in json.loads(DATA.read_text(encoding="utf-8")) if str(r.get("answer") or "")]
    pairs = [(ref, answer) for ref in references
             for answer in (_rhs(ref) + "+1", r"2\left(" + _rhs(ref) + r"\right)", r"\left(" + _rhs(ref) + r"\right)^{2}")]
    idle, loaded = _score_both(pairs, ("7", "99991"), tmp_path)
    assert idle == loaded
