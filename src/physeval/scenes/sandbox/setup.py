"""``physeval sandbox setup``: build the sandbox interpreter's venv so that no one ever sees it half-built.

Why: scene runs use the venv as soon as its ``bin/python`` exists. A setup that was interrupted,
or one running while another process starts a run, used to leave a venv without numpy or cv2
in place, and every program then failed as if the model had written it wrong.

How: each setup builds a complete venv in a directory of its own (``<path>.builds/<id>``),
installs :data:`~.environment.SANDBOX_PACKAGES` (binary wheels only: nothing compiles for this
machine's CPU) from a wheel folder beside it (``<path>.wheels``, filled by ``pip download``
first; ``offline=True`` installs from what an earlier setup left there, for a machine without an
index), makes it world-readable and writes its lock file beside it; only then does ``<path>``
become a symlink to it, by an atomic rename of a new link over the old one. A reader sees the
old complete environment or the new complete one, never a mix, and a failed build leaves
``<path>`` as it was. Setups run one at a time under a lock file (``flock``, released when the
process ends, so a killed setup never blocks the next one). The previous build is kept, so that
renders started before the switch can finish; older ones are removed. (The venv is built where
it stays, because a venv cannot be moved.)
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import secrets
import shutil
import subprocess
import venv
from collections.abc import Iterator
from pathlib import Path

from physeval.errors import UserError
from physeval.scenes.sandbox.environment import SANDBOX_PACKAGES, locked_packages
from physeval.scenes.sandbox.interpreter import sandbox_wheels_path
from physeval.scenes.sandbox.lock import LOCK_SUFFIX, lock_path_for, write_lock

__all__ = ["builds_dir", "is_set_up", "setup_lock", "setup_sandbox_env"]


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


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "_", name).lower()


def is_set_up(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is a complete setup: a build whose interpreter and ``bin/ffmpeg`` exist and
    whose lock file names every one of :data:`SANDBOX_PACKAGES` (a physeval that promises a new
    library is not)."""
    root = Path(path).absolute()
    lock = lock_path_for(root)
    if not (root / "bin" / "python").exists() or not (root / "bin" / "ffmpeg").exists() or not lock.is_file():
        return False  # a build of a physeval that did not link ffmpeg yet is rebuilt too
    try:
        locked = {_normal(name) for name in locked_packages(lock)}
    except (OSError, UnicodeDecodeError):
        return False
    return all(_normal(name) in locked for name in SANDBOX_PACKAGES)


def setup_sandbox_env(path: str | os.PathLike[str], *, offline: bool = False,
                      wheels: str | os.PathLike[str] | None = None) -> Path:
    """Build a venv holding exactly :data:`SANDBOX_PACKAGES` and make ``path`` point at it; return
    ``path/bin/python``.

    Downloads the packages' binary wheels into ``<path>.wheels`` with pip (network needed), then
    installs them from there; ``offline=True`` skips the download and installs from the wheels
    an earlier setup left (a :class:`~physeval.errors.UserError` naming the folder when they are
    not there). ``wheels`` names another wheel folder (a shared one on a cluster); an offline
    setup only reads it. The venv's directories are made world-readable so the sandbox's unprivileged
    uid can use them. Then writes the lock file beside the build (:func:`~.lock.write_lock`: the
    exact versions installed), whose SHA-256 every scene run records, and keeps only the wheels
    it names. Raises what pip raises when the install fails; ``path`` is then unchanged.
    """
    root = Path(path).absolute()
    root.parent.mkdir(parents=True, exist_ok=True)
    wheels = Path(wheels).absolute() if wheels is not None else sandbox_wheels_path(root)
    if offline and not any(wheels.glob("*.whl")):
        raise UserError(f"no wheels in {wheels} to set the sandbox up offline: run `physeval sandbox setup` "
                        "once on a machine that reaches the package index")
    with setup_lock(root):
        builds = builds_dir(root)
        builds.mkdir(exist_ok=True)
        build = builds / secrets.token_hex(6)
        try:
            _build(build, wheels, offline)
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
        if not offline:  # an offline setup only reads the wheels
            _prune_wheels(wheels, lock_path_for(root))
    return root / "bin" / "python"


def _build(build: Path, wheels: Path, offline: bool) -> None:
    venv.EnvBuilder(with_pip=True, clear=False, symlinks=True).create(build)
    py = build / "bin" / "python"
    # -I: pip sees the new venv alone (a caller's PYTHONPATH could make it skip a package as installed)
    pip = [str(py), "-I", "-m", "pip", "--disable-pip-version-check", "--no-input"]
    if not offline:
        wheels.mkdir(parents=True, exist_ok=True)
        subprocess.run([*pip, "download", "--only-binary=:all:", "--dest", str(wheels), *SANDBOX_PACKAGES],
                       check=True)
    subprocess.run([*pip, "install", "--only-binary=:all:", "--no-index", "--find-links", str(wheels),
                    *SANDBOX_PACKAGES], check=True)
    _link_ffmpeg(py)
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


def _link_ffmpeg(py: Path) -> None:
    """Make imageio-ffmpeg's binary the build's ``bin/ffmpeg`` (a relative link).

    Why: the scene prompt promises matplotlib and imageio-ffmpeg, and the usual
    ``ani.save(path, writer="ffmpeg")`` looks for ``ffmpeg`` on ``PATH``; the sandbox's ``PATH``
    holds the build's ``bin`` first (on every backend), so the link makes that save work.
    """
    found = subprocess.run([str(py), "-I", "-c", "import imageio_ffmpeg; print(imageio_ffmpeg.get_ffmpeg_exe())"],
                           check=True, capture_output=True, text=True).stdout.strip().splitlines()[-1]
    link = py.parent / "ffmpeg"
    link.unlink(missing_ok=True)
    os.symlink(os.path.relpath(found, py.parent), link)


def _prune_wheels(wheels: Path, lock: Path) -> None:
    """Keep only the wheels of the versions the lock file names (older setups' wheels go)."""
    if not wheels.is_dir() or not lock.is_file():
        return
    wanted = {(_normal(name), version) for name, version in locked_packages(lock).items()}
    for wheel in wheels.glob("*.whl"):
        name, _, rest = wheel.name.partition("-")
        if (_normal(name), rest.partition("-")[0]) not in wanted:
            wheel.unlink(missing_ok=True)


def _prune(builds: Path, keep: set[Path | None]) -> None:
    for entry in builds.iterdir():
        base = entry.name[: -len(LOCK_SUFFIX)] if entry.name.endswith(LOCK_SUFFIX) else entry.name
        if builds / base in keep:
            continue
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry, ignore_errors=True)
        else:
            entry.unlink(missing_ok=True)
