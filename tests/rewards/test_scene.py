"""The Code-Video-Judge reward against hand-made cases: real programs, real renders, scripted judges."""

from __future__ import annotations

import json

import pytest

from _scene_programs import BROKEN, GOOD, RENDER_GUARD_S, SLOW, fenced, judge_script
from physeval.rewards import SceneRewardOptions, score_batch
from physeval.rewards.executors import LocalExecutor
from physeval.testing import Reply, ScriptedModel

SCENE = {
    "scenario": "A red block slides to the right across a smooth floor at constant speed.",
    "questions": [
        {"index": "1", "question": "Is a red block visible?"},
        {"index": "2", "question": "Does the block move to the right?"},
        {"index": "3", "question": "Is its speed constant?"},
        {"index": "4", "question": "Does the block stay on the floor?"},
    ],
}
KEYS = ["1", "2", "3", "4"]


@pytest.fixture(scope="module")
def executor() -> LocalExecutor:
    pool = LocalExecutor(render_workers=2)
    yield pool
    pool.close()


def _score(completions: list[str], judges: list[ScriptedModel], executor: LocalExecutor, **options: object) -> list:
    opts = SceneRewardOptions(**{"render_timeout": RENDER_GUARD_S, **options})  # type: ignore[arg-type]
    return score_batch("scene", completions, scenes=[SCENE] * len(completions), options=opts, judges=judges,
                       executor=executor)


def test_failed_execution_makes_every_label_false_without_asking_the_judge(executor: LocalExecutor) -> None:
    judge = ScriptedModel(judge_script(True), name="always-yes")
    broken, prose = _score([fenced(BROKEN), "I cannot write this program."], [judge], executor)
    (slow,) = _score([fenced(SLOW)], [judge], executor, render_timeout=3.0)  # sleeps an hour: always a timeout
    assert (broken.reward, broken.outcome) == (0.0, "error")
    assert "RuntimeError: the simulation diverged" in broken.reason
    assert (slow.reward, slow.outcome) == (0.0, "timeout")
    assert (prose.reward, prose.outcome) == (0.0, "no_code")
    for result in (broken, slow, prose):
        assert result.explanation["per_question"] == dict.fromkeys(KEYS, False)
        assert result.explanation["judged"] is False
    assert judge.requests == []  # the stage checks decide alone: no judge was asked


def test_binary_needs_every_question_and_ratio_is_the_fraction_true(executor: LocalExecutor) -> None:
    three_of_four = ScriptedModel(judge_script(lambda k, label: label != "3"), name="3-of-4")
    (binary,) = _score([fenced(GOOD)], [three_of_four], executor, aggregation="binary")
    (ratio,) = _score([fenced(GOOD)], [three_of_four], executor, aggregation="ratio")
    assert binary.reward == 0.0 and binary.outcome == "wrong"
    assert ratio.reward == pytest.approx(0.75)
    assert ratio.explanation["per_question"] == {"1": True, "2": True, "3": False, "4": True}
    assert ratio.explanation["stage"] == "playable"
    assert ratio.explanation["judge_latency_s"] >= 0
    all_yes = ScriptedModel(judge_script(True), name="all-yes")
    (full,) = _score([fenced(GOOD)], [all_yes], executor)
    assert (full.reward, full.correct, full.outcome) == (1.0, True, "correct")


def test_an_ensemble_votes_per_question_by_majority_and_a_tie_is_false(executor: LocalExecutor) -> None:
    yes = ScriptedModel(judge_script(True), name="yes")
    no_on_2 = ScriptedModel(judge_script(lambda k, label: label != "2"), name="no-on-2")
    no_on_2_and_4 = ScriptedModel(judge_script(lambda k, label: label not in ("2", "4")), name="no-on-2-and-4")
    (three,) = _score([fenced(GOOD)], [yes, no_on_2, no_on_2_and_4], executor, aggregation="ratio")
    assert three.explanation["votes"]["2"] == [True, False, False]
    assert three.explanation["per_question"] == {"1": True, "2": False, "3": True, "4": True}  # 4: two of three yes
    (tie,) = _score([fenced(GOOD)], [yes, no_on_2], executor, aggregation="ratio")
    assert tie.explanation["votes"]["2"] == [True, False]
    assert tie.explanation["per_question"]["2"] is False and tie.reward == pytest.approx(0.75)


def test_a_judge_that_fails_votes_false_and_all_failing_is_an_explained_error(executor: LocalExecutor) -> None:
    down = ScriptedModel(lambda request: Reply.error(401), name="down")
    (result,) = _score([fenced(GOOD)], [down], executor)
    assert (result.reward, result.outcome) == (None, "error")  # nothing measured: not a 0
    assert "every judge failed" in result.reason


def test_text_mode_is_the_code_only_ablation_with_its_two_extra_questions(executor: LocalExecutor) -> None:
    seen: list[str] = []

    def script(request):  # type: ignore[no-untyped-def]
        seen.append(request.prompt)
        return judge_script(lambda k, label: label != "1")(request)  # "does it execute": no

    judge = ScriptedModel(script, name="text-judge")
    (result,) = _score([fenced(GOOD)], [judge], executor, mode="text", aggregation="ratio")
    assert result.explanation["stage"] == "judged_text"
    assert result.explanation["render"] is None  # nothing was rendered
    assert result.explanation["per_question"]["executes"] is False
    assert result.reward == pytest.approx(5 / 6)
    assert "imageio" in seen[0]  # the judge read the program


def test_judges_for_reward_and_for_evaluation_are_recorded_apart() -> None:
    options = SceneRewardOptions(judges=("openai/a", "openai/b", "openai/c"), eval_judges=("openai/held-out",))
    record = options.record()
    assert record["reward_judges"] == ["openai/a", "openai/b", "openai/c"]
    assert record["eval_judges"] == ["openai/held-out"]
    json.dumps(record)


def test_unknown_scene_is_not_scored_and_bank_ids_resolve(executor: LocalExecutor) -> None:
    judge = ScriptedModel(judge_script(True), name="j")
    results = score_batch("scene", ["x", fenced(BROKEN)], scenes=["no-such-scene", "em-lorentz-circle"],
                          options=SceneRewardOptions(render_timeout=RENDER_GUARD_S), judges=[judge], executor=executor)
    assert results[0].reward is None and results[0].outcome == "no_reference"
    assert results[1].reward == 0.0 and len(results[1].explanation["per_question"]) == 6


KILLS_ITS_SUPERVISION = """\
import os, signal
os.kill(os.getppid(), signal.SIGKILL)  # its parent, then everything it can see
for sig in (signal.SIGSTOP, signal.SIGKILL):
    try:
        os.kill(-1, sig)
    except ProcessLookupError:
        pass
"""


def test_a_program_that_kills_its_supervisor_earns_zero_with_every_label_false(executor: LocalExecutor) -> None:
    judge = ScriptedModel(judge_script(True), name="always-yes")
    opts = SceneRewardOptions(render_timeout=RENDER_GUARD_S)  # far past its run: only the program decides the verdict
    (result,) = score_batch("scene", [fenced(KILLS_ITS_SUPERVISION)], scenes=[SCENE], options=opts, judges=[judge],
                            executor=executor)
    assert result.reward == 0.0  # its own failure: a zero, never None ("not measured")
    assert result.outcome in ("executable", "error") and "sandbox" not in result.reason
    assert result.explanation["per_question"] == dict.fromkeys(KEYS, False)
    assert judge.requests == []


def test_a_render_worker_that_dies_is_not_measured_and_the_next_render_gets_a_fresh_pool(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from _scene_programs import die_in_render_worker
    from physeval.rewards import executors

    pool = LocalExecutor(render_workers=1)
    judge = ScriptedModel(judge_script(True), name="always-yes")
    opts = SceneRewardOptions(render_timeout=RENDER_GUARD_S)
    try:
        monkeypatch.setattr(executors, "render_job", die_in_render_worker)  # the worker process dies mid-render
        (dead,) = score_batch("scene", [fenced(GOOD)], scenes=[SCENE], options=opts, judges=[judge], executor=pool)
        monkeypatch.undo()
        (alive,) = score_batch("scene", [fenced(BROKEN)], scenes=[SCENE], options=opts, judges=[judge], executor=pool)
    finally:
        pool.close()
    assert dead.reward is None and "the render pool died" in dead.reason  # not measured, never a 0
    assert (alive.reward, alive.outcome) == (0.0, "error")  # a fresh pool rendered the next program
