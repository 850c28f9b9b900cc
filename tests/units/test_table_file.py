"""The unit table is a data file shipped with physeval, read once per process, whoever asks first.

``units/table_data.json`` replaced a 2,664-line generated Python module: it must be package data
(matched by ``pyproject.toml``'s package-data, so a wheel carries it), decode to the tuples that
:func:`physeval.units.table.build_table` makes, and be read once even when threads ask at once.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from pathlib import Path

from physeval.units.table import DATA_FILE, decode_table, encode_table

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "src" / "physeval"


def test_the_table_file_is_package_data() -> None:
    patterns = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"][
        "package-data"]["physeval"]
    shipped = {p for pattern in patterns for p in PACKAGE.glob(pattern)}
    assert PACKAGE / "units" / DATA_FILE in shipped


def test_the_file_decodes_to_the_tuples_build_table_makes_and_encodes_back_byte_for_byte() -> None:
    text = (PACKAGE / "units" / DATA_FILE).read_text(encoding="utf-8")
    table = decode_table(json.loads(text))
    symbol, scale, offset, dims = table["units"]["kilometer"]
    assert (symbol, scale, offset, dims) == ("km", (1000, 1), (0, 1), (("[length]", 1),))
    assert all(isinstance(v, tuple) for entry in table["units"].values() for v in entry[1:])
    assert table["tokens"]["km"] == "kilometer" and table["tokens"]["µs"] == "microsecond"
    assert encode_table(table) == text


def test_threads_asking_at_once_share_one_read_of_the_file() -> None:
    # sixteen threads released together by a barrier: every one gets the same object, read once
    code = """
import threading
from pathlib import Path
import physeval.units.table as t
reads = []
original = Path.read_text
def counting(self, *a, **k):
    if self.name == t.DATA_FILE:
        reads.append(self)
    return original(self, *a, **k)
Path.read_text = counting
barrier = threading.Barrier(16)
got = []
def ask():
    barrier.wait()
    got.append(t.shipped_table())
threads = [threading.Thread(target=ask) for _ in range(16)]
for th in threads: th.start()
for th in threads: th.join()
print(len(reads), len({id(g) for g in got}), len(got))
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["1", "1", "16"]
