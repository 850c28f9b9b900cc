"""The sandbox environment as a user has it: built by the real ``physeval sandbox setup``.

Why: sandbox tests that ran under an interpreter they made themselves passed while every user's
``physeval render`` failed (the environment ``sandbox setup`` makes is reached through a
symlink, which the tests never crossed). :func:`real_sandbox_data_dir` runs the real command,
``physeval sandbox setup --offline``, into a fresh data directory, installing from the wheels
the user's own setup downloaded (the README's test command runs ``physeval sandbox setup``), so
no test touches the network. The directory is world-searchable, so that an ordinary user (the
unprivileged suite) reaches it too. ``PHYSEVAL_TEST_SANDBOX_WHEELS`` names another wheel folder
(the unprivileged suite passes one it can read).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

WHEELS_VARIABLE = "PHYSEVAL_TEST_SANDBOX_WHEELS"


def user_wheels() -> Path:
    """The wheel folder the user's ``physeval sandbox setup`` filled (or the one the variable names)."""
    from physeval.scenes.sandbox import sandbox_wheels_path

    named = os.environ.get(WHEELS_VARIABLE)
    return Path(named) if named else sandbox_wheels_path()


def real_sandbox_data_dir() -> Path:
    """A new data directory holding a sandbox environment made by the real setup command.

    Skips the calling test, with the fix, when there are no wheels to set it up from.
    """
    wheels = user_wheels()
    if not any(wheels.glob("*.whl")):
        pytest.skip(f"no sandbox wheels in {wheels}: run `physeval sandbox setup` once (the README's test "
                    "command does), then the tests set their own environment up offline from its wheels")
    data = Path(tempfile.mkdtemp(prefix="physeval-real-sandbox-"))
    os.chmod(data, 0o755)
    setup = subprocess.run(
        [sys.executable, "-m", "physeval.cli", "sandbox", "setup", "--offline", "--wheels", str(wheels)],
        env={**os.environ, "PHYSEVAL_DATA_DIR": str(data)}, capture_output=True, text=True, timeout=1800,
        check=False,
    )
    assert setup.returncode == 0, setup.stdout[-2000:] + setup.stderr[-3000:]
    assert "sandbox interpreter ready" in setup.stdout and (data / "sandbox-venv").is_symlink(), setup.stdout
    assert "checked under " in setup.stdout, setup.stdout  # and checked inside a sandbox, as programs meet it
    _check_lock_file(data / "sandbox-venv")
    return data


def _check_lock_file(venv: Path) -> None:
    """The lock file lies beside the build the symlink names, and pins exactly what it holds."""
    from physeval.scenes.sandbox.lock import lock_path_for, sandbox_lock

    lock = lock_path_for(venv)
    assert lock.parent == venv.resolve().parent and lock.name == venv.resolve().name + ".lock.txt"
    lines = lock.read_text().splitlines()
    assert lines[0].startswith("# python ") and any(line.startswith("numpy==") for line in lines)
    assert not any(line.startswith("physeval") for line in lines)  # the caller's own packages never leak in
    assert sandbox_lock(venv / "bin" / "python")["sha256"] is not None
