"""The guard these tests rely on: no connection leaves the machine, here or in a child process."""

from __future__ import annotations

import os
import socket
import subprocess
import sys

import pytest

from physeval.testing import Reply, ScriptedServer

OUTSIDE = ("192.0.2.1", 80)  # TEST-NET-1: never a real host


def test_this_process_refuses_outside_addresses_and_reaches_loopback() -> None:
    with pytest.raises(ConnectionRefusedError, match="network guard"):
        socket.create_connection(OUTSIDE, timeout=1)
    with ScriptedServer(lambda request: Reply.text("ok")) as server:
        host, port = server.base_url.split("//")[1].split("/")[0].split(":")
        socket.create_connection((host, int(port)), timeout=5).close()


def test_child_processes_get_the_guard_through_pythonpath() -> None:
    code = f"import socket\ntry:\n    socket.create_connection({OUTSIDE!r}, timeout=1)\nexcept ConnectionRefusedError as e:\n" \
           "    print(e)\n"
    done = subprocess.run([sys.executable, "-c", code], env=dict(os.environ), capture_output=True, text=True,
                          timeout=60, check=True)
    assert "network guard" in done.stdout
