"""Every session of a run is recorded, interrupted, killed or not (issue 33, findings 5 and 6b): its
start, end, how it ended and the samples it wrote; the summary's wall time is their sum. A Ctrl-C
during the final printout says what it cut short."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from _run_folder import (
    HANG_GUARD,
    TESTS,
    Held,
    arithmetic_run,
    assert_no_bug,
    physeval_child,
    physeval_run,
    rows_in,
    wait_for,
)
from physeval.testing import ScriptedServer


@pytest.mark.parametrize(("stop", "status", "ended"), [(signal.SIGINT, 130, "interrupted"),
                                                       (signal.SIGKILL, -9, "killed")])
def test_a_stopped_session_is_recorded_and_the_wall_time_is_the_sum(tmp_path: Path, stop: signal.Signals,
                                                                    status: int, ended: str) -> None:
    run_dir = tmp_path / "run"
    script = Held(1 + 5)
    with ScriptedServer(script, model="m") as server:
        first = physeval_child(arithmetic_run(server.base_url, run_dir, samples=4))
        try:
            # the five answers graded and stored (the held requests keep the run mid-way)
            wait_for(lambda: rows_in(run_dir, "status = 'answered'") >= 5, first)
            first.send_signal(stop)
            _, err = first.communicate(timeout=HANG_GUARD)
        finally:
            script.release.set()
        assert first.returncode == status, err
        written = rows_in(run_dir, "error_kind IS NOT 'ungraded'")
        resumed = physeval_run(["run", "--resume", str(run_dir), "--no-progress"])
        assert resumed.returncode == 0, resumed.stderr
    provenance = json.loads((run_dir / "summary.json").read_text())["provenance"]
    sessions = provenance["sessions"]
    assert [s["ended"] for s in sessions] == [ended, "finished"]
    assert sessions[0]["started_at"] and sessions[0]["ended_at"] and sessions[0]["wall_s"] > 0
    assert sessions[0]["new_samples"] == written >= 5  # what the first session wrote, by its own record
    assert sum(s["new_samples"] for s in sessions) == 12 * 4
    assert provenance["wall_s"] == round(sum(s["wall_s"] for s in sessions), 3)
    assert provenance["started_at"] == sessions[0]["started_at"]


_CUT_PRINTOUT = """
import physeval.cli._run as _run
def _cut(*args, **kwargs):
    raise KeyboardInterrupt
_run._print_outcome = _cut
"""


def test_ctrl_c_during_the_final_printout_says_the_run_is_kept(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    with ScriptedServer(Held(10 ** 9), model="m") as server:
        done = physeval_run(arithmetic_run(server.base_url, run_dir, samples=1), prelude=_CUT_PRINTOUT)
    assert done.returncode == 130, done.stderr
    assert_no_bug(done.stderr)
    assert "interrupted while printing" in done.stderr and f"physeval report {run_dir}" in done.stderr
    assert (run_dir / "summary.json").is_file()


_SLOW_TEARDOWN = """
import atexit, signal, sys
sys.path.insert(0, {tests!r})
from fixture_tasks import ArithmeticTask
from physeval.tasks.registry import register_task
import physeval.cli as cli
register_task(ArithmeticTask)

def _teardown_waits_for_a_signal():
    print("teardown begins", file=sys.stderr, flush=True)
    signal.pause()

_main = cli.main

def _main_then_a_slow_exit_handler():  # as the grading pool registers its shutdown during a run
    status = _main()
    atexit.register(_teardown_waits_for_a_signal)
    return status

cli.main = _main_then_a_slow_exit_handler
sys.argv = ["physeval", *{argv!r}]
cli.console_main()
"""


def test_ctrl_c_after_the_run_ended_keeps_its_exit_status(tmp_path: Path) -> None:
    """The console script after its command returned: a Ctrl-C in the interpreter's teardown (here
    an exit handler that waits, standing in for the grading workers and the final garbage
    collection) says the command had ended and exits with the run's own status, not by SIGINT."""
    run_dir = tmp_path / "run"
    with ScriptedServer(Held(10 ** 9), model="m") as server:
        code = _SLOW_TEARDOWN.format(tests=str(TESTS), argv=arithmetic_run(server.base_url, run_dir, samples=1))
        child = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 text=True)
        assert child.stderr is not None
        seen = []
        for line in child.stderr:  # an event: the teardown's own line, not a clock
            seen.append(line)
            if "teardown begins" in line:
                child.send_signal(signal.SIGINT)
                break
        rest = child.communicate(timeout=HANG_GUARD)[1]
    err = "".join(seen) + rest
    assert child.returncode == 0, err
    assert_no_bug(err)
    assert "SIGINT after the command had ended; its exit status (0) stands" in err
    assert json.loads((run_dir / "summary.json").read_text())["complete"] is True


_LATE_SIGNAL = """
import os, signal, sys
sys.path.insert(0, {tests!r})
from fixture_tasks import ArithmeticTask
from physeval.tasks.registry import register_task
from physeval.cli import console_main
register_task(ArithmeticTask)


class _SignalledInTheLastTeardown:
    \"\"\"Deleted when the interpreter clears this module, after every exit handler has run (when
    Python has put its signal handlers back): the Ctrl-C a user sends at that moment.\"\"\"

    def __del__(self):
        os.kill(os.getpid(), signal.SIGINT)
        sys.stderr.write("the last teardown went on after SIGINT\\n")
        sys.stderr.flush()


_late = _SignalledInTheLastTeardown()
sys.argv = ["physeval", *{argv!r}]
console_main()
"""


def test_a_signal_in_the_last_teardown_does_not_kill_a_finished_run(tmp_path: Path) -> None:
    """Found from outside: SIGINT 0-10 ms after a numeric run's last line killed it by SIGINT (11 of
    12 tries): after the exit handlers Python resets its handlers to the default."""
    run_dir = tmp_path / "run"
    with ScriptedServer(Held(10 ** 9), model="m") as server:
        code = _LATE_SIGNAL.format(tests=str(TESTS), argv=arithmetic_run(server.base_url, run_dir, samples=1))
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=HANG_GUARD,
                              check=False)
    assert done.returncode == 0, (done.returncode, done.stderr[-2000:])
    assert "the last teardown went on after SIGINT" in done.stderr
    assert_no_bug(done.stderr)


def test_the_installed_physeval_command_is_the_console_main() -> None:
    """The ``physeval`` a user types (the installed console script) goes through that exit."""
    from importlib.metadata import entry_points

    (script,) = entry_points(group="console_scripts", name="physeval")
    assert script.value == "physeval.cli:console_main"
