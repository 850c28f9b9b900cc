"""abench-b --fresh N: the released variant 0 plus N recomputed variants per varied problem, deterministic
for a seed across processes; static problems keep their released variants; a run against a scripted
model that memorised the released answers is caught by the fresh ones."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import defaultdict
from decimal import Decimal
from pathlib import Path

import pytest

from physeval.cli import main
from physeval.errors import OptionError
from physeval.tasks.registry import get_task
from physeval.testing import Reply, ScriptedServer
from physeval.variation.abench_phy_b import load_phy_b_solutions
from physeval.variation.plain import _written_precision, parse_written_number, recompute
from physeval.variation.writing import sig_figs_of

DATA = Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "abench"
SOLUTIONS = load_phy_b_solutions()


@pytest.fixture(scope="module")
def data() -> Path:
    if not (DATA / "Phy_B_dynamic_100.csv").is_file():
        pytest.skip("ABench data not present at ../shared/data/abench")
    return DATA


def _load(data: Path, fresh: int, seed: int) -> list:  # type: ignore[type-arg]
    return get_task("abench-b", data=str(data), fresh=fresh, variant_seed=seed).load()


def test_fresh_is_a_typed_option() -> None:
    assert get_task("abench-b", fresh="3").opts.fresh == 3  # the command line's string, coerced
    with pytest.raises(OptionError):
        get_task("abench-b", fresh="many")


def test_without_fresh_the_released_variants_are_asked(data: Path) -> None:
    problems = _load(data, 0, 0)
    assert len(problems) == 400 and {p.variant for p in problems} == {"0", "1", "2", "3"}


def test_fresh_variants_per_problem(data: Path) -> None:
    problems = _load(data, 3, 7)
    by_mid: dict[str, dict[str, object]] = defaultdict(dict)
    for p in problems:
        by_mid[p.id][p.variant] = p
    assert len(by_mid) == 100
    released = {p.id + "/" + p.variant: p for p in _load(data, 0, 0)}
    for mid, variants in by_mid.items():
        entry = SOLUTIONS[mid]
        if not entry.varied:
            assert set(variants) == {"0", "1", "2", "3"}, mid
            assert all(v.meta["fresh"] == "static" and v.meta["static_reason"] for v in variants.values())
            continue
        assert set(variants) == {"0", "f1", "f2", "f3"}, f"mid {mid}: {variants[next(iter(variants))].meta}"
        v0 = variants["0"]
        assert v0.question == released[mid + "/0"].question
        error = entry.dataset_errors.get("0") or entry.figure_errors.get("0")
        if error is not None:  # a wrong released answer (or wrong figures) is corrected, the stated one kept beside it
            assert v0.answer == error.recomputed
            assert v0.meta["released_answer"] == released[mid + "/0"].answer
        else:
            assert v0.answer == released[mid + "/0"].answer
        questions = {v.question for v in variants.values()}
        assert len(questions) == 4, f"mid {mid}: fresh variants repeat a question"
        for name in ("f1", "f2", "f3"):
            fresh = variants[name]
            assert fresh.meta["variant_seed"] == 7 and fresh.meta["fresh"] is True
            # the fresh text, read back, gives its own answer through the solution (or the generator)
            if entry.generator:
                from physeval.variation.abench_phy_b.generators import recompute_generated

                value, reason = recompute_generated(entry.generator, fresh.question), entry.generator
            else:
                value, reason = recompute(fresh.question, entry.solution, constants=dict(entry.constants),
                                          answer_unit=entry.answer_unit or None)
            assert value is not None, reason
            assert float(value) == pytest.approx(float(Decimal(fresh.meta["value"])), rel=1e-6)
            # ... written with the instruction's significant figures: off by at most half its last digit
            written = parse_written_number(fresh.answer)
            assert written is not None
            assert abs(float(written) - float(value)) <= _written_precision(fresh.answer, written) * float(abs(written))
            mantissa = fresh.answer.split("\\")[0].strip()
            if fresh.meta.get("sig_figs") and "." in mantissa:  # (a plain integer's figures are ambiguous)
                assert sig_figs_of(mantissa) == fresh.meta["sig_figs"], f"mid {mid}: {fresh.answer}"


def test_another_seed_gives_other_variants_and_the_same_seed_the_same_in_another_process(data: Path) -> None:
    here = [(p.id, p.variant, p.question, p.answer) for p in _load(data, 2, 5)]
    assert here != [(p.id, p.variant, p.question, p.answer) for p in _load(data, 2, 6)]
    script = ("import json, sys; from physeval.tasks.registry import get_task;"
              "t = get_task('abench-b', data=sys.argv[1], fresh=2, variant_seed=5);"
              "print(json.dumps([(p.id, p.variant, p.question, p.answer) for p in t.load()]))")
    env = {**{k: v for k, v in os.environ.items() if k != "PYTHONHASHSEED"}, "PYTHONHASHSEED": "987"}
    out = subprocess.run([sys.executable, "-c", script, str(data)], capture_output=True, text=True, timeout=600,
                         check=True, env=env)
    assert [tuple(x) for x in json.loads(out.stdout)] == here


def test_run_fresh_against_a_model_that_memorised_the_released_answers(data: Path, tmp_path: Path) -> None:
    """The model answers every released question right, and a fresh one with its problem's variant-0 answer."""
    limit = 12
    everything = _load(data, 4, 0)
    first = list(dict.fromkeys(p.id for p in everything))[:limit]  # --limit keeps the first problems in file order
    problems = [p for p in everything if p.id in first]
    released = {p.question: p.answer for p in _load(data, 0, 0)}
    v0 = {p.id: released[p.question] for p in problems if p.variant == "0"}
    reply_for = {p.question: released.get(p.question, v0[p.id]) for p in problems}

    def model(request):  # type: ignore[no-untyped-def]
        question = next(q for q in reply_for if q in request.prompt)
        return Reply.text(f"The result is \\boxed{{{reply_for[question]}}}.")

    out = tmp_path / "run"
    with ScriptedServer(model) as server:
        code = main(["run", "abench-b", "--data", str(data), "--fresh", "4", "--model", "openai/test",
                     "--base-url", server.base_url, "--limit", str(limit), "--out", str(out), "--no-progress",
                     "--no-preflight"])
        assert code == 0
        assert len(server.requests) == len(problems)
    summary = json.loads((out / "summary.json").read_text())
    metrics = summary["metrics"]
    # the answers the memoriser gets right: released ones (when not corrected) and fresh ones equal to v0's
    right: dict[str, list[bool]] = defaultdict(list)
    for p in problems:
        got, want = parse_written_number(reply_for[p.question]), parse_written_number(p.answer)
        right[p.id].append(got is not None and want is not None and abs(got - want) <= abs(want) / 100)
    static = sum(right[m][0] for m in right) / len(right)
    dynamic = sum(all(r) for r in right.values()) / len(right)
    assert metrics["static_accuracy"]["value"] == pytest.approx(static)
    assert metrics["dynamic_accuracy"]["value"] == pytest.approx(dynamic)
    assert dynamic < static  # the fresh variants catch the memoriser
