"""Grade a case list in a fresh process, serially or from many threads released at once.

Why a fresh process: lazily built shared objects (pint registries, parser configs, pools) are
already built in the pytest process, so a race on their first use can only be seen in a new
interpreter. Usage from a test::

    serial = run_fresh(CASES, "serial")
    threaded = run_fresh(CASES, "threads")
    assert all(verdicts == serial["serial"] for verdicts in threaded["threads"])

``CASES`` is a Python file defining ``cases() -> list[tuple[str, Callable[[], Any]]]`` (each
callable grades one case) and ``verdict(result) -> JSON value``. In ``threads`` mode every one of
the threads waits at a ``threading.Barrier`` and then grades the whole list, each starting at a
different offset, so first uses collide; the output lists every thread's verdicts in case order.
Run directly: ``python tests/_fresh_threads.py CASES_FILE serial|threads [THREADS]``.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

__all__ = ["THREADS", "run_fresh"]

THREADS = 16


def _load(path: str) -> Any:
    spec = importlib.util.spec_from_file_location("_thread_cases", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _grade_all(module: Any, items: list[tuple[str, Any]], start: int) -> list[Any]:
    out: list[Any] = [None] * len(items)
    for k in range(len(items)):
        i = (start + k) % len(items)
        name, grade = items[i]
        try:
            out[i] = [name, module.verdict(grade())]
        except BaseException as exc:  # noqa: BLE001 - a raise is a verdict too: the test must see it
            out[i] = [name, {"raised": f"{type(exc).__name__}: {exc}"}]
    return out


def main(argv: list[str]) -> int:
    path, mode = argv[0], argv[1]
    threads = int(argv[2]) if len(argv) > 2 else THREADS
    module = _load(path)
    items = module.cases()
    began = time.perf_counter()
    if mode == "serial":
        result: dict[str, Any] = {"serial": _grade_all(module, items, 0)}
    elif mode == "threads":
        barrier = threading.Barrier(threads)
        per_thread: list[Any] = [None] * threads

        def work(t: int) -> None:
            barrier.wait()
            per_thread[t] = _grade_all(module, items, t * len(items) // threads)

        workers = [threading.Thread(target=work, args=(t,)) for t in range(threads)]
        for w in workers:
            w.start()
        for w in workers:
            w.join()
        result = {"threads": per_thread}
    else:
        raise SystemExit(f"mode must be serial or threads, not {mode!r}")
    result["seconds"] = time.perf_counter() - began
    result["cases"] = len(items)
    print(json.dumps(result, sort_keys=True))
    return 0


def run_fresh(cases_file: str | Path, mode: str, *, threads: int = THREADS, timeout: float = 300) -> dict[str, Any]:
    """Run ``cases_file`` in a new interpreter in ``mode`` and return its JSON output."""
    proc = subprocess.run(
        [sys.executable, __file__, str(cases_file), mode, str(threads)],
        capture_output=True, text=True, timeout=timeout, check=False,
    )
    if proc.returncode != 0:
        raise AssertionError(f"fresh process failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
