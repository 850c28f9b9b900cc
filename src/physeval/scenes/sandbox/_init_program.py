"""The sandbox's init: the small program that runs *inside* the sandbox around the untrusted one.

This file is never imported by physeval. Its source text is passed to the host interpreter as
``python -I -S -c <source> <config JSON>`` so that it needs nothing but the standard library
(and it imports everything it uses before the filesystem changes under it).

What it does, in order:

1. (``namespaces`` backend only, running as root in fresh mount/PID/IPC/UTS/network/cgroup
   namespaces) build a new root on a small tmpfs: bind the listed host directories and files
   read-only (no suid, no devices), the device nodes ``null zero full random urandom tty``, a
   private devpts instance (``max`` ptys), tmpfs mounts for ``/tmp``, ``/dev/shm`` and the
   working directory bounded in size and in inodes (``nr_inodes``: each file is kernel
   memory), a fresh ``/proc``; then ``pivot_root`` into it, so nothing else of the host is
   reachable. (``bwrap`` has built the root already; the init, uid 0 of bwrap's user namespace
   with ``CAP_SYS_ADMIN`` there, remounts bwrap's tmpfs mounts with ``nr_inodes`` and its
   devpts with ``max``, which bwrap's options cannot say.)
2. Make the program unreachable from itself: the init enters a new PID namespace and forks its
   init (:func:`namespace_init`, PID 1 there, with its own ``/proc``); a signal from inside a
   namespace to its init is dropped unless handled, so the program can neither kill nor stop
   it, and it cannot see the supervising init at all. That init forks the program: new
   session, resource limits, the sandbox identity without any capability (:func:`drop_identity`),
   ``PR_SET_NO_NEW_PRIVS``, the seccomp filter compiled on the host (see
   ``physeval.scenes.sandbox.seccomp``: ``ptrace``, ``process_vm_*``, new namespaces, foreign
   socket families...), every inherited descriptor above 2 closed, then ``execve``. A failure
   before ``execve`` is reported through a close-on-exec pipe: it is the sandbox's, not the program's.
3. Supervise: reap, enforce the wall clock, and, when asked, sum the resident anonymous and
   shared memory of every process, the SysV segments of the (private) IPC namespace and the
   kernel memory of the tmpfs inodes in use every 50 ms and kill everything past the limit.
4. When the program has ended, kill every remaining process, list the working directory, copy
   each collected file (regular files only, never through a symlink, at most ``file_bytes``,
   data only: holes stay holes) into the descriptor the host opened for it, and write the
   status JSON to the status descriptor. Init makes itself non-dumpable.
"""

import ctypes
import json
import os
import platform
import resource
import signal
import stat
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
CLONE_NEWNS, CLONE_NEWPID = 0x20000, 0x20000000
# pivot_root, mount_setattr (the filter itself is compiled on the host: physeval.scenes.sandbox.seccomp)
SYSCALLS: dict[str, Any] | None = {
    "x86_64": {"pivot_root": 155, "mount_setattr": 442},
    "aarch64": {"pivot_root": 41, "mount_setattr": 442},
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
        f"newinstance,ptmxmode=0666,mode=0620,max={cfg['ptys']}",
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
    for path, size, inodes, mode, owned in cfg["tmpfs"]:
        os.makedirs(new + path, exist_ok=True)
        data = f"size={size},nr_inodes={inodes},mode={mode:o}"
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


def bound_mounts():
    """For the bwrap backend: put inode bounds on bwrap's tmpfs mounts and a pty cap on its devpts.

    bwrap's ``--size`` cannot say ``nr_inodes`` (without it a tmpfs holds half the host's RAM pages
    in inodes: kernel memory no limit sees), and its devpts has no ``max``; the init, holding
    ``CAP_SYS_ADMIN`` in the sandbox's user namespace, remounts both.
    """
    for path, size, inodes, mode, _ in cfg["tmpfs"]:
        mount(None, path, None, MS_REMOUNT | MS_NOSUID | MS_NODEV, f"size={size},nr_inodes={inodes},mode={mode:o}")
    mount(None, "/dev/pts", None, MS_REMOUNT | MS_NOSUID | MS_NOEXEC, f"ptmxmode=0666,mode=0620,max={cfg['ptys']}")


def seccomp_program():
    """The host-compiled filter (``cfg["seccomp"]``, hex) as a ``sock_fprog`` and the buffer it points to."""
    raw = bytes.fromhex(cfg["seccomp"])
    buf = ctypes.create_string_buffer(raw, len(raw))

    class Fprog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    return Fprog(len(raw) // 8, ctypes.cast(buf, ctypes.c_void_p)), buf


def proc_pids():
    return [int(p) for p in os.listdir("/proc") if p.isdigit()]


def sandbox_memory():
    """Resident anonymous + shared memory of every process, plus the SysV segments (bytes)."""
    total = tmpfs_inode_bytes()
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


def tmpfs_inode_bytes():
    """Kernel memory held by the files of the run's tmpfs mounts: inodes in use times their cost."""
    total = 0
    for path, _, _, _, _ in cfg["tmpfs"]:
        try:
            st = os.statvfs(path)
        except OSError:
            continue
        total += (st.f_files - st.f_ffree) * cfg["inode_bytes"]
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
    """Step 1: the root (namespaces) or the mount bounds (bwrap), init's own protections, HOME/TMPDIR,
    the seccomp filter."""
    uid, gid = cfg["uid"], cfg["gid"]
    prepared = None
    try:
        if cfg["mode"] == "namespaces":
            build_root(cfg["root"])
        elif cfg["mode"] == "bwrap":
            bound_mounts()
        if not cfg["pidns"]:
            libc.prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER: orphans come back to init
        libc.prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE 0: no ptrace, no /proc/<init>/fd for the program
        for d in (cfg["env"]["HOME"], cfg["env"]["TMPDIR"]):
            os.makedirs(d, exist_ok=True)
            if cfg["identity"] == "setuid":
                os.chown(d, uid, gid)
        if cfg["seccomp"]:
            prepared = seccomp_program()
        if cfg["pidns"]:  # the program becomes PID 1 of a namespace of its own: init is out of its sight
            check(libc.unshare(CLONE_NEWPID), "unshare(CLONE_NEWPID)")
    except OSError as exc:
        fail(f"{type(exc).__name__}: {exc}")
    return prepared


def own_view():
    """In the program's process, still privileged: a mount namespace whose /proc shows only its own
    PID namespace (so not even the init's process entry is visible)."""
    check(libc.unshare(CLONE_NEWNS), "unshare(CLONE_NEWNS)")
    mount(None, "/", None, MS_REC | (1 << 18), None)  # MS_PRIVATE: nothing propagates back
    mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, None)


def drop_identity():
    """Become the sandbox user with no capability at all.

    ``setuid`` (namespaces backend, init is root): drop groups, gid and uid. ``capdrop`` (bwrap:
    init is uid 0 of the sandbox's user namespace, the calling uid on the host): stay that uid
    but lose every capability for good: empty bounding, ambient, inheritable, permitted and
    effective sets, and locked securebits so that no ``execve`` as uid 0 grants any back.
    """
    uid, gid = cfg["uid"], cfg["gid"]
    if cfg["identity"] == "setuid":
        os.setgroups([])
        os.setresgid(gid, gid, gid)
        os.setresuid(uid, uid, uid)
    elif cfg["identity"] == "capdrop":
        # SECBIT_NOROOT, NO_SETUID_FIXUP, KEEP_CAPS_LOCKED, NO_CAP_AMBIENT_RAISE and their locks
        check(libc.prctl(28, 0x1 | 0x2 | 0x4 | 0x8 | 0x20 | 0x40 | 0x80, 0, 0, 0), "PR_SET_SECUREBITS")
        for cap in range(64):
            if libc.prctl(24, cap, 0, 0, 0) != 0:  # PR_CAPBSET_DROP
                if ctypes.get_errno() == 22:  # EINVAL: past the last capability
                    break
                check(-1, f"PR_CAPBSET_DROP {cap}")
        libc.prctl(47, 4, 0, 0, 0)  # PR_CAP_AMBIENT_CLEAR_ALL
        header = (ctypes.c_uint32 * 2)(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3, this thread
        check(libc.capset(header, (ctypes.c_uint32 * 6)()), "capset")


def exec_program(prepared, report):
    """Step 2, in the forked child: own view, session, limits, identity, no_new_privs, seccomp, execve.

    A failure before ``execve`` is the sandbox's, not the program's: its text goes to ``report``
    (a close-on-exec pipe the init reads), so the run ends ``sandbox_error``, not ``error``.
    """
    lim = cfg["limits"]
    step = "signals"
    try:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGCHLD])
        step = "session"
        os.setsid()
        os.closerange(3, report)
        os.closerange(report + 1, os.sysconf("SC_OPEN_MAX"))
        step = "limits"
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
        step = "identity"
        drop_identity()
        step = "no_new_privs"
        if libc.prctl(38, 1, 0, 0, 0) != 0:  # PR_SET_NO_NEW_PRIVS
            raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS) failed")
        step = "seccomp"
        if prepared is not None:  # PR_SET_SECCOMP, SECCOMP_MODE_FILTER
            check(libc.prctl(22, 2, ctypes.byref(prepared[0]), 0, 0), "seccomp")
        step = "execve"
        os.chdir(cfg["box"])
        os.execve(cfg["argv"][0], cfg["argv"], cfg["env"])
    except BaseException as exc:  # noqa: BLE001 - report any failure to start, then exit 127
        message = f"could not start the program ({step}): {exc!r}"
        try:
            os.write(report, message.encode()[:4000])
        except OSError:
            pass
        sys.stderr.write(f"physeval-sandbox: {message}\n")
        sys.stderr.flush()
    os._exit(127)


def read_report(fd):
    """What the program's process wrote before ``execve`` (empty once it has exec'd: close-on-exec)."""
    chunks = []
    while True:
        try:
            data = os.read(fd, 4096)
        except InterruptedError:
            continue
        if not data:
            break
        chunks.append(data)
    os.close(fd)
    return b"".join(chunks).decode("utf-8", "replace")


def supervise(pid, start):
    """Step 3: reap everything, enforce the wall clock and the memory watch, until no child is left.

    Returns the wait status of ``pid`` (the program, or its namespace's init), ``None`` if never reaped.
    """
    deadline = start + float(cfg["wall_s"])
    watch = cfg["watch_memory"]
    main_done = False
    ended = None
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
                    ended = wstatus
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
    return ended


def record_end(wstatus):
    """The program's exit status or signal into the status."""
    if wstatus is None:
        return
    if os.WIFEXITED(wstatus):
        status["exit_code"] = os.WEXITSTATUS(wstatus)
    elif os.WIFSIGNALED(wstatus):
        status["signal"] = os.WTERMSIG(wstatus)


def namespace_init(prepared, report, result):
    """PID 1 of the program's own PID namespace: fork the program, reap, report its end, exit.

    The program cannot reach it: a signal sent from inside a PID namespace to its init is
    dropped unless the init handles it (this one handles none, so not even ``SIGKILL`` or
    ``SIGSTOP`` arrive), and ``ptrace`` is refused by the filter. Being PID 1 itself would
    have cost the program its own default signals (``SIGXCPU``, ``SIGTERM`` to itself). When
    it returns, the kernel kills whatever the program left in the namespace.
    """
    try:
        own_view()
    except OSError as exc:
        os.write(report, f"{type(exc).__name__}: {exc}".encode()[:4000])
        os._exit(125)
    pid = os.fork()
    if pid == 0:
        os.close(result)
        exec_program(prepared, report)
    os.close(report)
    start = time.monotonic()
    ended = None
    while ended is None:
        try:
            wpid, wstatus = os.wait()
        except InterruptedError:
            continue
        except ChildProcessError:
            break
        if wpid == pid:
            ended = wstatus
    data = json.dumps({"wstatus": ended, "wall_s": time.monotonic() - start}).encode()
    os.write(result, data)
    os._exit(0)


def read_result(fd):
    """What the namespace init reported (``{}`` when it was killed before reporting)."""
    try:
        raw = os.read(fd, 4096)
        data = json.loads(raw) if raw else {}
    except (OSError, ValueError):
        data = {}
    os.close(fd)
    return data if isinstance(data, dict) else {}


def copy_sparse(src, dst, size):
    """Copy the first ``size`` bytes of ``src`` into ``dst`` at the same offsets, data only.

    Holes stay holes (the host gives ``dst`` its length with ``ftruncate``), so a sparse file
    costs the host no more disk than it held data in the sandbox's size-limited tmpfs.
    """
    offset = 0
    while offset < size:
        try:
            start = os.lseek(src, offset, os.SEEK_DATA)
        except OSError:  # ENXIO: nothing but a hole up to the end
            break
        if start >= size:
            break
        end = min(os.lseek(src, start, os.SEEK_HOLE), size)
        os.lseek(dst, start, os.SEEK_SET)
        pos = start
        while pos < end:
            n = os.sendfile(dst, src, pos, min(end - pos, 1 << 24))
            if n == 0:
                break
            pos += n
        offset = end


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
            size = min(st.st_size, cfg["limits"]["file_bytes"])
            copy_sparse(fd, out, size)
            status["collected"][name] = size
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
    report_r, report_w = os.pipe2(os.O_CLOEXEC)
    result_r, result_w = os.pipe2(os.O_CLOEXEC) if cfg["pidns"] else (-1, -1)
    pid = os.fork()
    if pid == 0:
        os.close(report_r)
        if cfg["pidns"]:
            os.close(result_r)
            namespace_init(prepared, report_w, result_w)
        exec_program(prepared, report_w)
    os.close(report_w)
    if cfg["pidns"]:
        os.close(result_w)
    cfg["program_pid"] = pid
    startup = read_report(report_r)
    if startup:
        status["setup_error"] = startup
    ended = supervise(pid, start)
    if not cfg["pidns"]:
        record_end(ended)
    else:
        result = read_result(result_r)
        if "wstatus" in result:
            record_end(result["wstatus"])
            status["wall_s"] = result.get("wall_s") or status["wall_s"]
        elif status["timed_out"] or status["memory_killed"]:
            record_end(ended)  # killed with its namespace's init: the init's end is the program's
        elif not status["setup_error"]:
            # nothing the program can do ends its namespace's init early: this is the sandbox's fault
            status["setup_error"] = f"the program's namespace init ended without a report (wait status {ended})"
    collect()
    write_status()


if __name__ == "__main__":
    main()
