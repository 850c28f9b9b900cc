"""End to end: a small dataset (3 concepts, 2 scenarios each) built by scripted local models.

The script (``scripted_build.py``) plants a prose reply, a reply missing a field, a near
duplicate, a perpetual-motion scenario, questions that are never JSON and a question set that
fails review once; the build must handle each as the issue says, and what it writes must load
in the ``simuscene`` task and run through a scripted evaluation.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from scripted_build import CONCEPTS, SWING_BACK, BuildScript

from physeval.cli import main
from physeval.scene_builder.solve import split_of
from physeval.scene_builder.store import BuildStore
from physeval.scenes.data import load_simuscene
from physeval.testing import ScriptedServer


def build_args(out: Path, server: ScriptedServer, *extra: str) -> list[str]:
    """The command line of the test build."""
    return ["build", "scenes", "--out", str(out), "--generator", "openai/gen", "--checker", "openai/check",
            "--reviewer", "openai/review", "--base-url", server.base_url, "--api-key", "test-key",
            "--concepts", CONCEPTS, "--per-concept", "2", "--levels", "0,1,2", "--seed", "7",
            "--test-fraction", "0.34", "--no-progress", *extra]


def test_the_dataset_keeps_exactly_the_scenarios_that_pass_every_stage(built: tuple[Path, BuildScript]) -> None:
    out, _ = built
    loaded = load_simuscene(out / "dataset" / "scenes.jsonl")
    assert loaded.dropped == 0 and loaded.skipped == 0
    ids = [p.id for p in loaded.problems]
    assert ids == ["projectile-motion-01-1", "refraction-01-1", "simple-pendulum-01-1"]
    pendulum = next(p for p in loaded.problems if p.id == "simple-pendulum-01-1")
    assert SWING_BACK in [q["question"] for q in pendulum.meta["questions"]]  # the revised set is the one kept
    assert pendulum.meta["domain"] == "mechanics" and pendulum.meta["concept"] == "simple pendulum"
    assert pendulum.meta["summarize"] == "the pendulum scene: the objects and their motion"
    records = [json.loads(line) for line in (out / "dataset" / "scenes.jsonl").read_text().splitlines()]
    for record in records:
        assert record["Level"] == len(record["conditions"]) and 0 <= record["Level"] <= 2
        assert record["split"] == split_of(7, record["id"], 0.34)
    splits = {name: [json.loads(x)["id"] for x in (out / "dataset" / f"{name}.jsonl").read_text().splitlines()]
              for name in ("test", "train")}
    assert sorted(splits["test"] + splits["train"]) == ids


def test_every_rejection_keeps_its_stage_kind_and_reason(built: tuple[Path, BuildScript]) -> None:
    out, _ = built
    with BuildStore(out) as store:
        rejected = {(i.stage, i.key): i for stage in ("filter", "plausibility", "questions", "review")
                    for i in store.items(stage, status="rejected")}
        assert set(rejected) == {("filter", "projectile-motion-02-1"), ("plausibility", "simple-pendulum-02-1"),
                                 ("questions", "refraction-02-1")}
        duplicate = rejected[("filter", "projectile-motion-02-1")]
        assert duplicate.kind == "near_duplicate" and duplicate.data["duplicate_of"] == "projectile-motion-01-1"
        implausible = rejected[("plausibility", "simple-pendulum-02-1")]
        assert implausible.kind == "implausible" and "perpetual motion" in implausible.reason
        malformed = rejected[("questions", "refraction-02-1")]
        assert malformed.kind == "malformed_reply" and "no JSON object" in malformed.reason
        assert "prefer not to write JSON" in malformed.data["reply"]
        replies = store.calls("questions", "refraction-02-1")
        assert [c["attempt"] for c in replies] == [0, 1, 2] and not any(c["ok"] for c in replies)
        assert replies[1]["messages"][-1]["content"].startswith("Your reply could not be used")


def test_malformed_replies_are_retried_with_the_reason_and_then_used(built: tuple[Path, BuildScript]) -> None:
    out, _ = built
    with BuildStore(out) as store:
        basic = store.calls("basic", "refraction")
        assert [c["ok"] for c in basic] == [False, True] and basic[0]["error"] == "the reply holds no JSON object"
        check = store.calls("plausibility", "refraction-01-1")
        assert [c["ok"] for c in check] == [False, True] and "renderable" in check[0]["error"]
        assert store.items("basic", status="ok")[1].data["scenarios"][0] == "a laser beam entering a glass block"


def test_an_insufficient_question_set_is_revised_and_every_round_kept(built: tuple[Path, BuildScript]) -> None:
    out, _ = built
    with BuildStore(out) as store:
        (review,) = [i for i in store.items("review") if i.key == "simple-pendulum-01-1"]
        rounds = review.data["rounds"]
        assert [r["review"]["sufficient"] for r in rounds] == [False, True]
        assert SWING_BACK not in rounds[0]["questions"] and SWING_BACK in rounds[1]["questions"]
        assert "swings back" in rounds[0]["review"]["missing"][0]
        assert [c["round"] for c in store.calls("revise", "simple-pendulum-01-1")] == [0]


def test_rerunning_a_finished_build_sends_no_request(built: tuple[Path, BuildScript], tmp_path: Path) -> None:
    out, _ = built
    card_before = (out / "card.md").read_text()
    script = BuildScript()
    with ScriptedServer(script) as server:  # a new port: the same model names on another server
        assert main(build_args(out, server)) == 0
    assert script.answered == []
    assert (out / "card.md").read_text() == card_before


def test_the_card_counts_and_explains(built: tuple[Path, BuildScript]) -> None:
    out, _ = built
    card = (out / "card.md").read_text()
    assert "**3 scenarios**" in card
    assert "| basic | 3 | 3 | 0 | - | 4 |" in card  # one prose reply retried
    assert "| filter | 6 | 5 | 1 | near_duplicate 1 | 0 |" in card
    assert "| plausibility | 5 | 4 | 1 | implausible 1 | 6 |" in card  # one reply missing a field, retried
    assert "| questions | 4 | 3 | 1 | malformed_reply 1 | 6 |" in card  # three prose replies for one scenario
    assert "| review | 3 | 3 | 0 | - | 5 |" in card  # four reviews and one revision
    for name in ("domain_concepts.png", "token_lengths.png", "questions_per_scenario.png"):
        assert f"(plots/{name})" in card
        assert (out / "plots" / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_output_runs_through_a_scripted_simuscene_evaluation(built: tuple[Path, BuildScript],
                                                                   tmp_path: Path) -> None:
    pytest.importorskip("cv2")
    out, _ = built
    with ScriptedServer(BuildScript()) as server:
        status = main(["run", "simuscene", "--data", str(out / "dataset" / "scenes.jsonl"), "--model", "openai/solver",
                       "--base-url", server.base_url, "--api-key", "test-key", "--judge", "openai/vlm",
                       "--judge-base-url", server.base_url, "--out", str(tmp_path / "run"), "--no-progress",
                       "--no-preflight"])
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert status == 0, summary.get("first_errors")
    assert summary["counts"]["graded"] == 3
    assert summary["metrics"]["playable_rate"]["value"] == 1.0
    assert summary["metrics"]["accuracy"]["value"] == 1.0  # the scripted judge says yes to every question
