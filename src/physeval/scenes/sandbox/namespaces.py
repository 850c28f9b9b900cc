"""The ``namespaces`` backend: util-linux ``unshare`` and a root init that builds its own root.

Needs root (mounts and the uid switch). ``unshare --pid --fork --net --mount --ipc --uts
--cgroup --mount-proc --kill-child --propagation private`` starts the init (see
:mod:`._init_program`) as PID 1 of fresh namespaces:

* network: only a loopback interface, left down; nothing of the host, not even 127.0.0.1,
  and no abstract unix socket of the host is reachable;
* IPC: SysV shared memory, semaphores, message queues and POSIX message queues are private
  and vanish with the namespace (no leftovers, nothing read across runs);
* PID: the program sees only its own processes; when the init exits the kernel kills every
  process left (double-forked daemons included);
* UTS and cgroup: its own host name (``sandbox``) and cgroup view;
* mounts: a new root on a tmpfs holding only :func:`~.mounts.mount_plan`'s read-only binds,
  the device nodes, a private devpts, size-limited tmpfs ``/tmp``, ``/dev/shm`` and working
  directory, and a fresh ``/proc``; ``pivot_root`` drops the rest of the host.

The program then runs as a random unprivileged uid with no groups, no capabilities and
``no_new_privs``, so the per-user ``RLIMIT_NPROC`` binds.
"""

from __future__ import annotations

import os
import shutil
from typing import Any

from physeval.scenes.sandbox.backend import Backend, register_backend
from physeval.scenes.sandbox.context import RunContext
from physeval.scenes.sandbox.mounts import mount_plan, passwd_files

__all__ = ["UNSHARE_FLAGS", "NamespacesBackend"]

UNSHARE_FLAGS = (
    "--pid", "--fork", "--net", "--mount", "--ipc", "--uts", "--cgroup",
    "--mount-proc", "--kill-child", "--propagation", "private",
)  # fmt: skip


@register_backend
class NamespacesBackend(Backend):
    """Fresh namespaces via ``unshare(1)`` and a root-built minimal root (needs root)."""

    name = "namespaces"
    rank = 20

    def _check(self) -> tuple[bool, str]:
        if shutil.which("unshare") is None:
            return False, "the unshare binary (util-linux) is not installed"
        if os.geteuid() != 0:
            return (
                False,
                "not running as root (this backend needs root for its mounts and the uid switch)",
            )
        failure = self._probe_failure()
        if failure is not None:
            return False, f"the namespace sandbox did not start: {failure}"
        return (
            True,
            "unshare --pid --net --mount --ipc --uts --cgroup works; own root, uid switch and limits applied",
        )

    def command(self, ctx: RunContext) -> list[str]:
        """``unshare ... -- python -I -S -c <init> <cfg>`` with the root spec in ``cfg``."""
        plan = mount_plan(ctx.python)
        passwd, group = passwd_files(ctx, ctx.uid, ctx.gid)
        binds = [(src, src, kind) for src, kind in plan.binds]
        binds += [
            (ctx.script, ctx.script, "file"),
            (passwd, "/etc/passwd", "file"),
            (group, "/etc/group", "file"),
        ]
        ctx.cfg["identity"] = "setuid"
        ctx.cfg["root"] = {
            "path": os.path.join(ctx.workdir, "root"),
            "binds": binds,
            "symlinks": list(plan.symlinks),
        }
        return [shutil.which("unshare") or "unshare", *UNSHARE_FLAGS, "--", *ctx.init_command()]

    def isolation_report(self) -> dict[str, Any]:
        """What this backend isolates."""
        return {
            "network": "new network namespace (loopback only, down)",
            "ipc": "new IPC namespace (SysV and POSIX IPC private, gone after the run)",
            "pid": "new PID namespace (init is PID 1; everything dies with it)",
            "uts": "new UTS namespace (host name 'sandbox')",
            "cgroup_namespace": "new cgroup namespace",
            "mounts": "own root: read-only interpreter, /usr, a few /etc files; nothing else of the host",
            "tmp": "private size-limited tmpfs /tmp, /dev/shm and working directory",
            "pty": "private devpts instance (max ptys from the limits)",
            "user": "random unprivileged uid, no groups, no capabilities, no_new_privs",
        }
