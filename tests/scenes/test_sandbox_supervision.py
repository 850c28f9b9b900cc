"""Hostile programs of the second hardening round: supervision, kernel memory, ptys, sparse files.

Each program was written for this test; each runs on every available isolating backend (as
root here, and as an ordinary user through ``test_sandbox_unprivileged.py``) and is checked
from the host:

1. A program that kills or stops whatever it can reach (its parent, ``kill(-1)``, every PID it
   sees) or traces PID 1 ends as its own failure (stage ``error``) or, having exited 0,
   ``executable``; never ``sandbox_error`` and never the wall clock.
2. Inode exhaustion: empty files until every tmpfs refuses more; the host's available memory
   stays within 256 MiB of its start (each tmpfs has ``nr_inodes``).
3. 200 ptys: refused past the pty cap.
4. A sparse 10 GiB file: what reaches the host takes no more disk than the sandbox's disk limit.
5. The calls the seccomp filter refuses are refused (``ptrace``, ``process_vm_readv``,
   ``AF_VSOCK``, a new user namespace).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from _sandbox_helpers import KERNEL_MEMORY, RunMemory

from physeval.scenes.render import render_program
from physeval.scenes.sandbox import SandboxLimits, run_sandboxed
from physeval.scenes.sandbox.host import move_sparse

pytestmark = pytest.mark.usefixtures("contained")
WALL = 60.0  # far beyond what each program needs: reaching it would be the failure under test

KILL_PARENT = r"""
import os, signal
os.kill(os.getppid(), signal.SIGKILL)
print("still here after killing my parent")
"""

KILL_EVERYTHING = r"""
import os, signal
for sig in (signal.SIGSTOP, signal.SIGKILL):
    try:
        os.kill(-1, sig)
    except ProcessLookupError:
        pass
me = os.getpid()
for entry in os.listdir("/proc"):
    if entry.isdigit() and int(entry) != me:
        for sig in (signal.SIGSTOP, signal.SIGKILL):
            try:
                os.kill(int(entry), sig)
            except OSError:
                pass
print("killed and stopped all I could see")
"""

TRACE_PID_1 = r"""
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
PTRACE_ATTACH, PTRACE_SEIZE, PTRACE_INTERRUPT = 16, 0x4206, 0x4207
attached = libc.ptrace(PTRACE_ATTACH, 1, 0, 0)
attach_errno = ctypes.get_errno()
seized = libc.ptrace(PTRACE_SEIZE, 1, 0, 0)
print("attach", attached, os.strerror(attach_errno), "seize", seized)
"""

CRASH_AFTER_KILLING = KILL_EVERYTHING + "raise SystemExit(7)\n"


@pytest.mark.parametrize(
    ("program", "stages"),
    [(KILL_PARENT, {"executable", "error"}),  # error where kill() is refused (EPERM) and not caught
     (KILL_EVERYTHING, {"executable"}), (TRACE_PID_1, {"executable"}), (CRASH_AFTER_KILLING, {"error"})],
    ids=["kill-parent", "kill-all", "ptrace-pid-1", "kill-all-then-exit-7"],
)
def test_a_program_that_attacks_its_supervision_ends_as_its_own_outcome(
    backend: str, program: str, stages: set[str], tmp_path: Path
) -> None:
    render = render_program(program, timeout=WALL, keep_dir=tmp_path, sandbox=backend)
    assert render.stage in stages, render
    assert render.killed_reason is None  # not the wall clock: the run ended when the program did
    assert "sandbox" not in render.reason


def test_ptrace_of_pid_1_is_refused_and_the_program_goes_on(backend: str) -> None:
    result = run_sandboxed(TRACE_PID_1, limits=SandboxLimits(wall_s=WALL), sandbox=backend)
    assert result.ok, result
    assert result.stdout_tail.split()[:3] == ["attach", "-1", "Operation"]


INODE_EXHAUSTER = r"""
import json, os, sys
made = {}
for top in ("/tmp", "/dev/shm", "."):
    d = os.path.join(top, "many")
    os.mkdir(d)
    n = 0
    try:
        while True:
            open(os.path.join(d, str(n)), "w").close()
            n += 1
    except OSError as exc:
        made[top] = [n, exc.errno]
print(json.dumps(made))
"""


@pytest.mark.slow
@KERNEL_MEMORY
def test_inode_exhaustion_is_bounded_on_every_tmpfs(backend: str) -> None:
    limits = SandboxLimits(wall_s=300)
    with RunMemory() as run:
        result = run_sandboxed(INODE_EXHAUSTER, limits=limits, sandbox=backend)
    assert result.ok, result.stderr_tail
    made = json.loads(result.stdout_tail)
    for top, (count, err) in made.items():
        assert err == 28 and count <= limits.inodes, (top, count, err)  # ENOSPC at the inode bound
    assert run.peak < 256 << 20, f"the run held {run.peak >> 20} MiB"


PTY_HOARDER = r"""
import os
held = []
try:
    for _ in range(200):
        held.append(os.openpty())
except OSError as exc:
    print(len(held), exc.errno)
else:
    print(len(held), 0)
"""


def test_ptys_are_refused_past_the_cap(backend: str) -> None:
    limits = SandboxLimits(wall_s=WALL, ptys=8, open_files=1024)
    result = run_sandboxed(PTY_HOARDER, limits=limits, sandbox=backend)
    assert result.ok, result.stderr_tail
    count, err = map(int, result.stdout_tail.split())
    assert count <= 8 and err == 28, (count, err)  # ENOSPC from the private devpts


SPARSE = r"""
import os, sys
path = sys.argv[1]
with open(path, "wb") as fh:
    try:
        fh.truncate(10 << 30)  # 10 GiB of hole
        size = 10 << 30
    except OSError:  # the file-size limit: as large as it allows
        size = int(sys.argv[2])
        fh.truncate(size)
    fh.seek(size // 2)
    fh.write(b"data in the middle" * 200)
print(os.stat(path).st_size)
"""


def test_a_sparse_file_takes_no_more_host_disk_than_it_held(backend: str, tmp_path: Path) -> None:
    limits = SandboxLimits(wall_s=WALL, disk_bytes=64 << 20, file_bytes=256 << 20)
    out = tmp_path / "out"
    result = run_sandboxed(SPARSE, args=["{workdir}/video.mp4", str(limits.file_bytes)], limits=limits,
                           collect=["video.mp4"], collect_dir=out, sandbox=backend)
    assert result.ok, result.stderr_tail
    kept = os.stat(result.files["video.mp4"])
    assert kept.st_size == limits.file_bytes  # the length is kept...
    assert kept.st_blocks * 512 <= limits.disk_bytes  # ...but not as disk
    assert kept.st_blocks * 512 < 1 << 20
    with open(result.files["video.mp4"], "rb") as fh:
        fh.seek(limits.file_bytes // 2)
        assert fh.read(18) == b"data in the middle"


def test_moving_a_sparse_file_across_filesystems_keeps_its_holes(tmp_path: Path) -> None:
    if not os.path.isdir("/dev/shm") or os.stat("/dev/shm").st_dev == os.stat(tmp_path).st_dev:
        pytest.skip("needs /dev/shm on another filesystem than the temporary directory")
    src = tmp_path / "sparse.bin"
    with open(src, "wb") as fh:
        fh.truncate(1 << 30)
        fh.seek(1 << 29)
        fh.write(b"x" * 4096)
    dest_dir = Path("/dev/shm") / f"physeval-sparse-test-{os.getpid()}"
    dest_dir.mkdir()
    try:
        move_sparse(str(src), str(dest_dir / "sparse.bin"))
        moved = os.stat(dest_dir / "sparse.bin")
        assert not src.exists()
        assert moved.st_size == 1 << 30 and moved.st_blocks * 512 <= 64 << 10
    finally:
        for p in dest_dir.iterdir():
            p.unlink()
        dest_dir.rmdir()


REFUSED = r"""
import ctypes, json, os, socket
libc = ctypes.CDLL(None, use_errno=True)
out = {}
def errno_of(result):
    return ctypes.get_errno() if result == -1 else 0
out["ptrace"] = errno_of(libc.ptrace(16, os.getppid() or 1, 0, 0))
iov = (ctypes.c_char * 8)()
out["process_vm_readv"] = errno_of(libc.process_vm_readv(1, ctypes.byref(iov), 1, ctypes.byref(iov), 1, 0))
try:
    socket.socket(40, socket.SOCK_STREAM)  # AF_VSOCK
    out["vsock"] = 0
except OSError as exc:
    out["vsock"] = exc.errno
out["unshare_user"] = errno_of(libc.unshare(0x10000000))
socket.socket(socket.AF_UNIX, socket.SOCK_STREAM).close()  # what a renderer needs still works
socket.socket(socket.AF_INET, socket.SOCK_DGRAM).close()
print(json.dumps(out))
"""


def test_the_seccomp_filter_refuses_what_a_renderer_never_needs(backend: str) -> None:
    result = run_sandboxed(REFUSED, limits=SandboxLimits(wall_s=WALL), sandbox=backend)
    assert result.ok, result.stderr_tail
    assert json.loads(result.stdout_tail) == {"ptrace": 1, "process_vm_readv": 1, "vsock": 97, "unshare_user": 1}
