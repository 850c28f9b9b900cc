"""The on-disk grading cache: entries outlive the process, a killed or concurrent writer never misleads a reader."""

from __future__ import annotations

import json
import os
import pickle
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import sympy

from physeval import disk_cache
from physeval.cli import main

_PAIRS = [
    (r"2mg+4\frac{mv_0^2}{l}", r"2mg+2\frac{mv_0^2}{l}"),
    (r"\sqrt{a+b+c+d+f+g+h} \cdot \frac{k}{2}", r"\sqrt{a+b+c+d+f+g+h} \cdot \frac{k}{3}"),
    (r"\frac{1}{2} m v^{2} + m g h", r"\frac{m v^2}{2} + m g h"),
    (r"2\pi\sqrt{\frac{l}{g}}", r"\pi\sqrt{\frac{l}{g}}"),
]

_SCORE = r"""
import json, sys
from physeval.grading.eed import eed
pairs = json.loads(sys.stdin.read())
print(json.dumps([[r.score, r.budget, str(r.outcome), r.distance, r.size] for r in (eed(a, b) for a, b in pairs)]))
"""

# A writer that stops for good just before its rename, then is killed: what a crash mid-write leaves.
_KILLED_WRITER = r"""
import os, sys, time
real = os.replace
def stop(src, dst):
    print(src, flush=True)
    time.sleep(3600)
os.replace = stop
from physeval.grading.eed import eed
eed(r"2mg+4\frac{mv_0^2}{l}", r"2mg+2\frac{mv_0^2}{l}")
"""


def _score_in_fresh_process(pairs: list[tuple[str, str]], **env: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-c", _SCORE], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                            env={**os.environ, **env})


def _entries() -> list[Path]:
    root = disk_cache.cache_dir()
    return [p for p in root.rglob("*") if p.is_file() and not p.name.startswith(".tmp-")] if root.is_dir() else []


def test_a_value_round_trips_and_keys_differ_by_every_part() -> None:
    disk_cache.put("tree", "x+1", None, "value")
    assert disk_cache.get("tree", "x+1", None) == "value"
    assert disk_cache.get("tree", "x+1", "phybench") is None
    assert disk_cache.get("parse", "x+1", None) is None


def test_an_unevaluated_parse_comes_back_node_for_node() -> None:
    from physeval.answers.latex import latex_to_sympy

    conversion = latex_to_sympy(r"2mg+4\frac{mv_0^2}{l}")
    disk_cache.put("parse", "probe", conversion)
    again = disk_cache.get("parse", "probe")
    assert sympy.srepr(again.expr) == sympy.srepr(conversion.expr)  # Mul(4, 1/l, Mul(m, v_0**2)) is not flattened


def test_a_second_process_reads_what_the_first_wrote() -> None:
    first = _score_in_fresh_process(_PAIRS)
    cold = json.loads(first.communicate(json.dumps(_PAIRS))[0])
    kinds = disk_cache.info().entries
    assert kinds["parse"] >= 7 and kinds["tree"] >= 4
    written = {p: p.stat().st_mtime_ns for p in _entries()}
    second = _score_in_fresh_process(_PAIRS)
    warm = json.loads(second.communicate(json.dumps(_PAIRS))[0])
    assert warm == cold
    assert {p: p.stat().st_mtime_ns for p in _entries()} == written  # read, not recomputed


@pytest.mark.parametrize("damage", ["truncate", "flip", "garbage"])
def test_a_corrupt_entry_is_recomputed_never_trusted(damage: str) -> None:
    from physeval.grading.eed import eed

    expected = eed(*_PAIRS[0])
    for path in _entries():
        data = path.read_bytes()
        if damage == "truncate":
            path.write_bytes(data[: len(data) // 2])
        elif damage == "flip":
            path.write_bytes(data[:-3] + bytes([data[-3] ^ 0xFF]) + data[-2:])
        else:
            path.write_bytes(b"PHYSEVAL-CACHE-1\n" + b"0" * 64 + b"\n" + pickle.dumps("not a tree"))
    normalized = r"2mg+4\frac{mv_0^2}{l}"
    assert disk_cache.get("parse", normalized, None) is None  # damaged: treated as absent
    process = _score_in_fresh_process(_PAIRS[:1])
    assert json.loads(process.communicate(json.dumps(_PAIRS[:1]))[0]) == [
        [expected.score, expected.budget, str(expected.outcome), expected.distance, expected.size]]
    assert disk_cache.get("parse", normalized, None).expr is not None  # recomputed and rewritten whole


def test_a_killed_writer_leaves_no_entry_a_reader_trusts(tmp_path: Path) -> None:
    writer = subprocess.Popen([sys.executable, "-c", _KILLED_WRITER], stdout=subprocess.PIPE, text=True)
    assert writer.stdout is not None
    temp = Path(writer.stdout.readline().strip())  # the writer is now stopped before its first rename
    writer.send_signal(signal.SIGKILL)
    writer.wait()
    assert temp.name.startswith(".tmp-") and temp.is_file()
    assert _entries() == [] and disk_cache.info().temp_files == 1
    reader = _score_in_fresh_process(_PAIRS[:1])
    rows = json.loads(reader.communicate(json.dumps(_PAIRS[:1]))[0])
    assert rows[0][0] == pytest.approx(46.67, abs=0.005)
    assert len(_entries()) >= 3  # the reader computed and wrote its own entries


def test_two_processes_filling_the_cache_at_once_score_as_one_without_it() -> None:
    alone = _score_in_fresh_process(_PAIRS, PHYSEVAL_EED_CACHE="off")
    expected = json.loads(alone.communicate(json.dumps(_PAIRS))[0])
    assert _entries() == []  # off means off: nothing written
    both = [_score_in_fresh_process(_PAIRS) for _ in range(2)]
    outputs = [p.communicate(json.dumps(_PAIRS))[0] for p in both]
    assert [json.loads(o) for o in outputs] == [expected, expected]
    after = _score_in_fresh_process(_PAIRS)
    assert json.loads(after.communicate(json.dumps(_PAIRS))[0]) == expected
    assert disk_cache.info().temp_files == 0


def test_cache_info_and_clear(capsys: pytest.CaptureFixture[str]) -> None:
    process = _score_in_fresh_process(_PAIRS[:1])
    process.communicate(json.dumps(_PAIRS[:1]))
    assert main(["cache", "info"]) == 0
    out = capsys.readouterr().out
    assert str(disk_cache.cache_dir()) in out and "parse 2" in out and "tree 2" in out
    assert main(["cache", "clear"]) == 0
    assert "removed 4 files" in capsys.readouterr().out
    assert _entries() == [] and disk_cache.info().total == 0


def test_no_cache_turns_it_off_for_the_command(monkeypatch: pytest.MonkeyPatch) -> None:
    from physeval.cli._cache import bypass_grading_cache

    monkeypatch.setenv("PHYSEVAL_EED_CACHE", "on")  # restored (removed) after the test
    assert disk_cache.enabled()
    bypass_grading_cache(True)
    assert not disk_cache.enabled()
    disk_cache.put("tree", "y", 1)
    assert disk_cache.get("tree", "y") is None and _entries() == []


def test_an_edit_of_the_code_behind_the_entries_starts_afresh(monkeypatch: pytest.MonkeyPatch) -> None:
    disk_cache.put("tree", "z", "old")
    assert disk_cache.get("tree", "z") == "old"
    monkeypatch.setattr(disk_cache, "code_fingerprint", lambda: "another-source")
    assert disk_cache.get("tree", "z") is None
