"""Shared fixtures of the sandbox tests: the backends to run on and a leak check of the host.

Other test sessions may run sandboxes on this machine at the same time, so the leak check
only looks at what this test could have made: runs get a uid range of their own (as root)
and a temporary directory of their own.
"""

from __future__ import annotations

import glob
import os
import secrets
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from _sandbox_helpers import (
    AVAILABLE,
    ISOLATING,
    WHY_NOT,
    dying,
    host_sysv_objects,
    in_another_pid_namespace,
    pids_in_uid_range,
    wait_until_gone,
)


def backend_params() -> list[object]:
    """One pytest param per isolating backend; unavailable ones skip with the backend's reason."""
    return [
        pytest.param(
            n,
            id=n,
            marks=() if n in AVAILABLE else pytest.mark.skip(reason=f"{n}: {WHY_NOT[n]}"),
        )
        for n in ISOLATING
    ]


@pytest.fixture(params=backend_params())
def backend(request: pytest.FixtureRequest) -> str:
    """The name of an available isolating sandbox backend (the test runs once per backend)."""
    return str(request.param)


@pytest.fixture
def contained(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> Iterator[Path]:
    """Give this test's runs their own uid range and temporary directory; afterwards check that
    no process of theirs lives, no sandbox directory is left and no SysV IPC object was added."""
    from physeval.scenes.sandbox import host

    lo = 1_900_000_000 + secrets.randbelow(1000) * 100_000
    monkeypatch.setattr(host, "UID_RANGE", (lo, lo + 100_000))
    # A short temporary directory of its own, not one under tmp_path: a unix socket's path may
    # not pass 107 bytes, and pytest-xdist's tmp_path (.../popen-gw0/test_name0/) puts the
    # socket `sandbox check` binds there past it (AF_UNIX path too long).
    private_tmp = Path(tempfile.mkdtemp(prefix="pe-"))
    request.addfinalizer(lambda: shutil.rmtree(private_tmp, ignore_errors=True))
    os.chmod(tmp_path, 0o755)
    os.chmod(private_tmp, 0o755)
    monkeypatch.setattr(tempfile, "tempdir", str(private_tmp))
    ipc_before = host_sysv_objects()
    root = os.geteuid() == 0
    own = (lo, lo + 100_000) if root else (os.getuid(), os.getuid() + 1)
    before = pids_in_uid_range(*own)  # as an ordinary user: this test session's own processes

    def leftovers() -> set[int]:
        new = pids_in_uid_range(*own) - before
        # as root the range is this test's alone; as an ordinary user, a sandboxed process is one in another
        # PID namespace (the session's own new processes, a worker pool say, are not the sandbox's)
        return new if root else {pid for pid in new if in_another_pid_namespace(pid)}

    yield tmp_path
    left = leftovers()
    # The run returns when its direct child is reaped; the kernel then tears the nested PID
    # namespaces down, killing their processes a moment later. Their exits are events (pidfds):
    # wait for them, the bound only a hang guard; what is still neither gone nor dying after it
    # outlived its run.
    wait_until_gone(left, bound_s=120.0)
    alive = {pid for pid in left if not dying(pid)}
    assert alive == set(), f"a sandboxed process outlived its run: {_describe(alive)}"
    assert not glob.glob(str(private_tmp / "physeval-sandbox-*")), "a sandbox working directory was left behind"
    left = {obj for obj in host_sysv_objects() - ipc_before if own[0] <= obj[2] < own[1]}
    assert left == set(), f"SysV IPC objects left on the host: {left}"


def _describe(pids: set[int]) -> dict[int, str]:
    """Each process's state, pending signals and command line (for the failure message)."""
    out = {}
    for pid in pids:
        try:
            status = Path(f"/proc/{pid}/status").read_text().splitlines()
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")[:120].decode(errors="replace")
        except OSError:
            out[pid] = "gone"
            continue
        keep = [ln for ln in status if ln.split(":")[0] in ("State", "SigPnd", "ShdPnd", "PPid", "NSpid")]
        out[pid] = "; ".join(keep) + f"; cmd {cmd}"
    return out
