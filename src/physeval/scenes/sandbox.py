"""Run untrusted Python programs (model-written scene renderers) in isolation.

Why: a scene sample is a program a model wrote; it must not see API keys, reach the network,
write outside its own directory, fork without end, or fill memory or disk. Everything here
uses only what a Linux host already has: ``unshare(1)`` from util-linux, ``mount(2)``,
``mount_setattr(2)``, ``setrlimit(2)`` and a throw-away user id.

How a run is isolated (mode ``"namespaces"``, used when running as root and ``unshare`` works):

* ``unshare --pid --fork --net --mount --mount-proc --kill-child`` starts a small init
  program (``_INIT_SOURCE``, run by the host interpreter with ``-I -S``) as PID 1 of fresh
  PID, network and mount namespaces. The network namespace holds only a loopback interface
  (left down), so nothing, not even the host's 127.0.0.1, is reachable. The PID namespace
  means the program sees only its own processes, and when init exits the kernel kills every
  process left in it (double-forked daemons included).
* In the mount namespace init makes every mount read-only (``mount_setattr`` with
  ``AT_RECURSIVE``), mounts a size-limited tmpfs as the program's working directory (the only
  writable place; ``HOME`` and ``TMPDIR`` live there), a private tmpfs on ``/dev/shm``, and
  hides ``/root`` and the caller's real ``HOME`` behind empty tmpfs mounts (re-binding only the
  interpreter directories that live there, read-only).
* The program then runs under a random unprivileged uid/gid (no supplementary groups, no
  capabilities, ``PR_SET_NO_NEW_PRIVS``) so the per-user ``RLIMIT_NPROC`` really bounds fork
  bombs (root is exempt from it) and file permissions add a second wall around the host.
* Resource limits on the program: CPU seconds, address space, file size, open files,
  processes/threads, no core dumps. Init enforces the wall-clock limit and then kills every
  process in the namespace; the host kills the whole process group a few seconds later if
  init itself does not finish.
* The environment is rebuilt from nothing (no inherited variables: no keys, no tokens).
* stdout and stderr are read by the host through pipes; only the last ``output_bytes`` of
  each are kept and a program writing more than ``max_output_bytes`` in total is killed.
* Files named in ``collect`` are copied by init (refusing symlinks and non-regular files) out
  of the tmpfs into a caller-given directory before the namespace goes away.

Fallback (mode ``"none"``: not root, or ``unshare`` unavailable): the program runs in its
own session with the same resource limits, scrubbed environment and capped output, but with
NO network isolation, NO filesystem write protection outside rlimits and NO uid switch. The
fallback warns loudly (``RuntimeWarning`` plus ``isolation_report()["warnings"]``), and
``SandboxLimits(require_isolation=True)`` turns it into an error instead.
"""

from __future__ import annotations

import functools
import json
import os
import secrets
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import venv
import warnings
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

__all__ = [
    "SandboxLimits",
    "SandboxResult",
    "SandboxUnavailable",
    "SANDBOX_PACKAGES",
    "run_sandboxed",
    "isolation_report",
    "setup_sandbox_env",
    "sandbox_venv_path",
    "default_sandbox_python",
]

SANDBOX_PACKAGES: tuple[str, ...] = (
    "numpy",
    "matplotlib",
    "opencv-python-headless",
    "imageio",
    "imageio-ffmpeg",
    "av",
    "scipy",
)
"""The exact libraries of the sandbox interpreter (and what the scene prompt promises)."""

_SETUP_FAILED_CODE = 125
_MIB = 1 << 20
_GIB = 1 << 30
_UID_RANGE = (1_000_000, 1_900_000_000)
_MINIMAL_PATH = "/usr/local/bin:/usr/bin:/bin"


class SandboxUnavailable(RuntimeError):
    """Raised when ``require_isolation`` is set and namespaces cannot be used here."""


@dataclass(frozen=True)
class SandboxLimits:
    """Resource limits for one sandboxed run.

    Attributes:
        wall_s: Wall-clock seconds before every process of the run is killed.
        cpu_s: CPU seconds per process (``RLIMIT_CPU``; SIGXCPU, then SIGKILL 5 s later).
        memory_bytes: Address space per process (``RLIMIT_AS``).
        file_bytes: Largest file a process may write (``RLIMIT_FSIZE``).
        disk_bytes: Size of the tmpfs working directory (namespaces mode only).
        open_files: Open file descriptors per process (``RLIMIT_NOFILE``).
        processes: Processes and threads of the sandbox uid (``RLIMIT_NPROC``).
        output_bytes: How much of the end of stdout and of stderr is kept.
        max_output_bytes: stdout + stderr bytes after which the run is killed.
        threads: Value of ``OMP_NUM_THREADS`` and friends inside the sandbox.
        require_isolation: Raise :class:`SandboxUnavailable` instead of falling back to
            the unisolated mode.
    """

    wall_s: float = 120.0
    cpu_s: int = 300
    memory_bytes: int = 4 * _GIB
    file_bytes: int = 512 * _MIB
    disk_bytes: int = 1 * _GIB
    open_files: int = 256
    processes: int = 256
    output_bytes: int = 64 * 1024
    max_output_bytes: int = 16 * _MIB
    threads: int = 2
    require_isolation: bool = False


@dataclass(frozen=True)
class SandboxResult:
    """What happened when a program ran in the sandbox.

    Attributes:
        exit_code: The program's exit status, ``None`` when a signal ended it or it never ran.
        signal: The number of the signal that ended the program, if any.
        timed_out: The wall-clock limit was reached and the run was killed.
        killed_reason: ``"timeout"``, ``"output_limit"``, ``"cpu_limit"`` or ``None``.
        wall_s: Seconds from start to the end of the program.
        cpu_s: CPU seconds (user + system) of the program and its reaped descendants.
        peak_memory_bytes: Largest resident set of the program or any reaped descendant.
        stdout_tail: The last ``output_bytes`` of stdout (UTF-8, errors replaced).
        stderr_tail: The last ``output_bytes`` of stderr.
        stdout_bytes: Total bytes the program wrote to stdout (read until the cap).
        stderr_bytes: Total bytes written to stderr.
        files: Collected files: name -> absolute path in the caller's ``collect_dir``.
        workdir_files: What the program left in its working directory: name -> size in bytes
            (at most 50 entries; directories have size -1), for diagnostics.
        mode: Isolation mode in force: ``"namespaces"`` or ``"none"``.
        setup_error: Why the sandbox itself failed to start, if it did.
    """

    exit_code: int | None
    signal: int | None
    timed_out: bool
    killed_reason: str | None
    wall_s: float
    cpu_s: float | None
    peak_memory_bytes: int | None
    stdout_tail: str
    stderr_tail: str
    stdout_bytes: int
    stderr_bytes: int
    files: dict[str, str] = field(default_factory=dict)
    workdir_files: dict[str, int] = field(default_factory=dict)
    mode: str = "none"
    setup_error: str | None = None

    @property
    def ok(self) -> bool:
        """True when the program exited 0 within every limit."""
        return (
            self.exit_code == 0
            and self.signal is None
            and self.killed_reason is None
            and self.setup_error is None
        )

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable dict of every field."""
        return asdict(self)


# --------------------------------------------------------------------------- init program
# Runs inside the sandbox (as PID 1 in namespaces mode) with `python -I -S -c`. It prepares
# mounts, forks the program under the unprivileged uid, enforces the wall clock, reaps every
# process, copies collected files out and writes a status JSON. Kept dependency-free.
_INIT_SOURCE = r'''
import ctypes, json, os, resource, signal, stat, sys, time
cfg = json.loads(sys.argv[1])
status = {"setup_error": None, "exit_code": None, "signal": None, "timed_out": False,
          "maxrss_kb": None, "cpu_s": None, "wall_s": None, "collected": {}, "listing": {},
          "notes": []}

def write_status():
    tmp = cfg["status"] + ".tmp"
    with open(tmp, "w") as fh:
        json.dump(status, fh)
    os.replace(tmp, cfg["status"])

def fail(msg):
    status["setup_error"] = msg
    try:
        write_status()
    finally:
        sys.stderr.write("physeval-sandbox: setup failed: " + msg + "\n")
        sys.stderr.flush()
        os._exit(125)

libc = ctypes.CDLL(None, use_errno=True)
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_REMOUNT, MS_BIND, MS_REC = 1, 2, 4, 32, 4096, 16384

def mount(src, tgt, fstype, flags, data):
    r = libc.mount(src.encode() if src else None, tgt.encode(),
                   fstype.encode() if fstype else None, ctypes.c_ulong(flags),
                   data.encode() if data else None)
    if r != 0:
        e = ctypes.get_errno()
        raise OSError(e, os.strerror(e), tgt)

class MountAttr(ctypes.Structure):
    _fields_ = [("attr_set", ctypes.c_uint64), ("attr_clr", ctypes.c_uint64),
                ("propagation", ctypes.c_uint64), ("userns_fd", ctypes.c_uint64)]

def set_readonly(path, readonly, recursive):
    attr = MountAttr(1 if readonly else 0, 0 if readonly else 1, 0, 0)
    flags = 0x8000 if recursive else 0  # AT_RECURSIVE
    r = libc.syscall(ctypes.c_long(442), ctypes.c_int(-100), path.encode(), ctypes.c_uint(flags),
                     ctypes.byref(attr), ctypes.c_size_t(ctypes.sizeof(attr)))
    if r == 0:
        return
    e = ctypes.get_errno()
    if e != 38:  # not ENOSYS
        raise OSError(e, os.strerror(e), path)
    # Old kernel: remount each mount point one by one.
    points = []
    with open("/proc/self/mountinfo") as fh:
        for line in fh:
            mp = line.split()[4].replace("\\040", " ")
            if mp == path or (recursive and mp.startswith(path.rstrip("/") + "/")):
                points.append(mp)
    failed = 0
    for mp in points if recursive else [path]:
        try:
            keep = os.statvfs(mp).f_flag & (MS_NOSUID | MS_NODEV | 8)
            mount(None, mp, None, MS_REMOUNT | MS_BIND | keep | (MS_RDONLY if readonly else 0), None)
        except OSError:
            failed += 1
    if failed:
        status["notes"].append("%d mount points could not be remounted" % failed)

ns = cfg["mode"] == "namespaces"
uid, gid = cfg["uid"], cfg["gid"]
box = cfg["box"]
try:
    if ns:
        keep_fds = [(k, os.open(k, os.O_PATH | os.O_DIRECTORY)) for k in cfg["keep"]]
        mount(cfg["workdir"], cfg["workdir"], None, MS_BIND, None)
        for m in cfg["mask"]:
            mount("tmpfs", m, "tmpfs", MS_NOSUID | MS_NODEV, "size=1m,mode=0755")
            for k, fd in keep_fds:
                if k.startswith(m.rstrip("/") + "/"):
                    os.makedirs(k, exist_ok=True)
                    mount("/proc/self/fd/%d" % fd, k, None, MS_BIND | MS_REC, None)
        for _, fd in keep_fds:
            os.close(fd)
        set_readonly("/", True, True)
        set_readonly(cfg["workdir"], False, False)
        mount("tmpfs", box, "tmpfs", MS_NOSUID | MS_NODEV,
              "size=%d,mode=0700,uid=%d,gid=%d" % (cfg["disk_bytes"], uid, gid))
        if os.path.isdir("/dev/shm"):
            mount("tmpfs", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV, "size=64m,mode=1777")
    for d in (cfg["env"]["HOME"], cfg["env"]["TMPDIR"]):
        os.makedirs(d, exist_ok=True)
        if os.geteuid() == 0:
            os.chown(d, uid, gid)
except OSError as exc:
    fail("%s: %s" % (type(exc).__name__, exc))

lim = cfg["limits"]
start = time.monotonic()
pid = os.fork()
if pid == 0:
    try:
        os.setsid()
        for res, val in ((resource.RLIMIT_CPU, (lim["cpu_s"], lim["cpu_s"] + 5)),
                         (resource.RLIMIT_AS, (lim["memory_bytes"],) * 2),
                         (resource.RLIMIT_FSIZE, (lim["file_bytes"],) * 2),
                         (resource.RLIMIT_NOFILE, (lim["open_files"],) * 2),
                         (resource.RLIMIT_NPROC, (lim["processes"],) * 2),
                         (resource.RLIMIT_CORE, (0, 0))):
            resource.setrlimit(res, val)
        if os.geteuid() == 0 and uid != 0:
            os.setgroups([])
            os.setresgid(gid, gid, gid)
            os.setresuid(uid, uid, uid)
        if libc.prctl(38, 1, 0, 0, 0) != 0:  # PR_SET_NO_NEW_PRIVS
            raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS) failed")
        os.chdir(box)
        os.execve(cfg["argv"][0], cfg["argv"], cfg["env"])
    except BaseException as exc:
        sys.stderr.write("physeval-sandbox: could not start the program: %r\n" % (exc,))
        sys.stderr.flush()
    os._exit(127)

is_init = os.getpid() == 1

def kill_all(*_):
    try:
        if is_init:
            os.kill(-1, signal.SIGKILL)
        else:
            os.killpg(pid, signal.SIGKILL)
    except OSError:
        pass

def on_timeout(*_):
    status["timed_out"] = True
    kill_all()

signal.signal(signal.SIGALRM, on_timeout)
signal.setitimer(signal.ITIMER_REAL, float(cfg["wall_s"]))
main_done = False
while True:
    try:
        wpid, wstatus = os.waitpid(-1, 0)
    except ChildProcessError:
        break
    if wpid == pid and not main_done:
        main_done = True
        status["wall_s"] = time.monotonic() - start
        signal.setitimer(signal.ITIMER_REAL, 0)
        if os.WIFEXITED(wstatus):
            status["exit_code"] = os.WEXITSTATUS(wstatus)
        elif os.WIFSIGNALED(wstatus):
            status["signal"] = os.WTERMSIG(wstatus)
        kill_all()  # nothing may outlive the program
signal.setitimer(signal.ITIMER_REAL, 0)
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
status["maxrss_kb"] = ru.ru_maxrss
status["cpu_s"] = ru.ru_utime + ru.ru_stime

try:
    for entry in sorted(os.listdir(box)):
        if entry in (".home", ".tmp"):
            continue
        if len(status["listing"]) >= 50:
            break
        st = os.lstat(os.path.join(box, entry))
        status["listing"][entry] = st.st_size if stat.S_ISREG(st.st_mode) else -1
except OSError:
    pass
for name in cfg["collect"]:
    src = os.path.join(box, name)
    try:
        fd = os.open(src, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        continue
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            status["notes"].append("%s is not a regular file" % name)
            continue
        dst = os.path.join(cfg["out"], name)
        out = os.open(dst, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        try:
            left = st.st_size
            while left > 0:
                n = os.sendfile(out, fd, None, min(left, 1 << 24))
                if n == 0:
                    break
                left -= n
        finally:
            os.close(out)
        status["collected"][name] = st.st_size
    except OSError as exc:
        status["notes"].append("could not collect %s: %s" % (name, exc))
    finally:
        os.close(fd)
write_status()
'''


# --------------------------------------------------------------------------- host side
@functools.lru_cache(maxsize=1)
def _namespaces_work() -> tuple[bool, str]:
    """Probe once whether the full namespaces sandbox starts here (runs a trivial program)."""
    exe = shutil.which("unshare")
    if exe is None:
        return False, "the unshare binary (util-linux) is not installed"
    if os.geteuid() != 0:
        return False, "not running as root (namespaces mode needs root for mounts and a uid switch)"
    workdir = tempfile.mkdtemp(prefix="physeval-sandbox-")
    try:
        probe = _run("pass\n", (), SandboxLimits(wall_s=30), sys.executable, (), None, "namespaces", workdir)
    except OSError as exc:
        return False, f"unshare failed: {exc}"
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    if not probe.ok:
        detail = probe.setup_error or probe.stderr_tail.strip()[-300:] or f"exit {probe.exit_code}"
        return False, f"the namespace sandbox did not start: {detail}"
    return True, "unshare --pid --net --mount works; mounts, uid switch and limits applied"


_UNSHARE_FLAGS = ("--pid", "--fork", "--net", "--mount", "--mount-proc", "--kill-child")


def _mode(limits: SandboxLimits) -> str:
    ok, why = _namespaces_work()
    if ok:
        return "namespaces"
    if limits.require_isolation:
        raise SandboxUnavailable(f"sandbox isolation unavailable: {why}")
    warnings.warn(
        f"physeval sandbox: NO network or filesystem isolation ({why}); "
        "model-written programs run with resource limits only",
        RuntimeWarning,
        stacklevel=3,
    )
    return "none"


@functools.lru_cache(maxsize=8)
def _interpreter_paths(python: str) -> tuple[str, ...]:
    """Directories the sandbox interpreter needs to read (prefixes and sys.path)."""
    probe = "import sys, json; print(json.dumps([sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix] + sys.path))"
    try:
        out = subprocess.run(
            [python, "-s", "-E", "-c", probe],
            capture_output=True,
            timeout=60,
            env={"PATH": _MINIMAL_PATH},
            check=True,
        ).stdout
        paths = json.loads(out)
    except (OSError, subprocess.SubprocessError, ValueError):
        paths = []
    chain = [python]
    seen = set()
    current = python
    while os.path.islink(current) and current not in seen:  # follow the symlink chain
        seen.add(current)
        current = os.path.join(os.path.dirname(current), os.readlink(current))
        chain.append(current)
    paths.extend(os.path.dirname(os.path.realpath(p)) for p in chain)
    dirs = {os.path.realpath(p) for p in paths if p and os.path.isdir(p)}
    return tuple(sorted(dirs))


def _mask_and_keep(python: str, workdir: str) -> tuple[list[str], list[str]]:
    """Directories hidden behind an empty tmpfs, and interpreter dirs re-bound inside them."""
    candidates = {"/root", os.path.expanduser("~")}
    candidates |= {os.path.realpath(c) for c in candidates}
    needed = _interpreter_paths(python)
    masks: list[str] = []
    keeps: list[str] = []
    for m in sorted(candidates):
        if not os.path.isdir(m) or m == "/" or _under(workdir, m):
            continue
        inside = [d for d in needed if _under(d, m)]
        if any(d == m for d in inside):
            continue  # the interpreter *is* this directory: cannot hide it
        masks.append(m)
        for d in sorted(inside, key=len):
            if not any(_under(d, k) for k in keeps):
                keeps.append(d)
    return masks, keeps


def _under(path: str, parent: str) -> bool:
    parent = parent.rstrip("/") or "/"
    return path == parent or path.startswith(parent + "/")


def sandbox_venv_path() -> Path:
    """Where ``physeval sandbox setup`` puts the dedicated interpreter environment."""
    import platformdirs

    return Path(platformdirs.user_data_dir("physeval")) / "sandbox-venv"


def default_sandbox_python() -> str:
    """The interpreter programs run with: ``$PHYSEVAL_SANDBOX_PYTHON``, else the dedicated venv
    made by ``physeval sandbox setup`` when it exists, else the current interpreter.
    """
    env = os.environ.get("PHYSEVAL_SANDBOX_PYTHON")
    if env:
        return env
    dedicated = sandbox_venv_path() / "bin" / "python"
    return str(dedicated) if dedicated.exists() else sys.executable


def _program_env(box: str, limits: SandboxLimits, python: str) -> dict[str, str]:
    home = os.path.join(box, ".home")
    threads = str(max(1, limits.threads))
    path = _MINIMAL_PATH
    pybin = os.path.dirname(python)
    if pybin and pybin not in path.split(":"):
        path = pybin + ":" + path
    return {
        "PATH": path,
        "HOME": home,
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


def run_sandboxed(
    code: str,
    *,
    args: Sequence[str] = (),
    limits: SandboxLimits | None = None,
    python: str | None = None,
    collect: Sequence[str] = (),
    collect_dir: str | os.PathLike[str] | None = None,
) -> SandboxResult:
    """Run the Python source ``code`` isolated and report how it ended.

    Args:
        code: The program's source text.
        args: Command-line arguments; ``"{workdir}"`` in them is replaced by the program's
            (absolute) working directory, e.g. ``("{workdir}/out.mp4",)``.
        limits: Resource limits; :class:`SandboxLimits` defaults when ``None``.
        python: Interpreter for the program; :func:`default_sandbox_python` when ``None``.
        collect: Plain file names in the working directory to copy out after the run
            (regular files only, symlinks refused).
        collect_dir: Where collected files go (created if needed; required with ``collect``).

    Never raises for anything the program does; raises :class:`SandboxUnavailable` only when
    ``limits.require_isolation`` is set and namespaces are unavailable.
    """
    limits = limits or SandboxLimits()
    python = os.path.abspath(python or default_sandbox_python())
    for name in collect:
        if not name or "/" in name or name in (".", ".."):
            raise ValueError(f"collect names must be plain file names, not {name!r}")
    if collect and collect_dir is None:
        raise ValueError("collect_dir is required when collect is given")
    mode = _mode(limits)
    workdir = tempfile.mkdtemp(prefix="physeval-sandbox-")
    try:
        return _run(code, args, limits, python, collect, collect_dir, mode, workdir)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def _run(
    code: str,
    args: Sequence[str],
    limits: SandboxLimits,
    python: str,
    collect: Sequence[str],
    collect_dir: str | os.PathLike[str] | None,
    mode: str,
    workdir: str,
) -> SandboxResult:
    ns = mode == "namespaces"
    os.chmod(workdir, 0o711)
    box = os.path.join(workdir, "box")
    out = os.path.join(workdir, "out")
    os.mkdir(box, 0o700)
    os.mkdir(out, 0o700)
    script = os.path.join(workdir, "program.py")
    with open(script, "w", encoding="utf-8") as fh:
        fh.write(code)
    os.chmod(script, 0o644)
    if ns:
        uid = gid = secrets.randbelow(_UID_RANGE[1] - _UID_RANGE[0]) + _UID_RANGE[0]
        masks, keeps = _mask_and_keep(python, workdir)
    else:
        uid, gid = os.getuid(), os.getgid()
        masks, keeps = [], []
    argv = [python, "-s", script, *(a.replace("{workdir}", box) for a in args)]
    cfg = {
        "mode": mode,
        "workdir": workdir,
        "box": box,
        "out": out,
        "status": os.path.join(workdir, "status.json"),
        "uid": uid,
        "gid": gid,
        "mask": masks,
        "keep": keeps,
        "disk_bytes": limits.disk_bytes,
        "wall_s": limits.wall_s,
        "limits": {
            k: getattr(limits, k)
            for k in ("cpu_s", "memory_bytes", "file_bytes", "open_files", "processes")
        },
        "argv": argv,
        "env": _program_env(box, limits, python),
        "collect": list(collect),
    }
    init = [sys.executable, "-I", "-S", "-c", _INIT_SOURCE, json.dumps(cfg)]
    cmd = [shutil.which("unshare") or "unshare", *_UNSHARE_FLAGS, "--", *init] if ns else init
    stdout, stderr = _Tail(limits.output_bytes), _Tail(limits.output_bytes)
    start = time.monotonic()
    proc = subprocess.Popen(
        cmd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=workdir,
        env={"PATH": _MINIMAL_PATH, "LANG": "C.UTF-8"},
        start_new_session=True,
        close_fds=True,
    )
    killed_reason = _pump(proc, stdout, stderr, limits, start)
    _, wstatus, rusage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(wstatus)
    host_wall = time.monotonic() - start
    status = _read_status(cfg["status"])

    files: dict[str, str] = {}
    if collect and status.get("collected"):
        dest = Path(collect_dir)  # type: ignore[arg-type]
        dest.mkdir(parents=True, exist_ok=True)
        for name in status["collected"]:
            target = dest / name
            shutil.move(os.path.join(out, name), target)
            files[name] = str(target.resolve())

    setup_error = status.get("setup_error")
    exit_code = status.get("exit_code")
    sig = status.get("signal")
    timed_out = bool(status.get("timed_out"))
    if not status:  # init never wrote a status: it was killed (host deadline, output cap)
        if os.WIFSIGNALED(wstatus):
            sig = os.WTERMSIG(wstatus)
        elif os.WIFEXITED(wstatus):
            exit_code = os.WEXITSTATUS(wstatus)
            if exit_code == _SETUP_FAILED_CODE and "physeval-sandbox" in stderr.text():
                setup_error = stderr.text().strip().splitlines()[-1]
    if timed_out:
        killed_reason = "timeout"
    elif killed_reason is None and (
        sig == signal.SIGXCPU or (sig == signal.SIGKILL and (status.get("cpu_s") or 0) >= limits.cpu_s)
    ):
        killed_reason = "cpu_limit"
    if killed_reason == "timeout":
        timed_out = True
    maxrss = status.get("maxrss_kb") or rusage.ru_maxrss
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
        mode=mode,
        setup_error=setup_error,
    )


def _pump(
    proc: subprocess.Popen[bytes], stdout: _Tail, stderr: _Tail, limits: SandboxLimits, start: float
) -> str | None:
    """Drain both pipes into capped tails until EOF; kill the group at the host deadline."""
    deadline = start + limits.wall_s + 10.0  # init enforces wall_s itself; this is the backstop
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
        _kill_group(proc.pid)
    proc.stdout.close()
    proc.stderr.close()
    return reason


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _read_status(path: str) -> dict[str, Any]:
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}


def isolation_report() -> dict[str, Any]:
    """What isolation is in force on this host (for ``physeval sandbox check``)."""
    ok, why = _namespaces_work()
    python = default_sandbox_python()
    masks, keeps = _mask_and_keep(python, tempfile.gettempdir()) if ok else ([], [])
    warnings_: list[str] = []
    if not ok:
        warnings_.append(f"NO network and NO filesystem isolation: {why}")
        warnings_.append("RLIMIT_NPROC does not bind root: fork bombs are bounded only by the wall clock")
    missing = _missing_packages(python)
    if missing:
        warnings_.append("sandbox interpreter lacks: " + ", ".join(missing))
    return {
        "mode": "namespaces" if ok else "none",
        "detail": why,
        "network": "new network namespace (loopback only, down)" if ok else "NOT ISOLATED",
        "pid_namespace": ok,
        "filesystem": (
            "everything read-only; tmpfs working dir (size-limited) is the only writable place"
            if ok
            else "NOT ISOLATED (resource limits only)"
        ),
        "user": "random unprivileged uid, no groups, no capabilities, no_new_privs" if ok else "same user",
        "hidden_dirs": masks,
        "rebound_interpreter_dirs": keeps,
        "environment": "rebuilt from scratch (PATH, HOME/TMPDIR in the working dir, locale, thread counts)",
        "rlimits": ["RLIMIT_CPU", "RLIMIT_AS", "RLIMIT_FSIZE", "RLIMIT_NOFILE", "RLIMIT_NPROC", "RLIMIT_CORE"],
        "python": python,
        "missing_packages": missing,
        "warnings": warnings_,
    }


def _missing_packages(python: str) -> list[str]:
    modules = {"numpy": "numpy", "matplotlib": "matplotlib", "opencv-python-headless": "cv2",
               "imageio": "imageio", "imageio-ffmpeg": "imageio_ffmpeg", "av": "av", "scipy": "scipy"}
    probe = (
        "import importlib.util, json, sys; "
        f"print(json.dumps([p for p, m in {modules!r}.items() if importlib.util.find_spec(m) is None]))"
    )
    try:
        out = subprocess.run([python, "-s", "-E", "-c", probe], capture_output=True, timeout=60, check=True)
        return list(json.loads(out.stdout))
    except (OSError, subprocess.SubprocessError, ValueError):
        return list(modules)


def setup_sandbox_env(path: str | os.PathLike[str]) -> Path:
    """Create a venv at ``path`` holding exactly :data:`SANDBOX_PACKAGES`; return its python.

    Installs from the configured package index with pip (network needed, once). The venv's
    directories are made world-readable so the sandbox's unprivileged uid can use them.
    """
    root = Path(path).resolve()
    venv.EnvBuilder(with_pip=True, clear=False, symlinks=True).create(root)
    py = root / "bin" / "python"
    subprocess.run(
        [str(py), "-m", "pip", "install", "--disable-pip-version-check", "--no-input", *SANDBOX_PACKAGES],
        check=True,
    )
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames:
            p = os.path.join(dirpath, name)
            os.chmod(p, os.stat(p).st_mode | 0o055)
        for name in filenames:
            p = os.path.join(dirpath, name)
            if not os.path.islink(p):
                os.chmod(p, os.stat(p).st_mode | 0o044)
    return py
