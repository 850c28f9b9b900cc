"""Run one documentation block inside a private network namespace, with scripted models on it.

    unshare -rn python tests/_docs_inside.py bash|python SCRIPT

Why: the pages name vLLM's usual address (127.0.0.1:8000) and a judge's (127.0.0.1:8001). In a
namespace of its own (``unshare -rn``: a user namespace, so no privilege is needed) this script
brings the loopback interface up, serves a scripted OpenAI-compatible model on both ports, and
runs the block; nothing else is reachable (no other interface, no DNS), so a block that would
reach out fails instead of leaving the machine. The exit status is the block's.
"""

from __future__ import annotations

import fcntl
import socket
import struct
import subprocess
import sys

from physeval.testing import Reply, ScriptedServer
from physeval.testing.server import Request

SIOCGIFFLAGS, SIOCSIFFLAGS, IFF_UP = 0x8913, 0x8914, 0x1
PORTS = (8000, 8001)


def loopback_up() -> None:
    """Bring ``lo`` up (a new network namespace starts with it down)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        request = struct.pack("16sH14x", b"lo", 0)
        flags = struct.unpack("16sH14x", fcntl.ioctl(sock, SIOCGIFFLAGS, request))[1]
        fcntl.ioctl(sock, SIOCSIFFLAGS, struct.pack("16sH14x", b"lo", flags | IFF_UP))


def docs_reply(request: Request) -> Reply:
    """An instant model: a boxed number to every question, "yes" to a judge's yes/no question."""
    text = " ".join(str(m.get("content")) for m in request.body.get("messages", []))
    if "yes" in text.lower() and "no" in text.lower() and "boxed" not in text:
        return Reply.text("yes")
    return Reply.text("The answer is \\boxed{1}.")


def main(kind: str, script: str) -> int:
    """Serve the scripted model on :data:`PORTS`, run the block, return its exit status."""
    loopback_up()
    servers = [ScriptedServer(docs_reply, port=port).start() for port in PORTS]
    try:
        command = ["bash", "-eo", "pipefail", script] if kind == "bash" else [sys.executable, script]
        return subprocess.call(command)
    finally:
        for server in servers:
            server.stop()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
