"""The built bank on disk: a bank task's problems read back, not rebuilt by every process.

Why: building the bank's problems compiles its 65 numeric templates with SymPy (parse, dimension
check, lambdify) and draws their variants, about 6 s of CPU, which every ``physeval run
bank-numeric`` and every ``inspect eval physeval/bank_numeric`` paid before sending its first
request. The problems are a pure function of the template files, ``variants``, ``seed`` and the
code that draws them, so :func:`cached_problems` keeps them in one JSON file named by the SHA-256
of all of that: the bytes of every template YAML of the kind, the source of every module of
:mod:`physeval.variation` and :mod:`physeval.units` (and ``problems.py``), physeval's version and
the versions of SymPy, mpmath and pint. An edit to any template or to that code, or an upgrade,
starts afresh; nothing is ever read for other inputs.

Guarantees (as :mod:`physeval.disk_cache`): a file is written to a temporary name and renamed
into place, so a reader sees a whole entry or none; each entry carries the SHA-256 of its key and
payload and is recomputed when it does not match; several processes may fill it at once (they
write the same bytes). A build whose problems would not read back equal from JSON is not stored.
The directory is ``$PHYSEVAL_CACHE_DIR/bank``, else ``bank`` in the user cache directory; the
response cache's ``--no-cache`` does not apply (this is derived data, like bytecode, not a
model's answers).
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import tempfile
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import Any

from physeval.problems import Problem

__all__ = ["bank_cache_dir", "cache_key", "cached_problems"]

_FORMAT = "physeval-bank/2"
_PACKAGE = Path(__file__).resolve().parents[1]
_CODE_DIRS = ("variation", "units")
_CODE_FILES = ("problems.py", "version.py")
_DEPENDENCIES = ("sympy", "mpmath", "pint")


def bank_cache_dir() -> Path:
    """``$PHYSEVAL_CACHE_DIR/bank``, else ``bank`` in the platform's user cache directory (read on every call)."""
    root = os.environ.get("PHYSEVAL_CACHE_DIR")
    if not root:
        import platformdirs

        root = platformdirs.user_cache_dir("physeval")
    return Path(root) / "bank"


def _dist_version(name: str) -> str:
    """The installed version of ``name`` from its ``.dist-info`` folder name (``importlib.metadata`` is 100x slower)."""
    prefix = name.lower() + "-"
    for entry in sys.path:
        try:
            names = os.listdir(entry or ".")
        except OSError:
            continue
        for item in names:
            if item.endswith(".dist-info") and item.lower().startswith(prefix):
                return item[len(prefix):-len(".dist-info")]
    return "unknown"


@lru_cache(maxsize=1)
def _code_digest() -> str:
    """SHA-256 of the source that builds the bank's problems, and of the dependency versions."""
    from physeval.version import __version__

    digest = hashlib.sha256(f"{_FORMAT}|{__version__}".encode())
    files = sorted(p for d in _CODE_DIRS for p in (_PACKAGE / d).glob("*.py"))
    files += [_PACKAGE / f for f in _CODE_FILES]
    for path in files:
        digest.update(str(path.relative_to(_PACKAGE)).encode() + b"\0" + path.read_bytes() + b"\0")
    for name in _DEPENDENCIES:
        digest.update(f"{name}={_dist_version(name)}\0".encode())
    return digest.hexdigest()


def cache_key(kind: str, variants: int, seed: int, template_dir: Path) -> str:
    """The SHA-256 naming the problems of ``kind`` for ``variants`` and ``seed``."""
    digest = hashlib.sha256(f"{_code_digest()}|{kind}|{int(variants)}|{int(seed)}".encode())
    for path in sorted(template_dir.glob("*.yaml")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def _encode(problems: list[Problem]) -> list[dict[str, Any]]:
    return [{"id": p.id, "question": p.question, "answer": p.answer, "variant": p.variant, "meta": p.meta}
            for p in problems]


def _decode(records: list[dict[str, Any]]) -> list[Problem]:
    return [Problem(id=r["id"], question=r["question"], answer=r["answer"], variant=r["variant"], meta=r["meta"])
            for r in records]


_PROBLEMS = ', "problems": '


def _read(path: Path, key: str) -> list[Problem] | None:
    """The problems stored at ``path`` for ``key``; ``None`` when absent, truncated or altered.

    The file is the header object with the problems' JSON text as its last member, written as it
    was hashed, so the check hashes the text as read instead of serialising the problems again
    (a fifth of a 20,800-problem bank's start-up).
    """
    try:
        text = path.read_text(encoding="utf-8")
        cut = text.find(_PROBLEMS)
        if cut < 0 or not text.endswith("}"):
            return None
        entry = json.loads(text[:cut] + "}")
        payload_text = text[cut + len(_PROBLEMS):-1]
        check = hashlib.sha256((key + payload_text).encode()).hexdigest()
        if entry.get("format") != _FORMAT or entry.get("key") != key or entry.get("sha256") != check:
            return None
        return _decode(json.loads(payload_text))
    except (OSError, ValueError, KeyError, TypeError):
        return None  # absent, truncated or altered: rebuilt and rewritten


def _write(path: Path, key: str, problems: list[Problem]) -> None:
    payload = _encode(problems)
    text = json.dumps(payload, sort_keys=True, ensure_ascii=False)
    if _decode(json.loads(text)) != problems:
        return  # something in a problem's meta does not survive JSON: never store what would read back different
    head = json.dumps({"format": _FORMAT, "key": key, "sha256": hashlib.sha256((key + text).encode()).hexdigest()})
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=path.parent)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(head[:-1] + _PROBLEMS + text + "}")  # one JSON object, the problems' text as hashed
        os.replace(tmp, path)
    except OSError:
        return  # a read-only or full cache directory: the problems are still right, only not kept


def cached_problems(kind: str, variants: int, seed: int, template_dir: Path,
                    build: Callable[[], list[Problem]]) -> list[Problem]:
    """The problems ``build()`` gives for these inputs: read from the cache, else built and stored."""
    key = cache_key(kind, variants, seed, template_dir)
    path = bank_cache_dir() / f"{kind}-{key}.json"
    found = _read(path, key)
    if found is not None:
        return found
    problems = build()
    _write(path, key, problems)
    return problems
