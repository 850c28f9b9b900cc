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


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test gets its own response cache, never the user's."""
    monkeypatch.setenv("PHYSEVAL_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))


@pytest.fixture
def arithmetic_server() -> Iterator[ScriptedServer]:
    """A server that answers the arithmetic task: right for most ids, wrong when id % 3 == 0."""
    from fixture_tasks import arithmetic_reply

    with ScriptedServer(arithmetic_reply) as server:
        yield server


@pytest.fixture
def shared_data() -> Path:
    """The shared public datasets folder; skips the test when it is absent."""
    if not SHARED_DATA.is_dir():
        pytest.skip("../shared/data is not present")
    return SHARED_DATA


__all__ = ["Reply", "ScriptedServer", "SHARED_DATA"]
