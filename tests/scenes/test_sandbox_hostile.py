"""Hostile programs for the hardening issue's sandbox points (IPC, sockets, visible files, memory, ptys).

Each program was written for this test and does what a hostile renderer did on the old
sandbox; each runs on every available isolating backend and is checked from the host:

1. IPC: SysV shared memory (3 x 64 MiB), a SysV message queue and semaphore set, and a POSIX
   message queue are created and left behind with a marker; the host must see none of them
   afterwards, and a second run must not find them.
2. Sockets: a unix socket the test listens on (world-writable, in a world-searchable
   directory) and an abstract unix socket must be unreachable.
3. Files: a file the test plants, physeval's own sources and the scene bank's verification
   questions must be invisible; the root holds only what the interpreter needs.
4. Memory: memfd pages, forked children and SysV segments beyond the run's memory limit must
   not be held by the host: the run ends at the limit and host free memory barely moves.
5. ptys and ``/dev/shm``: a private devpts and a size-limited ``/dev/shm``.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import socket
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from _sandbox_helpers import KERNEL_MEMORY, RunMemory, posix_mq_exists

import physeval
from physeval.scenes.sandbox import SandboxLimits, run_sandboxed

pytestmark = pytest.mark.usefixtures("contained")
FAST = SandboxLimits(wall_s=30)
SMALL = SandboxLimits(wall_s=30, memory_bytes=512 << 20)

IPC_LEAVER = r"""
import ctypes, json, os, sys
libc = ctypes.CDLL(None, use_errno=True)
librt = ctypes.CDLL("librt.so.1", use_errno=True)
libc.shmat.restype = ctypes.c_void_p
key, mq_name = int(sys.argv[1]), sys.argv[2].encode()
IPC_CREAT = 0o1000
made = {}
for i in range(3):  # 3 x 64 MiB of SysV shared memory, touched, left attached to nobody
    shmid = libc.shmget(key + i, 64 << 20, IPC_CREAT | 0o666)
    addr = libc.shmat(shmid, None, 0)
    ctypes.memset(addr, 0x5A, 64 << 20)
    ctypes.memmove(addr, b"MARKER-FROM-RUN-1", 17)
    libc.shmdt(ctypes.c_void_p(addr))
    made["shm%d" % i] = shmid
made["msg"] = libc.msgget(key + 10, IPC_CREAT | 0o666)
made["sem"] = libc.semget(key + 20, 4, IPC_CREAT | 0o666)
librt.mq_open.restype = ctypes.c_int
made["mq"] = librt.mq_open(mq_name, os.O_CREAT | os.O_RDWR, 0o666, None)
print(json.dumps(made))
"""

IPC_READER = r"""
import ctypes, json, os, sys
libc = ctypes.CDLL(None, use_errno=True)
librt = ctypes.CDLL("librt.so.1", use_errno=True)
key, mq_name = int(sys.argv[1]), sys.argv[2].encode()
found = {}
found["shm"] = [libc.shmget(key + i, 0, 0) for i in range(3)]
found["msg"] = libc.msgget(key + 10, 0)
found["sem"] = libc.semget(key + 20, 0, 0)
found["mq"] = librt.mq_open(mq_name, os.O_RDONLY)
found["sysvipc_shm"] = open("/proc/sysvipc/shm").read().splitlines()[1:]
print(json.dumps(found))
"""


@KERNEL_MEMORY
def test_ipc_objects_vanish_with_the_run_and_are_not_read_across_runs(
    backend: str,
) -> None:
    key = 0x50480000 + secrets.randbelow(1 << 15) * 32
    mq_name = f"/physeval-h3-{secrets.token_hex(4)}"
    first = run_sandboxed(IPC_LEAVER, args=[str(key), mq_name], limits=FAST, sandbox=backend)
    assert first.ok, first.stderr_tail
    made = json.loads(first.stdout_tail)
    assert all(v >= 0 for v in made.values()), made  # inside, every object was created
    assert not posix_mq_exists(mq_name), "the POSIX message queue outlived the run on the host"
    second = run_sandboxed(IPC_READER, args=[str(key), mq_name], limits=FAST, sandbox=backend)
    assert second.ok, second.stderr_tail
    found = json.loads(second.stdout_tail)
    assert found == {
        "shm": [-1, -1, -1],
        "msg": -1,
        "sem": -1,
        "mq": -1,
        "sysvipc_shm": [],
    }
    # (the contained fixture checks that no SysV object of the run is left on the host)


@pytest.fixture
def host_unix_sockets() -> Iterator[tuple[str, str, list[socket.socket]]]:
    """A world-writable filesystem unix socket under /tmp and an abstract one, both listening (non-blocking)."""
    sock_dir = Path(tempfile.mkdtemp(prefix="ph3-", dir="/tmp"))  # short: socket paths have 107 bytes
    os.chmod(sock_dir, 0o777)
    path = str(sock_dir / "host.sock")
    abstract = f"\0physeval-h3-{secrets.token_hex(6)}"
    servers = []
    for address in (path, abstract):
        server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        server.bind(address)
        server.listen(4)
        server.setblocking(False)
        servers.append(server)
    os.chmod(path, 0o777)
    yield path, abstract, servers
    for server in servers:
        server.close()
    shutil.rmtree(sock_dir, ignore_errors=True)


SOCKET_PROBE = r"""
import json, socket, sys
out = {}
for name, address in (("file", sys.argv[1]), ("abstract", "\0" + sys.argv[2])):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(2)
    try:
        s.connect(address)
        s.sendall(b"hello from the sandbox")
        out[name] = "connected"
    except OSError as exc:
        out[name] = type(exc).__name__
    finally:
        s.close()
print(json.dumps(out))
"""


def test_host_unix_sockets_are_unreachable(backend: str, host_unix_sockets: tuple[str, str, list]) -> None:
    path, abstract, servers = host_unix_sockets
    result = run_sandboxed(SOCKET_PROBE, args=[path, abstract[1:]], limits=FAST, sandbox=backend)
    assert result.ok, result.stderr_tail
    outcome = json.loads(result.stdout_tail)
    assert outcome["file"] == "FileNotFoundError"  # the directory is not even visible
    assert outcome["abstract"] in (
        "ConnectionRefusedError",
        "FileNotFoundError",
    )  # another network namespace
    for server in servers:
        with pytest.raises(BlockingIOError):
            server.accept()  # nothing ever arrived


FILE_PROBE = r"""
import json, os, sys
out = {}
for path in sys.argv[1:]:
    try:
        with open(path) as fh:
            out[path] = "read: " + fh.read(40)
    except OSError as exc:
        out[path] = type(exc).__name__
out["/"] = sorted(os.listdir("/"))
print(json.dumps(out))
"""


def test_files_outside_the_bound_paths_are_invisible(backend: str, tmp_path: Path) -> None:
    planted = tmp_path / "planted-secret.txt"
    planted.write_text("the test planted this")
    planted.chmod(0o644)
    os.chmod(tmp_path, 0o755)
    package = Path(physeval.__file__).resolve().parent
    targets = [
        str(planted),
        str(package / "scenes" / "bank" / "mechanics.yaml"),  # the verification questions
        str(package / "scenes" / "sandbox" / "host.py"),  # physeval's own sources
        str(Path(__file__).resolve()),
        "/etc/hostname",
        "/etc/shadow",
    ]
    result = run_sandboxed(FILE_PROBE, args=targets, limits=FAST, sandbox=backend)
    assert result.ok, result.stderr_tail
    seen = json.loads(result.stdout_tail)
    for path in targets:
        assert seen[path] in ("FileNotFoundError", "PermissionError"), (
            path,
            seen[path],
        )
    assert {"home", "run", "var", "srv", "opt", "mnt", "sys"}.isdisjoint(seen["/"]), seen["/"]
    assert {"usr", "proc", "dev", "tmp", "etc"} <= set(seen["/"])


MEMFD_HOG = r"""
import os
fds = []
for i in range(24):  # 24 x 64 MiB = 1.5 GiB of memfd pages, never mapped (RLIMIT_AS cannot see them)
    fd = os.memfd_create("hog%d" % i)
    os.write(fd, b"\x5a" * (64 << 20))
    fds.append(fd)
print("held 1.5 GiB in memfds")
"""

FORK_HOG = r"""
import os, time
children = []
for i in range(4):  # 4 children x 400 MiB, each under the per-process limit, together over it
    pid = os.fork()
    if pid == 0:
        block = bytearray(400 << 20)
        for j in range(0, len(block), 4096):
            block[j] = 1
        time.sleep(30)
        os._exit(0)
    children.append(pid)
for pid in children:
    os.waitpid(pid, 0)
print("all children held their memory")
"""

SYSV_HOG = r"""
import ctypes, time
libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
for i in range(6):  # 6 x 256 MiB segments, filled and detached: no process maps them any more
    shmid = libc.shmget(0, 256 << 20, 0o1000 | 0o600)
    addr = libc.shmat(shmid, None, 0)
    ctypes.memset(addr, 1, 256 << 20)
    libc.shmdt(ctypes.c_void_p(addr))
time.sleep(30)
print("held 1.5 GiB of detached SysV memory")
"""


@pytest.mark.slow
@KERNEL_MEMORY
@pytest.mark.parametrize("program", [MEMFD_HOG, FORK_HOG, SYSV_HOG], ids=["memfd", "fork", "sysv"])
def test_memory_beyond_the_run_limit_is_not_held(backend: str, program: str) -> None:
    with RunMemory() as run:
        result = run_sandboxed(program, limits=SMALL, sandbox=backend)
    assert not result.ok, result.stdout_tail
    assert "held" not in result.stdout_tail
    if result.memory_accounting == "watched" and program is not MEMFD_HOG:
        assert result.killed_reason == "memory_limit", result
    if program is MEMFD_HOG and result.memory_accounting == "watched":
        assert "PermissionError" in result.stderr_tail  # memfd_create is refused without a cgroup
    assert run.peak < (512 << 20) + (768 << 20), f"the run held {run.peak >> 20} MiB"


PTY_AND_SHM = r"""
import json, os
ptys = []
try:
    for _ in range(100):
        ptys.append(os.openpty())
except OSError as exc:
    error = type(exc).__name__
else:
    error = None
try:
    with open("/dev/shm/fill", "wb") as fh:
        for _ in range(32):
            fh.write(b"\0" * (4 << 20))
    shm = "wrote 128 MiB"
except OSError as exc:
    shm = type(exc).__name__
print(json.dumps({"ptys": len(ptys), "error": error, "names": sorted(os.listdir("/dev/pts"))[:3], "shm": shm}))
"""


@KERNEL_MEMORY
def test_ptys_and_dev_shm_are_private_and_bounded(backend: str) -> None:
    host_pts = set(os.listdir("/dev/pts"))
    result = run_sandboxed(
        PTY_AND_SHM,
        limits=SandboxLimits(wall_s=30, shm_bytes=16 << 20),
        sandbox=backend,
    )
    assert result.ok, result.stderr_tail
    seen = json.loads(result.stdout_tail)
    assert seen["shm"] == "OSError" or seen["shm"].startswith("No space") or seen["shm"] != "wrote 128 MiB"
    assert seen["names"][:1] == ["0"] or seen["ptys"] == 0  # numbering starts afresh: a private devpts
    if backend == "namespaces":
        assert seen["ptys"] <= 16 and seen["error"] == "OSError"
    assert len(set(os.listdir("/dev/pts")) - host_pts) < 50  # the host's pty pool did not fill
