"""The suite's own ground rule: tests that share something run on one xdist worker.

``pytest -n 2 --dist loadgroup`` (the README's test command) relies on ``xdist_group``: the tests
that fill or measure host-wide kernel memory run one after another, and a module's costly
fixture is built once. pytest 9.2 broke that silently (pytest-xdist issue 1386: the group suffix
xdist writes into the node id no longer takes effect), so the tests were spread round-robin, an
inode test measured another test's memory, and CI failed. This test runs the installed pytest and
xdist as the README does on four tests of one group.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

GROUPED = '''
import pytest

@pytest.mark.xdist_group("one")
@pytest.mark.parametrize("i", range(4))
def test_grouped(i):
    pass

@pytest.mark.parametrize("i", range(4))
def test_free(i):
    pass
'''


@pytest.mark.timeout(600)  # a pytest with two workers: a few seconds of CPU
def test_tests_of_one_xdist_group_run_on_one_worker(tmp_path: Path) -> None:
    (tmp_path / "test_grouped.py").write_text(GROUPED)
    env = {key: value for key, value in os.environ.items() if not key.startswith(("PYTEST_", "PYTHONPATH"))}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-v", "-p", "no:cacheprovider", "-n", "2", "--dist", "loadgroup",
         "-o", "addopts=", "--rootdir", str(tmp_path), str(tmp_path)],
        capture_output=True, text=True, timeout=600, cwd=tmp_path, env=env,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    workers = set(re.findall(r"\[(gw\d+)\] \[ *\d+%\] PASSED \S*test_grouped\[", done.stdout))
    assert len(re.findall(r"PASSED \S*test_grouped\[", done.stdout)) == 4, done.stdout[-2000:]
    assert len(workers) == 1, f"one group ran on {sorted(workers)}: {done.stdout[-2000:]}"
