"""The hostile-program suite, run again as an ordinary (non-root) user.

Researchers on shared clusters are not root; there the ``bwrap`` backend works through
unprivileged user namespaces and ``namespaces`` is unavailable. When this test runs as root
it creates a throw-away user with ``useradd`` and runs the sandbox suites as that user with
``setpriv`` in a private mount namespace in which a ``/root`` closed to other users is
replaced by an empty directory holding only the Python installation (many hosts keep the
interpreter under ``/root/.pyenv``); the host's own mounts are untouched. It skips, saying
why, when it cannot (not root, no ``useradd``, ``setpriv`` or ``unshare``).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

import physeval
from _real_sandbox import WHEELS_VARIABLE, user_wheels

SUITES = ["test_sandbox.py", "test_sandbox_hostile.py", "test_sandbox_supervision.py", "test_render_hostile_video.py",
          "test_sandbox_entry_points.py"]
NESTED = "PHYSEVAL_TEST_UNPRIVILEGED"
USER = "physeval-h3-test"


def _skip_reason() -> str | None:
    if os.environ.get(NESTED):
        return "already running as the ordinary user"
    if os.geteuid() != 0:
        return "not root: the suites already ran as this ordinary user"
    missing = [t for t in ("useradd", "setpriv", "unshare", "mount") if shutil.which(t) is None]
    if missing:
        return "cannot create and switch to an ordinary user here: missing " + ", ".join(missing)
    return None


@pytest.fixture(scope="module")
def ordinary_user() -> Iterator[int]:
    """The uid of a throw-away ordinary user (created for this module and removed afterwards)."""
    existed = subprocess.run(["id", "-u", USER], capture_output=True, text=True, check=False).returncode == 0
    if not existed:
        made = subprocess.run(
            ["useradd", "--no-create-home", "--shell", "/usr/sbin/nologin", USER],
            capture_output=True,
            text=True,
            check=False,
        )
        if made.returncode != 0:
            pytest.skip(f"useradd failed: {made.stderr.strip()}")
    uid = int(subprocess.run(["id", "-u", USER], capture_output=True, text=True, check=True).stdout)
    yield uid
    if not existed and shutil.which("userdel"):
        subprocess.run(["userdel", USER], capture_output=True, check=False)


@pytest.fixture
def shared_tmp() -> Iterator[Path]:
    """A directory the ordinary user can reach (pytest's own temporary root is private to root)."""
    path = Path(tempfile.mkdtemp(prefix="physeval-h3-user-", dir="/tmp"))
    os.chmod(path, 0o755)
    yield path
    shutil.rmtree(path, ignore_errors=True)


def _interpreter_prefix_under_root() -> list[str]:
    """Directories of the running interpreter that lie below a /root closed to other users."""
    if os.stat("/root").st_mode & 0o001:
        return []
    roots = {os.path.realpath(p) for p in (sys.base_prefix, sys.prefix)}
    return sorted(p for p in roots if p.startswith("/root/"))


@pytest.mark.slow
@pytest.mark.timeout(3600)
@pytest.mark.skipif(_skip_reason() is not None, reason=_skip_reason() or "")
def test_the_hostile_suites_pass_as_an_ordinary_user(ordinary_user: int, shared_tmp: Path) -> None:
    here = Path(__file__).resolve().parent
    repo = here.parents[1]
    tmp_path = shared_tmp
    home, work = tmp_path / "home", tmp_path / "work"
    for d in (home, work):
        d.mkdir()
        os.chown(d, ordinary_user, ordinary_user)
    steps = ["set -e"]
    for i, prefix in enumerate(_interpreter_prefix_under_root()):  # keep the interpreter reachable
        stage = tmp_path / f"stage{i}"
        stage.mkdir()
        steps.append(f"mount --bind '{prefix}' '{stage}'")
    wheels = user_wheels()  # the ordinary user sets its own environment up, offline, from these wheels
    seen_wheels = tmp_path / "wheels"
    if wheels.is_dir():
        seen_wheels.mkdir()
        steps.append(f"mount --bind -o ro '{wheels}' '{seen_wheels}'")
    if len(steps) > 1:
        steps.append("mount -t tmpfs -o mode=0755,size=1m tmpfs /root")
        for i, prefix in enumerate(_interpreter_prefix_under_root()):
            steps.append(f"mkdir -p '{prefix}' && mount --move '{tmp_path / f'stage{i}'}' '{prefix}'")
    source = Path(physeval.__file__).resolve().parents[1]  # the ordinary user tests this very source tree
    pytest_cmd = [
        sys.executable,
        "-m",
        "pytest",
        "-q",
        "-rs",
        "-p",
        "no:cacheprovider",
        "-x",
        *[str(here / s) for s in SUITES],
    ]
    steps.append(
        f"exec setpriv --reuid={ordinary_user} --regid={ordinary_user} --clear-groups "
        f"env -i PATH=/usr/local/bin:/usr/bin:/bin HOME={home} TMPDIR={work} {NESTED}=1 PYTHONPATH={source} "
        f"{WHEELS_VARIABLE}={seen_wheels} "
        + " ".join(f"'{a}'" for a in pytest_cmd)
    )
    proc = subprocess.run(
        ["unshare", "--mount", "--propagation", "private", "sh", "-c", "\n".join(steps)],
        cwd=repo, capture_output=True, text=True, timeout=3000, check=False,
    )  # fmt: skip
    output = proc.stdout + proc.stderr
    first = [i for i in (output.find("= ERRORS ="), output.find("= FAILURES =")) if i >= 0]
    tail = output[min(first):][:6000] if first else output[-4000:]  # the first failure, not the CPU table
    assert proc.returncode == 0, tail
    summary = proc.stdout.strip().splitlines()[-1]
    print("as an ordinary user:", summary)
    assert " passed" in summary and " failed" not in summary, tail
    skipped = [ln for ln in proc.stdout.splitlines() if ln.startswith("SKIPPED")]
    assert not any("bwrap:" in ln for ln in skipped), skipped  # bwrap ran; only root-only backends skip
    if any(user_wheels().glob("*.whl")):  # the environment the ordinary user set up was used, not skipped
        assert not any("no sandbox wheels" in ln for ln in skipped), skipped
