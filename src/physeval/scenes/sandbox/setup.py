"""``physeval sandbox setup``: build the sandbox interpreter's venv so that no one ever sees it half-built.

Why: scene runs use the venv as soon as its ``bin/python`` exists. A setup that was interrupted,
or one running while another process starts a run, used to leave a venv without numpy or cv2
in place, and every program then failed as if the model had written it wrong.

How: each setup builds a complete venv in a directory of its own (``<path>.builds/<id>``),
installs :data:`~.environment.SANDBOX_PACKAGES`, makes it world-readable and writes its lock
file beside it; only then does ``<path>`` become a symlink to it, by an atomic rename of a new
link over the old one. A reader sees the old complete environment or the new complete one,
never a mix, and a failed build leaves ``<path>`` as it was. Setups run one at a time under a
lock file (``flock``, released when the process ends, so a killed setup never blocks the next
one). The previous build is kept, so that renders started before the switch can finish; older
ones are removed. (The venv is built where it stays, because a venv cannot be moved.)
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import secrets
import shutil
import subprocess
import venv
from collections.abc import Iterator
from pathlib import Path

from physeval.scenes.sandbox.environment import SANDBOX_PACKAGES
from physeval.scenes.sandbox.lock import LOCK_SUFFIX, write_lock

__all__ = ["builds_dir", "setup_lock", "setup_sandbox_env"]


def builds_dir(root: Path) -> Path:
    """Where the complete builds of the venv at ``root`` live."""
    return root.with_name(root.name + ".builds")


@contextlib.contextmanager
def setup_lock(root: Path) -> Iterator[Path]:
    """Hold the exclusive setup lock of ``root`` (blocks while another setup runs)."""
    path = root.with_name("." + root.name + ".setup-lock")
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield path
    finally:
        os.close(fd)  # drops the lock


def setup_sandbox_env(path: str | os.PathLike[str]) -> Path:
    """Build a venv holding exactly :data:`SANDBOX_PACKAGES` and make ``path`` point at it; return
    ``path/bin/python``.

    Installs from the configured package index with pip (network needed, once). The venv's
    directories are made world-readable so the sandbox's unprivileged uid can use them. Then
    writes the lock file beside the build (:func:`~.lock.write_lock`: the exact versions
    installed), whose SHA-256 every scene run records. Raises what pip raises when the install
    fails; ``path`` is then unchanged.
    """
    root = Path(path).absolute()
    root.parent.mkdir(parents=True, exist_ok=True)
    with setup_lock(root):
        builds = builds_dir(root)
        builds.mkdir(exist_ok=True)
        build = builds / secrets.token_hex(6)
        try:
            _build(build)
        except BaseException:
            shutil.rmtree(build, ignore_errors=True)
            build.with_name(build.name + LOCK_SUFFIX).unlink(missing_ok=True)
            raise
        previous = root.resolve() if root.is_symlink() else None
        if root.exists() and not root.is_symlink():  # a venv of the older in-place layout: moved aside once
            previous = builds / f"legacy-{secrets.token_hex(4)}"
            os.rename(root, previous)
            legacy_lock = root.with_name(root.name + LOCK_SUFFIX)
            if legacy_lock.exists():
                os.rename(legacy_lock, previous.with_name(previous.name + LOCK_SUFFIX))
        link = root.with_name(f".{root.name}.link-{secrets.token_hex(4)}")
        os.symlink(build, link)
        os.replace(link, root)  # the switch: atomic
        _prune(builds, keep={build, previous})
    return root / "bin" / "python"


def _build(build: Path) -> None:
    venv.EnvBuilder(with_pip=True, clear=False, symlinks=True).create(build)
    py = build / "bin" / "python"
    subprocess.run(
        [str(py), "-m", "pip", "install", "--disable-pip-version-check", "--no-input", *SANDBOX_PACKAGES],
        check=True,
    )
    for dirpath, dirnames, filenames in os.walk(build):
        for name in dirnames:
            p = os.path.join(dirpath, name)
            os.chmod(p, os.stat(p).st_mode | 0o055)
        for name in filenames:
            p = os.path.join(dirpath, name)
            if not os.path.islink(p):
                os.chmod(p, os.stat(p).st_mode | 0o044)
    os.chmod(build.parent, 0o755)
    write_lock(py, build)


def _prune(builds: Path, keep: set[Path | None]) -> None:
    for entry in builds.iterdir():
        base = entry.name[: -len(LOCK_SUFFIX)] if entry.name.endswith(LOCK_SUFFIX) else entry.name
        if builds / base in keep:
            continue
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry, ignore_errors=True)
        else:
            entry.unlink(missing_ok=True)
