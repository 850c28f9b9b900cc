"""Loaded by every Python process a test starts with this folder on PYTHONPATH: refuse any
connection that is not to a loopback address or a unix socket, so a test cannot reach the network."""

import ipaddress
import socket

_connect, _connect_ex = socket.socket.connect, socket.socket.connect_ex


def _check(sock: socket.socket, address: object) -> None:
    if sock.family not in (socket.AF_INET, socket.AF_INET6):
        return
    host = str(address[0]) if isinstance(address, tuple) else str(address)
    try:
        loopback = ipaddress.ip_address(host.split("%")[0]).is_loopback
    except ValueError:
        loopback = host == "localhost"
    if not loopback:
        raise ConnectionRefusedError(f"test network guard: connection to {host} refused (loopback only)")


def _guarded_connect(self: socket.socket, address: object) -> None:
    _check(self, address)
    return _connect(self, address)


def _guarded_connect_ex(self: socket.socket, address: object) -> int:
    _check(self, address)
    return _connect_ex(self, address)


socket.socket.connect = _guarded_connect  # type: ignore[method-assign]
socket.socket.connect_ex = _guarded_connect_ex  # type: ignore[method-assign]
