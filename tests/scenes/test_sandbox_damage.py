"""A sandbox environment damaged or unset after it was set up is the host's fault on every entry point.

Found by an outside reviewer on main (issue 31 follow-ups): a package removed from the build after
the first check was blamed on the program (``error``, reward 0); ``physeval sandbox setup``, the
fix every message names, refused to rebuild a damaged environment; a ``sandbox-venv`` link to a
build that is gone made every entry point quietly use physeval's own interpreter; ``physeval
run`` with a broken environment graded cached answers (exit 3) or asked the model first. The
environment is real: this module's own ``physeval sandbox setup --offline`` (damaged here, so
never the session's), reached through the data directory as a user reaches it.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from _real_sandbox import real_sandbox_data_dir, user_wheels
from _scene_programs import BY_LIBRARY, fenced, judge_script
from physeval.rewards import SceneRewardOptions, scene_reward
from physeval.scenes.render import render_program
from physeval.testing import Reply, ScriptedModel, ScriptedServer

pytestmark = pytest.mark.slow

SCENE = {"scenario": "A disc moves to the right.",
         "questions": [{"index": "1", "question": "Is a disc visible?"}]}


_WHEELS: list[Path] = []


@pytest.fixture(scope="module")
def own_env() -> Iterator[Path]:
    """A data directory of this module's own, made by the real setup command."""
    data = real_sandbox_data_dir()
    _WHEELS.append(user_wheels())  # named now: the tests move PHYSEVAL_DATA_DIR
    yield data
    shutil.rmtree(data, ignore_errors=True)


@pytest.fixture
def env(own_env: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("PHYSEVAL_DATA_DIR", str(own_env))
    monkeypatch.delenv("PHYSEVAL_SANDBOX_PYTHON", raising=False)
    return own_env


def _numpy(data: Path) -> Path:
    (found,) = (data / "sandbox-venv").resolve().glob("lib/python3*/site-packages/numpy")
    return found


class _Moved:
    """``mv <build>/.../numpy <elsewhere>`` for the span of a ``with``; put back afterwards."""

    def __init__(self, data: Path) -> None:
        self.src = _numpy(data)
        self.dst = data / "numpy-moved-away"

    def __enter__(self) -> _Moved:
        os.rename(self.src, self.dst)
        return self

    def __exit__(self, *exc: object) -> None:
        if self.dst.exists():
            os.rename(self.dst, self.src)


class _Dangling:
    """``ln -sfn <builds>/0000deadbeef sandbox-venv`` for the span of a ``with``; relinked afterwards."""

    def __init__(self, data: Path) -> None:
        self.root = data / "sandbox-venv"
        self.was = self.root.resolve()

    def __enter__(self) -> _Dangling:
        os.symlink(self.root.with_name("sandbox-venv.builds") / "0000deadbeef", self.root.with_name(".dl"))
        os.replace(self.root.with_name(".dl"), self.root)
        return self

    def __exit__(self, *exc: object) -> None:
        os.symlink(self.was, self.root.with_name(".back"))
        os.replace(self.root.with_name(".back"), self.root)


def _served_url(served: subprocess.Popen[str]) -> str:
    """Read ``physeval serve``'s stderr until it is ready (a line, not a clock)."""
    assert served.stderr is not None
    url = None
    for line in served.stderr:
        found = re.search(r"listening on (http://\S+)", line)
        url = found.group(1) if found else url
        if "physeval serve: ready" in line and url:
            return url
    raise AssertionError(f"physeval serve ended before it was ready (exit {served.wait()})")


def _judge() -> ScriptedModel:
    return ScriptedModel(judge_script(True), name="yes-judge")


@pytest.mark.timeout(900)  # renders and a reward through the real environment: 38 s on a slow machine
def test_damage_after_the_first_check_is_the_environments_not_the_programs(env: Path, tmp_path: Path) -> None:
    code = BY_LIBRARY["opencv"]
    assert render_program(code, keep_dir=tmp_path, timeout=300).stage == "playable"  # verified and cached
    with _Moved(env):
        render = render_program(code, keep_dir=tmp_path, timeout=300)
        assert render.stage == "sandbox_error", render.reason
        assert "numpy" in render.reason and "physeval sandbox setup" in render.reason
        again = render_program(code, keep_dir=tmp_path, timeout=300)  # the verification stays dropped
        assert again.stage == "sandbox_error", again.reason
        reward = scene_reward(fenced(code), SCENE, SceneRewardOptions(render_timeout=300), judges=[_judge()])
        assert reward.reward is None and "physeval sandbox setup" in reward.reason
    repaired = render_program(code, keep_dir=tmp_path, timeout=300)  # numpy back: verifies again, renders
    assert repaired.stage == "playable", repaired.reason


@pytest.mark.timeout(900)  # renders, a reward service and two CLI runs: 37 s on a slow machine
def test_a_program_importing_what_is_not_promised_stays_the_programs_error(env: Path, tmp_path: Path) -> None:
    render_program(BY_LIBRARY["opencv"], keep_dir=tmp_path, timeout=300)
    for _ in range(2):  # re-verified once (it verifies: the program's fault), then not again in the burst
        render = render_program("import pygame\n", keep_dir=tmp_path, timeout=300)
        assert render.stage == "error" and "No module named 'pygame'" in render.reason


def test_physeval_serve_after_damage_answers_not_measured(env: Path) -> None:
    import httpx

    with ScriptedServer(judge_script(True)) as judge:
        served = subprocess.Popen(
            [sys.executable, "-m", "physeval.cli", "serve", "--port", "0", "--track", "scene", "--judge",
             "openai/judge", "--judge-base-url", judge.base_url, "--render-timeout", "300"],
            stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
        try:
            url = _served_url(served)
            health = httpx.get(f"{url}/health", timeout=60).json()
            assert health["sandbox"]["build"] == str((env / "sandbox-venv").resolve())  # checked at start
            body = {"completions": [fenced(BY_LIBRARY["opencv"])] * 2, "scenes": [SCENE] * 2}
            assert httpx.post(f"{url}/score", json=body, timeout=900).json()["rewards"] == [1.0, 1.0]
            with _Moved(env):
                answer = httpx.post(f"{url}/score", json=body, timeout=900).json()
        finally:
            served.terminate()
            served.wait(120)
    assert answer["rewards"] == [None, None], answer
    assert all("physeval sandbox setup" in r["reason"] for r in answer["results"]), answer


def test_physeval_serve_does_not_start_on_a_broken_environment(env: Path) -> None:
    """Checked before it says ready, as ``physeval run`` is before its first sample: not a service
    answering every request with a null reward (found from outside: it said ready and /health ok)."""
    with ScriptedServer(judge_script(True)) as judge:
        for damage in (_Moved(env), _Dangling(env)):
            with damage:
                done = subprocess.run(
                    [sys.executable, "-m", "physeval.cli", "serve", "--port", "0", "--track", "scene", "--judge",
                     "openai/judge", "--judge-base-url", judge.base_url], capture_output=True, text=True,
                    timeout=900, check=False)
            assert done.returncode == 2, done.stderr[-2000:]
            assert "physeval serve: ready" not in done.stderr and "physeval sandbox setup" in done.stderr
            assert "Traceback" not in done.stderr
        assert judge.requests == []


def test_a_dangling_sandbox_venv_is_a_broken_setup_everywhere(env: Path, tmp_path: Path) -> None:
    with _Dangling(env):
        render = render_program(BY_LIBRARY["opencv"], keep_dir=tmp_path, timeout=300)
        assert render.stage == "sandbox_error" and "0000deadbeef" in render.reason, render.reason
        reward = scene_reward(fenced(BY_LIBRARY["opencv"]), SCENE, SceneRewardOptions(render_timeout=300),
                              judges=[_judge()])
        assert reward.reward is None
        done = subprocess.run([sys.executable, "-m", "physeval.cli", "sandbox", "check"], capture_output=True,
                              text=True, timeout=900, check=False)
        assert done.returncode == 1 and json.loads(done.stdout)["verified"] is None, done.stdout


def test_physeval_run_stops_before_the_model_and_the_cache(env: Path, tmp_path: Path) -> None:
    program = Reply.text(fenced(BY_LIBRARY["opencv"]))
    with ScriptedServer(lambda request: program) as server:
        args = ["run", "bank-scene", "--model", "openai/m", "--base-url", server.base_url, "--limit", "1",
                "--render-timeout", "300", "--no-progress"]

        def run(*more: str) -> subprocess.CompletedProcess[str]:  # a process of its own, as a user runs it
            return subprocess.run([sys.executable, "-m", "physeval.cli", *args, *more], capture_output=True,
                                  text=True, timeout=900, check=False)

        assert run("--out", str(tmp_path / "healthy")).returncode in (0, 1)  # the cache now holds the answers
        asked = (len(server.requests), server.get_count)
        for damage in (_Moved(env), _Dangling(env)):
            with damage:
                cached = run("--out", str(tmp_path / f"cached-{type(damage).__name__}"))
                assert cached.returncode == 2, cached.stderr[-2000:]  # was 3: a `sandbox` error row
                assert "physeval sandbox setup" in cached.stderr
                uncached = run("--out", str(tmp_path / f"uncached-{type(damage).__name__}"), "--no-cache")
                assert uncached.returncode == 2, uncached.stderr[-2000:]
        assert (len(server.requests), server.get_count) == asked  # no preflight, no request


@pytest.mark.timeout(900)  # two real setup commands, one a whole offline build
def test_sandbox_setup_rebuilds_an_environment_that_does_not_verify(env: Path) -> None:
    before = (env / "sandbox-venv").resolve()
    setup = [sys.executable, "-m", "physeval.cli", "sandbox", "setup", "--offline", "--wheels", str(_WHEELS[0])]
    kept = subprocess.run(setup, capture_output=True, text=True, timeout=1800, check=False)
    assert kept.returncode == 0 and "already set up" in kept.stdout, kept.stdout + kept.stderr
    with _Moved(env):
        fixed = subprocess.run(setup, capture_output=True, text=True, timeout=1800, check=False)
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr  # was 2: "already set up ... (--force ...)"
    assert "does not verify" in fixed.stderr and "sandbox interpreter ready" in fixed.stdout
    assert (env / "sandbox-venv").resolve() != before and "checked under " in fixed.stdout
