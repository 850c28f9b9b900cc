"""Integration tests run offline: a socket guard (loopback and unix sockets only) in this process
and in every child started with :func:`offline_env`; inspect, wandb and TensorBoard write to tmp."""

from __future__ import annotations

import os
import runpy
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

NETGUARD = Path(__file__).resolve().parent / "_netguard"


@pytest.fixture(autouse=True)
def _offline(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """No test here may reach a non-loopback address; tools keep their files under tmp_path."""
    connect, connect_ex = socket.socket.connect, socket.socket.connect_ex
    runpy.run_path(str(NETGUARD / "sitecustomize.py"))  # patches socket.socket in this process
    for key, value in offline_env(tmp_path).items():
        monkeypatch.setenv(key, value)
    try:
        yield
    finally:
        socket.socket.connect, socket.socket.connect_ex = connect, connect_ex  # type: ignore[method-assign]


def offline_env(tmp_path: Path) -> dict[str, str]:
    """Environment for this process and its children: the guard on PYTHONPATH, offline tools."""
    python_path = os.pathsep.join(p for p in (str(NETGUARD), os.environ.get("PYTHONPATH", "")) if p)
    return {
        "PYTHONPATH": python_path,
        "INSPECT_LOG_DIR": str(tmp_path / "inspect-logs"),
        "INSPECT_TELEMETRY": "",
        "WANDB_MODE": "offline",
        "WANDB_DIR": str(tmp_path / "wandb"),
        "WANDB_SILENT": "true",
        "HF_HUB_OFFLINE": "1",
        "NO_PROXY": "127.0.0.1,localhost",
    }
