"""The review loop: a set the reviewer finds wanting without saying why is drawn afresh; a set that
never satisfies it rejects the scenario once the revision budget is spent, every round kept."""

from __future__ import annotations

import json
from pathlib import Path

from scripted_build import QUESTIONS, SWING_BACK, BuildScript
from test_pipeline import build_args

from physeval.cli import main
from physeval.scene_builder.calls import derived_seed
from physeval.scene_builder.store import BuildStore
from physeval.testing import Reply, Request, ScriptedServer

PENDULUM = "simple-pendulum-01-1"


class VagueReviewer(BuildScript):
    """The reviewer names nothing missing; the generator's regenerated set (its own seed) is fuller."""

    def reply(self, request: Request) -> Reply:
        model, prompt = request.body["model"], request.body["messages"][0]["content"]
        if model == "review" and "simple pendulum hangs" in prompt and SWING_BACK not in prompt:
            return Reply.text(json.dumps({"sufficient": False, "missing": []}))
        if request.body.get("seed") == derived_seed(7, "regenerate", PENDULUM, 0, 0):
            return Reply.text(json.dumps({"questions": [*QUESTIONS["pendulum"], SWING_BACK]}))
        return super().reply(request)


class NeverSatisfied(BuildScript):
    """The reviewer rejects every pendulum question set."""

    def reply(self, request: Request) -> Reply:
        model, prompt = request.body["model"], request.body["messages"][0]["content"]
        if model == "review" and "simple pendulum hangs" in prompt:
            return Reply.text(json.dumps({"sufficient": False, "missing": ["the swing back is not checked"]}))
        return super().reply(request)


def _pendulum_review(out: Path) -> tuple[str, dict]:
    with BuildStore(out) as store:
        (item,) = [i for i in store.items("review") if i.key == PENDULUM]
    return item.status, item.data | {"kind": item.kind, "reason": item.reason}


def test_a_vague_rejection_draws_a_fresh_set(tmp_path: Path) -> None:
    with ScriptedServer(VagueReviewer()) as server:
        args = build_args(tmp_path / "b", server)
        args[args.index("--concepts") + 1] = "simple pendulum"
        assert main(args) == 0
    status, data = _pendulum_review(tmp_path / "b")
    assert status == "ok" and [r.get("action") for r in data["rounds"]] == ["regenerate", None]
    assert data["questions"][-1] == SWING_BACK


def test_a_set_that_never_satisfies_the_reviewer_rejects_the_scenario(tmp_path: Path) -> None:
    with ScriptedServer(NeverSatisfied()) as server:
        args = build_args(tmp_path / "b", server, "--max-revisions", "2")
        args[args.index("--concepts") + 1] = "simple pendulum"
        assert main(args) == 0
    status, data = _pendulum_review(tmp_path / "b")
    assert status == "rejected" and data["kind"] == "insufficient_questions"
    assert "after 2 revisions: the swing back is not checked" in data["reason"]
    assert [r["round"] for r in data["rounds"]] == [0, 1, 2]
    assert [r.get("action") for r in data["rounds"]] == ["revise", "revise", None]
