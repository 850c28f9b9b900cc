"""Stage 7 on a finished build: the train split is solved, rendered and judged as in evaluation;
verified scenarios feed the SFT split (program and reasoning kept), the rest the RL split, and the
test split (held out before) is never shown to the solver."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from scripted_build import BuildScript
from test_pipeline import build_args

from physeval.build.store import BuildStore
from physeval.cli import main
from physeval.testing import ScriptedServer

pytest.importorskip("cv2")
pytestmark = pytest.mark.slow


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
