"""The embedded SmolLM2 runs offline in a child process; its death is an explained, resumable stop.

Skipped without the `local` extra's runtime (cyllama) or the weights (`physeval local setup`).

Every model process here runs on one CPU (see ``_one_cpu``): llama.cpp takes as many threads
as it may use CPUs, and two threads spin-wait on each other whenever the machine is busy.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from physeval.errors import ModelError
from physeval.models import LocalModel, model_from_spec, smollm2_gguf_path
from physeval.models.local import explain_exit

pytest.importorskip("cyllama", reason="the `local` extra (cyllama) is not installed")
try:
    smollm2_gguf_path()
except ModelError:
    pytest.skip("the embedded model's weights are not here (physeval local setup)", allow_module_level=True)


@pytest.fixture(autouse=True)
def _one_cpu() -> Iterator[None]:
    """Pin this thread, so the threads and processes it starts (the model child), to one CPU.

    The child then runs llama.cpp with one thread, the path of a one-CPU machine. Measured at
    load 13 on 2 cores: the two tests that generate cost 1.5-1.9 s of CPU each on one CPU
    against 4.5-14 s with two spin-waiting threads, so their cost no longer follows the load.
    """
    if not hasattr(os, "sched_setaffinity"):
        yield
        return
    allowed = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {max(allowed)})
    try:
        yield
    finally:
        os.sched_setaffinity(0, allowed)


def test_weights_are_the_smollm2_gguf() -> None:
    path = smollm2_gguf_path()
    assert path.name == "SmolLM2-135M-Instruct.Q4_1.gguf" and path.stat().st_size > 50_000_000


def test_local_model_answers_offline(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    model = model_from_spec("local")
    assert isinstance(model, LocalModel)

    async def ask() -> list:  # type: ignore[type-arg]
        try:
            return await model.generate([{"role": "user", "content": "What is the capital of France?"}],
                                        n=2, max_tokens=24, temperature=0.0, seed=1)
        finally:
            await model.aclose()

    completions = asyncio.run(ask())
    assert len(completions) == 2
    assert all(c.text.strip() and c.finish_reason in ("stop", "length") for c in completions)
    assert 0 < completions[0].usage["completion_tokens"] <= 48 and completions[0].latency_s > 0
    assert model.cache_identity.startswith("local|SmolLM2")


def test_preflight_generates_from_a_physics_length_prompt() -> None:
    model = LocalModel()

    async def check() -> str:
        try:
            return await model.preflight()
        finally:
            await model.aclose()

    assert "physics-length prompt generated" in asyncio.run(check())


def test_missing_gguf_is_a_clear_model_error(tmp_path: Path) -> None:
    model = LocalModel(tmp_path / "absent.gguf")
    with pytest.raises(ModelError, match="absent"):
        asyncio.run(model.generate([{"role": "user", "content": "hi"}], max_tokens=4))


def test_a_child_killed_mid_run_is_a_fatal_error_naming_the_signal() -> None:
    model = LocalModel()

    async def scenario() -> ModelError:
        try:
            await model.generate([{"role": "user", "content": "Say hi."}], max_tokens=4)
            pid = model.api.pid
            assert pid is not None
            os.kill(pid, signal.SIGKILL)
            await asyncio.to_thread(model.api._server.process.wait)  # the kernel has reaped it
            with pytest.raises(ModelError) as caught:
                await model.generate([{"role": "user", "content": "Say hi again."}], max_tokens=4)
            return caught.value
        finally:
            await model.aclose()

    error = asyncio.run(scenario())
    assert error.kind == "local_crashed" and error.fatal
    assert "SIGKILL" in str(error) and "out-of-memory" in str(error)


@pytest.mark.parametrize(("code", "words"), [(-signal.SIGILL, "SIGILL (illegal instruction"),
                                              (-signal.SIGSEGV, "SIGSEGV"), (3, "exited with status 3")])
def test_exit_statuses_are_explained(code: int, words: str) -> None:
    assert words in explain_exit(code)


def _children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if int(fields[1]) == pid and b"physeval.models.local_server" in cmdline:
            found.append(int(entry.name))
    return found


def _graded_rows(run_dir: Path) -> int:
    path = run_dir / "samples.sqlite"
    if not path.is_file():
        return 0
    try:
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
            return int(db.execute("SELECT COUNT(*) FROM samples WHERE status != 'error'").fetchone()[0])
    except sqlite3.Error:
        return 0


ROWS = 2  # the fewest that leave one row to lose: the kill lands after the first


@pytest.mark.slow
def test_an_illegal_instruction_in_the_model_process_stops_the_run_resumably(tmp_path: Path) -> None:
    """SIGILL mid-run: exit 4, the cause and the resume line on the terminal, rows kept; --resume ends it."""
    run_dir = tmp_path / "run"
    command = [sys.executable, "-m", "physeval", "run", "bank-numeric", "--limit", str(ROWS), "--variants", "1",
               "--max-tokens", "4", "--progress", "plain", "--out", str(run_dir)]
    run = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    seen = ""
    try:
        assert run.stderr is not None
        for line in run.stderr:  # plain progress prints a line as each row is stored: an event, not a clock
            seen += line
            if f": 1/{ROWS} " in line:
                break
        else:
            raise AssertionError(f"the run ended before its first row: {seen}")
        children = _children(run.pid)
        assert len(children) == 1
        os.kill(children[0], signal.SIGSTOP)  # frozen at once: it cannot finish the next row first
        os.kill(children[0], signal.SIGILL)  # pending while stopped, delivered as it continues
        os.kill(children[0], signal.SIGCONT)
        _, err = run.communicate(timeout=120)
        err = seen + err
    finally:
        if run.poll() is None:
            run.kill()
    assert run.returncode == 4, err
    assert "SIGILL" in err and "illegal instruction" in err and "--resume" in err
    kept = _graded_rows(run_dir)
    assert 1 <= kept < ROWS
    resumed = subprocess.run([sys.executable, "-m", "physeval", "run", "--resume", str(run_dir)],
                             capture_output=True, text=True, timeout=1200)
    assert resumed.returncode == 0, resumed.stderr
    assert _graded_rows(run_dir) == ROWS and f"{kept} kept" in resumed.stderr
