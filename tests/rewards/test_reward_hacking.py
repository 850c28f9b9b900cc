"""Programs built to fool a judge without the physics, and what the reward does with each.

What physeval guarantees is exact: the stage checks (runs, writes an MP4, decodes, >= 1 s, not
all frames identical) decide before any judge. A still picture never reaches a judge. Captions
claiming "YES" and the right objects drawn without motion pass the stage checks (their frames
differ: a clock is drawn), so their reward is the judge's verdict; physeval's part there is the
prompts (the policy is told what earns no reward; the reward judge is told text is no evidence),
recorded here, and the judge's answer is taken as it is. The scripted judge below is credulous
(it says yes to everything) to show exactly where the stage checks stop protecting.
"""

from __future__ import annotations

import pytest

from _scene_programs import CAPTIONS_YES, NO_MOTION, RENDER_GUARD_S, STATIC, fenced, judge_script
from physeval.rewards import SceneRewardOptions, score_batch
from physeval.rewards.executors import LocalExecutor
from physeval.rewards.scene import JUDGE_RULES, POLICY_RULES, training_scene_prompt
from physeval.testing import ScriptedModel

SCENE = {
    "scenario": "A ball is dropped onto a floor and bounces, each bounce lower than the one before.",
    "questions": ["Does the ball fall towards the floor?", "Does the ball bounce up after hitting the floor?",
                  "Is each bounce lower than the previous one?"],
}


@pytest.fixture(scope="module")
def rewarded() -> dict[str, object]:
    credulous = ScriptedModel(judge_script(True), name="credulous")
    programs = {"captions_yes": CAPTIONS_YES, "static_picture": STATIC, "objects_without_motion": NO_MOTION}
    executor = LocalExecutor(render_workers=2)
    try:
        results = score_batch("scene", [fenced(p) for p in programs.values()], scenes=[SCENE] * 3,
                              options=SceneRewardOptions(render_timeout=RENDER_GUARD_S), judges=[credulous], executor=executor)
    finally:
        executor.close()
    return {"results": dict(zip(programs, results)), "judge": credulous}


def test_a_still_picture_is_stopped_by_the_exact_stage_checks(rewarded: dict) -> None:
    static = rewarded["results"]["static_picture"]
    assert (static.reward, static.outcome) == (0.0, "rendered")
    assert "identical" in static.reason
    assert static.explanation["judged"] is False  # never shown to the credulous judge


def test_captions_and_motionless_objects_pass_the_stage_checks_and_get_the_judges_verdict(rewarded: dict) -> None:
    for name in ("captions_yes", "objects_without_motion"):
        result = rewarded["results"][name]
        assert result.explanation["stage"] == "playable", name  # a drawn clock makes the frames differ
        assert result.explanation["judged"] is True
        assert result.reward == 1.0, name  # the credulous judge was fooled: this is the judge's behaviour
    assert len(rewarded["judge"].requests) == 2  # exactly the two playable videos were judged


def test_the_reward_judge_is_told_that_text_and_stillness_are_no_evidence(rewarded: dict) -> None:
    prompts = [request.prompt for request in rewarded["judge"].requests]
    assert all(JUDGE_RULES in prompt for prompt in prompts)
    assert all("insufficient" in prompt for prompt in prompts)  # the judge's own rule: no evidence, false


def test_the_training_prompt_tells_the_policy_what_earns_no_reward() -> None:
    system = training_scene_prompt(SCENE["scenario"])[0]["content"]
    assert POLICY_RULES in system and "sys.argv[1]" in system  # the sandbox contract is kept
