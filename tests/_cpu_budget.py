"""Each test's CPU time against its hang guard: the load-independent measure of a test's cost.

Wall-clock time says how busy the machine was; CPU time says how much work a test did. This
plugin measures, for every test (set-up, call and tear-down, the span pytest-timeout guards),
the CPU seconds of the pytest process and of every process it started:

    CPU = delta(self) + delta(reaped children) + delta(live descendants)

The reaped children come from ``getrusage(RUSAGE_CHILDREN)``; a child is counted there only once
it is waited for, so descendants still alive (a model server or a Ray cluster held by a session
fixture) are read from ``/proc/PID/stat`` (their own time plus their reaped children's) at the
start and the end of each test (see :func:`_descendants_delta` for the ones that end in
between). A process that escapes the tree (double fork, reparented to init) is not seen; one
reaped whole by a later test is capped by that test's wall time x cores (:data:`_CORES`).

The rule it checks: **no test spends more than a tenth of its hang guard on real work**, so that
a machine ten times slower (or ten times busier) cannot turn a pass into a timeout. A test over
its budget is reported at the end of the run and written to ``--cpu-report``; it is not failed,
since CPU time still moves a little with load (caches, frequency, spin-waits), and a verdict
must not. Set ``PHYSEVAL_CPU_BUDGET=strict`` to fail the run instead (for the one who fixes it).

Under pytest-xdist each worker measures its own tests and the numbers reach the controller on
the tear-down report (``user_properties``), so the summary covers the whole run.
"""

from __future__ import annotations

import os
import resource
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

_KEY = "cpu_budget"
_TICK = os.sysconf("SC_CLK_TCK")
BUDGET_FRACTION = 0.1  # a test may spend this fraction of its hang guard on work
_CORES = len(os.sched_getaffinity(0))
"""A test's CPU is capped at its wall time x these cores: what is over it was spent before the test began.

A process never seen in a reading (one that joined the tree and ended between two readings, as an
orphan handed to a subreaper does) adds its whole life to the reaped figure of the test that reaps
it: trivial tests of ``tests/variation/test_template.py`` were charged 27-47 s of CPU in 3-5 s of
wall on two cores, which no work inside the test can do."""


def _self_and_reaped() -> float:
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def _has_children() -> bool:
    """Whether this process has any child, live or zombie (one syscall; nothing is reaped)."""
    try:
        os.waitid(os.P_ALL, 0, os.WEXITED | os.WNOHANG | os.WNOWAIT)
    except ChildProcessError:
        return False
    return True


@dataclass(frozen=True)
class _Proc:
    ppid: int
    own: float  # utime + stime, seconds
    reaped: float  # cutime + cstime: the children it waited for
    born: float  # seconds after boot


def _live_descendants() -> dict[int, _Proc]:
    """Each live descendant of this process, by pid, with its CPU seconds so far."""
    if not _has_children():
        return {}
    procs: dict[int, _Proc] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        fields = stat[stat.rindex(b")") + 2 :].split()
        # after the state field: ppid is 1, utime stime cutime cstime are 11-14 (stat(5) fields 14-17)
        procs[int(name)] = _Proc(int(fields[1]), (int(fields[11]) + int(fields[12])) / _TICK,
                                 (int(fields[13]) + int(fields[14])) / _TICK, int(fields[19]) / _TICK)
    children: dict[int, list[int]] = {}
    for pid, proc in procs.items():
        children.setdefault(proc.ppid, []).append(pid)
    out: dict[int, _Proc] = {}
    stack = list(children.get(os.getpid(), []))
    while stack:
        pid = stack.pop()
        out[pid] = procs[pid]
        stack.extend(children.get(pid, []))
    return out


def _uptime() -> float:
    with open("/proc/uptime") as f:
        return float(f.read().split()[0])


def _descendants_delta(before: dict[int, _Proc], after: dict[int, _Proc], since: float) -> float:
    """CPU the descendants used between two readings, not counting what the reaped-children
    figure of this process already holds (its own children that ended in between).

    A descendant that ended in between is in its parent's ``reaped`` figure with its whole life:
    the part it had used before the first reading is taken off again. One whose parent never
    accounted for it (a parent that ignores SIGCHLD, as Ray's raylet may) is lost; a lower bound.
    One that joined the tree from outside, born before ``since`` (an orphan handed to a process
    of ours that made itself a subreaper, as Ray's driver does), is not this test's work.
    """
    me = os.getpid()
    total = sum(p.own + p.reaped for pid, p in after.items() if pid in before or p.born >= since - 0.05)
    total -= sum(p.own + p.reaped for pid, p in before.items() if pid in after)
    vanished_by_parent: dict[int, float] = {}
    for pid, p in before.items():
        if pid not in after:
            vanished_by_parent[p.ppid] = vanished_by_parent.get(p.ppid, 0.0) + p.own + p.reaped
    for ppid, used in vanished_by_parent.items():
        if ppid == me:
            total -= used  # our own children: getrusage(RUSAGE_CHILDREN) counted their whole life
        elif ppid in before and ppid in after:
            total -= min(used, after[ppid].reaped - before[ppid].reaped)
    return total


def _hang_guard(item: pytest.Item) -> float | None:
    """The test's pytest-timeout guard in seconds (its marker, else the configured default)."""
    marker = item.get_closest_marker("timeout")
    if marker is not None:
        value = marker.args[0] if marker.args else marker.kwargs.get("timeout")
        if value is not None:
            return float(value) or None
    for get in (lambda: item.config.getoption("timeout", None), lambda: item.config.getini("timeout")):
        try:
            value = get()
        except (ValueError, KeyError):
            continue
        if value not in (None, ""):
            return float(value) or None
    return None


@dataclass(frozen=True)
class Cost:
    """One test's measured cost."""

    nodeid: str
    cpu: float
    wall: float
    guard: float | None

    @property
    def over_budget(self) -> bool:
        return self.guard is not None and self.cpu > BUDGET_FRACTION * self.guard


class CpuBudget:
    """The plugin: measures each test, gathers the costs (also from xdist workers), reports."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.costs: dict[str, Cost] = {}
        self._start: dict[str, tuple[float, float, float, dict[int, _Proc]]] = {}

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item) -> Iterator[None]:
        self._start[item.nodeid] = (_self_and_reaped(), time.perf_counter(), _uptime(), _live_descendants())
        yield

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_teardown(self, item: pytest.Item) -> Iterator[None]:
        yield
        start = self._start.pop(item.nodeid, None)
        if start is None:
            return
        cpu0, wall0, since, live0 = start
        live1 = _live_descendants()
        cpu = max(_self_and_reaped() - cpu0 + _descendants_delta(live0, live1, since), 0.0)
        wall = time.perf_counter() - wall0
        item.user_properties.append((_KEY, (min(cpu, wall * _CORES), wall, _hang_guard(item))))

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when != "teardown":
            return
        for key, value in report.user_properties:
            if key == _KEY:
                cpu, wall, guard = value
                self.costs[report.nodeid] = Cost(report.nodeid, cpu, wall, guard)

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        if not self.costs or hasattr(self.config, "workerinput"):
            return
        costs = sorted(self.costs.values(), key=lambda c: c.cpu, reverse=True)
        path = self.config.getoption("cpu_report")
        if path:
            lines = ["test\tcpu_s\twall_s\thang_guard_s"]
            lines += [f"{c.nodeid}\t{c.cpu:.2f}\t{c.wall:.2f}\t{c.guard or ''}" for c in costs]
            Path(path).write_text("\n".join(lines) + "\n")
        top = self.config.getoption("cpu_top")
        total = sum(c.cpu for c in costs)
        tr = terminalreporter
        tr.section(f"CPU time per test (process and children): {len(costs)} tests, {total:.0f} s in all")
        for c in costs[:top]:
            guard = f"{c.guard:g}" if c.guard else "none"
            tr.write_line(f"{c.cpu:8.2f} s cpu  {c.wall:8.2f} s wall  guard {guard:>5} s  {c.nodeid}")
        over = [c for c in costs if c.over_budget]
        if over:
            tr.section(f"tests over their CPU budget (more than {BUDGET_FRACTION:g} of the hang guard)", yellow=True)
            for c in over:
                tr.write_line(f"{c.cpu:8.2f} s cpu > {BUDGET_FRACTION * (c.guard or 0):g} s  {c.nodeid}", yellow=True)
            tr.write_line("make each cheaper, or give it @pytest.mark.timeout(ten times its CPU)")
            if _strict():
                tr.write_line("PHYSEVAL_CPU_BUDGET=strict: the run fails", red=True)

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if _strict() and session.exitstatus == 0 and any(c.over_budget for c in self.costs.values()):
            session.exitstatus = pytest.ExitCode.TESTS_FAILED


def _strict() -> bool:
    return os.environ.get("PHYSEVAL_CPU_BUDGET") == "strict"


def add_options(parser: pytest.Parser) -> None:
    """``--cpu-report PATH`` and ``--cpu-top N`` (called from tests/conftest.py)."""
    group = parser.getgroup("cpu budget")
    group.addoption("--cpu-report", default=None, help="write every test's CPU s, wall s and hang guard to this TSV")
    group.addoption("--cpu-top", type=int, default=10, help="how many of the costliest tests to list (CPU s)")


def register(config: pytest.Config) -> None:
    """Measure this session's tests (called from tests/conftest.py)."""
    config.pluginmanager.register(CpuBudget(config), "cpu_budget_meter")
