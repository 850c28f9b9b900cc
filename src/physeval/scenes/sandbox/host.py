"""The host side of one sandboxed run, shared by every backend.

A run: reserve the run's footprint in the memory budget; make a private working directory
(only the program file and the descriptors below live there); open, on the host, one
descriptor for the init's status JSON and one per file to collect, and hand them to the
sandbox, so nothing of the host is ever mounted writable; make a per-run cgroup when the host
allows (:mod:`.cgroup`); let the backend turn the init's configuration into a command line;
start it in a new session with a minimal environment; drain stdout and stderr into capped
tails; enforce a host-side deadline (the init enforces the wall clock itself; this is the
backstop); then read the status, move the collected files out, and remove everything.

The host trusts nothing the sandbox returns beyond what it asked for: only names it asked to
collect, only regular files it created itself, only as many bytes as the status claims and
the file-size limit allows.
"""

from __future__ import annotations

import errno
import json
import os
import secrets
import selectors
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from physeval.scenes.sandbox.budget import MemoryBudget, default_budget
from physeval.scenes.sandbox.cgroup import RunCgroup, cgroup_support
from physeval.scenes.sandbox.context import STAGE_ROOT, Launcher, RunContext, init_interpreter
from physeval.scenes.sandbox.limits import INODE_BYTES, SandboxLimits, SandboxResult
from physeval.scenes.sandbox.mounts import MINIMAL_PATH
from physeval.scenes.sandbox.seccomp import compile_filter

__all__ = ["execute"]

SETUP_FAILED_CODE = 125
UID_RANGE = (1_000_000, 1_900_000_000)

# Runs between fork and the backend, as the caller: join the run's cgroup; when root, stage the
# binds (see RunContext.stage), then drop to the sandbox uid; then run the backend as a child,
# as a child subreaper, so that every process the backend leaves (bwrap's reaper) is reaped here,
# not handed to the host's init as a zombie; die with physeval (PR_SET_PDEATHSIG).
_LAUNCHER = """
import ctypes, json, os, sys
cfg = json.loads(sys.argv[1])
if cfg["procs"]:
    with open(cfg["procs"], "w") as fh:
        fh.write("0")
if cfg["stage"]:
    libc = ctypes.CDLL(None, use_errno=True)
    def ok(r, what):
        if r != 0:
            e = ctypes.get_errno()
            raise OSError(e, os.strerror(e), what)
    ok(libc.unshare(0x20000), "unshare(CLONE_NEWNS)")
    ok(libc.mount(None, b"/", None, ctypes.c_ulong(0x4000 | 0x40000), None), "make / private")
    fds = [os.open(src, os.O_PATH) for src, _, _ in cfg["stage"]]  # in the new namespace, before /tmp is covered
    ok(libc.mount(b"tmpfs", b"/tmp", b"tmpfs", ctypes.c_ulong(2 | 4), b"size=1m,mode=0755"), "stage tmpfs")
    os.mkdir(cfg["stage_root"], 0o755)
    for fd, (src, path, kind) in zip(fds, cfg["stage"]):
        if kind == "dir":
            os.mkdir(path, 0o755)
        else:
            open(path, "w").close()
        flags = ctypes.c_ulong(0x1000 | 0x4000)  # MS_BIND | MS_REC
        ok(libc.mount(f"/proc/self/fd/{fd}".encode(), path.encode(), None, flags, None), src)
        os.close(fd)
if cfg["uid"] >= 0:
    os.setgroups([])
    os.setresgid(cfg["gid"], cfg["gid"], cfg["gid"])
    os.setresuid(cfg["uid"], cfg["uid"], cfg["uid"])
libc = ctypes.CDLL(None, use_errno=True)
libc.prctl(1, 9, 0, 0, 0)  # PR_SET_PDEATHSIG: SIGKILL when physeval dies
libc.prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
child = os.fork()
if child == 0:
    libc.prctl(1, 9, 0, 0, 0)  # the backend dies with the launcher too (kept across exec)
    os.execv(sys.argv[2], sys.argv[2:])
result = 0
while True:
    try:
        pid, status = os.wait()
    except ChildProcessError:
        break
    if pid == child:
        result = status
if os.WIFSIGNALED(result):
    os.kill(os.getpid(), os.WTERMSIG(result))
os._exit(os.WEXITSTATUS(result))
"""


def execute(
    backend: Launcher,
    code: str,
    args: Sequence[str],
    limits: SandboxLimits,
    python: str,
    collect: Sequence[str],
    collect_dir: str | os.PathLike[str] | None,
    budget: MemoryBudget | None = None,
) -> SandboxResult:
    """Run ``code`` through ``backend`` (see the module docstring); never raises for the program."""
    for name in collect:
        if not name or "/" in name or name in (".", ".."):
            raise ValueError(f"collect names must be plain file names, not {name!r}")
    if collect and collect_dir is None:
        raise ValueError("collect_dir is required when collect is given")
    with (budget or default_budget()).reserve(limits.footprint_bytes() if backend.isolating else limits.memory_bytes):
        workdir = tempfile.mkdtemp(prefix="physeval-sandbox-")
        try:
            return _execute(backend, code, args, limits, python, collect, collect_dir, workdir)
        finally:
            shutil.rmtree(workdir, ignore_errors=True)


def _execute(
    backend: Launcher,
    code: str,
    args: Sequence[str],
    limits: SandboxLimits,
    python: str,
    collect: Sequence[str],
    collect_dir: str | os.PathLike[str] | None,
    workdir: str,
) -> SandboxResult:
    os.chmod(workdir, 0o711)
    box = os.path.join(workdir, "box")
    script = os.path.join(workdir, "program.py")
    with open(script, "w", encoding="utf-8") as fh:
        fh.write(code)
    os.chmod(script, 0o644)
    if backend.isolating and os.geteuid() == 0:
        uid = gid = secrets.randbelow(UID_RANGE[1] - UID_RANGE[0]) + UID_RANGE[0]
    else:
        uid, gid = os.getuid(), os.getgid()
    status_fd = os.open(os.path.join(workdir, "status.json"), os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
    collect_fds = {
        name: os.open(
            os.path.join(workdir, "out-" + name),
            os.O_RDWR | os.O_CREAT | os.O_EXCL,
            0o600,
        )
        for name in collect
    }
    support = cgroup_support() if backend.isolating else None
    cgroup = RunCgroup(support.base, limits.memory_bytes, limits.processes) if support and support.base else None
    watch = backend.isolating and cgroup is None
    env = _program_env(box, limits, python)
    ctx = RunContext(
        workdir=workdir,
        box=box,
        script=script,
        python=python,
        limits=limits,
        uid=uid,
        gid=gid,
        pass_fds=[status_fd, *collect_fds.values()],
        cfg={
            "mode": backend.name,
            "pidns": backend.isolating,
            "identity": "none",  # a backend says how the program becomes the sandbox uid
            "uid": uid,
            "gid": gid,
            "box": box,
            "wall_s": limits.wall_s,
            "watch_memory": limits.memory_bytes if watch else None,
            "seccomp": _filter_hex(memfd=watch) if backend.isolating else None,
            "tmpfs": [
                ("/tmp", limits.tmp_bytes, limits.inodes, 0o1777, False),
                ("/dev/shm", limits.shm_bytes, limits.inodes, 0o1777, False),
                (box, limits.disk_bytes, limits.inodes, 0o700, True),
            ],
            "ptys": limits.ptys,
            "inode_bytes": INODE_BYTES,
            "limits": {
                k: getattr(limits, k)
                for k in (
                    "cpu_s",
                    "memory_bytes",
                    "file_bytes",
                    "open_files",
                    "processes",
                    "msgqueue_bytes",
                )
            },
            "argv": [
                python,
                "-s",
                script,
                *(a.replace("{workdir}", box) for a in args),
            ],
            "env": env,
            "fds": {"status": status_fd, "collect": collect_fds},
        },
    )
    try:
        cmd = backend.command(ctx)
        # The launcher always runs: it joins the cgroup, stages, drops the uid and reaps.
        uid, gid = ctx.drop_to or (-1, -1)
        launch = {
            "procs": cgroup.procs if cgroup else "",
            "uid": uid,
            "gid": gid,
            "stage": ctx.staged,
            "stage_root": STAGE_ROOT,
        }
        cmd = [
            init_interpreter(),
            "-I",
            "-S",
            "-c",
            _LAUNCHER,
            json.dumps(launch),
            *cmd,
        ]
        return _launch(backend, ctx, cmd, cgroup, status_fd, collect_fds, collect_dir, watch)
    finally:
        for fd in (status_fd, *collect_fds.values()):
            os.close(fd)
        if cgroup is not None:
            cgroup.close()


def _launch(
    backend: Launcher,
    ctx: RunContext,
    cmd: list[str],
    cgroup: RunCgroup | None,
    status_fd: int,
    collect_fds: dict[str, int],
    collect_dir: str | os.PathLike[str] | None,
    watch: bool,
) -> SandboxResult:
    limits = ctx.limits
    stdout, stderr = _Tail(limits.output_bytes), _Tail(limits.output_bytes)
    start = time.monotonic()
    proc = subprocess.Popen(
        cmd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=ctx.workdir,
        env={"PATH": MINIMAL_PATH, "LANG": "C.UTF-8"},
        start_new_session=True,
        pass_fds=tuple(ctx.pass_fds),
    )
    killed_reason = _pump(proc, stdout, stderr, limits, start)
    _, wstatus, rusage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(wstatus)
    host_wall = time.monotonic() - start
    status = _read_status(status_fd)
    files = _move_collected(status, collect_fds, ctx, collect_dir)

    setup_error = status.get("setup_error")
    exit_code = status.get("exit_code")
    sig = status.get("signal")
    timed_out = bool(status.get("timed_out"))
    if not status:  # init never wrote a status: it was killed (host deadline, output cap) or never started
        if os.WIFSIGNALED(wstatus):
            sig = os.WTERMSIG(wstatus)
        elif os.WIFEXITED(wstatus):
            exit_code = os.WEXITSTATUS(wstatus)
            setup_error = _startup_failure(stderr.text(), exit_code, killed_reason)
    oom = cgroup.oom_killed() if cgroup is not None else False
    if timed_out:
        killed_reason = "timeout"
    elif killed_reason is None and (status.get("memory_killed") or oom):
        killed_reason = "memory_limit"
    elif killed_reason is None and (
        sig == signal.SIGXCPU or (sig == signal.SIGKILL and (status.get("cpu_s") or 0) >= limits.cpu_s)
    ):
        killed_reason = "cpu_limit"
    if killed_reason == "timeout":
        timed_out = True
    maxrss = status.get("maxrss_kb") or rusage.ru_maxrss
    peak_total = cgroup.peak_bytes() if cgroup is not None else status.get("peak_total")
    return SandboxResult(
        exit_code=None if sig is not None else exit_code,
        signal=sig,
        timed_out=timed_out,
        killed_reason=killed_reason,
        wall_s=round(float(status.get("wall_s") or host_wall), 4),
        cpu_s=status.get("cpu_s"),
        peak_memory_bytes=int(maxrss) * 1024 if maxrss else None,
        stdout_tail=stdout.text(),
        stderr_tail=stderr.text(),
        stdout_bytes=stdout.total,
        stderr_bytes=stderr.total,
        files=files,
        workdir_files={str(k): int(v) for k, v in (status.get("listing") or {}).items()},
        mode=backend.name,
        memory_accounting="cgroup" if cgroup is not None else ("watched" if watch else "rlimit"),
        peak_total_memory_bytes=int(peak_total) if peak_total else None,
        setup_error=setup_error,
    )


def _filter_hex(*, memfd: bool) -> str | None:
    prog = compile_filter(memfd=memfd)
    return prog.hex() if prog is not None else None


def _startup_failure(stderr: str, exit_code: int, killed_reason: str | None) -> str | None:
    """A setup error when the init (or the backend before it) failed before writing a status."""
    if killed_reason is not None:
        return None
    lines = [ln for ln in stderr.strip().splitlines() if ln.strip()]
    tagged = [ln for ln in lines if ln.startswith(("physeval-sandbox", "bwrap:", "unshare:"))]
    if tagged:
        return tagged[-1][:500]
    if exit_code == SETUP_FAILED_CODE or exit_code != 0:
        return lines[-1][:500] if lines else f"the sandbox exited with status {exit_code} before the program ran"
    return None


def _move_collected(
    status: dict[str, Any],
    fds: dict[str, int],
    ctx: RunContext,
    collect_dir: str | os.PathLike[str] | None,
) -> dict[str, str]:
    files: dict[str, str] = {}
    claimed = status.get("collected") or {}
    if not isinstance(claimed, dict) or collect_dir is None:
        return files
    dest = Path(collect_dir)
    for name, fd in fds.items():
        size = claimed.get(name)
        if not isinstance(size, int) or size < 0:
            continue
        os.ftruncate(fd, min(size, ctx.limits.file_bytes))  # the claimed length; the holes stay holes
        dest.mkdir(parents=True, exist_ok=True)
        target = dest / name
        move_sparse(os.path.join(ctx.workdir, "out-" + name), str(target))
        files[name] = str(target.resolve())
    return files


def move_sparse(src: str, dst: str) -> None:
    """Move ``src`` to ``dst``: a rename on one filesystem, else a copy of the data only, holes kept.

    Why not :func:`shutil.move`: across filesystems it copies every byte of the apparent size,
    so a sparse file that held almost nothing in the sandbox would take its full length of disk.
    """
    try:
        os.rename(src, dst)
        return
    except OSError as exc:
        if exc.errno != errno.EXDEV:
            raise
    fd_in = os.open(src, os.O_RDONLY)
    try:
        fd_out = os.open(dst, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        try:
            size = os.fstat(fd_in).st_size
            offset = 0
            while offset < size:
                try:
                    start = os.lseek(fd_in, offset, os.SEEK_DATA)
                except OSError:  # ENXIO: only a hole is left
                    break
                end = os.lseek(fd_in, start, os.SEEK_HOLE)
                while start < end:
                    chunk = os.pread(fd_in, min(end - start, 1 << 20), start)
                    if not chunk:
                        break
                    start += os.pwrite(fd_out, chunk, start)
                offset = end
            os.ftruncate(fd_out, size)
        finally:
            os.close(fd_out)
    finally:
        os.close(fd_in)
    os.unlink(src)


def _program_env(box: str, limits: SandboxLimits, python: str) -> dict[str, str]:
    threads = str(max(1, limits.threads))
    path = MINIMAL_PATH
    pybin = os.path.dirname(python)
    if pybin and pybin not in path.split(":"):
        path = pybin + ":" + path
    return {
        "PATH": path,
        "HOME": os.path.join(box, ".home"),
        "TMPDIR": os.path.join(box, ".tmp"),
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "MPLBACKEND": "Agg",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONUNBUFFERED": "1",
        "OMP_NUM_THREADS": threads,
        "OPENBLAS_NUM_THREADS": threads,
        "MKL_NUM_THREADS": threads,
        "NUMEXPR_NUM_THREADS": threads,
    }


class _Tail:
    """Keep the last ``cap`` bytes of a stream and count all of them."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.total = 0
        self.buf = bytearray()

    def add(self, data: bytes) -> None:
        self.total += len(data)
        self.buf += data[-self.cap :]
        if len(self.buf) > self.cap:
            del self.buf[: len(self.buf) - self.cap]

    def text(self) -> str:
        return bytes(self.buf).decode("utf-8", errors="replace")


def _pump(
    proc: subprocess.Popen[bytes],
    stdout: _Tail,
    stderr: _Tail,
    limits: SandboxLimits,
    start: float,
) -> str | None:
    """Drain both pipes into capped tails until EOF; kill the group at the host deadline."""
    deadline = start + limits.wall_s + 10.0  # the init enforces wall_s itself; this is the backstop
    sel = selectors.DefaultSelector()
    assert proc.stdout is not None and proc.stderr is not None
    sel.register(proc.stdout, selectors.EVENT_READ, stdout)
    sel.register(proc.stderr, selectors.EVENT_READ, stderr)
    reason: str | None = None
    try:
        while sel.get_map():
            left = deadline - time.monotonic()
            if left <= 0:
                reason = "timeout"
                break
            for key, _ in sel.select(timeout=min(left, 1.0)):
                data = os.read(key.fd, 1 << 16)
                if not data:
                    sel.unregister(key.fileobj)
                    continue
                key.data.add(data)
            if stdout.total + stderr.total > limits.max_output_bytes:
                reason = "output_limit"
                break
    finally:
        sel.close()
    if reason is not None:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    proc.stdout.close()
    proc.stderr.close()
    return reason


def _read_status(fd: int) -> dict[str, Any]:
    try:
        os.lseek(fd, 0, os.SEEK_SET)
        raw = os.read(fd, 1 << 20)
        data = json.loads(raw) if raw else {}
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}
