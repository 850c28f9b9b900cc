"""``physeval cache info|clear``: show and empty the on-disk grading cache (:mod:`physeval.disk_cache`)."""

from __future__ import annotations

import argparse
import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from physeval.cli._common import EXIT_OK


def add_commands(sub: Any) -> None:
    """``cache info`` and ``cache clear``."""
    cache = sub.add_parser("cache", help="show or empty the on-disk grading cache",
                           description="The on-disk cache of parsed answers and simplified EED trees "
                                       "(PHYSEVAL_CACHE_DIR/eed; PHYSEVAL_EED_CACHE=off or --no-cache bypasses it). "
                                       "info: where it is and what it holds; clear: remove every entry.")
    cache.add_argument("action", choices=["info", "clear"])
    cache.add_argument("--responses", action="store_true",
                       help="clear: also delete the model response cache (responses.sqlite)")
    cache.set_defaults(func=_cmd_cache)


_SWITCH = "PHYSEVAL_EED_CACHE"


def bypass_grading_cache(bypass: bool) -> None:
    """``--no-cache``: turn the on-disk grading cache off for this process and the workers it starts
    (until the command ends: :func:`grading_cache_switch_kept`)."""
    if bypass:
        os.environ[_SWITCH] = "off"


@contextmanager
def grading_cache_switch_kept() -> Iterator[None]:
    """Leave ``PHYSEVAL_EED_CACHE`` as the command found it: ``--no-cache`` lasts one command.

    ``main()`` called in a process that goes on (a notebook, a script, a test) once left the cache
    off for everything after it; a later ``physeval cache info`` in that process said "off".
    """
    before = os.environ.get(_SWITCH)
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(_SWITCH, None)
        else:
            os.environ[_SWITCH] = before


def _cmd_cache(args: argparse.Namespace) -> int:
    from physeval import disk_cache

    responses = disk_cache.cache_dir().parent / "responses.sqlite"
    if args.action == "clear":
        removed = disk_cache.clear()
        print(f"removed {removed} files from {disk_cache.cache_dir()}")
        if args.responses:
            gone = [p for p in (responses, *responses.parent.glob("responses.sqlite-*")) if p.is_file()]
            for path in gone:
                path.unlink()
            print(f"removed the response cache {responses}" if gone else f"no response cache at {responses}")
        return EXIT_OK
    state = disk_cache.info()
    print(f"grading cache: {state.path}" + ("" if disk_cache.enabled() else " (off: PHYSEVAL_EED_CACHE)"))
    kinds = ", ".join(f"{kind} {count}" for kind, count in state.entries.items()) or "none"
    print(f"  entries: {state.total} ({kinds}), {_size(state.bytes)}")
    if state.temp_files:
        print(f"  unfinished writes (never read; clear removes them): {state.temp_files}")
    physeval_version, sympy_version, parser_version = disk_cache.versions()
    print(f"  keyed by physeval {physeval_version}, SymPy {sympy_version}, latex2sympy2_extended {parser_version}, "
          f"code {disk_cache.code_fingerprint()}")
    size = responses.stat().st_size if responses.is_file() else 0
    print(f"response cache: {responses} ({_size(size) if size else 'absent'})")
    return EXIT_OK


def _size(n: int) -> str:
    for unit in ("B", "KiB", "MiB"):
        if n < 1024:
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024  # type: ignore[assignment]
    return f"{n:.1f} GiB"
