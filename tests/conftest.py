"""Shared fixtures: an isolated response cache, a scripted server, and the arithmetic task.

Also the session's ground rules: each test's CPU time is measured against its hang guard
(tests/_cpu_budget.py), and SIGINT reaches the test processes' children as it would from a
terminal, however the suite was started.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

import _cpu_budget
from _shared_bank import isolated_cache_dir
from physeval.testing import Reply, ScriptedServer

SHARED_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"

os.environ["PHYSEVAL_NO_FETCH"] = "1"  # no test downloads the embedded model's weights (nor do its children)


def pytest_addoption(parser: pytest.Parser) -> None:
    _cpu_budget.add_options(parser)


def pytest_configure(config: pytest.Config) -> None:
    _cpu_budget.register(config)
    # A shell starts a background job (`cmd &`, as a CI runner may) with SIGINT ignored, and an
    # ignored signal stays ignored across exec: every child would then shrug off the Ctrl-C the
    # signal tests send it. A handled signal is reset to the default in a child, so handle it here.
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.hookimpl(tryfirst=True)  # before xdist's own hook reads the marks
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Tests that share a fixture built once per module or per session run on one xdist worker.

    Under ``pytest -n 2 --dist loadgroup`` each worker is its own session, so a session fixture
    (the Ray cluster, the scripted runs) is built once per worker that needs it, and a module's
    fixture once per worker that runs one of its tests. Each test that uses such a fixture of
    this suite gets ``xdist_group`` by that fixture (a session one first), so each is built
    once; the other tests are spread one by one. A test's own ``xdist_group`` mark wins.
    """
    for item in items:
        info = getattr(item, "_fixtureinfo", None)
        if info is None or item.get_closest_marker("xdist_group") is not None:
            continue
        shared = []
        for name in item.fixturenames:  # the transitive closure: a fixture's own fixtures too
            definitions = info.name2fixturedefs.get(name)
            if not definitions:
                continue
            definition = definitions[-1]
            if definition.scope != "function" and definition.baseid:  # pytest's and plugins' own have none
                shared.append((definition.scope != "session", f"{definition.baseid}::{name}"))
        if shared:
            item.add_marker(pytest.mark.xdist_group(min(shared)[1]))
    _slow_scopes_first(items)


def _scope(item: pytest.Item) -> str:
    """The unit xdist's ``loadgroup`` hands a worker: the test's group, or the test alone."""
    mark = item.get_closest_marker("xdist_group")
    if mark is None:
        return item.nodeid
    return str(mark.args[0] if mark.args else mark.kwargs.get("name", "default"))


def _slow_scopes_first(items: list[pytest.Item]) -> None:
    """Every unit holding a ``slow`` test goes to the front (a stable sort: nothing else moves).

    xdist hands out units in collection order, so a long test collected last kept one worker busy
    while the other had finished: the longest jobs first, the short ones filling in after, ends
    both workers together. Order changes no verdict (each test stands alone; a unit stays whole).
    """
    slow = {_scope(item) for item in items if item.get_closest_marker("slow") is not None}
    items[:] = sorted(items, key=lambda item: _scope(item) not in slow)


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test gets its own response cache, never the user's (the built bank is shared: tests/_shared_bank.py)."""
    monkeypatch.setenv("PHYSEVAL_CACHE_DIR", str(isolated_cache_dir(tmp_path_factory)))


@pytest.fixture
def arithmetic_server() -> Iterator[ScriptedServer]:
    """A server that answers the arithmetic task: right for most ids, wrong when id % 3 == 0."""
    from fixture_tasks import arithmetic_reply

    with ScriptedServer(arithmetic_reply) as server:
        yield server


@pytest.fixture(scope="session")
def ray_cluster() -> Iterator[object]:
    """One real two-node Ray cluster for the session (a head and a second node, ``ray start`` on
    loopback), with this process connected as its driver; skips where Ray cannot start.

    Starting one costs several CPU seconds and tens of seconds of waiting, so every Ray test
    shares it (and under xdist they all run on one worker: see ``pytest_collection_modifyitems``).
    """
    ray = pytest.importorskip("ray", reason="ray is not installed (the ray or dev extra)")
    import subprocess

    from physeval.rewards.local_cluster import NODE_IP, LocalRayCluster, RayClusterError

    two = LocalRayCluster(nodes=2, cpus_per_node=1)
    try:
        address = two.start(timeout=180)
        ray.init(address=address, include_dashboard=False, log_to_driver=False, _node_ip_address=NODE_IP)
        two.wait_for_nodes(timeout=180)
    except (RayClusterError, ConnectionError, RuntimeError, subprocess.SubprocessError) as exc:
        two.stop()
        pytest.skip(f"a local Ray cluster could not start here: {str(exc)[:300]}")
    try:
        yield two
    finally:
        ray.shutdown()
        two.stop()


@pytest.fixture
def shared_data() -> Path:
    """The shared public datasets folder; skips the test when it is absent."""
    if not SHARED_DATA.is_dir():
        pytest.skip("../shared/data is not present")
    return SHARED_DATA


__all__ = ["Reply", "ScriptedServer", "SHARED_DATA"]


@pytest.fixture(scope="session")
def real_sandbox() -> Iterator[Path]:
    """A data directory whose sandbox environment the real ``physeval sandbox setup`` made (offline,
    from the wheels of the user's own setup); skips with the fix when there are none."""
    import shutil

    from _real_sandbox import real_sandbox_data_dir

    data = real_sandbox_data_dir()
    yield data
    shutil.rmtree(data, ignore_errors=True)
