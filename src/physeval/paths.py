"""Where physeval keeps its files on this machine: one place that answers, for every module.

Why: the embedded model's weights, the sandbox interpreter and the caches used to find their
folders each in their own way, and a test (or a cluster user) that moved one with an
environment variable did not move the others. Every module asks here:

* :func:`data_dir` holds what setup commands build and runs read back: the model weights
  (``physeval local setup``) and the sandbox interpreter with its wheels (``physeval sandbox
  setup``). ``$PHYSEVAL_DATA_DIR``, else the platform's user data directory.
* :func:`cache_dir` holds what can be recomputed: responses, EED results, poison items.
  ``$PHYSEVAL_CACHE_DIR``, else the platform's user cache directory.

Both are read on every call, so a variable set after import (a test's ``monkeypatch``) counts.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["cache_dir", "data_dir"]


def data_dir() -> Path:
    """``$PHYSEVAL_DATA_DIR``, else ``physeval`` in the platform's user data directory."""
    root = os.environ.get("PHYSEVAL_DATA_DIR")
    if root:
        return Path(root)
    import platformdirs

    return Path(platformdirs.user_data_dir("physeval"))


def cache_dir() -> Path:
    """``$PHYSEVAL_CACHE_DIR``, else ``physeval`` in the platform's user cache directory."""
    root = os.environ.get("PHYSEVAL_CACHE_DIR")
    if root:
        return Path(root)
    import platformdirs

    return Path(platformdirs.user_cache_dir("physeval"))
