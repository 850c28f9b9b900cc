"""The ``bwrap`` backend: bubblewrap (Debian package ``bubblewrap``), the preferred sandbox.

Works without root wherever unprivileged user namespaces are allowed (most clusters and
desktops), and as root. When physeval is root it first drops to a random unprivileged uid
(so the per-user ``RLIMIT_NPROC`` binds and no capability is ever held); otherwise bwrap runs
as the caller. The command line:

* ``--unshare-all --unshare-user --disable-userns``: new user, network, IPC, PID, UTS and
  (where the kernel allows) cgroup namespaces, and no nested user namespaces;
* ``--die-with-parent --new-session --cap-drop ALL --clearenv --hostname sandbox``;
* an empty root (read-only) holding only :func:`~.mounts.mount_plan`'s read-only binds (as
  root, staged by the launcher first, so binds work even below a directory the sandbox uid
  cannot search, such as ``/root``), the program file, a synthetic ``/etc/passwd`` and
  ``/etc/group``, a fresh ``/proc``, a minimal ``/dev`` with a private devpts, and
  size-limited tmpfs mounts on ``/tmp``, ``/dev/shm`` and the working directory;
* the init (:mod:`._init_program`) as the command, run by the host's base interpreter.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from typing import Any

from physeval.scenes.sandbox.backend import Backend, register_backend
from physeval.scenes.sandbox.host import RunContext, init_interpreter, init_source
from physeval.scenes.sandbox.limits import SandboxLimits
from physeval.scenes.sandbox.mounts import mount_plan, passwd_files

__all__ = ["BwrapBackend"]


@register_backend
class BwrapBackend(Backend):
    """bubblewrap with every namespace, an own minimal root and no capabilities."""

    name = "bwrap"
    rank = 10

    def _check(self) -> tuple[bool, str]:
        exe = shutil.which("bwrap")
        if exe is None:
            return (
                False,
                "bubblewrap is not installed (Debian/Ubuntu: apt-get install bubblewrap)",
            )
        try:
            probe = self.run("pass\n", limits=SandboxLimits(wall_s=30), python=sys.executable)
        except OSError as exc:
            return False, f"bwrap failed to start: {exc}"
        if not probe.ok:
            detail = probe.setup_error or probe.stderr_tail.strip()[-300:] or f"exit {probe.exit_code}"
            return (
                False,
                f"bwrap did not start (are unprivileged user namespaces disabled?): {detail}",
            )
        who = "a random unprivileged uid" if os.geteuid() == 0 else "the calling user"
        return (
            True,
            f"{exe} works as {who}: user, network, IPC, PID, UTS namespaces; own root; limits applied",
        )

    def command(self, ctx: RunContext) -> list[str]:
        """``bwrap <isolation> <binds> -- python -I -S -c <init> <cfg>``."""
        root = os.geteuid() == 0
        if root:
            ctx.drop_to = (ctx.uid, ctx.gid)
        lim = ctx.limits
        plan = mount_plan(ctx.python)
        passwd, group = passwd_files(ctx)
        cmd = [
            shutil.which("bwrap") or "bwrap",
            "--unshare-all", "--unshare-user", "--disable-userns",
            "--die-with-parent", "--new-session", "--cap-drop", "ALL", "--clearenv",
            "--hostname", "sandbox",
        ]  # fmt: skip
        cmd += ["--proc", "/proc", "--dev", "/dev"]
        cmd += ["--size", str(lim.tmp_bytes), "--perms", "1777", "--tmpfs", "/tmp"]
        cmd += ["--size", str(lim.shm_bytes), "--perms", "1777", "--tmpfs", "/dev/shm"]
        for src, kind in plan.binds:
            cmd += ["--ro-bind", ctx.stage(src, kind) if root else src, src]
        for target, path in plan.symlinks:
            cmd += ["--symlink", target, path]
        for src, dst in (
            (ctx.script, ctx.script),
            (passwd, "/etc/passwd"),
            (group, "/etc/group"),
        ):
            cmd += ["--ro-bind", ctx.stage(src, "file") if root else src, dst]
        cmd += ["--size", str(lim.disk_bytes), "--perms", "0700", "--tmpfs", ctx.box]
        cmd += ["--remount-ro", "/", "--chdir", "/"]
        return [
            *cmd,
            "--",
            init_interpreter(),
            "-I",
            "-S",
            "-c",
            init_source(),
            json.dumps(ctx.cfg),
        ]

    def isolation_report(self) -> dict[str, Any]:
        """What this backend isolates."""
        return {
            "network": "new network namespace (loopback only)",
            "ipc": "new IPC namespace (SysV and POSIX IPC private, gone after the run)",
            "pid": "new PID namespace (bwrap's reaper is PID 1; everything dies with it)",
            "uts": "new UTS namespace (host name 'sandbox')",
            "cgroup_namespace": "new cgroup namespace where the kernel allows",
            "mounts": "own root: read-only interpreter, /usr, a few /etc files; nothing else of the host",
            "tmp": "private size-limited tmpfs /tmp, /dev/shm and working directory",
            "pty": "private devpts instance",
            "user": (
                "random unprivileged uid (physeval is root), user namespace, no capabilities, no_new_privs"
                if os.geteuid() == 0
                else "the calling user inside a user namespace, no capabilities, no_new_privs"
            ),
        }
