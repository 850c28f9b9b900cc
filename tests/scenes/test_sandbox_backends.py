"""Choosing a sandbox backend, what ``physeval sandbox check`` measures, the memory budget and cgroups.

``auto`` is the best available isolating backend and never ``none``; with nothing available
it is an explained error. ``sandbox check`` reports every property as on/off, measured from
inside the sandbox. Concurrent runs queue on the host-wide memory budget instead of
overcommitting, across threads and processes.
"""

from __future__ import annotations

import io
import itertools
import json
import multiprocessing
import threading
import time
from contextlib import redirect_stdout
from pathlib import Path
from typing import Any, ClassVar

import pytest
from _sandbox_helpers import AVAILABLE

from physeval.cli import main
from physeval.scenes.sandbox import (
    Backend,
    MemoryBudget,
    SandboxLimits,
    SandboxUnavailable,
    backend_names,
    choose_backend,
    get_backend,
    register_backend,
    run_sandboxed,
)
from physeval.scenes.sandbox import backend as registry
from physeval.scenes.sandbox.budget import SLOT_BYTES
from physeval.scenes.sandbox.cgroup import RunCgroup, cgroup_support


def test_backends_are_listed_best_first_and_none_last() -> None:
    assert backend_names() == ["bwrap", "namespaces", "none"]
    with pytest.raises(ValueError, match="unknown sandbox backend 'docker'"):
        get_backend("docker")


def test_auto_is_the_best_available_isolating_backend() -> None:
    if not AVAILABLE:
        with pytest.raises(SandboxUnavailable, match="no isolating sandbox backend works here"):
            choose_backend("auto")
        return
    assert choose_backend("auto").name == AVAILABLE[0]


def test_auto_never_falls_back_to_no_isolation(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("bwrap", "namespaces"):
        monkeypatch.setattr(get_backend(name), "available", lambda name=name: (False, f"{name} forced off"))
    with pytest.raises(SandboxUnavailable) as caught:
        run_sandboxed("print('ran')", limits=SandboxLimits(wall_s=10))
    message = str(caught.value)
    assert "bwrap: bwrap forced off" in message and "namespaces: namespaces forced off" in message
    assert "apt-get install bubblewrap" in message and "--sandbox none" in message
    with pytest.raises(SandboxUnavailable, match="'bwrap' is unavailable: bwrap forced off"):
        choose_backend("bwrap")
    with pytest.raises(SandboxUnavailable, match="does not isolate"):
        choose_backend("none", require_isolation=True)


def test_a_backend_is_one_registered_class(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(registry, "BACKENDS", registry.BACKENDS.copy())
    monkeypatch.setattr(registry, "_INSTANCES", dict(registry._INSTANCES))

    @register_backend
    class Broken(Backend):
        """An isolating backend that never works here: auto must skip it."""

        name: ClassVar[str] = "broken-for-test"
        rank: ClassVar[int] = 1

        def _check(self) -> tuple[bool, str]:
            return False, "this test's backend never starts"

        def command(self, ctx: Any) -> list[str]:
            raise AssertionError("never called")

        def isolation_report(self) -> dict[str, Any]:
            return {}

    assert backend_names()[0] == "broken-for-test"
    assert choose_backend("auto").name != "broken-for-test" if AVAILABLE else True
    with pytest.raises(SandboxUnavailable, match="this test's backend never starts"):
        choose_backend("broken-for-test")


def _check_output(*argv: str) -> tuple[int, dict[str, Any]]:
    buf = io.StringIO()
    with redirect_stdout(buf):
        code = main(["sandbox", "check", *argv])
    return code, json.loads(buf.getvalue())


@pytest.mark.usefixtures("contained")
def test_sandbox_check_measures_every_property(backend: str) -> None:
    code, report = _check_output("--sandbox", backend)
    assert code == 0 and report["mode"] == backend
    states = {k: v["state"] for k, v in report["properties"].items()}
    expected_on = {"network", "ipc", "pid", "uts", "mounts_visible", "pty", "dev_shm", "pty_cap", "inode_limits",
                   "seccomp"}
    assert {k for k, v in states.items() if v == "on"} >= expected_on, report["properties"]
    assert states["memory_accounting"] == ("on" if cgroup_support().available else "off")
    if not cgroup_support().available:
        assert any("no per-run cgroup" in w for w in report["warnings"])
    refused = {rule["syscall"]: rule["reason"] for rule in report["seccomp"]}
    assert {"ptrace", "process_vm_readv", "socket", "unshare"} <= set(refused) and all(refused.values())
    assert "16 ptys" in report["pty_cap"] and "16384 files per tmpfs" in report["inode_limit"]


def test_sandbox_check_of_the_unsafe_backend_shows_everything_off() -> None:
    with pytest.warns(RuntimeWarning):
        code, report = _check_output("--sandbox", "none")
    assert code == 0 and report["mode"] == "none"
    assert {v["state"] for v in report["properties"].values()} == {"off"}
    assert "planted.txt" in report["properties"]["mounts_visible"]["detail"]


def test_the_budget_makes_concurrent_reservations_queue(tmp_path: Path) -> None:
    budget = MemoryBudget(2 * SLOT_BYTES, directory=str(tmp_path / "budget"))
    spans: list[tuple[float, float]] = []

    def hold() -> None:
        with budget.reserve(2 * SLOT_BYTES, poll_s=0.01) as slots:
            assert slots == 2
            start = time.monotonic()
            time.sleep(0.3)
            spans.append((start, time.monotonic()))

    threads = [threading.Thread(target=hold) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    spans.sort()
    assert all(later[0] >= earlier[1] for earlier, later in itertools.pairwise(spans)), spans  # never overlapped
    with budget.reserve(1 << 40) as slots:  # more than the whole budget: takes everything, runs alone
        assert slots == budget.slots


def _hold_slot(directory: str, ready: Any, release: Any) -> None:
    with MemoryBudget(SLOT_BYTES, directory=directory).reserve(SLOT_BYTES):
        ready.set()
        release.wait(600)  # never set: the test kills this holder (a shorter wait let a stalled test see it leave)


def test_the_budget_is_shared_across_processes_and_freed_when_a_holder_dies(tmp_path: Path) -> None:
    directory = str(tmp_path / "budget")
    ctx = multiprocessing.get_context("spawn")
    ready, release = ctx.Event(), ctx.Event()
    holder = ctx.Process(target=_hold_slot, args=(directory, ready, release))
    holder.start()
    assert ready.wait(30)
    got: list[float] = []

    def wait_for_slot() -> None:
        with MemoryBudget(SLOT_BYTES, directory=directory).reserve(SLOT_BYTES, poll_s=0.01):
            got.append(time.monotonic())

    waiter = threading.Thread(target=wait_for_slot)
    waiter.start()
    time.sleep(0.3)
    assert got == []  # the other process holds the only slot
    killed_at = time.monotonic()
    holder.kill()  # a killed worker's lock dies with it
    holder.join()
    waiter.join(10)
    assert got and got[0] >= killed_at


@pytest.mark.usefixtures("contained")
def test_sandbox_runs_queue_on_a_budget_of_one_run(backend: str, tmp_path: Path) -> None:
    limits = SandboxLimits(wall_s=20, memory_bytes=512 << 20, disk_bytes=64 << 20)
    budget = MemoryBudget(limits.footprint_bytes(), directory=str(tmp_path / "budget"))
    code = "import time\nstart = time.time()\ntime.sleep(0.5)\nprint(start, time.time())\n"
    results: list[Any] = []
    threads = [
        threading.Thread(
            target=lambda: results.append(run_sandboxed(code, limits=limits, sandbox=backend, budget=budget))
        )
        for _ in range(2)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    spans = sorted(tuple(map(float, r.stdout_tail.split())) for r in results)
    assert all(r.ok for r in results) and len(spans) == 2
    assert spans[1][0] >= spans[0][1]  # the second program started after the first ended


def test_cgroup_support_explains_itself(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    support = cgroup_support()
    assert support.available == (support.base is not None) and support.reason
    fake = tmp_path / "delegated"
    fake.mkdir()
    (fake / "cgroup.controllers").write_text("cpu io\n")
    monkeypatch.setenv("PHYSEVAL_CGROUP", str(fake))
    refused = cgroup_support()
    assert not refused.available and "lacks the memory, pids controller(s)" in refused.reason
    (fake / "cgroup.controllers").write_text("cpu memory pids\n")
    (fake / "cgroup.subtree_control").write_text("")
    monkeypatch.setenv("PHYSEVAL_CGROUP", str(fake) + "/")  # another value: probed afresh
    accepted = cgroup_support()
    assert accepted.available and (fake / "cgroup.subtree_control").read_text() == "+memory +pids"


def test_a_run_cgroup_sets_memory_and_pids_limits(tmp_path: Path) -> None:
    run = RunCgroup(str(tmp_path), memory_bytes=512 << 20, processes=64)
    assert (run.path / "memory.max").read_text() == str(512 << 20)
    assert (run.path / "memory.swap.max").read_text() == "0"
    assert (run.path / "pids.max").read_text() == "64"
    assert run.procs == str(run.path / "cgroup.procs")
    (run.path / "memory.events").write_text("low 0\nhigh 0\nmax 3\noom 1\noom_kill 1\n")
    assert run.oom_killed() and run.peak_bytes() is None
