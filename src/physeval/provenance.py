"""Where a run's numbers came from: versions, data hashes, config hash, times and tokens.

Why: a score is only worth citing when another person can tell what produced it. Every run
records the physeval, Python and key library versions, a SHA-256 of each data file the task
read, a hash of the full resolved configuration, its start and end times and wall time (summed
over resumed sessions), and its token totals. ``summary.json`` carries it all under
``"provenance"``.
"""

from __future__ import annotations

import hashlib
import json
import platform
import sys
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

from physeval.version import __version__

__all__ = ["environment", "file_sha256", "config_hash", "token_totals", "utc_iso", "config_diff",
           "KEY_LIBRARIES"]

KEY_LIBRARIES = ("sympy", "latex2sympy2_extended", "antlr4-python3-runtime", "pint", "openai", "numpy", "av",
                 "cyllama", "ray")


def environment() -> dict[str, Any]:
    """physeval, Python and key library versions, and the platform."""
    libraries = {}
    for name in KEY_LIBRARIES:
        try:
            libraries[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return {"physeval": __version__, "python": sys.version.split()[0], "platform": platform.platform(),
            "libraries": libraries}


def file_sha256(path: str | Path, *, chunk: int = 1 << 20) -> str:
    """The SHA-256 of a file's bytes, hex."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while block := handle.read(chunk):
            digest.update(block)
    return digest.hexdigest()


def config_hash(config: Mapping[str, Any]) -> str:
    """A SHA-256 of the canonical JSON of a resolved configuration."""
    canonical = json.dumps(config, sort_keys=True, ensure_ascii=False, default=str, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def token_totals(usages: Iterable[Mapping[str, Any]]) -> dict[str, int]:
    """Summed prompt, completion and reasoning tokens over rows' ``usage`` dicts."""
    totals = {"prompt_tokens": 0, "completion_tokens": 0, "reasoning_tokens": 0}
    for usage in usages:
        for key in totals:
            value = (usage or {}).get(key)
            if isinstance(value, int):
                totals[key] += value
    return totals


def utc_iso(timestamp: float) -> str:
    """A POSIX timestamp as ISO 8601 UTC, to the second."""
    return datetime.fromtimestamp(timestamp, UTC).isoformat(timespec="seconds")


def config_diff(recorded: Mapping[str, Any], requested: Mapping[str, Any]) -> list[str]:
    """``key: recorded -> requested`` for every key whose value differs (keys of either side)."""
    lines = []
    for key in sorted(set(recorded) | set(requested)):
        old, new = recorded.get(key), requested.get(key)
        if _canonical(old) != _canonical(new):
            lines.append(f"{key}: {old!r} -> {new!r}")
    return lines


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str)
