"""The sandbox runs hostile programs written for these tests and nothing escapes.

Each test program tries one thing a model-written renderer must not do; every test also
checks that no process of a sandbox uid survives and no working directory is left behind.
The only network probe is a connection to a port this test listens on at 127.0.0.1.
"""

from __future__ import annotations

import glob
import json
import os
import socket
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from physeval.scenes.sandbox import (
    SandboxLimits,
    SandboxUnavailable,
    isolation_report,
    run_sandboxed,
)

ISOLATED = isolation_report()["mode"] == "namespaces"
needs_namespaces = pytest.mark.skipif(not ISOLATED, reason="namespaces unavailable: fallback mode")
FAST = SandboxLimits(wall_s=20)


def _sandbox_pids() -> set[int]:
    """Live processes whose real uid is in the sandbox's random-uid range."""
    pids = set()
    for status in glob.glob("/proc/[0-9]*/status"):
        try:
            uid_line = next(ln for ln in Path(status).read_text().splitlines() if ln.startswith("Uid:"))
        except (OSError, StopIteration):
            continue
        if int(uid_line.split()[1]) >= 1_000_000:
            pids.add(int(status.split("/")[2]))
    return pids


def _workdirs() -> set[str]:
    return set(glob.glob(os.path.join(tempfile.gettempdir(), "physeval-sandbox-*")))


@pytest.fixture(autouse=True)
def nothing_leaks() -> Iterator[None]:
    before_dirs = _workdirs()
    yield
    deadline = time.monotonic() + 5
    while _sandbox_pids() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _sandbox_pids() == set(), "a sandboxed process outlived its run"
    assert _workdirs() - before_dirs == set(), "a sandbox working directory was left behind"


def test_clean_exit_and_output_capture() -> None:
    code = "import sys\nprint('hello', sys.argv[1:])\nprint('warn', file=sys.stderr)\n"
    result = run_sandboxed(code, args=["a", "{workdir}/b"], limits=FAST)
    assert result.ok, result
    assert result.exit_code == 0 and result.signal is None
    assert result.stdout_tail.startswith("hello ['a', '")
    assert result.stdout_tail.rstrip().endswith("/box/b']")
    assert result.stderr_tail == "warn\n"
    assert result.peak_memory_bytes and result.peak_memory_bytes > 1_000_000
    assert result.wall_s < 20
    json.dumps(result.to_dict())


def test_exit_status_and_exception_are_recorded() -> None:
    assert run_sandboxed("import sys; sys.exit(3)", limits=FAST).exit_code == 3
    raised = run_sandboxed("raise ValueError('model bug')", limits=FAST)
    assert raised.exit_code == 1 and not raised.ok
    assert "ValueError: model bug" in raised.stderr_tail


def test_collect_copies_regular_files_and_refuses_symlinks(tmp_path: Path) -> None:
    code = (
        "import os\n"
        "open('video.mp4', 'wb').write(b'v' * 5000)\n"
        "os.symlink('/etc/passwd', 'link.mp4')\n"
    )
    result = run_sandboxed(code, limits=FAST, collect=["video.mp4", "link.mp4", "absent.mp4"], collect_dir=tmp_path)
    assert result.ok, result.stderr_tail
    assert result.files == {"video.mp4": str(tmp_path / "video.mp4")}
    assert (tmp_path / "video.mp4").read_bytes() == b"v" * 5000
    assert not (tmp_path / "link.mp4").exists()
    assert result.workdir_files["video.mp4"] == 5000
    with pytest.raises(ValueError):
        run_sandboxed("pass", collect=["../x"], collect_dir=tmp_path)


def test_loop_forever_is_killed_at_the_wall_clock() -> None:
    code = "import subprocess\nsubprocess.Popen(['sleep', '1000'])\nprint('started')\nwhile True:\n    pass\n"
    start = time.monotonic()
    result = run_sandboxed(code, limits=SandboxLimits(wall_s=1.5))
    assert result.timed_out and result.killed_reason == "timeout"
    assert result.signal == 9 and result.exit_code is None
    assert result.stdout_tail == "started\n"  # unbuffered: output before the kill is kept
    assert time.monotonic() - start < 10


def test_fifty_gigabytes_cannot_be_allocated() -> None:
    code = "x = bytearray(50 * 10**9)\nprint('allocated')\n"
    result = run_sandboxed(code, limits=FAST)
    assert result.exit_code == 1
    assert "MemoryError" in result.stderr_tail
    assert "allocated" not in result.stdout_tail
    assert result.peak_memory_bytes is not None and result.peak_memory_bytes < 1 << 30


@needs_namespaces
def test_fork_bomb_is_bounded_and_cleaned_up() -> None:
    code = (
        "import os, time\n"
        "while True:\n"
        "    try:\n"
        "        os.fork()\n"
        "    except OSError:\n"
        "        time.sleep(0.001)\n"
    )
    start = time.monotonic()
    result = run_sandboxed(code, limits=SandboxLimits(wall_s=2, processes=32))
    assert result.timed_out
    assert time.monotonic() - start < 15


@needs_namespaces
def test_cannot_reach_a_port_the_test_listens_on() -> None:
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
        result = run_sandboxed(code, limits=FAST)
        assert result.ok, result
        assert result.stdout_tail.startswith("blocked")
        with pytest.raises(BlockingIOError):
            server.accept()  # nothing ever arrived
    finally:
        server.close()


@needs_namespaces
def test_only_loopback_is_visible() -> None:
    code = (
        "import json, socket\n"
        "names = [n for _, n in socket.if_nameindex()]\n"
        "dev = [ln.split(':')[0].strip() for ln in open('/proc/net/dev').read().splitlines()[2:]]\n"
        "print(json.dumps([names, dev]))\n"
    )
    result = run_sandboxed(code, limits=FAST)
    assert result.ok, result.stderr_tail
    assert json.loads(result.stdout_tail) == [["lo"], ["lo"]]


@needs_namespaces
def test_secrets_and_the_real_home_are_out_of_reach(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-fake-secret-for-sandbox-test")
    monkeypatch.setenv("HF_TOKEN", "hf_fake_secret_for_sandbox_test")
    secret_file = tmp_path / "secret.txt"
    secret_file.write_text("fake-file-secret")
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
        "out['init_env'] = attempt(lambda: open('/proc/1/environ', 'rb').read().decode())\n"
        "out['pids'] = sorted(int(p) for p in os.listdir('/proc') if p.isdigit())\n"
        "print(json.dumps(out))\n"
    )
    result = run_sandboxed(code, args=[real_home, str(secret_file)], limits=FAST)
    assert result.ok, result.stderr_tail
    assert "fake" not in result.stdout_tail and "secret" not in result.stdout_tail.replace("secret.txt", "")
    seen = json.loads(result.stdout_tail)
    assert "OPENAI_API_KEY" not in seen["env"] and "HF_TOKEN" not in seen["env"]
    assert seen["home"].endswith("/box/.home") and not seen["home"].startswith(real_home + "/")
    assert seen["file"].startswith("denied")
    assert seen["init_env"].startswith("denied")
    assert seen["pids"] == [1, 2]  # only the sandbox's init and the program itself
    if isinstance(seen["real_home"], list):  # only the re-bound interpreter directories show
        kept = isolation_report()["rebound_interpreter_dirs"]
        allowed = {os.path.relpath(k, real_home).split("/")[0] for k in kept if k.startswith(real_home + "/")}
        assert set(seen["real_home"]) <= allowed
        assert set(seen["real_home"]) != set(os.listdir(real_home)) or not os.listdir(real_home)


@needs_namespaces
def test_writes_outside_the_working_directory_do_not_land(tmp_path: Path) -> None:
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
        "for path in sys.argv[1:] + ['../' + 'x', '/etc/' + 'x']:\n"
        "    try:\n"
        "        with open(path, 'w') as fh:\n"
        "            fh.write('escaped')\n"
        "        results[path] = 'wrote'\n"
        "    except OSError as exc:\n"
        "        results[path] = type(exc).__name__\n"
        "open('inside.txt', 'w').write('fine')\n"
        "print(json.dumps(results))\n"
    )
    result = run_sandboxed(code, args=targets, limits=FAST)
    assert result.ok, result.stderr_tail
    outcome = json.loads(result.stdout_tail)
    for path in targets:
        assert not os.path.exists(path), f"{path} was written on the host"
    # /dev/shm is a private tmpfs inside the sandbox; everything else refuses the write
    assert all(v != "wrote" for k, v in outcome.items() if not k.startswith("/dev/shm/"))
    assert result.workdir_files == {"inside.txt": 4}


def test_printing_gigabytes_is_cut_off() -> None:
    code = "import sys\nchunk = b'x' * (1 << 20)\nfor _ in range(5000):\n    sys.stdout.buffer.write(chunk)\n"
    limits = SandboxLimits(wall_s=30, max_output_bytes=8 << 20, output_bytes=4096)
    start = time.monotonic()
    result = run_sandboxed(code, limits=limits)
    assert result.killed_reason == "output_limit" and not result.ok
    assert len(result.stdout_tail) == 4096
    assert 8 << 20 < result.stdout_bytes < 64 << 20
    assert time.monotonic() - start < 10


def test_file_size_limit_stops_a_huge_file() -> None:
    code = "f = open('big.bin', 'wb')\nfor _ in range(64):\n    f.write(b'0' * (1 << 20))\n"
    result = run_sandboxed(code, limits=SandboxLimits(wall_s=20, file_bytes=4 << 20))
    assert not result.ok
    assert result.signal == 25 or "File too large" in result.stderr_tail  # SIGXFSZ / EFBIG
    assert result.workdir_files.get("big.bin", 0) <= 4 << 20


def test_isolation_report_says_what_is_in_force() -> None:
    report = isolation_report()
    assert report["mode"] in ("namespaces", "none")
    assert report["missing_packages"] == []
    if report["mode"] == "namespaces":
        assert report["network"].startswith("new network namespace")
        assert report["warnings"] == []
    else:
        assert report["network"] == "NOT ISOLATED" and report["warnings"]


def test_require_isolation_raises_only_when_unavailable() -> None:
    if ISOLATED:
        assert run_sandboxed("pass", limits=SandboxLimits(wall_s=20, require_isolation=True)).ok
    else:
        with pytest.raises(SandboxUnavailable):
            run_sandboxed("pass", limits=SandboxLimits(require_isolation=True))


def test_fallback_without_namespaces_warns_and_still_limits(monkeypatch: pytest.MonkeyPatch) -> None:
    from physeval.scenes import sandbox

    monkeypatch.setattr(sandbox, "_namespaces_work", lambda: (False, "forced by the test"))
    assert isolation_report()["network"] == "NOT ISOLATED"
    with pytest.warns(RuntimeWarning, match="NO network or filesystem isolation"):
        result = run_sandboxed("while True:\n    pass\n", limits=SandboxLimits(wall_s=1))
    assert result.mode == "none" and result.timed_out
    with pytest.warns(RuntimeWarning):
        ok = run_sandboxed("import os; print(os.environ['HOME'])", limits=FAST)
    assert ok.ok and ok.stdout_tail.strip().endswith("/box/.home")
    with pytest.raises(SandboxUnavailable):
        run_sandboxed("pass", limits=SandboxLimits(require_isolation=True))


def test_a_detached_daemon_does_not_outlive_the_program() -> None:
    code = (
        "import subprocess\n"
        "subprocess.Popen(['sleep', '1000'], start_new_session=True)\n"
        "print('left a daemon behind')\n"
    )
    result = run_sandboxed(code, limits=FAST)
    assert result.ok and result.wall_s < 10  # init killed the daemon; the leak check confirms


def test_cpu_limit_stops_a_busy_program() -> None:
    result = run_sandboxed("while True:\n    pass\n", limits=SandboxLimits(wall_s=20, cpu_s=1))
    assert result.killed_reason == "cpu_limit" and result.signal == 24  # SIGXCPU
    assert not result.timed_out and result.wall_s < 10


def test_setup_sandbox_env_installs_exactly_the_listed_packages(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from physeval.scenes import sandbox

    calls: list[list[str]] = []

    class FakeBuilder:
        def __init__(self, **kwargs: object) -> None:
            assert kwargs["with_pip"] is True

        def create(self, root: Path) -> None:
            (root / "bin").mkdir(parents=True)
            (root / "bin" / "python").write_text("")
            (root / "lib").mkdir()
            (root / "lib" / "mod.py").write_text("")
            os.chmod(root / "lib", 0o700)
            os.chmod(root / "lib" / "mod.py", 0o600)

    monkeypatch.setattr(sandbox.venv, "EnvBuilder", FakeBuilder)
    monkeypatch.setattr(sandbox.subprocess, "run", lambda cmd, **kw: calls.append(cmd))
    python = sandbox.setup_sandbox_env(tmp_path / "env")
    assert python == (tmp_path / "env" / "bin" / "python").resolve()
    assert calls and calls[0][1:4] == ["-m", "pip", "install"]
    assert set(calls[0][-7:]) == {"numpy", "matplotlib", "opencv-python-headless", "imageio",
                                  "imageio-ffmpeg", "av", "scipy"}
    assert os.stat(tmp_path / "env" / "lib").st_mode & 0o055 == 0o055  # the sandbox uid can read it
    assert os.stat(tmp_path / "env" / "lib" / "mod.py").st_mode & 0o044 == 0o044
