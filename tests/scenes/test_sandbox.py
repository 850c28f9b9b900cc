"""The sandbox runs hostile programs written for these tests and nothing escapes, on every backend.

Each test program tries one thing a model-written renderer must not do. Every test runs once
per available isolating backend (``bwrap``, ``namespaces``; an unavailable one is skipped
with its reason) and checks through the ``contained`` fixture that no process of the run
survives, no working directory is left behind and no SysV IPC object was added to the host.
The only network probe is a connection to a port this test listens on at 127.0.0.1.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from physeval.scenes.sandbox import (
    SandboxLimits,
    SandboxUnavailable,
    isolation_report,
    run_sandboxed,
)

FAST = SandboxLimits(wall_s=20)
pytestmark = pytest.mark.usefixtures("contained")


def test_clean_exit_and_output_capture(backend: str) -> None:
    code = "import sys\nprint('hello', sys.argv[1:])\nprint('warn', file=sys.stderr)\n"
    result = run_sandboxed(code, args=["a", "{workdir}/b"], limits=FAST, sandbox=backend)
    assert result.ok, result
    assert result.mode == backend
    assert result.exit_code == 0 and result.signal is None
    assert result.stdout_tail.startswith("hello ['a', '")
    assert result.stdout_tail.rstrip().endswith("/box/b']")
    assert result.stderr_tail == "warn\n"
    assert result.peak_memory_bytes and result.peak_memory_bytes > 1_000_000
    assert result.wall_s < 300  # a hang guard
    json.dumps(result.to_dict())


def test_exit_status_and_exception_are_recorded(backend: str) -> None:
    assert run_sandboxed("import sys; sys.exit(3)", limits=FAST, sandbox=backend).exit_code == 3
    raised = run_sandboxed("raise ValueError('model bug')", limits=FAST, sandbox=backend)
    assert raised.exit_code == 1 and not raised.ok
    assert "ValueError: model bug" in raised.stderr_tail


def test_collect_copies_regular_files_and_refuses_symlinks(backend: str, tmp_path: Path) -> None:
    code = "import os\nopen('video.mp4', 'wb').write(b'v' * 5000)\nos.symlink('/etc/passwd', 'link.mp4')\n"
    out = tmp_path / "out"
    result = run_sandboxed(
        code,
        limits=FAST,
        collect=["video.mp4", "link.mp4", "absent.mp4"],
        collect_dir=out,
        sandbox=backend,
    )
    assert result.ok, result.stderr_tail
    assert result.files == {"video.mp4": str(out / "video.mp4")}
    assert (out / "video.mp4").read_bytes() == b"v" * 5000
    assert not (out / "link.mp4").exists()
    assert result.workdir_files["video.mp4"] == 5000
    with pytest.raises(ValueError):
        run_sandboxed("pass", collect=["../x"], collect_dir=out, sandbox=backend)


def test_loop_forever_is_killed_at_the_wall_clock(backend: str) -> None:
    code = "import subprocess\nsubprocess.Popen(['sleep', '1000'])\nprint('started')\nwhile True:\n    pass\n"
    start = time.monotonic()
    result = run_sandboxed(code, limits=SandboxLimits(wall_s=10), sandbox=backend)
    assert result.timed_out and result.killed_reason == "timeout"
    assert result.signal == 9 and result.exit_code is None
    assert result.stdout_tail == "started\n"  # unbuffered: output before the kill is kept
    assert time.monotonic() - start < 300  # a hang guard: the reason above says what stopped it


def test_fifty_gigabytes_cannot_be_allocated(backend: str) -> None:
    code = "x = bytearray(50 * 10**9)\nprint('allocated')\n"
    result = run_sandboxed(code, limits=FAST, sandbox=backend)
    assert result.exit_code == 1
    assert "MemoryError" in result.stderr_tail
    assert "allocated" not in result.stdout_tail
    assert result.peak_memory_bytes is not None and result.peak_memory_bytes < 1 << 30


def test_fork_bomb_is_bounded_and_cleaned_up(backend: str) -> None:
    code = "import os, time\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        time.sleep(0.001)\n"
    start = time.monotonic()
    result = run_sandboxed(code, limits=SandboxLimits(wall_s=2, processes=32), sandbox=backend)
    assert result.timed_out
    assert time.monotonic() - start < 300  # a hang guard: the reason above says what stopped it


def test_cannot_reach_a_port_the_test_listens_on(backend: str) -> None:
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    server.setblocking(False)
    port = server.getsockname()[1]
    code = (
        "import socket, sys\n"
        "try:\n"
        f"    socket.create_connection(('127.0.0.1', {port}), timeout=3)\n"
        "except OSError as exc:\n"
        "    print('blocked', type(exc).__name__)\n"
        "else:\n"
        "    print('connected'); sys.exit(3)\n"
    )
    try:
        result = run_sandboxed(code, limits=FAST, sandbox=backend)
        assert result.ok, result
        assert result.stdout_tail.startswith("blocked")
        with pytest.raises(BlockingIOError):
            server.accept()  # nothing ever arrived
    finally:
        server.close()


def test_only_loopback_is_visible(backend: str) -> None:
    code = (
        "import json, socket\n"
        "names = [n for _, n in socket.if_nameindex()]\n"
        "dev = [ln.split(':')[0].strip() for ln in open('/proc/net/dev').read().splitlines()[2:]]\n"
        "print(json.dumps([names, dev]))\n"
    )
    result = run_sandboxed(code, limits=FAST, sandbox=backend)
    assert result.ok, result.stderr_tail
    assert json.loads(result.stdout_tail) == [["lo"], ["lo"]]


def test_secrets_and_the_real_home_are_out_of_reach(
    backend: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-fake-secret-for-sandbox-test")
    monkeypatch.setenv("HF_TOKEN", "hf_fake_secret_for_sandbox_test")
    secret_file = tmp_path / "secret.txt"
    secret_file.write_text("fake-file-secret")
    secret_file.chmod(0o644)
    real_home = os.path.expanduser("~")
    code = (
        "import json, os, sys\n"
        "out = {'env': dict(os.environ), 'home': os.environ.get('HOME')}\n"
        "def attempt(fn):\n"
        "    try:\n"
        "        return fn()\n"
        "    except OSError as exc:\n"
        "        return 'denied: ' + type(exc).__name__\n"
        "out['real_home'] = attempt(lambda: sorted(os.listdir(sys.argv[1])))\n"
        "out['file'] = attempt(lambda: open(sys.argv[2]).read())\n"
        "out['pids'] = sorted(int(p) for p in os.listdir('/proc') if p.isdigit())\n"
        "print(json.dumps(out))\n"
    )
    result = run_sandboxed(code, args=[real_home, str(secret_file)], limits=FAST, sandbox=backend)
    assert result.ok, result.stderr_tail
    for secret in (
        "sk-fake-secret-for-sandbox-test",
        "hf_fake_secret_for_sandbox_test",
        "fake-file-secret",
    ):
        assert secret not in result.stdout_tail
    seen = json.loads(result.stdout_tail)
    assert "OPENAI_API_KEY" not in seen["env"] and "HF_TOKEN" not in seen["env"]
    assert seen["home"].endswith("/box/.home") and not seen["home"].startswith(real_home + "/")
    assert seen["file"].startswith("denied")
    assert seen["pids"] == [1, 2]  # its own namespace: the namespace init and the program; no supervisor, no reaper
    if isinstance(seen["real_home"], list):  # only directories of the interpreter may show
        assert set(seen["real_home"]) != set(os.listdir(real_home)) or not os.listdir(real_home)


def test_writes_outside_the_working_directory_do_not_land(backend: str, tmp_path: Path) -> None:
    token = f"physeval-escape-{os.getpid()}-{time.monotonic_ns()}"
    targets = [
        os.path.join(tempfile.gettempdir(), token),
        "/var/tmp/" + token,
        "/dev/shm/" + token,
        str(tmp_path / token),
        os.path.join(os.path.expanduser("~"), token),
        str(Path(__file__).resolve().parent / token),
    ]
    code = (
        "import json, os, sys\n"
        "results = {}\n"
        "for path in sys.argv[1:] + ['../' + 'x', '/etc/' + 'x', '/usr/' + 'x']:\n"
        "    try:\n"
        "        with open(path, 'w') as fh:\n"
        "            fh.write('escaped')\n"
        "        results[path] = 'wrote'\n"
        "    except OSError as exc:\n"
        "        results[path] = type(exc).__name__\n"
        "open('inside.txt', 'w').write('fine')\n"
        "print(json.dumps(results))\n"
    )
    result = run_sandboxed(code, args=targets, limits=FAST, sandbox=backend)
    assert result.ok, result.stderr_tail
    outcome = json.loads(result.stdout_tail)
    for path in targets:
        assert not os.path.exists(path), f"{path} was written on the host"
    assert outcome["/usr/x"] != "wrote" and outcome["/etc/x"] != "wrote"
    assert result.workdir_files == {"inside.txt": 4}


def test_printing_gigabytes_is_cut_off(backend: str) -> None:
    code = "import sys\nchunk = b'x' * (1 << 20)\nfor _ in range(5000):\n    sys.stdout.buffer.write(chunk)\n"
    limits = SandboxLimits(wall_s=30, max_output_bytes=8 << 20, output_bytes=4096)
    start = time.monotonic()
    result = run_sandboxed(code, limits=limits, sandbox=backend)
    assert result.killed_reason == "output_limit" and not result.ok
    assert len(result.stdout_tail) == 4096
    assert 8 << 20 < result.stdout_bytes < 64 << 20
    assert time.monotonic() - start < 300  # a hang guard: the reason above says what stopped it


def test_file_size_limit_stops_a_huge_file(backend: str) -> None:
    code = "f = open('big.bin', 'wb')\nfor _ in range(64):\n    f.write(b'0' * (1 << 20))\n"
    result = run_sandboxed(code, limits=SandboxLimits(wall_s=20, file_bytes=4 << 20), sandbox=backend)
    assert not result.ok
    assert result.signal == 25 or "File too large" in result.stderr_tail  # SIGXFSZ / EFBIG
    assert result.workdir_files.get("big.bin", 0) <= 4 << 20


def test_a_detached_daemon_does_not_outlive_the_program(backend: str) -> None:
    code = (
        "import subprocess\n"
        "subprocess.Popen(['sleep', '1000'], start_new_session=True)\n"
        "print('left a daemon behind')\n"
    )
    result = run_sandboxed(code, limits=FAST, sandbox=backend)
    assert result.ok and result.wall_s < 300  # the daemon sleeps 1000 s: the init killed it; the leak check confirms


def test_cpu_limit_stops_a_busy_program(backend: str) -> None:
    result = run_sandboxed(
        "while True:\n    pass\n",
        limits=SandboxLimits(wall_s=600, cpu_s=1),  # 1 s of CPU comes long before 600 s, however loaded
        sandbox=backend,
    )
    assert result.killed_reason == "cpu_limit" and result.signal == 24  # SIGXCPU
    assert not result.timed_out


def test_isolation_report_says_what_is_in_force(backend: str) -> None:
    report = isolation_report(backend)
    assert report["mode"] == backend
    assert report["missing_packages"] == []
    assert report["network"].startswith("new network namespace")
    assert report["ipc"].startswith("new IPC namespace")


def test_the_unsafe_backend_must_be_asked_for_and_warns() -> None:
    with pytest.warns(RuntimeWarning, match="NO network or filesystem isolation"):
        result = run_sandboxed("while True:\n    pass\n", limits=SandboxLimits(wall_s=1), sandbox="none")
    assert result.mode == "none" and result.timed_out and result.memory_accounting == "rlimit"
    with pytest.warns(RuntimeWarning):
        ok = run_sandboxed("import os; print(os.environ['HOME'])", limits=FAST, sandbox="none")
    assert ok.ok and ok.stdout_tail.strip().endswith("/box/.home")
    with pytest.raises(SandboxUnavailable, match="does not isolate"):
        run_sandboxed("pass", limits=SandboxLimits(require_isolation=True), sandbox="none")
    assert isolation_report("none")["network"] == "NOT ISOLATED"


_HOST_THAT_DIES = r"""
import os, sys
from physeval.scenes.sandbox import SandboxLimits, host, run_sandboxed, verify_environment
lo = int(sys.argv[2])
host.UID_RANGE = (lo, lo + 100_000)
environment = verify_environment(sandbox=sys.argv[1])  # its probe's output is not the program's
add = host._Tail.add
def forward(self, data):  # the program's output reaches the test as it comes: the test waits on it
    os.write(1, data)
    add(self, data)
host._Tail.add = forward
run_sandboxed("import time\nprint('started', flush=True)\ntime.sleep(600)\n", limits=SandboxLimits(wall_s=600),
              sandbox=sys.argv[1], environment=environment)
"""


def test_a_killed_host_takes_the_whole_sandbox_with_it(backend: str, tmp_path: Path) -> None:
    import signal
    import sys

    from _sandbox_helpers import pids_in_uid_range, process_state, wait_until_gone

    from physeval.scenes.sandbox import host

    lo = host.UID_RANGE[0]
    own = (lo, lo + 100_000) if os.geteuid() == 0 else None
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    before = pids_in_uid_range(os.getuid(), os.getuid() + 1) if own is None else set()
    proc = subprocess.Popen([sys.executable, "-c", _HOST_THAT_DIES, backend, str(lo)], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert proc.stdout is not None and proc.stderr is not None
        # an event, not a clock: the line arrives once the sandboxed program runs (EOF if the host died first)
        line = proc.stdout.readline()
        assert line == b"started\n", proc.stderr.read().decode()[-2000:]

        def running() -> set[int]:
            if own is not None:
                return pids_in_uid_range(*own)
            return pids_in_uid_range(os.getuid(), os.getuid() + 1) - before - {proc.pid}

        sandboxed = running()
        assert sandboxed, "the program printed, so its processes exist"
        proc.send_signal(signal.SIGKILL)  # physeval dies without any chance to clean up
        proc.wait()
        wait_until_gone(sandboxed)
        left = {pid: process_state(pid) for pid in running() & sandboxed}
        assert {pid for pid, state in left.items() if state not in ("Z", None)} == set(), (
            f"sandboxed processes outlived the host process: {left}")  # a zombie holds nothing; its reaper is not ours
    finally:
        proc.kill()
        proc.wait()
