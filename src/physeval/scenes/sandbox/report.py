"""What isolation is in force: the static report and the measured properties for ``physeval sandbox check``.

:func:`check_properties` runs a probe program through the backend and compares what it sees
with the host: each property (network, IPC, PID, UTS, mounts visible, memory accounting, pty,
the pty cap, the inode limits, the seccomp refusals, ``/dev/shm``) is ``on`` (isolated) or
``off`` with the evidence. Nothing is taken from the backend's description; a backend that
claims more than it does shows ``off`` here.
"""

from __future__ import annotations

import json
import os
import socket
import tempfile
from pathlib import Path
from typing import Any

from physeval.scenes.sandbox.backend import (
    AUTO,
    Backend,
    backend_names,
    choose_backend,
    get_backend,
)
from physeval.scenes.sandbox.cgroup import cgroup_support
from physeval.scenes.sandbox.limits import INODE_BYTES, SandboxLimits, SandboxUnavailable
from physeval.scenes.sandbox.mounts import mount_plan
from physeval.scenes.sandbox.seccomp import RULES, compile_filter, describe

__all__ = ["check_properties", "environment_status", "isolation_report"]

_PROBE = r"""
import json, os, socket, sys
host = json.loads(sys.argv[1])
out = {}
def ino(path):
    try:
        return os.stat(path).st_ino
    except OSError:
        return None
out["ns"] = {k: ino("/proc/self/ns/" + k) for k in host["ns"]}
out["interfaces"] = [n for _, n in socket.if_nameindex()]
def connect(family, address):
    s = socket.socket(family, socket.SOCK_STREAM)
    s.settimeout(2)
    try:
        s.connect(address)
        return True
    except OSError:
        return False
    finally:
        s.close()
out["tcp"] = connect(socket.AF_INET, ("127.0.0.1", host["port"]))
out["unix"] = connect(socket.AF_UNIX, host["unix"])
out["visible"] = [p for p in host["paths"] if os.path.exists(p)]
out["listed"] = {}
for d in host["dirs"]:
    try:
        out["listed"][d] = sorted(os.listdir(d))
    except OSError:
        out["listed"][d] = []
out["pids"] = sorted(int(p) for p in os.listdir("/proc") if p.isdigit())[:20]
def dev(path):
    try:
        return os.stat(path).st_dev
    except OSError:
        return None
out["pts_dev"], out["shm_dev"] = dev("/dev/pts"), dev("/dev/shm")
held = []
try:
    for _ in range(host["ptys"] + 1):
        held.append(os.openpty())
except OSError:
    pass
out["pty"], out["ptys_opened"] = bool(held), len(held)
for pair in held:
    for fd in pair:
        os.close(fd)
out["inodes"] = {}
for path in ("/tmp", "/dev/shm", os.getcwd()):
    try:
        out["inodes"][path] = os.statvfs(path).f_files
    except OSError:
        out["inodes"][path] = None
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
refused = {}
# a pid that does not exist: ESRCH unless the filter refuses the call (EPERM)
refused["ptrace"] = libc.ptrace(16, 0x7FFFFFFF, 0, 0) == -1 and ctypes.get_errno() == 1
try:
    socket.socket(40, socket.SOCK_STREAM).close()
    refused["AF_VSOCK"] = False
except OSError as exc:
    refused["AF_VSOCK"] = exc.errno == 97
refused["unshare"] = libc.unshare(0x10000000) == -1 and ctypes.get_errno() == 1
out["refused"] = refused
print(json.dumps(out))
"""
_NS = ("net", "ipc", "pid", "uts", "cgroup", "mnt")


def _state(on: bool, detail: str) -> dict[str, str]:
    return {"state": "on" if on else "off", "detail": detail}


def _short_temp_dir() -> str:
    """The temporary directory, or ``/tmp`` when a socket path below it would pass the kernel's
    108 bytes (a deep ``TMPDIR``, such as a test worker's)."""
    base = tempfile.gettempdir()
    return base if len(os.path.join(base, "physeval-check-xxxxxxxx", "host.sock").encode()) < 100 else "/tmp"


def check_properties(backend: Backend, python: str) -> dict[str, dict[str, str]]:
    """Run the probe through ``backend`` and report each property as on/off with evidence."""
    import physeval

    planted_dir = tempfile.mkdtemp(prefix="physeval-check-", dir=_short_temp_dir())
    planted = os.path.join(planted_dir, "planted.txt")
    Path(planted).write_text("host file\n")
    sock_path = os.path.join(planted_dir, "host.sock")
    unix = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        unix.bind(sock_path)
        unix.listen(1)
        os.chmod(planted_dir, 0o755)
        os.chmod(sock_path, 0o777)
        tcp.bind(("127.0.0.1", 0))
        tcp.listen(1)
        package = Path(physeval.__file__).resolve().parent
        paths = [planted, str(package / "__init__.py"), str(package / "scenes" / "bank" / "mechanics.yaml")]
        dirs = sorted({os.getcwd(), os.path.expanduser("~")})
        limits = SandboxLimits(wall_s=120)
        host = {"ns": _NS, "port": tcp.getsockname()[1], "unix": sock_path, "paths": paths, "dirs": dirs,
                "ptys": limits.ptys}
        result = backend.run(_PROBE, args=[json.dumps(host)], limits=limits, python=python)
    finally:
        unix.close()
        tcp.close()
        for p in (sock_path, planted):
            if os.path.exists(p):
                os.unlink(p)
        os.rmdir(planted_dir)
    if not result.ok:
        reason = result.setup_error or result.stderr_tail.strip()[-300:] or f"exit {result.exit_code}"
        return {"probe": _state(False, f"the probe did not run: {reason}")}
    seen = json.loads(result.stdout_tail)
    mine = {k: os.stat("/proc/self/ns/" + k).st_ino for k in _NS}
    visible = list(seen["visible"]) + _unexpected_entries(seen["listed"], python)
    fresh = {k: seen["ns"].get(k) not in (None, mine[k]) for k in _NS}
    props = {
        "network": _state(
            fresh["net"] and seen["interfaces"] == ["lo"] and not seen["tcp"] and not seen["unix"],
            f"interfaces {seen['interfaces']}; host 127.0.0.1 port reached: {seen['tcp']}; "
            f"host unix socket reached: {seen['unix']}",
        ),
        "ipc": _state(
            fresh["ipc"],
            "own IPC namespace" if fresh["ipc"] else "the host's IPC namespace",
        ),
        "pid": _state(fresh["pid"], f"processes seen: {seen['pids']}"),
        "uts": _state(
            fresh["uts"],
            "own host name" if fresh["uts"] else "the host's UTS namespace",
        ),
        "cgroup_namespace": _state(
            fresh["cgroup"],
            "own cgroup view" if fresh["cgroup"] else "host cgroup view",
        ),
        "mounts_visible": _state(
            not visible,
            "host files visible: " + (", ".join(visible) if visible else "none of " + ", ".join(paths + dirs)),
        ),
        "pty": _state(
            seen["pts_dev"] != _dev("/dev/pts"),
            ("private devpts" if seen["pts_dev"] != _dev("/dev/pts") else "the host's devpts")
            + f"; openpty works: {seen['pty']}",
        ),
        "pty_cap": _state(
            seen["ptys_opened"] <= limits.ptys,
            f"{seen['ptys_opened']} of {limits.ptys + 1} ptys opened (cap {limits.ptys})",
        ),
        "inode_limits": _state(
            all(n is not None and n <= limits.inodes for n in seen["inodes"].values()),
            "inodes per tmpfs: " + ", ".join(f"{k} {v}" for k, v in seen["inodes"].items())
            + f" (limit {limits.inodes}; each costs up to {INODE_BYTES} B of kernel memory)",
        ),
        "seccomp": _state(
            all(seen["refused"].values()),
            "refused: " + ", ".join(f"{k} {'yes' if v else 'NO'}" for k, v in seen["refused"].items())
            + f" (of the {len(RULES)} rules listed under 'seccomp')",
        ),
        "dev_shm": _state(
            seen["shm_dev"] != _dev("/dev/shm"),
            "private tmpfs" if seen["shm_dev"] != _dev("/dev/shm") else "the host's /dev/shm",
        ),
        "memory_accounting": _state(
            result.memory_accounting == "cgroup",
            {
                "cgroup": "per-run cgroup: memory.max and pids.max for the whole run",
                "watched": "per-process RLIMIT_AS plus a watcher of the run's total resident memory; memfd refused",
                "rlimit": "per-process RLIMIT_AS only (memfd, SysV and forked children are not bounded together)",
            }[result.memory_accounting],
        ),
    }
    return props


def _unexpected_entries(listed: dict[str, list[str]], python: str) -> list[str]:
    """Entries the probe listed in host directories that no bind of the mount plan explains."""
    binds = [src for src, _ in mount_plan(python).binds]
    found = []
    for directory, names in listed.items():
        try:
            on_host = set(os.listdir(directory))
        except OSError:
            on_host = set()
        explained = {
            os.path.relpath(b, directory).split("/")[0] for b in binds if b.startswith(directory.rstrip("/") + "/")
        }
        found += [os.path.join(directory, n) for n in names if n in on_host and n not in explained]
    return found


def _dev(path: str) -> int | None:
    try:
        return os.stat(path).st_dev
    except OSError:
        return None


def environment_status(python: str | None, sandbox: str) -> dict[str, Any]:
    """The interpreter's environment as programs meet it, checked inside ``sandbox`` by
    :func:`~physeval.scenes.sandbox.environment.verify_environment` (the one road every entry point
    takes): ``verified`` (its record, or ``None``), ``environment_error`` (why not, with the fix)
    and ``missing_packages`` (the promised libraries that did not import there)."""
    from physeval.scenes.sandbox.environment import SandboxEnvironmentError, verify_environment

    try:
        check = verify_environment(python, sandbox=sandbox)
    except SandboxEnvironmentError as exc:
        return {"verified": None, "environment_error": str(exc), "missing_packages": exc.missing}
    except SandboxUnavailable as exc:
        return {"verified": None, "environment_error": str(exc), "missing_packages": None}
    return {"verified": check.to_dict(), "environment_error": None, "missing_packages": []}


def isolation_report(sandbox: str = AUTO, *, python: str | None = None, probe: bool = False) -> dict[str, Any]:
    """What isolation ``sandbox`` gives on this host (``probe=True`` also measures each property).

    Includes the sandbox interpreter's environment checked inside the backend
    (:func:`environment_status`): ``verified`` is ``None`` when programs could not import what
    the scene prompt promises there.
    """
    from physeval.scenes.sandbox.interpreter import default_sandbox_python, pin_interpreter

    python = python or default_sandbox_python()
    backends = {name: dict(zip(("available", "detail"), get_backend(name).available())) for name in backend_names()}
    warnings_: list[str] = []
    try:
        backend = choose_backend(sandbox)
    except SandboxUnavailable as exc:
        return {
            "mode": "unavailable",
            "requested": sandbox,
            "detail": str(exc),
            "backends": backends,
            "python": python,
            "warnings": [str(exc)],
            "verified": None,
            "environment_error": f"not checked: {exc}",
            "missing_packages": None,
        }
    report: dict[str, Any] = {
        "mode": backend.name,
        "requested": sandbox,
        "detail": backend.available()[1],
        "backends": backends,
        **backend.isolation_report(),
    }
    support = cgroup_support()
    if not backend.isolating:
        report["memory"] = "per-process RLIMIT_AS only"
        warnings_.append("NO network, filesystem, IPC or process isolation: --sandbox none was asked for")
        warnings_.append("RLIMIT_NPROC does not bind root: fork bombs are bounded only by the wall clock")
    elif support.available:
        report["memory"] = f"per-run cgroup under {support.base}: memory.max and pids.max"
    else:
        report["memory"] = "per-process RLIMIT_AS + in-sandbox watcher of the run's total memory; memfd refused"
        warnings_.append(
            f"no per-run cgroup ({support.reason}): memory is bounded per process and watched, "
            "not accounted by the kernel; set PHYSEVAL_CGROUP to a delegated cgroup v2 directory"
        )
    status = environment_status(python, backend.name)
    if status["environment_error"]:
        warnings_.append(status["environment_error"])
    # the probes below run the interpreter as programs do: pinned to its build, never through the switching link
    python = status["verified"]["python"] if status["verified"] else pin_interpreter(python)
    report["environment"] = "rebuilt from scratch (PATH, HOME/TMPDIR in the working dir, locale, thread counts)"
    report["rlimits"] = [
        "RLIMIT_CPU",
        "RLIMIT_AS",
        "RLIMIT_FSIZE",
        "RLIMIT_NOFILE",
        "RLIMIT_NPROC",
        "RLIMIT_MSGQUEUE",
        "RLIMIT_CORE",
    ]
    report["python"] = python
    report.update(status)
    if backend.isolating:
        watched = not support.available
        report["seccomp"] = describe(memfd=watched) if compile_filter(memfd=watched) else []
        if not report["seccomp"]:
            warnings_.append("no seccomp filter on this machine architecture")
        limits = SandboxLimits()
        report["inode_limit"] = (f"{limits.inodes} files per tmpfs (/tmp, /dev/shm, working directory): at most "
                                 f"{limits.inode_bytes() >> 20} MiB of kernel memory, counted in the memory budget")
        report["pty_cap"] = f"{limits.ptys} ptys (private devpts, max={limits.ptys})"
    if probe:
        report["properties"] = check_properties(backend, python)
        off = [k for k, v in report["properties"].items() if v["state"] == "off"]
        if off and backend.isolating:
            warnings_.append("not isolated: " + ", ".join(off))
    report["warnings"] = warnings_
    return report
