"""Each trainer's reward call convention, called exactly as the trainer's own source calls it.

TRL's GRPOTrainer (``_calculate_rewards``): ``reward_func(prompts=prompts, completions=completions,
completion_ids=completion_ids_list, **reward_kwargs)`` where ``reward_kwargs`` holds every dataset
column but the prompt, plus ``trainer_state``; ``async def`` reward functions are awaited on its
reward loop. verl's naive reward manager: ``compute_score(data_source=, solution_str=,
ground_truth=, extra_info=, **reward_kwargs)``; its batch manager: ``compute_score(data_sources=,
solution_strs=, ground_truths=, extra_infos=, **reward_kwargs)``. OpenRLHF:
``reward_func(queries, prompts, labels)`` returning ``rewards``, ``scores``, ``extra_logs``.
"""

from __future__ import annotations

import asyncio
import sys
import types
from typing import Any

import pytest

from physeval.rewards import compute_score, compute_score_batch, openrlhf_reward_func, trl_reward

Q_KMS = "How fast is the probe? (Results should be expressed with units of $ km/s $)"
Q_KMH = "A car ... (Results should be expressed with units of $ km/h $, and rounded to 3 significant figures)"
PHYBENCH_REF = r"2mg+4\frac{mv_0^2}{l}"


class _TrainerState:  # what TRL passes as trainer_state (a transformers TrainerState)
    global_step = 7


def _trl_call(reward_func, prompts, completions, **columns):  # type: ignore[no-untyped-def]
    """Call ``reward_func`` the way GRPOTrainer does (keywords, completion ids, trainer state)."""
    reward_kwargs = {**columns, "trainer_state": _TrainerState()}
    completion_ids = [[1, 2, 3] for _ in completions]
    if asyncio.iscoroutinefunction(reward_func):
        return asyncio.run(reward_func(prompts=prompts, completions=completions, completion_ids=completion_ids,
                                       **reward_kwargs))
    return reward_func(prompts=prompts, completions=completions, completion_ids=completion_ids, **reward_kwargs)


# ----------------------------------------------------------------------------------- TRL


def test_trl_reads_the_unit_from_the_prompt_when_there_is_no_question_column() -> None:
    reward = trl_reward("numeric")  # TRL's usual dataset: prompt + answer
    rewards = _trl_call(reward, [Q_KMS, Q_KMS], [r"\boxed{30000 m/s}", r"\boxed{30000}"], answer=["30", "30"])
    assert rewards == [1.0, 0.0]


def test_trl_conversational_prompts_and_completions() -> None:
    reward = trl_reward("numeric")
    prompts = [[{"role": "system", "content": "Be brief."}, {"role": "user", "content": Q_KMH}]] * 2
    completions = [[{"role": "assistant", "content": r"\boxed{25 \mathrm{m/s}}"}],
                   [{"role": "assistant", "content": "no idea"}]]
    assert _trl_call(reward, prompts, completions, answer=["90.0", "90.0"]) == [1.0, 0.0]


def test_trl_rows_without_a_reference_get_none() -> None:
    reward = trl_reward("symbolic")
    rewards = _trl_call(reward, ["p"] * 3, [r"\boxed{2mg+4mv_0^2/l}", r"\boxed{x}", r"\boxed{x}"],
                        answer=[PHYBENCH_REF, None, ""])
    assert rewards == [1.0, None, None]


def test_trl_question_column_and_missing_reference_column() -> None:
    reward = trl_reward("numeric", reference_column="solution", question_column="problem")
    assert _trl_call(reward, ["ignored"], [r"\boxed{25 m/s}"], solution=["90.0"], problem=[Q_KMH]) == [1.0]
    with pytest.raises(KeyError, match="no column 'solution'"):
        _trl_call(reward, ["p"], ["x"], answer=["1"])


def test_trl_async_reward_function_is_a_coroutine_function_with_the_same_rewards() -> None:
    sync = trl_reward("symbolic", partial_credit=True)
    areward = trl_reward("symbolic", partial_credit=True, asynchronous=True)
    assert asyncio.iscoroutinefunction(areward)  # what TRL checks to await it on its reward loop
    assert areward.__name__ == "physeval_symbolic_reward"  # TRL logs rewards/<__name__>
    completions = [r"\boxed{2mg+2\frac{mv_0^2}{l}}", r"\boxed{2mg+4\frac{mv_0^2}{l}}"]
    expected = _trl_call(sync, ["p", "p"], completions, answer=[PHYBENCH_REF] * 2)
    assert _trl_call(areward, ["p", "p"], completions, answer=[PHYBENCH_REF] * 2) == expected
    assert expected[1] == 1.0 and expected[0] == pytest.approx(0.4667, abs=1e-3)


def test_trl_hands_the_explanations_to_a_logger() -> None:
    seen = []
    reward = trl_reward("numeric", on_results=seen.extend)
    _trl_call(reward, [Q_KMS], [r"\boxed{3 m/s}"], answer=["30"])
    assert seen[0].outcome == "wrong" and seen[0].explanation["unit_required"] == "km/s"


# ----------------------------------------------------------------------------------- verl


def test_verl_compute_score_accepts_reward_kwargs_and_returns_pred() -> None:
    result = compute_score(data_source="abench", solution_str=r"\boxed{30000 m/s}", ground_truth="30",
                           extra_info={"question": Q_KMS, "index": 3}, sandbox_fusion_url=None,
                           concurrent_semaphore=None, memory_limit_mb=1024)
    assert result == {"score": 1.0, "acc": True, "pred": "30000 m/s", "outcome": "correct", "scored": True}
    partial = compute_score("phybench", r"\boxed{2mg+2\frac{mv_0^2}{l}}", PHYBENCH_REF, {"partial_credit": True})
    assert partial["score"] == pytest.approx(0.4667, abs=1e-3) and partial["acc"] is False


def test_verl_every_item_has_the_same_keys_for_its_reward_extra_info() -> None:
    a = compute_score("abench", "nothing boxed", "30", None)
    b = compute_score("phybench", r"\boxed{x}", "x", None)
    assert set(a) == set(b) == {"score", "acc", "pred", "outcome", "scored"}


def test_verl_unknown_data_sources_go_to_verls_default_scorer(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = []

    def default_compute_score(data_source, solution_str, ground_truth, extra_info=None, **kwargs):  # type: ignore
        calls.append((data_source, solution_str, ground_truth, extra_info, kwargs))
        return {"score": 0.5, "acc": False, "pred": "42"} if data_source == "gsm8k" else 1.0

    reward_score = types.ModuleType("verl.utils.reward_score")
    reward_score.default_compute_score = default_compute_score  # type: ignore[attr-defined]
    for name in ("verl", "verl.utils"):
        monkeypatch.setitem(sys.modules, name, types.ModuleType(name))
    monkeypatch.setitem(sys.modules, "verl.utils.reward_score", reward_score)
    assert compute_score("openai/gsm8k", "#### 42", "42", {"i": 1}, memory_limit_mb=512)["score"] == 1.0
    assert compute_score("gsm8k", "#### 42", "42") == {"score": 0.5, "acc": False, "pred": "42",
                                                       "outcome": "verl_default", "scored": True}
    assert calls[0] == ("openai/gsm8k", "#### 42", "42", {"i": 1}, {"memory_limit_mb": 512})
    assert compute_score("abench", r"\boxed{25 m/s}", "90.0", {"question": Q_KMH})["score"] == 1.0
    assert len(calls) == 2  # physeval's own data sources never reach verl's scorer


def test_verl_batch_reward_manager_form_scores_mixed_sources_in_input_order() -> None:
    scores = compute_score_batch(
        data_sources=["abench", "phybench", "abench", "phybench"],
        solution_strs=[r"\boxed{30000 m/s}", r"\boxed{\sqrt{k/m}}", r"\boxed{1}", r"\boxed{k}"],
        ground_truths=["30", r"\sqrt{\frac{k}{m}}", "30", "m"],
        extra_infos=[{"question": Q_KMS}, None, {"question": Q_KMS}, {}],
    )
    assert [s["score"] for s in scores] == [1.0, 1.0, 0.0, 0.0]
    assert [s["pred"] for s in scores] == ["30000 m/s", r"\sqrt{k/m}", "1", "k"]


# ----------------------------------------------------------------------------------- OpenRLHF


def test_openrlhf_reward_func_strips_the_prompt_from_each_query() -> None:
    reward_func = openrlhf_reward_func("numeric")
    prompts = [f"<|user|>{Q_KMS}<|assistant|>", f"<|user|>{Q_KMS}<|assistant|>"]
    queries = [prompts[0] + r"The answer is \boxed{30000 m/s}", prompts[1] + r"\boxed{3}"]
    out = reward_func(queries, prompts, ["30", "30"])
    assert set(out) == {"rewards", "scores", "extra_logs"}
    assert [float(x) for x in out["rewards"]] == [1.0, 0.0]
    assert [float(x) for x in out["scores"]] == [1.0, 0.0]
    assert [float(x) for x in out["extra_logs"]["correct"]] == [1.0, 0.0]


# ----------------------------------------------------------------------------------- not measured


def test_a_grading_that_failed_is_none_in_every_adapter_never_a_zero() -> None:
    """A reference that is not a number: the grader cannot measure the answer (outcome error)."""
    response = r"\boxed{30000 m/s}"
    seen: list[Any] = []
    assert _trl_call(trl_reward("numeric", on_results=seen.extend), [Q_KMS, Q_KMS], [response, response],
                     answer=["n/a", "30"]) == [None, 1.0]  # TRL skips None
    assert seen[0].outcome == "error" and "not measured" in seen[0].reason
    verl = compute_score("abench", response, "n/a", {"question": Q_KMS})
    assert verl["scored"] is False and verl["outcome"] == "error"  # verl gets the outcome beside its number
    logs = openrlhf_reward_func("numeric")(queries=[Q_KMS + response, Q_KMS + response], prompts=[Q_KMS, Q_KMS],
                                           labels=["n/a", "30"])
    assert [float(x) for x in logs["extra_logs"]["scored"]] == [0.0, 1.0]  # OpenRLHF's extra_logs count it
    from physeval.rewards import numeric_result, symbolic_result
    assert numeric_result((response, "n/a", Q_KMS, 0.01, 0.0, None)).reward is None
    assert symbolic_result((r"\boxed{x}", "x", False)).reward == 1.0
