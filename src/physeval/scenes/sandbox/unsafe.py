"""The ``none`` backend: NO isolation, resource limits only. Must be asked for by name.

The program runs in its own session under the same init (resource limits, scrubbed
environment, capped output, wall clock, every process it leaves killed), but with the host's
network, filesystem, IPC and processes in full view and as the calling user. ``auto`` never
picks it; each run warns (``RuntimeWarning``); ``SandboxLimits(require_isolation=True)``
refuses it. Use it only for programs you trust, or where no isolating backend can run and
you accept the risk.
"""

from __future__ import annotations

import os
import warnings
from typing import Any

from physeval.scenes.sandbox.backend import Backend, register_backend
from physeval.scenes.sandbox.context import RunContext

__all__ = ["NoneBackend"]

WARNING = (
    "physeval sandbox 'none': NO network or filesystem isolation; model-written programs run with resource limits only"
)


@register_backend
class NoneBackend(Backend):
    """No isolation: resource limits, a scrubbed environment and the wall clock only."""

    name = "none"
    rank = 1000
    isolating = False

    def _check(self) -> tuple[bool, str]:
        return True, "always available; isolates nothing"

    def command(self, ctx: RunContext) -> list[str]:
        """The init run directly on the host; the working directory is a host directory."""
        warnings.warn(WARNING, RuntimeWarning, stacklevel=2)
        os.mkdir(ctx.box, 0o700)
        return ctx.init_command()

    def isolation_report(self) -> dict[str, Any]:
        """What this backend isolates: nothing."""
        return {
            "network": "NOT ISOLATED",
            "ipc": "NOT ISOLATED (host IPC objects visible; leftovers outlive the run)",
            "pid": "NOT ISOLATED (own session only)",
            "uts": "NOT ISOLATED",
            "cgroup_namespace": "NOT ISOLATED",
            "mounts": "NOT ISOLATED: the whole host filesystem, writable where the user may write",
            "tmp": "the host's /tmp and /dev/shm",
            "pty": "the host's pty pool",
            "user": "the calling user",
        }
