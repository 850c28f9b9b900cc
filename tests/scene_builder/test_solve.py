"""Stage 7 on a finished build: the train split is solved, rendered and judged as in evaluation;
verified scenarios feed the SFT split (program and reasoning kept), the rest the RL split, and the
test split (held out before) is never shown to the solver."""

from __future__ import annotations

import json
import re
import threading
from pathlib import Path
from typing import Any

import pytest
from scripted_build import BuildScript, prompt_text
from test_pipeline import build_args

from physeval.cli import main
from physeval.scene_builder.store import BuildStore
from physeval.scenes.sandbox import backend_names, get_backend
from physeval.testing import Reply, Request, ScriptedServer

pytest.importorskip("cv2")
pytestmark = pytest.mark.slow
AVAILABLE = [n for n in backend_names() if get_backend(n).isolating and get_backend(n).available()[0]]


def _ids(path: Path) -> list[str]:
    return [json.loads(line)["id"] for line in path.read_text().splitlines()]


def test_adding_a_solver_to_a_finished_build_splits_train_into_sft_and_rl(built_copy: Path) -> None:
    out = built_copy
    script = BuildScript()
    with ScriptedServer(script) as server:
        assert main(build_args(out, server, "--solver", "openai/solver-build", "--judge", "openai/vlm")) == 0
    asked = [json.loads(body)["model"] for body in script.answered]
    assert sorted(asked) == ["solver-build", "solver-build", "vlm"]  # two train scenes, one playable video judged

    dataset = out / "dataset"
    assert _ids(dataset / "test.jsonl") == ["simple-pendulum-01-1"]
    assert _ids(dataset / "sft.jsonl") == ["projectile-motion-01-1"]
    assert _ids(dataset / "rl.jsonl") == ["refraction-01-1"]
    assert not (dataset / "train.jsonl").exists()
    (sft,) = [json.loads(x) for x in (dataset / "sft.jsonl").read_text().splitlines()]
    assert "cv2.VideoWriter" in sft["solution"]["program"] and sft["solution"]["reasoning"] == "draw a moving disc"
    assert sft["solve_verified"] is True and (out / sft["solution"]["video"]).is_file()
    (rl,) = [json.loads(x) for x in (dataset / "rl.jsonl").read_text().splitlines()]
    assert rl["solve_verified"] is False and "solution" not in rl

    with BuildStore(out) as store:
        solved = {i.key: i.data["solve"] for i in store.items("solve")}
    assert set(solved) == {"projectile-motion-01-1", "refraction-01-1"}  # the test split was held out
    assert solved["refraction-01-1"]["attempts"][0]["stage"] == "error"
    assert solved["projectile-motion-01-1"]["attempts"][0]["verdict"]["correct"] is True

    sheet = {row["id"]: row for row in map(json.loads, (out / "review" / "sheet.jsonl").read_text().splitlines())}
    assert sheet["projectile-motion-01-1"]["verified"] is True
    assert set(sheet["projectile-motion-01-1"]["judge_verdicts"].values()) == {"yes"}
    assert sheet["refraction-01-1"]["verified"] is False and sheet["simple-pendulum-01-1"]["verified"] is None
    card = (out / "card.md").read_text()
    assert "2 train scenarios solved, rendered and judged; 1 have a verified program" in card
    assert "test 1, sft 1, rl 1" in card


def test_a_sandbox_that_cannot_run_stops_the_build_instead_of_filling_rl(built_copy: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    from physeval.scenes import render

    monkeypatch.setattr(render, "run_sandboxed", _unavailable)
    with ScriptedServer(BuildScript()) as server:
        assert main(build_args(built_copy, server, "--solver", "openai/solver-build", "--judge", "openai/vlm")) == 2
    with BuildStore(built_copy) as store:
        assert store.items("solve") == [] and not store.get_meta("complete:solve")


def _unavailable(*args: object, **kwargs: object) -> None:
    from physeval.scenes.sandbox import SandboxUnavailable

    raise SandboxUnavailable("no isolating backend (test)")


class _SolverOfEveryLibrary(BuildScript):
    """The test build's script, with a solver ``solver-libs`` that writes a matplotlib, an OpenCV and
    an imageio program in turn for each scene, and a judge that rejects the first two videos of the
    first scene it is shown, so that scene is solved at its third sample and every library is
    rendered. Counting per scene keeps the totals the same whichever order the scenes are solved in."""

    def __init__(self) -> None:
        super().__init__()
        self._counting = threading.Lock()
        self.programs: dict[str, int] = {}
        self.judged: dict[tuple[str, ...], int] = {}

    def _next(self, counter: dict[Any, int], key: Any) -> int:
        with self._counting:
            counter[key] = counter.get(key, 0) + 1
            return counter[key] - 1

    def reply(self, request: Request) -> Reply:
        from _scene_programs import BY_LIBRARY

        model = request.body.get("model")
        text = prompt_text(request)
        if model == "solver-libs":
            code = list(BY_LIBRARY.values())[self._next(self.programs, text) % 3]
            return Reply.text(f"```python\n{code}```", reasoning="draw it")
        if model == "vlm":
            questions = tuple(re.findall(r"^\d+\. .*$", text, re.MULTILINE))
            with self._counting:
                rejecting = self.judged.setdefault(questions, 0) < 2 and next(iter(self.judged)) == questions
                self.judged[questions] += 1
            if rejecting:
                return Reply.text(json.dumps([{"index": str(i), "analysis": "no", "result": False}
                                              for i in range(1, len(questions) + 1)]))
        return super().reply(request)


@pytest.mark.timeout(900)  # a render per library: 44 s on a slow machine
@pytest.mark.parametrize("backend", [*AVAILABLE, "none"])
def test_the_solve_stage_renders_each_library_under_the_setup_build(
    tmp_path: Path, real_sandbox: Path, backend: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "scenes"  # a whole build, solving from the start
    monkeypatch.setenv("PHYSEVAL_DATA_DIR", str(real_sandbox))  # the environment a user's setup made
    monkeypatch.delenv("PHYSEVAL_SANDBOX_PYTHON", raising=False)
    build = str((real_sandbox / "sandbox-venv").resolve())
    with ScriptedServer(_SolverOfEveryLibrary()) as server:
        assert main(build_args(out, server, "--solver", "openai/solver-libs", "--judge", "openai/vlm",
                               "--solve-samples", "3", "--sandbox", backend, "--render-timeout", "300")) == 0
    with BuildStore(out) as store:
        attempts = [a for i in store.items("solve") for a in i.data["solve"]["attempts"]]
    assert len(attempts) == 4  # three samples for the first scene, one for the second
    assert all(a["stage"] == "playable" for a in attempts), [a["reason"] for a in attempts]
    assert {a["sandbox"] for a in attempts} == {build}  # one verified build for the whole stage
