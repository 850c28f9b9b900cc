"""EED gives the same scores and ``budget`` fields in every process: another PYTHONHASHSEED, a loaded core.

Two fresh processes score the same pairs with the on-disk cache off: one with one hash seed on
an idle core, one with another seed pinned to the core a busy loop is spinning on. Nothing may
differ, because the budget is a count, never a clock, and no count depends on iteration order.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
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

_SPIN = "while True: pass"

_PAIRS = [
    (r"2mg+4\frac{mv_0^2}{l}", r"2mg+2\frac{mv_0^2}{l}"),
    (r"\sqrt{a+b+c+d+f+g+h} \cdot \frac{k}{2}", r"\sqrt{a+b+c+d+f+g+h} \cdot \frac{k}{3}"),  # radical budget
    (r"\sin(a+b+c+d+f+g) \cos(a+b+c+d+f+g) \tan(a+b+c+d+f+g)", r"\sin(a+b) \cos(a+b)"),  # function budget
    (r"\frac{1}{(a+b)^{14}} + c", r"\frac{1}{(a+b)^{13}} + c"),  # degree budget
    (r"\frac{q b}{2\pi \varepsilon_0} (x^2 + y^2 + z^2)^{-3/2}", r"\frac{q b}{\pi \varepsilon_0} (x^2 + y^2)^{-3/2}"),
    (r"(a+b)^{40} (a+c)^{40} + d", r"(a+b)^{40} (a+c)^{41} + d"),  # expand budget
    (r"\frac{1}{2} m v^{2} + m g h", r"\frac{m v^2}{2} + m g h"),
    (r"2\pi\sqrt{\frac{l}{g}}", r"\pi\sqrt{\frac{l}{g}}"),
]


def _score(pairs: list[tuple[str, str]], seed: str, *, loaded: bool) -> list[list[object]]:
    env = {**os.environ, "PYTHONHASHSEED": seed, "PHYSEVAL_EED_CACHE": "off"}
    spin = None
    pin = None
    if loaded and hasattr(os, "sched_setaffinity"):
        core = min(os.sched_getaffinity(0))
        spin = subprocess.Popen([sys.executable, "-c", _SPIN], preexec_fn=lambda: os.sched_setaffinity(0, {core}))
        pin = lambda: os.sched_setaffinity(0, {core})  # noqa: E731 - the scorer shares the spinning core
    try:
        done = subprocess.run([sys.executable, "-c", _SCORE], input=json.dumps(pairs), capture_output=True, text=True,
                              env=env, preexec_fn=pin, check=True)
    finally:
        if spin is not None:
            spin.kill()
            spin.wait()
    return json.loads(done.stdout)


def test_two_processes_with_different_hash_seeds_agree_on_scores_and_budgets() -> None:
    idle = _score(_PAIRS, "1", loaded=False)
    loaded = _score(_PAIRS, "4242", loaded=True)
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
@pytest.mark.timeout(3600)  # two fresh processes simplify all 100 references and 300 answers
@pytest.mark.skipif(not DATA.is_file(), reason="shared PHYBench data not present")
def test_every_phybench_reference_scores_alike_across_hash_seeds() -> None:
    references = [r["answer"] for r in json.loads(DATA.read_text(encoding="utf-8")) if str(r.get("answer") or "")]
    pairs = [(ref, answer) for ref in references
             for answer in (_rhs(ref) + "+1", r"2\left(" + _rhs(ref) + r"\right)", r"\left(" + _rhs(ref) + r"\right)^{2}")]
    assert _score(pairs, "7", loaded=False) == _score(pairs, "99991", loaded=True)
