"""A real multi-node Ray cluster on this machine, for the Ray executor's tests and benchmarks.

Why: "runs over Ray" only means something when tasks cross node boundaries. This starts a
head node and more nodes with ``ray start --block`` (each a process we own, so stopping the
cluster is signalling our own processes, never ``ray stop``, which would stop every Ray on
the machine), without the dashboard, and tears it down on ``stop()``.

Addresses: every node is ``127.0.0.2``, a loopback address (Ray rewrites ``127.0.0.1`` to the
machine's outward address, and its single-node mode, which keeps to 127.0.0.1, refuses a second
node), so nodes and drivers talk over loopback. Ray's gRPC servers still listen on all
interfaces in cluster mode; Ray offers no switch for that.

    with LocalRayCluster(nodes=2) as cluster:
        executor = RayExecutor(address=cluster.address, node_ip_address=NODE_IP)
"""

from __future__ import annotations

import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

__all__ = ["NODE_IP", "LocalRayCluster", "RayClusterError"]

NODE_IP = "127.0.0.2"
"""The loopback address every node (and a driver on this machine) uses."""


class RayClusterError(RuntimeError):
    """The cluster could not start (a test skips with this message)."""


def _refresh_ray_auth() -> None:
    """Make an already imported Ray read the auth settings again (it caches them on import)."""
    try:
        from ray._raylet import AuthenticationTokenLoader, Config  # type: ignore[attr-defined]
    except ImportError:  # an older Ray without token authentication: nothing cached
        return
    Config.initialize("")
    AuthenticationTokenLoader.instance().reset_cache()


class LocalRayCluster:
    """``nodes`` Ray nodes on 127.0.0.1 with ``cpus_per_node`` CPUs each; ``address`` once started."""

    def __init__(self, nodes: int = 2, *, cpus_per_node: int = 1, object_store_bytes: int = 100_000_000) -> None:
        if nodes < 1:
            raise ValueError("a cluster has at least one node")
        self.nodes = nodes
        self.cpus_per_node = cpus_per_node
        self.object_store_bytes = object_store_bytes
        self.address: str | None = None
        self._processes: list[subprocess.Popen[str]] = []
        self._logs: list[Path] = []
        self._temp = Path(tempfile.mkdtemp(prefix="physeval-ray-"))
        self.token = secrets.token_hex(32)  # this cluster's own token (Ray's token authentication stays on)

    @property
    def env(self) -> dict[str, str]:
        """The environment the nodes run in: this cluster's auth token, no usage stats."""
        return {**os.environ, "RAY_USAGE_STATS_ENABLED": "0", "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": self.token}

    def _ray(self) -> str:
        candidate = Path(sys.executable).with_name("ray")
        return str(candidate) if candidate.exists() else (shutil.which("ray") or "ray")

    def _start_node(self, args: list[str], name: str) -> Path:
        log = self._temp / f"{name}.log"
        handle = log.open("w")
        command = [self._ray(), "start", "--block", f"--node-ip-address={NODE_IP}", "--disable-usage-stats",
                   f"--num-cpus={self.cpus_per_node}", f"--object-store-memory={self.object_store_bytes}", *args]
        self._processes.append(subprocess.Popen(command, stdout=handle, stderr=subprocess.STDOUT, text=True,
                                                env=self.env, start_new_session=True))
        self._logs.append(log)
        return log

    def start(self, timeout: float = 180.0) -> str:
        """Start the head, then the other nodes; the head's address. Raises :class:`RayClusterError`.

        Sets ``RAY_AUTH_MODE=token`` and ``RAY_AUTH_TOKEN`` in this process too, so that its
        ``ray.init`` is let in.
        """
        os.environ.update({"RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": self.token})
        _refresh_ray_auth()
        head_log = self._start_node(["--head", "--port=0", "--include-dashboard=false",
                                     f"--temp-dir={self._temp / 'ray'}"], "head")
        deadline = time.monotonic() + timeout
        while self.address is None:
            text = head_log.read_text() if head_log.exists() else ""
            match = re.search(r"ray start --address='([^']+)'", text)
            if match:
                self.address = match.group(1)
                break
            if self._processes[0].poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RayClusterError(f"the Ray head did not start: {text[-1500:]}")
            time.sleep(0.5)
        for i in range(1, self.nodes):
            self._start_node([f"--address={self.address}"], f"node{i}")
        return self.address

    def wait_for_nodes(self, timeout: float = 180.0) -> int:
        """Wait (from a connected driver) until every node is alive; how many are."""
        import ray

        deadline = time.monotonic() + timeout
        alive = 0
        while time.monotonic() < deadline:
            alive = sum(1 for node in ray.nodes() if node.get("Alive"))
            if alive >= self.nodes:
                return alive
            if any(p.poll() is not None for p in self._processes):
                break
            time.sleep(0.5)
        logs = "".join(log.read_text()[-800:] for log in self._logs if log.exists())
        raise RayClusterError(f"only {alive} of {self.nodes} Ray nodes came up: {logs}")

    def stop(self) -> None:
        """Stop every node we started (the others first, then the head) and remove the temp dir."""
        for process in reversed(self._processes):
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        for process in reversed(self._processes):
            try:
                process.wait(60)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)  # its own session: only this node's processes
                process.wait(10)
        self._processes.clear()
        shutil.rmtree(self._temp, ignore_errors=True)

    def __enter__(self) -> LocalRayCluster:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
