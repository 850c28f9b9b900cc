"""The sandbox's init: the small program that runs *inside* the sandbox around the untrusted one.

This file is never imported by physeval. Its source text is passed to the host interpreter as
``python -I -S -c <source> <config JSON>`` so that it needs nothing but the standard library
(and it imports everything it uses before the filesystem changes under it).

What it does, in order:

1. (``namespaces`` backend only, running as root in fresh mount/PID/IPC/UTS/network/cgroup
   namespaces) build a new root on a small tmpfs: bind the listed host directories and files
   read-only (no suid, no devices), the device nodes ``null zero full random urandom tty``, a
   private devpts instance (``max`` ptys), size-limited tmpfs mounts for ``/tmp``,
   ``/dev/shm`` and the working directory, a fresh ``/proc``; then ``pivot_root`` into it, so
   nothing else of the host is reachable. (The ``bwrap`` backend has done all of this already.)
2. Fork the program: new session, resource limits, the unprivileged uid when init is root,
   ``PR_SET_NO_NEW_PRIVS``, an optional seccomp filter (refuses ``memfd_create``,
   ``memfd_secret``, ``userfaultfd``, ``io_uring_setup`` and foreign-ABI system calls: memory a
   per-process limit cannot see), every inherited descriptor above 2 closed, then ``execve``.
3. Supervise: reap every process (init is PID 1 or a child subreaper), enforce the wall clock,
   and, when asked, sum the resident anonymous and shared memory of every process plus the
   SysV segments of the (private) IPC namespace every 50 ms and kill everything past the limit.
4. When the program has ended, kill every remaining process, list the working directory, copy
   each collected file (regular files only, never through a symlink, at most ``file_bytes``)
   into the descriptor the host opened for it, and write the status JSON to the status
   descriptor. Init makes itself non-dumpable, so a program running under the same uid
   (``bwrap``) can neither trace it nor open its descriptors through ``/proc``.
"""

import ctypes
import json
import os
import platform
import resource
import signal
import stat
import struct
import sys
import time
from typing import Any

cfg: dict = {}
status: dict = {}
libc = ctypes.CDLL(None, use_errno=True)
MACHINE = platform.machine()
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REMOUNT, MS_BIND, MS_MOVE, MS_REC = (
    1,
    2,
    4,
    8,
    32,
    4096,
    8192,
    16384,
)
ATTR_RDONLY, ATTR_NOSUID, ATTR_NODEV = 1, 2, 4
# pivot_root, mount_setattr, memfd_create, memfd_secret, userfaultfd, io_uring_setup
SYSCALLS: dict[str, Any] | None = {
    "x86_64": {
        "pivot_root": 155,
        "mount_setattr": 442,
        "deny": (319, 447, 323, 425),
        "arch": 0xC000003E,
    },
    "aarch64": {
        "pivot_root": 41,
        "mount_setattr": 442,
        "deny": (279, 447, 282, 425),
        "arch": 0xC00000B7,
    },
}.get(MACHINE)


def write_status():
    fd = cfg["fds"]["status"]
    data = json.dumps(status).encode()
    os.lseek(fd, 0, 0)
    os.ftruncate(fd, 0)
    while data:
        data = data[os.write(fd, data) :]


def fail(msg):
    status["setup_error"] = msg
    try:
        write_status()
    finally:
        sys.stderr.write("physeval-sandbox: setup failed: " + msg + "\n")
        sys.stderr.flush()
        os._exit(125)


def check(result, what):
    if result != 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err), what)


def mount(src, tgt, fstype, flags, data):
    check(
        libc.mount(
            src.encode() if src else None,
            tgt.encode(),
            fstype.encode() if fstype else None,
            ctypes.c_ulong(flags),
            data.encode() if data else None,
        ),
        tgt,
    )


class MountAttr(ctypes.Structure):
    _fields_ = [
        ("attr_set", ctypes.c_uint64),
        ("attr_clr", ctypes.c_uint64),
        ("propagation", ctypes.c_uint64),
        ("userns_fd", ctypes.c_uint64),
    ]


def lock_mount(path, recursive):
    """Make the mount at ``path`` (and below it, if ``recursive``) read-only, nosuid, nodev."""
    if SYSCALLS is not None:
        attr = MountAttr(ATTR_RDONLY | ATTR_NOSUID | ATTR_NODEV, 0, 0, 0)
        r = libc.syscall(
            ctypes.c_long(SYSCALLS["mount_setattr"]),
            ctypes.c_int(-100),
            path.encode(),
            ctypes.c_uint(0x8000 if recursive else 0),
            ctypes.byref(attr),
            ctypes.c_size_t(ctypes.sizeof(attr)),
        )
        if r == 0:
            return
        if ctypes.get_errno() != 38:  # anything but ENOSYS is a real failure
            check(r, path)
    mount(None, path, None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV, None)


def build_root(spec):
    """Assemble the new root described by ``spec`` and pivot into it (namespaces backend)."""
    new = spec["path"]
    os.makedirs(new, exist_ok=True)
    mount("tmpfs", new, "tmpfs", MS_NOSUID | MS_NODEV, "size=4m,mode=0755")
    dev = new + "/dev"
    os.makedirs(dev, exist_ok=True)
    mount("tmpfs", dev, "tmpfs", MS_NOSUID | MS_NOEXEC, "size=64k,mode=0755")
    for node in ("null", "zero", "full", "random", "urandom", "tty"):
        open(dev + "/" + node, "a").close()
        mount("/dev/" + node, dev + "/" + node, None, MS_BIND, None)
    os.makedirs(dev + "/pts")
    mount(
        "devpts",
        dev + "/pts",
        "devpts",
        MS_NOSUID | MS_NOEXEC,
        f"newinstance,ptmxmode=0666,mode=0620,max={spec['ptys']}",
    )
    os.symlink("pts/ptmx", dev + "/ptmx")
    for name, target in (
        ("fd", "/proc/self/fd"),
        ("stdin", "/proc/self/fd/0"),
        ("stdout", "/proc/self/fd/1"),
        ("stderr", "/proc/self/fd/2"),
    ):
        os.symlink(target, dev + "/" + name)
    os.makedirs(dev + "/shm")
    for path, size, mode, owned in spec["tmpfs"]:
        os.makedirs(new + path, exist_ok=True)
        data = f"size={size},mode={mode:o}"
        if owned:
            data += f",uid={cfg['uid']},gid={cfg['gid']}"
        mount("tmpfs", new + path, "tmpfs", MS_NOSUID | MS_NODEV, data)
    for src, dst, kind in spec["binds"]:
        target = new + dst
        if kind == "dir":
            os.makedirs(target, exist_ok=True)
        else:
            os.makedirs(os.path.dirname(target), exist_ok=True)
            open(target, "a").close()
        mount(src, target, None, MS_BIND | MS_REC, None)
        lock_mount(target, True)
    for link_target, path in spec["symlinks"]:
        os.makedirs(os.path.dirname(new + path), exist_ok=True)
        os.symlink(link_target, new + path)
    os.makedirs(new + "/proc", exist_ok=True)
    mount("proc", new + "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, None)
    lock_mount(dev, False)
    lock_mount(new, False)
    os.chdir(new)
    if SYSCALLS is not None:
        check(
            libc.syscall(ctypes.c_long(SYSCALLS["pivot_root"]), b".", b"."),
            "pivot_root",
        )
        check(libc.umount2(b".", 2), "umount old root")  # MNT_DETACH
    else:  # unknown architecture: move the new root over / and chroot into it
        mount(new, "/", None, MS_MOVE, None)
        os.chroot(".")
    os.chdir("/")
    host = b"sandbox"
    check(libc.sethostname(host, len(host)), "sethostname")


def seccomp_filter():
    """A classic-BPF filter: refuse the denied calls and any foreign ABI with EPERM."""
    assert SYSCALLS is not None, "seccomp_filter is only called on a known machine"
    deny = SYSCALLS["deny"]
    ld, jeq, jge, ret = 0x20, 0x15, 0x35, 0x06
    errno_eperm, allow = 0x00050000 | 1, 0x7FFF0000
    n = len(deny)
    prog = [
        (ld, 0, 0, 4),
        (jeq, 1, 0, SYSCALLS["arch"]),
        (ret, 0, 0, errno_eperm),
        (ld, 0, 0, 0),
    ]
    if MACHINE == "x86_64":  # the x32 ABI marks its calls with bit 30
        prog.append((jge, n + 1, 0, 0x40000000))
    for i, nr in enumerate(deny):
        prog.append((jeq, n - i, 0, nr))
    prog += [(ret, 0, 0, allow), (ret, 0, 0, errno_eperm)]
    raw = b"".join(struct.pack("HBBI", *ins) for ins in prog)
    buf = ctypes.create_string_buffer(raw, len(raw))

    class Fprog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    return Fprog(len(prog), ctypes.cast(buf, ctypes.c_void_p)), buf


def proc_pids():
    return [int(p) for p in os.listdir("/proc") if p.isdigit()]


def sandbox_memory():
    """Resident anonymous + shared memory of every process, plus the SysV segments (bytes)."""
    total = 0
    for pid in proc_pids():
        try:
            with open(f"/proc/{pid}/status", "rb") as fh:
                for line in fh:
                    if line.startswith((b"RssAnon:", b"RssShmem:")):
                        total += int(line.split()[1]) * 1024
        except (OSError, ValueError, IndexError):
            continue
    try:
        with open("/proc/sysvipc/shm", "rb") as fh:
            next(fh)
            for line in fh:
                total += int(line.split()[14])
    except (OSError, ValueError, IndexError, StopIteration):
        pass
    return total


def kill_all():
    """SIGKILL every process of the run but init."""
    if cfg["pidns"]:
        try:
            os.kill(-1, signal.SIGKILL)
        except OSError:
            pass
        return
    me = os.getpid()
    try:
        os.killpg(cfg["program_pid"], signal.SIGKILL)
    except OSError:
        pass
    for other in proc_pids():  # orphans of other sessions were re-parented to us (subreaper)
        try:
            with open(f"/proc/{other}/stat", "rb") as fh:
                ppid = int(fh.read().rsplit(b")", 1)[1].split()[1])
            if ppid == me:
                os.kill(other, signal.SIGKILL)
        except (OSError, ValueError, IndexError):
            continue


def prepare():
    """Step 1: the root (namespaces), init's own protections, HOME/TMPDIR, the seccomp filter."""
    uid, gid = cfg["uid"], cfg["gid"]
    prepared = None
    try:
        if cfg["mode"] == "namespaces":
            build_root(cfg["root"])
        else:
            libc.prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER: orphans come back to init
        libc.prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE 0: no ptrace, no /proc/<init>/fd for the program
        for d in (cfg["env"]["HOME"], cfg["env"]["TMPDIR"]):
            os.makedirs(d, exist_ok=True)
            if os.geteuid() == 0 and uid != 0:
                os.chown(d, uid, gid)
        if cfg["seccomp"] and SYSCALLS is not None:
            prepared = seccomp_filter()
    except OSError as exc:
        fail(f"{type(exc).__name__}: {exc}")
    return prepared


def exec_program(prepared):
    """Step 2, in the forked child: session, limits, uid, no_new_privs, seccomp, then execve."""
    lim, uid, gid = cfg["limits"], cfg["uid"], cfg["gid"]
    try:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGCHLD])
        os.setsid()
        os.closerange(3, os.sysconf("SC_OPEN_MAX"))
        for res, val in (
            (resource.RLIMIT_CPU, (lim["cpu_s"], lim["cpu_s"] + 5)),
            (resource.RLIMIT_AS, (lim["memory_bytes"],) * 2),
            (resource.RLIMIT_FSIZE, (lim["file_bytes"],) * 2),
            (resource.RLIMIT_NOFILE, (lim["open_files"],) * 2),
            (resource.RLIMIT_NPROC, (lim["processes"],) * 2),
            (resource.RLIMIT_MSGQUEUE, (lim["msgqueue_bytes"],) * 2),
            (resource.RLIMIT_CORE, (0, 0)),
        ):
            hard = resource.getrlimit(res)[1]
            if hard != resource.RLIM_INFINITY:  # never raise a hard limit (needs CAP_SYS_RESOURCE)
                val = (min(val[0], hard), min(val[1], hard))
            resource.setrlimit(res, val)
        if os.geteuid() == 0 and uid != 0:
            os.setgroups([])
            os.setresgid(gid, gid, gid)
            os.setresuid(uid, uid, uid)
        if libc.prctl(38, 1, 0, 0, 0) != 0:  # PR_SET_NO_NEW_PRIVS
            raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS) failed")
        if prepared is not None:  # PR_SET_SECCOMP, SECCOMP_MODE_FILTER
            check(libc.prctl(22, 2, ctypes.byref(prepared[0]), 0, 0), "seccomp")
        os.chdir(cfg["box"])
        os.execve(cfg["argv"][0], cfg["argv"], cfg["env"])
    except BaseException as exc:  # noqa: BLE001 - report any failure to start, then exit 127
        sys.stderr.write(f"physeval-sandbox: could not start the program: {exc!r}\n")
        sys.stderr.flush()
    os._exit(127)


def supervise(pid, start):
    """Step 3: reap everything, enforce the wall clock and the memory watch, until no child is left."""
    deadline = start + float(cfg["wall_s"])
    watch = cfg["watch_memory"]
    main_done = False
    peak = 0
    while True:
        try:
            while True:
                wpid, wstatus = os.waitpid(-1, os.WNOHANG)
                if wpid == 0:
                    break
                if wpid == pid and not main_done:
                    main_done = True
                    status["wall_s"] = time.monotonic() - start
                    if os.WIFEXITED(wstatus):
                        status["exit_code"] = os.WEXITSTATUS(wstatus)
                    elif os.WIFSIGNALED(wstatus):
                        status["signal"] = os.WTERMSIG(wstatus)
                    kill_all()  # nothing may outlive the program
        except ChildProcessError:
            break
        if main_done:
            kill_all()
        elif time.monotonic() >= deadline:
            status["timed_out"] = True
            kill_all()
        elif watch:
            used = sandbox_memory()
            peak = max(peak, used)
            if used > watch:
                status["memory_killed"] = True
                kill_all()
        signal.sigtimedwait([signal.SIGCHLD], 0.05)
    if watch:
        status["peak_total"] = peak
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    status["maxrss_kb"] = ru.ru_maxrss
    status["cpu_s"] = ru.ru_utime + ru.ru_stime


def collect():
    """Step 4: list the working directory and copy each collected file into its host descriptor."""
    box = cfg["box"]
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
    for name, out in cfg["fds"]["collect"].items():
        try:
            fd = os.open(os.path.join(box, name), os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        except OSError:
            continue
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):
                status["notes"].append(f"{name} is not a regular file")
                continue
            left = min(st.st_size, cfg["limits"]["file_bytes"])
            copied = 0
            while left > 0:
                n = os.sendfile(out, fd, None, min(left, 1 << 24))
                if n == 0:
                    break
                left -= n
                copied += n
            status["collected"][name] = copied
        except OSError as exc:
            status["notes"].append(f"could not collect {name}: {exc}")
        finally:
            os.close(fd)


def main():
    """Run the whole sequence described in the module docstring."""
    global cfg, status
    cfg = json.loads(sys.argv[1])
    status = {
        "setup_error": None,
        "exit_code": None,
        "signal": None,
        "timed_out": False,
        "memory_killed": False,
        "peak_total": None,
        "maxrss_kb": None,
        "cpu_s": None,
        "wall_s": None,
        "collected": {},
        "listing": {},
        "notes": [],
    }
    prepared = prepare()
    signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGCHLD])
    start = time.monotonic()
    pid = os.fork()
    if pid == 0:
        exec_program(prepared)
    cfg["program_pid"] = pid
    supervise(pid, start)
    collect()
    write_status()


if __name__ == "__main__":
    main()
