"""Every way into the sandbox meets the environment a user's ``physeval sandbox setup`` made.

The environment here is real: the session's ``real_sandbox`` fixture runs ``physeval sandbox
setup --offline`` into a fresh data directory (``PHYSEVAL_DATA_DIR``), so programs reach the
interpreter through the symlink the setup switches, exactly as a user's do. A matplotlib, an
OpenCV and an imageio program are rendered through each entry point (``render_program``,
``physeval render``, ``physeval sandbox check``, ``scene_reward``, a batch through the render
pool, ``physeval serve --track scene``, ``physeval run`` and ``physeval regrade``, Ray workers of
the task and of the reward), under every backend this host has; each must be playable and
record the one verified build it ran under. The unprivileged suite runs this module again as
an ordinary user. A last test switches the environment in the middle of a batch, as a
concurrent setup does, and shows that no program of the batch noticed.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _sandbox_helpers import AVAILABLE, ISOLATING, WHY_NOT

from _scene_programs import BY_LIBRARY, fenced, judge_script
from physeval.cli import main
from physeval.rewards import SceneRewardOptions, scene_reward, score_batch
from physeval.rewards.executors import LocalExecutor
from physeval.scenes.render import render_program
from physeval.store import RunStore
from physeval.testing import Reply, ScriptedModel, ScriptedServer

pytestmark = pytest.mark.slow

SCENE = {"scenario": "A disc moves to the right.",
         "questions": [{"index": "1", "question": "Is a disc visible?"},
                       {"index": "2", "question": "Does it move to the right?"}]}


def _backends() -> list[Any]:
    params = [pytest.param(name, id=name, marks=() if name in AVAILABLE else pytest.mark.skip(
        reason=f"{name}: {WHY_NOT.get(name)}")) for name in ISOLATING]
    return [*params, pytest.param("none", id="none")]


@pytest.fixture(params=_backends())
def backend(request: pytest.FixtureRequest) -> str:
    """Every backend of this host: the isolating ones it has, and ``none``."""
    return str(request.param)


@pytest.fixture
def user_env(real_sandbox: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """This test sees the real environment as a user does: by the data dir, nothing named directly."""
    monkeypatch.setenv("PHYSEVAL_DATA_DIR", str(real_sandbox))
    monkeypatch.delenv("PHYSEVAL_SANDBOX_PYTHON", raising=False)
    monkeypatch.setenv("PYTHONWARNINGS", "ignore::RuntimeWarning")  # `none` warns every run, on purpose
    return real_sandbox


def _build(data: Path) -> str:
    """The build the setup's symlink points at now."""
    return str((data / "sandbox-venv").resolve())


def _check_render(record: dict[str, Any], build: str, backend: str, *, named: str = "sandbox-venv/bin/python") -> None:
    assert record["stage"] == "playable", record.get("reason")
    environment = record["environment"]
    assert environment["build"] == build and environment["backend"] == backend
    assert environment["requested"].endswith(named)  # named through the setup's symlink (or, on Ray, pinned)
    assert f"prefix {build}" in record["stderr_tail"]  # and that build is the one the program ran in


def test_render_program_runs_each_library_under_the_setup_build(user_env: Path, backend: str,
                                                                 tmp_path: Path) -> None:
    build = _build(user_env)
    for name, code in BY_LIBRARY.items():
        render = render_program(code, keep_dir=tmp_path, video_name=f"{name}.mp4", sandbox=backend, timeout=300)
        _check_render(render.to_dict(), build, backend)


FFMPEG_SAVE = """\
import sys
import matplotlib.pyplot as plt
from matplotlib.animation import FuncAnimation
fig, ax = plt.subplots(figsize=(3, 3))
ax.set_xlim(0, 10)
ax.set_ylim(-1, 1)
(disc,) = ax.plot([0], [0], "o", markersize=20)
ani = FuncAnimation(fig, lambda i: disc.set_data([i * 0.2], [0]), frames=48)
ani.save(sys.argv[1], writer="ffmpeg", fps=24)
"""


def test_the_usual_matplotlib_ffmpeg_save_renders(user_env: Path, backend: str, tmp_path: Path) -> None:
    # was `error` "ValueError: unknown file extension: .mp4" on every backend: no ffmpeg on the PATH
    render = render_program(FFMPEG_SAVE, keep_dir=tmp_path, sandbox=backend, timeout=300)
    assert render.stage == "playable", render.reason


def test_physeval_render_as_the_issue_reproduced_it(user_env: Path, backend: str, tmp_path: Path) -> None:
    program = tmp_path / "p.py"
    program.write_text('import sys, matplotlib\nopen(sys.argv[1],"w").write("x")\n')
    done = subprocess.run([sys.executable, "-m", "physeval.cli", "render", str(program), "--sandbox", backend,
                           "--out", str(tmp_path)], capture_output=True, text=True, timeout=600, check=False)
    record = json.loads(done.stdout)
    assert record["stage"] == "executable", record["reason"]  # matplotlib imported; a 1-byte file is no video
    assert record["environment"]["build"] == _build(user_env)
    for name, code in BY_LIBRARY.items():
        (tmp_path / f"{name}.py").write_text(code)
        assert main(["render", str(tmp_path / f"{name}.py"), "--sandbox", backend, "--out", str(tmp_path),
                     "--timeout", "300"]) == 0


def test_sandbox_check_verifies_inside_the_backend(user_env: Path, backend: str) -> None:
    done = subprocess.run([sys.executable, "-m", "physeval.cli", "sandbox", "check", "--sandbox", backend],
                          capture_output=True, text=True, timeout=900, check=False)
    report = json.loads(done.stdout)
    assert done.returncode == 0, report.get("environment_error")
    assert report["mode"] == backend and report["missing_packages"] == []
    assert report["verified"]["build"] == _build(user_env) and report["verified"]["backend"] == backend


def _judge() -> ScriptedModel:
    return ScriptedModel(judge_script(True), name="yes-judge")


def test_scene_reward_and_a_batch_through_the_render_pool(user_env: Path, backend: str) -> None:
    build = _build(user_env)
    options = SceneRewardOptions(sandbox=backend, render_timeout=300)
    single = scene_reward(fenced(BY_LIBRARY["opencv"]), SCENE, options, judges=[_judge()])
    assert single.reward == 1.0 and single.explanation["render"]["environment"]["build"] == build
    pool = LocalExecutor(render_workers=2)
    try:
        batch = score_batch("scene", [fenced(code) for code in BY_LIBRARY.values()], scenes=[SCENE] * 3,
                            options=options, judges=[_judge()], executor=pool)
    finally:
        pool.close()
    assert [r.reward for r in batch] == [1.0, 1.0, 1.0], [r.reason for r in batch]
    for result in batch:
        _check_render(result.explanation["render"] | {"stage": "playable"}, build, backend)


def test_physeval_serve_scene_track(user_env: Path, backend: str) -> None:
    with ScriptedServer(judge_script(True)) as judge:
        served = subprocess.Popen(
            [sys.executable, "-m", "physeval.cli", "serve", "--port", "0", "--track", "scene", "--sandbox", backend,
             "--judge", "openai/judge", "--judge-base-url", judge.base_url, "--render-timeout", "300"],
            stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
        try:
            url = _served_url(served)
            import httpx

            body = {"completions": [fenced(code) for code in BY_LIBRARY.values()], "scenes": [SCENE] * 3}
            answer = httpx.post(f"{url}/score", json=body, timeout=900).json()
        finally:
            served.terminate()
            served.wait(120)
    assert answer["rewards"] == [1.0, 1.0, 1.0], answer
    builds = {r["explanation"]["render"]["environment"]["build"] for r in answer["results"]}
    assert builds == {_build(user_env)}


def _served_url(served: subprocess.Popen[str]) -> str:
    """Read ``physeval serve``'s stderr until it is ready (an event: a line, not a clock)."""
    assert served.stderr is not None
    url = None
    for line in served.stderr:
        found = re.search(r"listening on (http://\S+)", line)
        url = found.group(1) if found else url
        if "physeval serve: ready" in line and url:
            return url
    raise AssertionError(f"physeval serve ended before it was ready (exit {served.wait()})")


def _program_server() -> ScriptedServer:
    """A model that writes the three programs in turn, one a request."""
    programs = [Reply.text(fenced(code)) for code in BY_LIBRARY.values()]
    count = iter(range(10**6))
    return ScriptedServer(lambda request: programs[next(count) % 3])


def test_physeval_run_and_regrade_through_the_render_pool(user_env: Path, backend: str, tmp_path: Path) -> None:
    build = _build(user_env)
    run = tmp_path / "run"
    with _program_server() as server:
        assert main(["run", "bank-scene", "--model", "openai/m", "--base-url", server.base_url, "--limit", "3",
                     "--sandbox", backend, "--render-workers", "2", "--render-timeout", "300", "--out", str(run),
                     "--no-progress"]) == 0
    summary = json.loads((run / "summary.json").read_text())
    assert summary["provenance"]["sandbox"]["verified"]["build"] == build
    with RunStore(run) as store:
        renders = [row.grade["render"] for row in store.rows()]
    assert len(renders) == 3
    for record in renders:
        _check_render(record, build, backend)
    assert main(["regrade", str(run)]) == 0  # a regrade renders again, by the same one road
    with RunStore(run) as store:
        again = [row.grade["render"] for row in store.rows()]
    assert len(again) == 3
    for record in again:
        _check_render(record, build, backend)


@pytest.fixture(scope="module")
def local_ray() -> Iterator[Any]:
    import tempfile

    ray = pytest.importorskip("ray", reason="the `ray` extra is not installed")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, ignore_reinit_error=True,
             _temp_dir=tempfile.mkdtemp(prefix="ray-", dir="/tmp"))  # its own, short (a socket path has 107 bytes)
    yield ray
    ray.shutdown()


def test_ray_workers_of_the_task_and_of_the_reward(user_env: Path, backend: str, local_ray: Any,
                                                   tmp_path: Path) -> None:
    from physeval.rewards.executors import RayExecutor
    from physeval.tasks.base import GradeContext
    from physeval.tasks.registry import get_task

    build = _build(user_env)
    task = get_task("bank-scene", executor="ray", sandbox=backend, render_timeout=300)
    problem = task.load()[0]
    for name, code in BY_LIBRARY.items():
        grade = asyncio.run(task.agrade(problem, fenced(code), GradeContext(run_dir=tmp_path / name)))
        _check_render(grade.render, build, backend, named=f"{build}/bin/python")  # the driver's pinned build
    on_ray = RayExecutor()
    try:
        batch = score_batch("scene", [fenced(code) for code in BY_LIBRARY.values()], scenes=[SCENE] * 3,
                            options=SceneRewardOptions(sandbox=backend, render_timeout=300), judges=[_judge()],
                            executor=on_ray)
    finally:
        on_ray.close()
    assert [r.reward for r in batch] == [1.0, 1.0, 1.0], [r.reason for r in batch]
    assert {r.explanation["render"]["environment"]["build"] for r in batch} == {build}


class _SwitchesAfterTheFirstRender(LocalExecutor):
    """The real local executor; once the first program of the batch has rendered, ``physeval sandbox
    setup`` switches the environment (here: the same atomic rename of the symlink, to a new build
    that lacks every library, so a program that met it could not run)."""

    def __init__(self, data: Path) -> None:
        super().__init__(render_workers=1)
        self.data = data
        self.switched = False

    async def render(self, job: Any) -> Any:
        result = await super().render(job)
        if not self.switched:
            self.switched = True
            root = self.data / "sandbox-venv"
            new = self.data / "sandbox-venv.builds" / "switched-in"
            subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(new)], check=True)
            os.symlink(new, self.data / ".next-link")
            os.replace(self.data / ".next-link", root)
        return result


def test_a_setup_switching_mid_batch_changes_no_program_of_the_batch(user_env: Path) -> None:
    first = _build(user_env)
    root = user_env / "sandbox-venv"
    executor = _SwitchesAfterTheFirstRender(user_env)
    try:
        rollouts = [fenced(BY_LIBRARY[name]) for name in ("opencv", "imageio", "matplotlib", "opencv")]
        batch = score_batch("scene", rollouts, scenes=[SCENE] * 4, options=SceneRewardOptions(render_timeout=300),
                            judges=[_judge()], executor=executor)
        assert executor.switched and _build(user_env) != first  # the switch happened during the batch
        assert [r.reward for r in batch] == [1.0] * 4, [r.reason for r in batch]
        for result in batch:
            assert result.explanation["render"]["environment"]["build"] == first
            assert f"prefix {first}" in result.explanation["render"]["stderr_tail"]
        # the next batch pins the build the link names now, verifies it, and finds it broken: not measured
        (after,) = score_batch("scene", [fenced(BY_LIBRARY["opencv"])], scenes=[SCENE],
                               options=SceneRewardOptions(render_timeout=300), judges=[_judge()])
        assert after.reward is None and "physeval sandbox setup" in after.reason
    finally:
        executor.close()
        os.symlink(first, user_env / ".back-link")
        os.replace(user_env / ".back-link", root)  # the session's environment, as it was


def test_the_task_keeps_the_build_it_verified_when_setup_switches_mid_run(user_env: Path, tmp_path: Path) -> None:
    from physeval.tasks.registry import get_task

    first = _build(user_env)
    root = user_env / "sandbox-venv"
    task = get_task("bank-scene", render_workers=1, render_timeout=300)
    asyncio.run(task.preflight())
    new = user_env / "sandbox-venv.builds" / "switched-in-run"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(new)], check=True)
    os.symlink(new, user_env / ".next-link")
    os.replace(user_env / ".next-link", root)
    try:
        render = asyncio.run(task._render(BY_LIBRARY["opencv"], tmp_path, "v.mp4"))
        _check_render(render.to_dict(), first, render.to_dict()["environment"]["backend"])
        assert task.provenance()["sandbox"]["verified"]["build"] == first
    finally:
        os.symlink(first, user_env / ".back-link")
        os.replace(user_env / ".back-link", root)
