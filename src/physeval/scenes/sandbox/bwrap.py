"""The ``bwrap`` backend: bubblewrap (Debian package ``bubblewrap``), the preferred sandbox.

Works without root wherever unprivileged user namespaces are allowed (most clusters and
desktops), and as root. When physeval is root it first drops to a random unprivileged uid
(so the per-user ``RLIMIT_NPROC`` binds and no capability of the host is ever held); otherwise
bwrap runs as the caller. The command line:

* ``--unshare-all --unshare-user --uid 0 --gid 0``: new user, network, IPC, PID, UTS and (where
  the kernel allows) cgroup namespaces; the init is uid 0 of that user namespace (that is, the
  calling uid on the host) with ``CAP_SYS_ADMIN`` there and nothing else, so that it can bound
  bwrap's tmpfs mounts (``nr_inodes``) and devpts (``max``) and put the program in a PID
  namespace of its own, below an init it cannot see, as a uid of its own in a child user
  namespace, with no capability (see :mod:`._init_program`). New user namespaces are refused
  to the program by the seccomp filter (:mod:`.seccomp`), not by ``--disable-userns``, which
  would have taken the init's rights over its own mounts;
* ``--die-with-parent --new-session --clearenv --hostname sandbox``;
* an empty root (read-only) holding only :func:`~.mounts.mount_plan`'s read-only binds (as
  root, staged by the launcher first, so binds work even below a directory the sandbox uid
  cannot search, such as ``/root``), the program file, a synthetic ``/etc/passwd`` and
  ``/etc/group``, a fresh ``/proc``, a minimal ``/dev`` with a private devpts, and
  size-limited tmpfs mounts on ``/tmp``, ``/dev/shm`` and the working directory;
* the init (:mod:`._init_program`) as the command, run by the host's base interpreter.
"""

from __future__ import annotations

import os
import shutil
from typing import Any

from physeval.scenes.sandbox.backend import Backend, register_backend
from physeval.scenes.sandbox.context import RunContext
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
        failure = self._probe_failure()
        if failure is not None:
            return False, f"bwrap did not start (are unprivileged user namespaces disabled?): {failure}"
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
        passwd, group = passwd_files(ctx, 0, 0)
        ctx.cfg.update(identity="capdrop", uid=0, gid=0)  # uid 0 of the sandbox's user namespace, no capability
        cmd = [
            shutil.which("bwrap") or "bwrap",
            "--unshare-all", "--unshare-user", "--uid", "0", "--gid", "0",
            "--die-with-parent", "--new-session", "--cap-drop", "ALL",
            "--cap-add", "CAP_SYS_ADMIN", "--cap-add", "CAP_SETPCAP",
            "--clearenv", "--hostname", "sandbox",
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
        return [*cmd, "--", *ctx.init_command()]

    def isolation_report(self) -> dict[str, Any]:
        """What this backend isolates."""
        return {
            "network": "new network namespace (loopback only)",
            "ipc": "new IPC namespace (SysV and POSIX IPC private, gone after the run)",
            "pid": "new PID namespace, and the program is PID 2 of a nested one (below physeval's init, its "
                   "PID 1): it sees neither that init nor bwrap's reaper; everything dies with it",
            "uts": "new UTS namespace (host name 'sandbox')",
            "cgroup_namespace": "new cgroup namespace where the kernel allows",
            "mounts": "own root: read-only interpreter, /usr, a few /etc files; nothing else of the host",
            "tmp": "private tmpfs /tmp, /dev/shm and working directory, bounded in size and inodes",
            "pty": "private devpts instance (max ptys from the limits)",
            "user": (
                "uid 0 of an own user namespace, mapped to a random unprivileged host uid (physeval is root); "
                "no capabilities (empty bounding set, locked securebits), no_new_privs, seccomp"
                if os.geteuid() == 0
                else "uid 0 of an own user namespace, mapped to the calling user; no capabilities (empty bounding "
                     "set, locked securebits), no_new_privs, seccomp"
            ),
        }
