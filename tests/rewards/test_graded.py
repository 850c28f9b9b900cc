"""The numeric and symbolic rewards, one rollout at a time (the definitions every batched form reuses)."""

from __future__ import annotations

import pytest

from physeval.rewards import compute_score, numeric_reward, symbolic_reward, trl_reward

Q = "A car ... (Results should be expressed with units of $ km/h $, and rounded to 3 significant figures)"


def test_numeric_reward_converts_units() -> None:
    assert numeric_reward(r"\boxed{25 \mathrm{m/s}}", "90.0", Q) == 1.0
    assert numeric_reward(r"\boxed{25}", "90.0", Q) == 0.0
    assert numeric_reward("no idea", "90.0", Q) == 0.0


def test_numeric_reward_can_weigh_the_asked_format() -> None:
    exact = numeric_reward(r"\boxed{90.0}", "90.0", Q, format_weight=0.2)
    sloppy = numeric_reward(r"\boxed{90.0001}", "90.0", Q, format_weight=0.2)
    assert exact == 1.0 and sloppy == pytest.approx(0.8)


def test_symbolic_reward_with_and_without_partial_credit() -> None:
    ref = r"2mg+4\frac{mv_0^2}{l}"  # PHYBench's published example: the answer doubles the wrong term
    assert symbolic_reward(r"\boxed{2m g + 4 m v_0^2/l}", ref) == 1.0
    assert symbolic_reward(r"\boxed{2mg+2\frac{mv_0^2}{l}}", ref) == 0.0
    credit = symbolic_reward(r"\boxed{2mg+2\frac{mv_0^2}{l}}", ref, partial_credit=True)
    assert credit == pytest.approx(0.4667, abs=1e-3)


def test_trl_signature_reads_dataset_columns_and_chat_completions() -> None:
    reward = trl_reward("numeric", reference_column="answer")
    completions = [[{"role": "assistant", "content": r"\boxed{90}"}], [{"role": "assistant", "content": "?"}]]
    assert reward(["p1", "p2"], completions, answer=["90.0", "90.0"], question=[Q, Q]) == [1.0, 0.0]
    with pytest.raises(KeyError, match="no column 'answer'"):
        reward(["p"], ["x"], solution=["1"])


def test_verl_compute_score_routes_by_data_source() -> None:
    assert compute_score("abench", r"\boxed{25 m/s}", "90.0", {"question": Q})["score"] == 1.0
    result = compute_score("phybench", r"\boxed{\sqrt{k/m}}", r"\sqrt{\frac{k}{m}}")
    assert result == {"score": 1.0, "acc": True, "pred": r"\sqrt{k/m}", "outcome": "correct", "scored": True}
