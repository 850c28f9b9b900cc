"""phybench-poison end to end: a scripted model that carries the error on some items and repairs it
on others; the classification counts with and without a scripted judge; the classification table."""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from pathlib import Path

import pytest

from physeval import RunConfig, run_task
from physeval.graded import graded_outcomes
from physeval.probes.poison import JudgeFacts, classify, error_cue
from physeval.store import RunStore
from physeval.tasks.registry import get_task
from physeval.testing import Reply, ScriptedModel, ScriptedServer

# Written for these tests in the PHYBench record format (not PHYBench text).
RECORDS = [
    {"id": 1, "tag": "MECHANICS", "content": "A stone of mass m falls from rest through a height h. Find its speed.",
     "solution": ("By conservation of energy,\n\\[ m g h = \\frac{1}{2} m v^2 \\]\nso that\n"
                  "\\[ v^2 = 2 g h \\]\nand the speed at the ground is\n\\[ v = \\sqrt{2 g h} \\]"),
     "answer": r"\sqrt{2 g h}"},
    {"id": 2, "tag": "MODERN", "content": "Light of wavelength lambda ejects electrons (mass m) from a metal of "
                                          "work function W. Find their largest speed.",
     "solution": ("The photon energy is\n\\[ E = \\frac{h c}{\\lambda} \\]\n"
                  "Energy conservation for the fastest electron gives\n"
                  "\\[ \\frac{1}{2} m v^2 = \\frac{h c}{\\lambda} - W \\]\nhence\n"
                  "\\[ v = \\sqrt{\\frac{2}{m}\\left(\\frac{h c}{\\lambda} - W\\right)} \\]"),
     "answer": r"\sqrt{\frac{2}{m}\left(\frac{h c}{\lambda} - W\right)}"},
    {"id": 3, "tag": "OPTICS", "content": "No solution is given for this one.", "solution": "", "answer": "f"},
]


def _data(tmp_path: Path) -> Path:
    path = tmp_path / "PHYBench-fullques_v1.json"
    path.write_text(json.dumps(RECORDS), encoding="utf-8")
    return path


def _behaviour(items: list) -> dict[str, str]:
    """partial solution -> the scripted continuation, one behaviour per item."""
    replies = {}
    for item in items:
        key = (item.id, item.variant)
        partial = item.meta["partial_solution"]
        if key == ("1", "delete_constant"):  # superficial: carries the deleted constant into the answer
            replies[partial] = f"Continuing, \\boxed{{{item.meta['implied_answer']}}}"
        elif key == ("2", "delete_constant"):  # genuine: flags, repairs, right answer
            replies[partial] = ("The previous step is wrong: a constant was lost and it should be "
                                "E = hc/lambda. With that, \\boxed{" + item.answer + "}")
        elif key == ("1", "swap_law"):  # right answer, error not addressed
            replies[partial] = f"Going on from there, \\boxed{{{item.answer}}}"
        else:  # ("2", "swap_law"): a wrong answer, no flag
            replies[partial] = r"Then \boxed{\sqrt{\frac{h c}{m \lambda}}}"
    return replies


def _run(tmp_path: Path, name: str, **options: object) -> tuple[object, dict]:
    task = get_task("phybench-poison", data=_data(tmp_path), perturbations="delete_constant,swap_law",
                    grading_processes=0, **options)
    items = task.load()
    replies = _behaviour(items)

    def script(request):  # type: ignore[no-untyped-def]
        return Reply.text(next(v for k, v in replies.items() if k in request.prompt))

    model = ScriptedModel(script, name=f"poison-{name}")
    asyncio.run(run_task(task, model, tmp_path / name, RunConfig(preflight=False), show_progress=False))
    rows = {(r.problem_id, r.variant): r for r in RunStore(tmp_path / name).rows()}
    prompt = model.requests[0].prompt
    assert "Continue the solution" in prompt and "do not start again" in prompt
    return task, rows


def test_items_one_per_kind_that_applied(tmp_path: Path) -> None:
    task = get_task("phybench-poison", data=_data(tmp_path), perturbations="delete_constant,swap_law")
    items = task.load()
    assert sorted((i.id, i.variant) for i in items) == [("1", "delete_constant"), ("1", "swap_law"),
                                                         ("2", "delete_constant"), ("2", "swap_law")]
    assert "1 problems without a reference solution skipped" in task.load_report
    for item in items:
        (edit,) = item.meta["perturbations"]
        assert item.meta["partial_solution"] in _poisoned(item) and edit["after"] in item.meta["partial_solution"]
        assert "\\boxed" not in item.meta["partial_solution"]
        assert item.meta["truncated_after"] < item.meta["n_equations"] - 1  # something is left to continue
    implied = {(i.id, i.variant): i.meta["implied_method"] for i in items}
    assert implied[("1", "delete_constant")] == implied[("2", "delete_constant")] == "carried"


def _poisoned(item) -> str:  # type: ignore[no-untyped-def]
    (edit,) = item.meta["perturbations"]
    solution = item.meta["solution"]
    return solution[:edit["start"]] + edit["after"] + solution[edit["end"]:]


def test_scripted_run_without_judge_classifies_by_answer_and_cue(tmp_path: Path) -> None:
    task, rows = _run(tmp_path, "nojudge")
    labels = {key: (row.grade["classification"], row.grade["decided_by"]) for key, row in rows.items()}
    assert labels == {("1", "delete_constant"): ("superficial", "answer"),
                      ("2", "delete_constant"): ("genuine", "cue"),
                      ("1", "swap_law"): ("pseudo_genuine", "cue"),
                      ("2", "swap_law"): ("undetermined", "cue")}
    assert rows[("1", "delete_constant")].grade["matches_implied"] is True
    assert not rows[("1", "delete_constant")].correct and rows[("2", "delete_constant")].correct
    metrics = task.metrics(graded_outcomes(rows.values()))
    assert "classification counts: superficial 1, genuine 1, pseudo_genuine 1, wrong 0, no_answer 0, " \
           "undetermined 1" in metrics.notes
    assert metrics["accuracy"].value == pytest.approx(0.5)
    # each problem has two kinds: its value is the mean over them, then the mean over problems
    assert metrics["superficial_rate"].value == pytest.approx(0.25)
    by_kind = metrics.breakdowns["kind"]
    assert by_kind["delete_constant"]["superficial_rate"].value == pytest.approx(0.5)
    assert by_kind["delete_constant"]["genuine_rate"].value == pytest.approx(0.5)
    assert by_kind["swap_law"]["pseudo_genuine_rate"].value == pytest.approx(0.5)
    assert by_kind["swap_law"]["accuracy"].n == 2


def test_scripted_judge_decides_what_the_answer_checks_cannot(tmp_path: Path) -> None:
    def judge(request):  # type: ignore[no-untyped-def]
        prompt = request.prompt
        if "The previous step is wrong" in prompt:
            return Reply.text('{"flagged": true, "repaired": true, "carried": false, "justification": "fixed"}')
        if "Going on from there" in prompt:  # prose around a fenced object: the forgiving parser reads it
            return Reply.text('Verdict:\n```json\n{"flagged": false, "repaired": false, "carried": false, '
                              '"justification": "ignored the law"}\n```')
        return Reply.text('{"flagged": false, "repaired": false, "carried": true, "justification": "used it"}')

    with ScriptedServer(judge) as server:
        task, rows = _run(tmp_path, "judged", poison_judge="openai/judge", poison_judge_base_url=server.base_url)
        requests = list(server.requests)
    assert len(requests) == 3  # the superficial item was decided by its answer: no judge call
    assert all(r.body["response_format"]["type"] == "json_schema" for r in requests)
    labels = {key: (row.grade["classification"], row.grade["decided_by"]) for key, row in rows.items()}
    assert labels == {("1", "delete_constant"): ("superficial", "answer"),
                      ("2", "delete_constant"): ("genuine", "judge"),
                      ("1", "swap_law"): ("pseudo_genuine", "judge"),
                      ("2", "swap_law"): ("superficial", "judge")}
    assert rows[("1", "swap_law")].grade["poison_judge"]["method"] == "fenced"
    counts = Counter(row.grade["classification"] for row in rows.values())
    assert counts == {"superficial": 2, "genuine": 1, "pseudo_genuine": 1}
    metrics = task.metrics(graded_outcomes(rows.values()))
    assert metrics["superficial_rate"].value == pytest.approx(0.5)


def _case(**facts: object) -> dict[str, object]:
    return facts


@pytest.mark.parametrize(("case", "expected"), [
    (_case(answered=False, correct=None, matches_implied=None, implied_known=True, judge=None, cue=""), "no_answer"),
    (_case(answered=True, correct=False, matches_implied=True, implied_known=True, judge=None, cue="typo"),
     "superficial"),
    (_case(answered=True, correct=True, matches_implied=False, implied_known=True, judge=None, cue="mistake"),
     "genuine"),
    (_case(answered=True, correct=True, matches_implied=False, implied_known=True, judge=None, cue=""),
     "pseudo_genuine"),
    (_case(answered=True, correct=False, matches_implied=False, implied_known=True, judge=None, cue="incorrect"),
     "pseudo_genuine"),
    (_case(answered=True, correct=False, matches_implied=False, implied_known=True, judge=None, cue=""), "wrong"),
    (_case(answered=True, correct=False, matches_implied=None, implied_known=False, judge=None, cue=""),
     "undetermined"),
    (_case(answered=True, correct=True, matches_implied=None, implied_known=False,
          judge=JudgeFacts(flagged=True, repaired=False, carried=False), cue=""), "pseudo_genuine"),
    (_case(answered=True, correct=False, matches_implied=None, implied_known=False,
          judge=JudgeFacts(flagged=True, repaired=False, carried=False), cue=""), "pseudo_genuine"),
    (_case(answered=True, correct=False, matches_implied=None, implied_known=False,
          judge=JudgeFacts(flagged=True, repaired=True, carried=False), cue=""), "wrong"),
    (_case(answered=True, correct=None, matches_implied=None, implied_known=False,
          judge=JudgeFacts(flagged=False, repaired=False, carried=False), cue=""), "undetermined"),
])
def test_classification_table(case: dict, expected: str) -> None:
    assert classify(**case)[0] == expected


def test_error_cue_reads_the_answer_not_the_reasoning() -> None:
    assert error_cue("There is a typo in the last step.") == "typo"
    assert error_cue("<think>maybe a mistake</think> So the answer is 3.") == ""


def test_bad_options_fail_at_construction(tmp_path: Path) -> None:
    from physeval.tasks.base import TaskError

    with pytest.raises(TaskError, match="unknown perturbation"):
        get_task("phybench-poison", data=_data(tmp_path), perturbations="flip_sign")
    with pytest.raises(TaskError, match="truncation"):
        get_task("phybench-poison", data=_data(tmp_path), truncation="middle")
    prompt = tmp_path / "prompt.txt"
    prompt.write_text("Solve {question}", encoding="utf-8")
    with pytest.raises(TaskError, match="partial_solution"):
        get_task("phybench-poison", data=_data(tmp_path), prompt_file=str(prompt))


def test_truncation_at_a_fraction(tmp_path: Path) -> None:
    task = get_task("phybench-poison", data=_data(tmp_path), perturbations="delete_constant", truncation="0.3")
    items = task.load()
    assert len(items) == 2
    for item in items:  # 3 equations: ceil(0.3 * 3) = the first; only it may carry the error
        assert item.meta["truncated_after"] == 0 and item.meta["perturbations"][0]["equation"] == 0
        assert item.meta["partial_solution"].count("\\[") == 1


def test_combined_items_show_both_cues(tmp_path: Path) -> None:
    task = get_task("phybench-poison", data=_data(tmp_path), perturbations="combined", poison_seed=1)
    items = task.load()
    assert [i.id for i in items] == ["1", "2"]
    for item in items:
        edits = item.meta["perturbations"]
        assert len(edits) == 2 and len({e["kind"] for e in edits}) == 2
        assert all(e["after"] in item.meta["partial_solution"] for e in edits if e["after"])


def test_two_models_side_by_side_per_kind(tmp_path: Path) -> None:
    from physeval import RunSpec, run
    from physeval.report.compare import compare_runs

    options = {"data": str(_data(tmp_path)), "perturbations": "delete_constant", "grading_processes": 0}
    items = get_task("phybench-poison", **options).load()
    carried = {i.meta["partial_solution"]: i.meta["implied_answer"] for i in items}
    reference = {i.meta["partial_solution"]: i.answer for i in items}

    def carries(request):  # type: ignore[no-untyped-def]
        return Reply.text(next(f"\\boxed{{{v}}}" for k, v in carried.items() if k in request.prompt))

    def repairs(request):  # type: ignore[no-untyped-def]
        answer = next(v for k, v in reference.items() if k in request.prompt)
        return Reply.text(f"That step has a mistake; it should keep the constant. \\boxed{{{answer}}}")

    dirs = []
    for name, script in (("carries", carries), ("repairs", repairs)):
        summary, _ = run(RunSpec(task="phybench-poison", task_options=options, model=ScriptedModel(script, name=name),
                                 config=RunConfig(preflight=False), run_dir=tmp_path / name, show_progress=False))
        dirs.append(tmp_path / name)
    keys, summaries = compare_runs(dirs, breakdowns=True)
    values = {key.label: [s.metric(key).value for s in summaries] for key in keys}  # type: ignore[union-attr]
    assert values["superficial_rate"] == [1.0, 0.0] and values["genuine_rate"] == [0.0, 1.0]
    assert values["accuracy"] == [0.0, 1.0]
    per_kind = [label for label in values if "delete_constant" in label and "superficial_rate" in label]
    assert per_kind and values[per_kind[0]] == [1.0, 0.0]


def test_limit_chooses_problems_before_anything_is_perturbed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import physeval.probes.poison as poison
    from physeval import RunSpec, run

    calls: list[tuple[str, str]] = []
    real = poison.perturb

    def counting(text: str, kind: str, **kwargs: object):  # type: ignore[no-untyped-def]
        calls.append((str(kwargs.get("key")), kind))
        return real(text, kind, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(poison, "perturb", counting)
    options = {"data": str(_data(tmp_path)), "perturbations": "delete_constant,swap_law", "grading_processes": 0}
    model = ScriptedModel(lambda request: Reply.text(r"\boxed{1}"), name="limit")
    summary, result = run(RunSpec(task="phybench-poison", task_options=options, model=model,
                                  config=RunConfig(preflight=False, limit=1), run_dir=tmp_path / "one",
                                  show_progress=False))
    assert calls == [("1", "delete_constant"), ("1", "swap_law")]  # problem 2 was never perturbed
    assert result.planned == 2
    # the same items again (a resume, a regrade, a second model): read from the perturbation cache
    calls.clear()
    task = get_task("phybench-poison", **options)
    assert [(i.id, i.variant) for i in task.load()][:2] == [("1", "delete_constant"), ("1", "swap_law")]
    assert calls == [("2", "delete_constant"), ("2", "swap_law")]
    assert "2 (problem, kind) results read from the perturbation cache" in task.load_report


def test_regrade_builds_only_the_problems_of_the_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import physeval.probes.poison as poison
    from physeval import RunSpec, regrade_run, run

    options = {"data": str(_data(tmp_path)), "perturbations": "delete_constant", "grading_processes": 0}
    model = ScriptedModel(lambda request: Reply.text(r"\boxed{1}"), name="regrade")
    run(RunSpec(task="phybench-poison", task_options=options, model=model,
                config=RunConfig(preflight=False, limit=1), run_dir=tmp_path / "one", show_progress=False))
    calls: list[str] = []
    real = poison.perturb

    def counting(text: str, kind: str, **kwargs: object):  # type: ignore[no-untyped-def]
        calls.append(str(kwargs.get("key")))
        return real(text, kind, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(poison, "perturb", counting)
    summary, report = regrade_run(tmp_path / "one")
    assert calls == [] and report.regraded == 1  # problem 1 from the cache; problem 2 is not in the run
