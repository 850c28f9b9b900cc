"""An exclusive lock on a run folder: one writer at a time, refused at once; readers never wait.

Why: two processes writing one run folder ask the model twice for the same samples (two runs
into one ``--out``, or a ``--resume`` while the first run is still going) and interleave their
rows and sessions. Every command that writes a run folder (``run``, ``run --resume``,
``regrade`` into it, ``score`` into it, a scene ``build``) holds ``DIR/physeval.lock`` with
``flock(LOCK_EX)`` from before it reads the folder's state until its summary is written.

* **A second writer is refused at once** (:class:`RunFolderBusy`, a user error: exit 2), with
  who holds the folder (pid, host, start time, command) and what to do.
* **A dead writer's lock is free.** The kernel releases a ``flock`` when its holder exits, even
  by SIGKILL, so the next writer takes the folder without any clean-up. The pid, host and
  command written into the file are information for the message, never used to decide.
* **Readers take no lock.** ``report``, ``export`` and ``stats`` read while a run writes (SQLite's
  write-ahead log gives them a consistent snapshot); :func:`holder` tells them who is writing.
* **Re-entrant within a process**: nested holds of one folder (``evaluate`` around the runner)
  share one ``flock``. The descriptor is close-on-exec, so no child process keeps the lock.

On NFS, Linux emulates ``flock`` with ``fcntl`` byte-range locks, which the server enforces
across clients. Where ``fcntl`` does not exist (Windows) folders are not locked.
"""

from __future__ import annotations

import json
import os
import socket
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from physeval.errors import UserError
from physeval.sqlite_file import storage_fault

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: folders are not locked
    fcntl = None  # type: ignore[assignment]

__all__ = ["LOCK_NAME", "RunFolderBusy", "hold_run_folder", "holder"]

LOCK_NAME = "physeval.lock"

_held: dict[Path, list[int]] = {}  # folder -> [descriptor, holds]
_guard = threading.Lock()


class RunFolderBusy(UserError):
    """Another process writes this folder; ``holder`` is what it recorded (pid, host, started_at, command)."""

    def __init__(self, message: str, holder: dict[str, Any]) -> None:
        super().__init__(message)
        self.holder = holder


@contextmanager
def hold_run_folder(run_dir: str | Path, what: str = "run") -> Iterator[None]:
    """Hold ``run_dir``'s lock while inside (made with the folder if missing); :class:`RunFolderBusy`
    at once when another process holds it. ``what`` names this writer in the lock file."""
    key = _key(run_dir)
    with _guard:
        entry = _held.get(key)
        if entry is None:
            entry = _held[key] = [_acquire(Path(run_dir), what), 0]
        entry[1] += 1
    try:
        yield
    finally:
        with _guard:
            entry[1] -= 1
            if entry[1] == 0:
                del _held[key]
                _release(entry[0])


def holder(run_dir: str | Path) -> dict[str, Any] | None:
    """What the folder's last writer recorded, with ``alive``: whether that process still runs (only
    known on this host; ``None`` elsewhere). ``None`` when no writer ever held the folder."""
    info = _read_info(Path(run_dir) / LOCK_NAME)
    if not info:
        return None
    pid, host = info.get("pid"), info.get("host")
    if _key(run_dir) in _held:
        info["alive"] = True
    elif host == socket.gethostname() and isinstance(pid, int):
        info["alive"] = _alive(pid)
    else:
        info["alive"] = None
    return info


def _key(run_dir: str | Path) -> Path:
    return Path(os.path.abspath(run_dir))


def _acquire(run_dir: Path, what: str) -> int:
    path = run_dir / LOCK_NAME
    try:
        run_dir.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o644)
    except OSError as exc:
        fault = storage_fault(exc, path)
        if fault is None:
            raise
        raise fault from exc
    if fcntl is None:  # pragma: no cover
        return fd
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        info = _read_info(path)
        os.close(fd)
        raise RunFolderBusy(_busy_message(run_dir, info), info) from None
    except BaseException:
        os.close(fd)
        raise
    _write_info(fd, what)
    return fd


def _release(fd: int) -> None:
    try:
        if fcntl is not None:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def _write_info(fd: int, what: str) -> None:
    """Who holds the folder, for the message a second writer gets (best effort: a full disk must not
    stop the lock; the run's first write names that fault)."""
    info = {"pid": os.getpid(), "host": socket.gethostname(),
            "started_at": datetime.now(UTC).isoformat(timespec="seconds"), "what": what,
            "command": " ".join(["physeval" if i == 0 else a for i, a in enumerate(sys.argv)])[:300]}
    data = (json.dumps(info) + "\n").encode("utf-8")
    try:
        os.ftruncate(fd, 0)
        os.pwrite(fd, data, 0)
    except OSError:
        pass


def _read_info(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8") or "{}")
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _busy_message(run_dir: Path, info: dict[str, Any]) -> str:
    if not info.get("pid"):
        return (f"{run_dir} is in use by another physeval process (it holds {run_dir / LOCK_NAME}): wait for it "
                "to end, or stop it; reading the folder meanwhile is fine (physeval report)")
    pid, host = info["pid"], info.get("host") or "?"
    here = host == socket.gethostname()
    since = _since(str(info.get("started_at") or ""))
    command = f" `{info['command']}`" if info.get("command") else ""
    stop = f"kill {pid}" if here else f"kill {pid} on {host}"
    what = str(info.get("what") or "run")
    then = f" and then `physeval run --resume {run_dir}`" if what == "run" else ""
    return (f"{run_dir} is in use: physeval {what} (pid {pid} on {host}, since {since}){command} is writing it. "
            f"Wait for it to end, or stop it ({stop}){then}; reading it meanwhile is fine (physeval report)")


def _since(started_at: str) -> str:
    try:
        started = datetime.fromisoformat(started_at)
    except ValueError:
        return started_at or "an unknown time"
    minutes = max(0, int((time.time() - started.timestamp()) // 60))
    return f"{started_at}, {minutes} min ago"
