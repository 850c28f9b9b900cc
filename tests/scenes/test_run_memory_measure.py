"""The memory measure of the sandbox tests counts the run, not the rest of the machine.

The hostile-memory and inode tests bound what a sandboxed run holds. They used to read the host's
MemAvailable, so under ``pytest -n 2`` the other worker's allocations counted against the sandbox:
an inode test failed at "377 MiB" for a run that holds about 70. ``RunMemory`` counts this test
process's descendants and the kernel memory that files and IPC hold. Then the inode test failed
in CI at "442 MiB": it counted all of Slab, and the other worker reading files filled the disk
cache's dentries.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from _sandbox_helpers import KERNEL_MEMORY, RunMemory

HOLDER = """
import sys
block = bytearray(768 << 20)
for i in range(0, len(block), 4096):
    block[i] = 1
print("held", flush=True)
sys.stdin.read()
"""

LAUNCHER = """
import os, select, sys
launcher = os.getpid()
if os.fork():
    os._exit(0)  # the holder below is orphaned: no descendant of the test any more
gone = os.pidfd_open(launcher)
select.select([gone], [], [])  # an event: the launcher has exited
os.execv(sys.executable, [sys.executable, "-c", sys.argv[1]])
"""


def _start(argv: list[str]) -> subprocess.Popen[str]:
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline() == "held\n"
    return proc


def _release(proc: subprocess.Popen[str]) -> None:
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.close()  # the holder reads to end of input, then exits
    proc.stdout.read()  # its end of the pipe closes when it has exited
    proc.wait(timeout=60)


@KERNEL_MEMORY
def test_memory_another_process_holds_is_not_the_runs() -> None:
    with RunMemory() as run:
        other = _start([sys.executable, "-c", LAUNCHER, HOLDER])
        try:
            peak = run.measure()
        finally:
            _release(other)
    assert peak < 128 << 20, f"{peak >> 20} MiB counted while another process held 768 MiB"


@KERNEL_MEMORY
def test_memory_the_runs_own_processes_hold_is_counted() -> None:
    with RunMemory() as run:
        child = _start([sys.executable, "-c", HOLDER])
        try:
            peak = run.measure()
        finally:
            _release(child)
    assert peak >= 640 << 20, f"{peak >> 20} MiB counted while a child held 768 MiB"


@KERNEL_MEMORY
def test_memory_a_process_held_before_the_run_began_is_not_the_runs() -> None:
    # a session fixture's process (the embedded model, a Ray cluster) is a descendant of the test
    # process too: the first version of this measure counted 1.1 GiB of it against every run
    earlier = _start([sys.executable, "-c", HOLDER])
    try:
        with RunMemory() as run:
            peak = run.measure()
    finally:
        _release(earlier)
    assert peak < 128 << 20, f"{peak >> 20} MiB counted while an earlier child held 768 MiB"


LOOKER = """
import os, sys
for i in range(1_000_000):  # each failed lookup leaves a negative dentry: about 190 MiB of Slab
    try:
        os.stat(os.path.join(sys.argv[1], str(i)))
    except FileNotFoundError:
        pass
"""


@KERNEL_MEMORY
def test_the_file_cache_another_process_fills_is_not_the_runs(tmp_path: Path) -> None:
    # a process reading files (the other worker's mypy or pip) grows the dentry cache: reclaimable
    # kernel memory no sandboxed run holds
    with RunMemory() as run:
        subprocess.run([sys.executable, "-c", LOOKER, str(tmp_path)], check=True, timeout=600)
        peak = run.measure()
    assert peak < 128 << 20, f"{peak >> 20} MiB counted while another process filled the dentry cache"
