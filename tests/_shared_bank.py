"""The built bank, shared by every test of a run: the one piece of the cache directory tests share.

The built bank is derived data named by the hash of what builds it (:mod:`physeval.variation.
bank_cache`), written whole or not at all, and safe to fill from several processes at once: a
user's machine builds it once and every later run reads it. A fresh directory per test made every
test that runs a bank task rebuild it (about 6 s of CPU for the numeric bank each time), a path no
user takes. Responses and EED trees stay per test; ``tests/variation/test_bank_cache.py`` keeps
its own bank directories.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest


def shared_bank_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The built bank's directory for every test of this run, both xdist workers included."""
    base = tmp_path_factory.getbasetemp()
    root = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base  # xdist: popen-gwN's shared parent
    path = root / "shared-bank"
    path.mkdir(exist_ok=True)
    return path


def link_shared_bank(cache: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``cache`` (made if missing) with its ``bank/`` the run's shared built bank; returns ``cache``."""
    cache.mkdir(parents=True, exist_ok=True)
    (cache / "bank").symlink_to(shared_bank_dir(tmp_path_factory), target_is_directory=True)
    return cache


def isolated_cache_dir(tmp_path_factory: pytest.TempPathFactory, name: str = "cache") -> Path:
    """A fresh ``PHYSEVAL_CACHE_DIR``: its own response and EED caches, the run's shared built bank."""
    return link_shared_bank(tmp_path_factory.mktemp(name), tmp_path_factory)
