"""A user's mistake is exit status 2 with one line saying what to do, never a traceback; a closed pipe
and a signal stop a command as Unix tools stop. Each case runs the real ``physeval`` command in a
fresh process, as a user types it (issue 36, case 7 and the signals).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from physeval.testing import Reply, Request, ScriptedServer

PHYSEVAL = shutil.which("physeval", path=str(Path(sys.executable).parent)) or "physeval"
HANG_GUARD = 300  # seconds: only a hung command reaches it; no verdict depends on it


def physeval(*argv: str, cwd: Path, env: dict[str, str] | None = None, **kwargs: object) -> subprocess.CompletedProcess:
    return subprocess.run([PHYSEVAL, *argv], cwd=cwd, capture_output=True, text=True, timeout=HANG_GUARD,
                          env={**os.environ, "COLUMNS": "200", **(env or {})}, **kwargs)  # type: ignore[call-overload]


def assert_one_line_user_error(done: subprocess.CompletedProcess, *words: str) -> None:
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr and "bug in physeval" not in done.stderr, done.stderr
    error = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    assert len(error) == 1, done.stderr
    for word in words:
        assert word in error[0], error[0]


def _first_on_path(folder: Path) -> str:
    return os.pathsep.join([str(folder), *filter(None, [os.environ.get("PYTHONPATH")])])


@pytest.fixture
def scored_run(tmp_path: Path) -> Path:
    """A run directory made without a model: one response of bank-numeric scored."""
    responses = tmp_path / "responses.jsonl"
    responses.write_text(json.dumps({"id": "em_ac_rlc_power", "response": r"\boxed{36.3\ \mathrm{W}}"}) + "\n",
                         encoding="utf-8")
    done = physeval("score", "bank-numeric", "--responses", str(responses), "-T", "variants=1",
                    "--out", str(tmp_path / "run"), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    return tmp_path / "run"


def test_parquet_export_without_pyarrow_names_the_extra(scored_run: Path, tmp_path: Path) -> None:
    absent = tmp_path / "absent"  # a pyarrow that is not installed: importing it fails as for a missing package
    (absent / "pyarrow").mkdir(parents=True)
    (absent / "pyarrow" / "__init__.py").write_text(
        "raise ModuleNotFoundError(\"No module named 'pyarrow'\", name='pyarrow')\n", encoding="utf-8")
    done = physeval("export", str(scored_run), "--format", "parquet", cwd=tmp_path, env={"PYTHONPATH": _first_on_path(absent)})
    assert_one_line_user_error(done, "pip install 'physeval[parquet]'")
    assert not (scored_run / "samples.parquet").exists()


def test_serve_on_a_port_in_use_names_the_port_and_the_flag(tmp_path: Path) -> None:
    pytest.importorskip("fastapi")
    pytest.importorskip("uvicorn")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = physeval("serve", "--track", "symbolic", "--port", str(port), cwd=tmp_path)
    assert_one_line_user_error(done, f"port {port}", "--port")


def test_a_missing_simuscene_file_is_named(tmp_path: Path) -> None:
    done = physeval("run", "simuscene", "--data", "MISSING.jsonl", "--no-progress", cwd=tmp_path)
    assert_one_line_user_error(done, "MISSING.jsonl", "--data")
    assert not (tmp_path / "runs").exists()  # nothing written for a run that could not start


def test_hugging_face_data_offline_names_the_local_file(tmp_path: Path) -> None:
    pytest.importorskip("datasets")
    offline = {"HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "HF_HOME": str(tmp_path / "hf")}
    done = physeval("run", "phybench", "--data", "hf:Eureka-Lab/PHYBench", "--no-progress", cwd=tmp_path, env=offline)
    assert_one_line_user_error(done, "hf:Eureka-Lab/PHYBench", "PHYBench-fullques_v1.json", "--data PATH")


def test_a_path_the_command_line_named_is_a_user_error_wherever_it_is_opened(tmp_path: Path) -> None:
    from physeval.cli._errors import user_error_for

    def opened(path: str) -> BaseException:
        try:
            open(path, encoding="utf-8")  # noqa: SIM115 - what a library deep down does
        except OSError as exc:
            return exc
        raise AssertionError("no error")

    missing = str(tmp_path / "nothing" / "here.jsonl")
    assert "here.jsonl: no such file" in (user_error_for(opened(missing), ["run", "--data", missing]) or "")
    assert "nothing: no such file" in (user_error_for(opened(missing), ["run", f"--data={tmp_path / 'nothing'}"])
                                       or "")
    assert user_error_for(opened(missing), ["run", "--data", str(tmp_path)]) is None  # an existing folder: a bug
    assert user_error_for(opened(missing), ["run"]) is None  # a file nobody named: a bug
    wrapped = RuntimeError("export failed")
    wrapped.__cause__ = ModuleNotFoundError("No module named 'wandb'", name="wandb")
    assert user_error_for(wrapped, []) == ("this command needs the 'wandb' package, which is not installed: "
                                           "pip install 'physeval[wandb]'")
    assert user_error_for(ModuleNotFoundError("x", name="sympy"), []) is None  # a core dependency missing: a bug


def test_every_optional_module_is_in_the_extra_it_names() -> None:
    import tomllib

    from physeval.cli._errors import OPTIONAL_MODULES

    root = Path(__file__).resolve().parents[2]
    extras = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    distribution = {"cyllama": "cyllama", "inspect_ai": "inspect-ai", "lm_eval": "lm-eval", "tensorboardX":
                    "tensorboardX"}
    for module, extra in OPTIONAL_MODULES.items():
        assert extra in extras, f"{module}: no extra {extra!r} in pyproject.toml"
        wanted = distribution.get(module, module).lower()
        names = [requirement.split(";")[0].split("[")[0].split(">")[0].split("=")[0].split("<")[0].strip().lower()
                 for requirement in extras[extra]]
        if module == "tenacity":  # lm-eval's API models need it: it comes with lm-eval's own `api` extra
            assert any(r.replace(" ", "").startswith("lm-eval[api") for r in extras[extra]), extras[extra]
            continue
        assert wanted in names, f"{module}: the {extra!r} extra does not install {wanted} ({extras[extra]})"


# -- a closed standard output: quiet, status 141 (what the shell reports for `seq 1000000 | head`) ----

def _to_a_closed_pipe(argv: list[str], cwd: Path) -> subprocess.CompletedProcess:
    """Run with stdout on a pipe whose reader has already gone, so the first write fails (EPIPE)."""
    read, write = os.pipe()
    os.close(read)
    try:
        return subprocess.run([PHYSEVAL, *argv], cwd=cwd, stdout=write, stderr=subprocess.PIPE, text=True,
                              timeout=HANG_GUARD)
    finally:
        os.close(write)


def test_vary_into_a_closed_pipe_stops_quietly(tmp_path: Path) -> None:
    done = _to_a_closed_pipe(["vary", "mech_projectile_range", "--n", "40"], tmp_path)
    assert (done.returncode, done.stderr) == (141, "")


def test_regrade_into_a_closed_pipe_stops_quietly(scored_run: Path, tmp_path: Path) -> None:
    done = _to_a_closed_pipe(["regrade", str(scored_run)], tmp_path)  # the summary table is rich's output
    assert done.returncode == 141 and "Traceback" not in done.stderr and "bug" not in done.stderr, done.stderr


def test_audit_json_into_a_closed_pipe_stops_quietly(shared_data: Path, tmp_path: Path) -> None:
    done = _to_a_closed_pipe(["audit", "abench-b", "--data", str(shared_data / "abench" / "Phy_B_dynamic_100.csv"),
                              "--json"], tmp_path)
    assert (done.returncode, done.stderr) == (141, "")


def test_a_broken_pipe_that_is_not_stdout_is_still_a_bug(monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    from physeval import cli

    def socket_write(args: object) -> int:
        raise BrokenPipeError(32, "Broken pipe")  # e.g. a server that hung up: stdout is fine

    build = cli.build_parser

    def parser(*args):  # type: ignore[no-untyped-def]
        built = build(*args)
        for action in built._subparsers._group_actions:  # `physeval tasks` runs socket_write
            action.choices["tasks"].set_defaults(func=socket_write)
        return built

    monkeypatch.setattr(cli, "build_parser", parser)
    assert cli.main(["tasks"]) == 1
    assert "bug in physeval" in capsys.readouterr().err


# -- signals: SIGTERM stops a run as Ctrl-C does --------------------------------------------------------

_SLOW_TASK = '''
import sys
from physeval import NumericTask, Problem


class Waits(NumericTask):
    """Three problems; load() says it is loading, then waits as a slow dataset would."""

    name = "waits"

    def load(self):
        if {block_load}:
            print("LOADING", file=sys.stderr, flush=True)
            import time
            time.sleep(600)
        return [Problem(id=str(i), question=f"Q{{i}}? (Results should be expressed with units of $ m $)",
                        answer="1") for i in range(3)]
'''


def _start(tmp_path: Path, block_load: bool, base_url: str) -> subprocess.Popen[str]:
    (tmp_path / "waits.py").write_text(_SLOW_TASK.format(block_load=block_load), encoding="utf-8")
    return subprocess.Popen([PHYSEVAL, "run", "waits.py:Waits", "--model", "openai/m", "--base-url", base_url,
                             "--out", "runs/w", "--max-connections", "1", "--no-progress", "--no-preflight"],
                            cwd=tmp_path, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True,
                            env={**os.environ, "COLUMNS": "200"})


def _read_until(child: subprocess.Popen[str], marker: str) -> str:
    assert child.stderr is not None
    seen = ""
    for line in child.stderr:  # blocks until the child writes: an event, not a clock
        seen += line
        if marker in line:
            return seen
    raise AssertionError(f"the child ended before {marker!r}: {seen}")


@pytest.fixture
def held_server() -> Iterator[tuple[ScriptedServer, threading.Event, threading.Event]]:
    """Answers the first request; holds the second until released, and says when it arrived."""
    arrived, release = threading.Event(), threading.Event()

    def script(request: Request) -> Reply:
        if request.index >= 1:
            arrived.set()
            release.wait(HANG_GUARD)
        return Reply.text(r"\boxed{1\ \mathrm{m}}")

    with ScriptedServer(script) as server:
        yield server, arrived, release
        release.set()


def test_sigterm_mid_run_prints_the_resume_line_and_exits_143(tmp_path: Path, held_server) -> None:  # type: ignore[no-untyped-def]
    server, arrived, release = held_server
    child = _start(tmp_path, False, server.base_url)
    try:
        assert arrived.wait(HANG_GUARD), "the run never sent its second request"
        child.send_signal(signal.SIGTERM)
        _, err = child.communicate(timeout=HANG_GUARD)
    finally:
        release.set()
        if child.poll() is None:
            child.kill()
            child.wait()
    assert child.returncode == 143, err
    assert "terminated (SIGTERM): finished samples are kept; resume with `physeval run --resume runs/w`" in err, err
    assert "Traceback" not in err
    resumed = physeval("run", "--resume", "runs/w", "--no-progress", cwd=tmp_path)
    assert resumed.returncode == 0, resumed.stderr
    assert "kept from before" in resumed.stderr


_TERM_INSIDE_A_REQUEST = """
import os, signal, sys
import aiohttp.client_reqrep as reqrep

_write_bytes = reqrep.ClientRequest.write_bytes
_sent = []


async def _write_bytes_then_terminated(self, *args, **kwargs):
    _sent.append(True)
    if len(_sent) == 2:  # the second request: SIGTERM handled inside aiohttp's own writer task
        try:
            os.kill(os.getpid(), signal.SIGTERM)  # the handler runs here, at the next instruction
        except BaseException as exc:
            print(f"RAISED IN AIOHTTP'S WRITER TASK: {type(exc).__name__}", file=sys.stderr, flush=True)
            raise
    return await _write_bytes(self, *args, **kwargs)


reqrep.ClientRequest.write_bytes = _write_bytes_then_terminated
"""


@pytest.mark.parametrize("sigint", ["handled", "ignored"])
def test_sigterm_inside_a_request_task_stops_as_ctrl_c_does(tmp_path: Path, sigint: str) -> None:
    """The signal handled inside a task physeval does not await itself (found by CI under load:
    SIGTERM landed in aiohttp's writer task, which then logged 'Task exception was never retrieved'
    with a traceback): the run stops as on Ctrl-C, through the main task, with no traceback. Also
    when SIGINT is ignored, as in a shell's background job (where asyncio sets no Ctrl-C handler)."""
    (tmp_path / "waits.py").write_text(_TERM_INSIDE_A_REQUEST + _SLOW_TASK.format(block_load=False), encoding="utf-8")
    ignore = (lambda: signal.signal(signal.SIGINT, signal.SIG_IGN)) if sigint == "ignored" else None
    with ScriptedServer(lambda request: Reply.text(r"\boxed{1\ \mathrm{m}}")) as server:
        done = physeval("run", "waits.py:Waits", "--model", "openai/m", "--base-url", server.base_url, "--out",
                        "runs/w", "--max-connections", "1", "--no-progress", "--no-preflight", cwd=tmp_path,
                        preexec_fn=ignore)
    assert done.returncode == 143, done.stderr
    assert "terminated (SIGTERM): finished samples are kept" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr and "never retrieved" not in done.stderr, done.stderr
    assert "RAISED IN AIOHTTP'S WRITER TASK" not in done.stderr  # the stop goes through the main task


_OWN_SIGINT_HANDLER = """
import signal, sys
sys.path.insert(0, ".")
from physeval.cli import main

signal.signal(signal.SIGINT, lambda signum, frame: print("the caller's own Ctrl-C handler", file=sys.stderr))
sys.exit(main({argv!r}))
"""


def test_sigterm_stops_main_called_by_a_program_with_its_own_ctrl_c_handler(tmp_path: Path) -> None:
    """Found by review: SIGTERM routed through the installed SIGINT handler ran the caller's own
    handler instead, and the run went on to exit 0."""
    (tmp_path / "waits.py").write_text(_TERM_INSIDE_A_REQUEST + _SLOW_TASK.format(block_load=False), encoding="utf-8")
    with ScriptedServer(lambda request: Reply.text(r"\boxed{1\ \mathrm{m}}")) as server:
        argv = ["run", "waits.py:Waits", "--model", "openai/m", "--base-url", server.base_url, "--out", "runs/w",
                "--max-connections", "1", "--no-progress", "--no-preflight"]
        done = subprocess.run([sys.executable, "-c", _OWN_SIGINT_HANDLER.format(argv=argv)], cwd=tmp_path,
                              capture_output=True, text=True, timeout=HANG_GUARD, check=False)
    assert done.returncode == 143, done.stderr
    assert "the caller's own Ctrl-C handler" not in done.stderr and "Traceback" not in done.stderr, done.stderr


@pytest.mark.parametrize(("sig", "status", "word"), [(signal.SIGINT, 130, "interrupted"),
                                                     (signal.SIGTERM, 143, "terminated (SIGTERM)")])
def test_a_signal_before_the_run_folder_exists_prints_no_resume_line(tmp_path: Path, sig: int, status: int,
                                                                     word: str) -> None:
    child = _start(tmp_path, True, "http://127.0.0.1:9/v1")
    try:
        _read_until(child, "LOADING")  # the task is loading: nothing has been written yet
        child.send_signal(sig)
        _, err = child.communicate(timeout=HANG_GUARD)
    finally:
        if child.poll() is None:  # a failed assertion must not leave the child waiting out its load
            child.kill()
            child.wait()
    assert child.returncode == status, err
    assert f"{word} before the run started: nothing was written" in err, err
    assert "--resume" not in err and "Traceback" not in err
    assert not (tmp_path / "runs" / "w").exists()


@pytest.mark.parametrize(("flag", "module", "extra"), [("--wandb", "wandb", "wandb"),
                                                      ("--tensorboard", "tensorboardX", "tensorboard")])
def test_a_logger_without_its_package_is_refused_before_the_first_request(tmp_path: Path, flag: str, module: str,
                                                                         extra: str) -> None:
    absent = tmp_path / "absent"
    (absent / module).mkdir(parents=True)
    (absent / module / "__init__.py").write_text(
        f"raise ModuleNotFoundError(\"No module named '{module}'\", name='{module}')\n", encoding="utf-8")
    with ScriptedServer(lambda request: Reply.text(r"\boxed{1}")) as server:
        done = physeval("run", "bank-numeric", "--model", "openai/m", "--base-url", server.base_url, "--limit", "1",
                        "--variants", "1", "--out", "runs/x", "--no-progress", flag, "somewhere", cwd=tmp_path,
                        env={"PYTHONPATH": _first_on_path(absent)})
        asked = len(server.requests)
    assert_one_line_user_error(done, flag, f"pip install 'physeval[{extra}]'")
    assert asked == 0 and not (tmp_path / "runs").exists()


_FIFO_TASK = '''
from pathlib import Path
from physeval import NumericTask, Problem


class HashesAFifo(NumericTask):
    """One problem whose data file is a named pipe: hashing it for the run record waits for a writer."""

    name = "fifo"

    def load(self):
        return [Problem(id="0", question="Q? (Results should be expressed with units of $ m $)", answer="1")]

    def data_files(self):
        return [Path("data.fifo")]
'''


@pytest.mark.parametrize(("sig", "status", "word"), [(signal.SIGINT, 130, "interrupted"),
                                                     (signal.SIGTERM, 143, "terminated (SIGTERM)")])
def test_a_signal_before_the_run_record_is_written_prints_no_resume_line(tmp_path: Path, sig: int, status: int,
                                                                         word: str) -> None:
    """The folder and its samples.sqlite exist, the run record does not yet: `--resume` would fail there."""
    (tmp_path / "fifo.py").write_text(_FIFO_TASK, encoding="utf-8")
    os.mkfifo(tmp_path / "data.fifo")
    child = subprocess.Popen([PHYSEVAL, "run", "fifo.py:HashesAFifo", "--model", "openai/m", "--base-url",
                              "http://127.0.0.1:9/v1", "--out", "runs/w", "--no-progress", "--no-preflight"],
                             cwd=tmp_path, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True,
                             env={**os.environ, "COLUMNS": "200"})
    writer: list[int] = []
    opener = threading.Thread(target=lambda: writer.append(os.open(tmp_path / "data.fifo", os.O_WRONLY)),
                              daemon=True)
    try:
        opener.start()  # returns once the child opens the pipe to hash it: the store exists, the record not yet
        opener.join(HANG_GUARD)
        assert writer, "the run never opened its data file"
        assert (tmp_path / "runs" / "w" / "samples.sqlite").is_file()
        child.send_signal(sig)
        _, err = child.communicate(timeout=HANG_GUARD)
    finally:
        for fd in writer:
            os.close(fd)
        if child.poll() is None:
            child.kill()
            child.wait()
    assert child.returncode == status, err
    assert f"{word} before the run started: nothing was recorded in runs/w" in err, err
    assert "--resume" not in err and "Traceback" not in err, err
    assert "run the same command again" in err, err
