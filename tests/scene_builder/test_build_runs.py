"""How a build behaves across runs: stage by stage, grown concept by concept, refused settings,
requests that fail for good, and a model that cannot be used."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from scripted_build import BuildScript
from test_pipeline import build_args

from physeval.cli import main
from physeval.scene_builder.store import BuildStore
from physeval.testing import Reply, Request, ScriptedServer

PRODUCTS = ("card.md", "dataset/scenes.jsonl", "dataset/test.jsonl", "dataset/train.jsonl", "review/sheet.csv")


def _same_products(a: Path, b: Path) -> None:
    for name in PRODUCTS:
        assert (a / name).read_text() == (b / name).read_text(), name


def test_stage_by_stage_with_the_stored_options_equals_all_at_once(built: tuple[Path, BuildScript],
                                                                    tmp_path: Path) -> None:
    out = tmp_path / "scenes"
    with ScriptedServer(BuildScript()) as server:
        assert main(build_args(out, server, "--stage", "basic")) == 0
        assert not (out / "card.md").exists()
        assert main(["build", "scenes", "--out", str(out), "--stage", "plausibility"]) == 2  # filter not run yet
        for stages in (["compose", "filter"], ["plausibility", "questions", "review"], ["split", "export"]):
            args = ["build", "scenes", "--out", str(out), "--base-url", server.base_url, "--no-progress"]
            assert main(args + [a for s in stages for a in ("--stage", s)]) == 0
    _same_products(out, built[0])


def test_a_build_grown_concept_by_concept_equals_the_build_made_at_once(built: tuple[Path, BuildScript],
                                                                        tmp_path: Path) -> None:
    out = tmp_path / "scenes"
    with ScriptedServer(BuildScript()) as server:
        first = build_args(out, server)
        first[first.index("--concepts") + 1] = "projectile motion,simple pendulum"
        assert main(first) == 0
        assert "refraction" not in (out / "dataset" / "scenes.jsonl").read_text()
        grow = build_args(out, server)
        grow[grow.index("--concepts") + 1] = "refraction"
        assert main(grow) == 0
    _same_products(out, built[0])


def test_other_settings_are_refused_on_an_existing_build(built_copy: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    script = BuildScript()
    with ScriptedServer(script) as server:
        assert main(build_args(built_copy, server, "--seed", "8")) == 2
        assert "seed: 7 -> 8" in capsys.readouterr().err
        assert main(build_args(built_copy, server, "--reviewer", "openai/other")) == 2
        assert "reviewer model: 'review' -> 'other'" in capsys.readouterr().err
        assert main(["build", "scenes", "--out", str(built_copy), "--no-progress"]) == 0  # a refusal is not recorded
    assert script.answered == []


def test_a_request_that_fails_for_good_leaves_its_record_for_the_rerun(tmp_path: Path) -> None:
    script = BuildScript()

    def outage(request: Request) -> Reply:
        if "Concept: simple pendulum" in str(request.body["messages"][0]["content"]):
            return Reply.error(503, "overloaded")
        return script(request)

    out = tmp_path / "scenes"
    with ScriptedServer(outage) as server:
        assert main(build_args(out, server, "--max-attempts", "1")) == 3  # stopped at basic
        with BuildStore(out) as store:
            assert store.done_keys("basic") == {"projectile-motion", "refraction"}
            assert store.get_meta("complete:basic") is False and not store.done_keys("compose")
        server.set_script(script)
        assert main(build_args(out, server, "--max-attempts", "1")) == 0
    assert "simple-pendulum-01-1" in (out / "dataset" / "scenes.jsonl").read_text()


def test_a_wrong_key_stops_the_build_at_once(tmp_path: Path) -> None:
    script = BuildScript()
    with ScriptedServer(script, api_key="the-right-key") as server:
        assert main(build_args(tmp_path / "scenes", server)) == 4
    assert script.answered == []


def test_a_build_that_keeps_nothing_still_writes_its_card(tmp_path: Path) -> None:
    out = tmp_path / "scenes"
    with ScriptedServer(BuildScript()) as server:
        assert main(build_args(out, server, "--min-tokens", "300")) == 0  # every scenario is too short
    assert (out / "dataset" / "scenes.jsonl").read_text() == ""
    card = (out / "card.md").read_text()
    assert "**0 scenarios**" in card and "| filter | 6 | 0 | 6 | too_short 6 | 0 |" in card
    assert (out / "plots" / "token_lengths.png").is_file()


def test_json_mode_asks_the_server_for_a_json_object(tmp_path: Path) -> None:
    script = BuildScript()
    with ScriptedServer(script) as server:
        assert main(build_args(tmp_path / "b", server, "--json-mode", "--stage", "basic")) == 0
    bodies = [json.loads(body) for body in script.answered]
    assert len(bodies) == 4 and all(b["response_format"] == {"type": "json_object"} for b in bodies)
