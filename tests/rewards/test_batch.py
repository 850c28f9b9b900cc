"""score_batch: pooled rewards identical to serial ones, None without a reference, a free event loop."""

from __future__ import annotations

import asyncio

import pytest

from physeval.rewards import NumericRewardOptions, SymbolicRewardOptions, ascore_batch, score_batch
from physeval.rewards.executors import LocalExecutor
from physeval.rewards.graded import numeric_result, symbolic_result

Q_KMH = "A car ... (Results should be expressed with units of $ km/h $, and rounded to 3 significant figures)"
REF = r"2mg+4\frac{mv_0^2}{l}"
SYMBOLIC = [r"\boxed{2mg+4\frac{mv_0^2}{l}}", r"\boxed{2mg+2\frac{mv_0^2}{l}}", r"\boxed{4mv_0^2/l + 2gm}",
            r"\boxed{mg}", "no answer", r"\boxed{\frac{}{}}"] * 3
NUMERIC = [r"\boxed{25 m/s}", r"\boxed{90}", r"\boxed{90.9}", r"\boxed{91}", r"\boxed{25 km}", "?"] * 6


@pytest.fixture(scope="module")
def pooled() -> LocalExecutor:
    return LocalExecutor()  # the shared grading pool (one per process, sized to the machine)


def test_numeric_batch_in_a_pool_equals_serial_grading(pooled: LocalExecutor) -> None:
    refs = ["90.0"] * len(NUMERIC)
    questions = [Q_KMH] * len(NUMERIC)
    serial = [numeric_result((c, r, q, 0.01, 0.0)) for c, r, q in zip(NUMERIC, refs, questions)]
    batch = score_batch("numeric", NUMERIC, refs, questions=questions, executor=pooled)
    assert batch == serial
    assert [r.reward for r in batch[:6]] == [1.0, 1.0, 1.0, 0.0, 0.0, 0.0]


def test_symbolic_batch_in_a_pool_equals_serial_grading_with_partial_credit(pooled: LocalExecutor) -> None:
    refs = [REF] * len(SYMBOLIC)
    serial = [symbolic_result((c, r, True)) for c, r in zip(SYMBOLIC, refs)]
    batch = score_batch("symbolic", SYMBOLIC, refs, options=SymbolicRewardOptions(partial_credit=True),
                        executor=pooled)
    assert batch == serial
    assert batch[0].reward == 1.0 and batch[2].reward == 1.0
    assert batch[1].reward == pytest.approx(0.4667, abs=1e-3)
    assert batch[4].reward == 0.0 and batch[4].outcome != "correct"


def test_rows_without_a_reference_are_not_scored(pooled: LocalExecutor) -> None:
    results = score_batch("numeric", ["\\boxed{1}", "\\boxed{1}", "\\boxed{1}"], ["1", None, "  "], executor=pooled)
    assert [r.reward for r in results] == [1.0, None, None]
    assert results[1].outcome == "no_reference"


def test_format_weight_and_options_of_the_wrong_track() -> None:
    options = NumericRewardOptions(format_weight=0.2)
    exact, sloppy = score_batch("numeric", [r"\boxed{90.0}", r"\boxed{90.0001}"], ["90.0", "90.0"],
                                questions=[Q_KMH, Q_KMH], options=options)
    assert exact.reward == 1.0 and sloppy.reward == pytest.approx(0.8)
    with pytest.raises(ValueError, match="NumericRewardOptions"):
        score_batch("numeric", ["1"], ["1"], options=SymbolicRewardOptions())
    with pytest.raises(ValueError, match="one reference per completion"):
        score_batch("symbolic", ["1", "2"], ["1"])
    with pytest.raises(ValueError, match="track must be"):
        score_batch("chemistry", ["1"], ["1"])  # type: ignore[arg-type]


def test_a_batch_never_blocks_the_event_loop(pooled: LocalExecutor) -> None:
    """A coroutine scheduled beside the batch runs while the pool grades, not after it.

    Decided by order, not by a clock: the probe is ready as soon as the batch first waits for the
    pool, so it finishes first unless the batch graded in the loop's own thread without yielding.
    """

    async def main() -> list[str]:
        order: list[str] = []

        async def batch() -> None:
            await ascore_batch("symbolic", SYMBOLIC * 2, [REF] * len(SYMBOLIC) * 2, executor=pooled)
            order.append("batch")

        async def probe() -> None:
            order.append("probe")

        await asyncio.gather(batch(), probe())
        return order

    assert asyncio.run(main()) == ["probe", "batch"]


def test_score_batch_inside_a_running_loop_says_to_await_instead() -> None:
    async def main() -> None:
        score_batch("numeric", ["1"], ["1"])

    with pytest.raises(RuntimeError, match="await ascore_batch"):
        asyncio.run(main())
