"""``physeval export-lm-eval``: YAMLs lm-eval's own loader reads, documents and hooks that give
physeval's verdicts and metrics (the end-to-end run with the ``lm_eval`` command is in
``test_foreign_outputs.py``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from physeval.integrations.lm_eval_export import export_lm_eval
from physeval.metrics import SampleOutcome
from physeval.tasks.registry import get_task

pytest.importorskip("lm_eval")

from lm_eval.tasks._yaml_loader import load_yaml  # noqa: E402 - the loader `--include_path` uses

from physeval.integrations import lm_eval as hooks  # noqa: E402

SHARED_DATA = Path(__file__).resolve().parents[3] / "shared" / "data"


def _docs(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_the_yaml_names_its_documents_by_absolute_path_and_loads_its_hooks_from_its_folder(tmp_path: Path,
                                                                                           monkeypatch: pytest.MonkeyPatch
                                                                                           ) -> None:
    monkeypatch.chdir(tmp_path)
    [done] = export_lm_eval(["bank-numeric"], "relative/out", {"system_prompt": "Be exact."})
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    config = load_yaml(done.yaml)  # lm-eval's loader: resolves `!function` next to the YAML
    data_file = Path(config["dataset_kwargs"]["data_files"]["test"])
    assert data_file.is_absolute() and data_file == done.documents and done.count == len(_docs(data_file))
    assert config["description"] == "Be exact."
    assert config["process_results"].__name__ == "process_results"
    assert [m["metric"] for m in config["metric_list"]] == ["accuracy", "static_accuracy", "dynamic_accuracy",
                                                             "delta"]
    assert config["fewshot_config"]["sampler"].__name__ == "TemplateFreeSampler"


@pytest.mark.parametrize("name", ["bank-numeric", "bank-symbolic"])
def test_every_shot_is_of_another_template_and_ends_in_a_boxed_answer(name: str, tmp_path: Path) -> None:
    [done] = export_lm_eval([name], tmp_path, max_fewshot=3)
    task = get_task(name)
    question_template = {task.prompt(p)[-1]["content"]: str(p.meta["template"]) for p in task.load()}
    shot_template = dict(question_template)
    shot_template |= {task.prompt_template.replace("{question}", q): g for g, q, _ in (task.fewshot_pool() or [])}
    for doc in _docs(done.documents):
        assert len(doc["shots"]) == 3  # type: ignore[arg-type]
        for shot in doc["shots"]:  # type: ignore[attr-defined]
            assert shot_template[shot["prompt"]] != doc["template"] == question_template[doc["prompt"]]  # type: ignore[index]
            assert "\\boxed{" in shot["solution"]


def test_the_sampler_shows_the_first_n_exported_shots_and_refuses_more() -> None:
    doc = {"shots": [{"prompt": "q1", "solution": "a1"}, {"prompt": "q2", "solution": "a2"}]}
    sampler = hooks.TemplateFreeSampler([doc], rnd=1234)
    assert sampler.sample(1, eval_doc=doc) == doc["shots"][:1]
    with pytest.raises(ValueError, match="exported 2 worked examples"):
        sampler.sample(3, eval_doc=doc)


def test_process_results_is_physevals_verdict_and_the_aggregations_its_metrics(tmp_path: Path) -> None:
    [done] = export_lm_eval(["bank-numeric"], tmp_path)
    task = get_task("bank-numeric")
    problems = {p.key: p for p in task.load()}
    docs = _docs(done.documents)[:12]  # three problems, four variants each
    items, outcomes = [], []
    for i, doc in enumerate(docs):
        problem = problems[(str(doc["id"]), str(doc["variant"]))]
        unit = problem.meta.get("unit_latex")
        right = f"<think>w</think>\\boxed{{{problem.answer}\\,{unit}}}" if unit else f"\\boxed{{{problem.answer}}}"
        response = right if i % 5 else "\\boxed{1.23 \\times 10^{-30}}"
        result = hooks.process_results(doc, [response])
        assert set(result) == set(done.metrics)
        [sample] = result["accuracy"]["samples"]
        expected = task.grade(problem, response.replace("<think>w</think>", ""))
        assert sample["correct"] == expected.correct and sample["outcome"] == expected.outcome
        items.append(result["accuracy"])
        outcomes.append(SampleOutcome(problem.id, problem.variant, 0, expected.correct, expected.score,
                                      expected.answer_key, dict(problem.meta), None))
    native = task.metrics(outcomes)
    for name in done.metrics:
        assert hooks.aggregation(name)(items) == native[name].value
    assert hooks.dynamic_accuracy(items) == native["dynamic_accuracy"].value  # the YAML's !function


@pytest.mark.parametrize(("name", "data", "metrics"), [
    ("abench-b", "abench", ("accuracy", "static_accuracy", "dynamic_accuracy", "delta")),
    ("phybench", "phybench/PHYBench-fullques_v1.json", ("accuracy", "eed_mean")),
])
def test_the_papers_sets_export_with_their_data_by_absolute_path(name: str, data: str, metrics: tuple[str, ...],
                                                                 tmp_path: Path) -> None:
    if not (SHARED_DATA / data).exists():
        pytest.skip("../shared/data is not present")
    [done] = export_lm_eval([name], tmp_path, {"data": str(SHARED_DATA / data)})
    assert done.count == len(get_task(name, data=str(SHARED_DATA / data)).load())
    assert set(metrics) <= set(done.metrics)
    doc = _docs(done.documents)[0]
    assert Path(json.loads(str(doc["options"]))["data"]).is_absolute()
    result = hooks.process_results(doc, ["no answer here"])
    assert result["accuracy"]["samples"][0]["correct"] is False


def test_scene_tasks_are_refused_with_where_to_run_them(tmp_path: Path) -> None:
    from physeval.errors import UserError

    with pytest.raises(UserError, match="scene tasks render programs"):
        export_lm_eval(["bank-scene"], tmp_path / "out")
    assert not (tmp_path / "out").exists()
