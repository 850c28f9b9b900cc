"""Shared fixtures of the sandbox tests: the backends to run on and a leak check of the host.

Other test sessions may run sandboxes on this machine at the same time, so the leak check
only looks at what this test could have made: runs get a uid range of their own (as root)
and a temporary directory of their own.
"""

from __future__ import annotations

import ctypes
import glob
import os
import secrets
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from physeval.scenes.sandbox import backend_names, get_backend

ISOLATING = [n for n in backend_names() if get_backend(n).isolating]
AVAILABLE = [n for n in ISOLATING if get_backend(n).available()[0]]
WHY_NOT = {n: get_backend(n).available()[1] for n in ISOLATING if n not in AVAILABLE}


def backend_params() -> list[object]:
    """One pytest param per isolating backend; unavailable ones skip with the backend's reason."""
    return [
        pytest.param(
            n,
            id=n,
            marks=()
            if n in AVAILABLE
            else pytest.mark.skip(reason=f"{n}: {WHY_NOT[n]}"),
        )
        for n in ISOLATING
    ]


@pytest.fixture(params=backend_params())
def backend(request: pytest.FixtureRequest) -> str:
    """The name of an available isolating sandbox backend (the test runs once per backend)."""
    return str(request.param)


def _uid_of(pid_dir: str) -> int | None:
    try:
        line = next(
            ln
            for ln in Path(pid_dir, "status").read_text().splitlines()
            if ln.startswith("Uid:")
        )
    except (OSError, StopIteration):
        return None
    return int(line.split()[1])


def pids_in_uid_range(lo: int, hi: int) -> set[int]:
    """Live processes whose real uid is in ``[lo, hi)``."""
    found = set()
    for pid_dir in glob.glob("/proc/[0-9]*"):
        uid = _uid_of(pid_dir)
        if uid is not None and lo <= uid < hi:
            found.add(int(pid_dir.rsplit("/", 1)[1]))
    return found


_CUID_COLUMN = {"shm": 9, "msg": 9, "sem": 6}


def host_sysv_objects() -> set[tuple[str, str, int]]:
    """Every SysV shared-memory segment, message queue and semaphore set on the host: (kind, id, creator uid)."""
    out = set()
    for kind, column in _CUID_COLUMN.items():
        try:
            lines = Path(f"/proc/sysvipc/{kind}").read_text().splitlines()[1:]
        except OSError:
            lines = []
        for ln in lines:
            fields = ln.split()
            out.add((kind, fields[1], int(fields[column])))
    return out


def posix_mq_exists(name: str) -> bool:
    """Whether the POSIX message queue ``name`` exists in the host's IPC namespace."""
    librt = ctypes.CDLL("librt.so.1", use_errno=True)
    librt.mq_open.restype = ctypes.c_int
    fd = librt.mq_open(name.encode(), os.O_RDONLY)
    if fd >= 0:
        librt.mq_close(fd)
        return True
    return False


@pytest.fixture
def contained(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Give this test's runs their own uid range and temporary directory; afterwards check that
    no process of theirs lives, no sandbox directory is left and no SysV IPC object was added."""
    from physeval.scenes.sandbox import host

    lo = 1_900_000_000 + secrets.randbelow(1000) * 100_000
    monkeypatch.setattr(host, "UID_RANGE", (lo, lo + 100_000))
    private_tmp = tmp_path / "tmp"
    private_tmp.mkdir()
    os.chmod(tmp_path, 0o755)
    monkeypatch.setattr(tempfile, "tempdir", str(private_tmp))
    ipc_before = host_sysv_objects()
    yield tmp_path
    deadline = time.monotonic() + 5
    while pids_in_uid_range(lo, lo + 100_000) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert pids_in_uid_range(lo, lo + 100_000) == set(), (
        "a sandboxed process outlived its run"
    )
    assert not glob.glob(str(private_tmp / "physeval-sandbox-*")), (
        "a sandbox working directory was left behind"
    )
    mine = (
        range(lo, lo + 100_000)
        if os.geteuid() == 0
        else range(os.getuid(), os.getuid() + 1)
    )
    left = {obj for obj in host_sysv_objects() - ipc_before if obj[2] in mine}
    assert left == set(), f"SysV IPC objects left on the host: {left}"
