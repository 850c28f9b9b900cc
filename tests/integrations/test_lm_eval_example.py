"""The lm-evaluation-harness example: documents exported from a physeval task, and its
``process_results`` giving physeval's own verdicts (lm-eval itself is not installed: it pulls in torch)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType

import pytest
import yaml

from physeval.tasks.registry import get_task

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "lm_eval"


def _utils() -> ModuleType:
    spec = importlib.util.spec_from_file_location("physeval_lm_eval_utils", EXAMPLE / "utils.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class _TaskYamlLoader(yaml.SafeLoader):
    """Reads lm-eval's ``!function module.name`` tags as their text."""


_TaskYamlLoader.add_constructor("!function", lambda loader, node: f"!function {loader.construct_scalar(node)}")


def test_task_config_names_the_example_hook_and_reads_the_exported_fields(tmp_path: Path) -> None:
    config = yaml.load((EXAMPLE / "physeval_bank_numeric.yaml").read_text(), Loader=_TaskYamlLoader)
    assert config["process_results"] == "!function utils.process_results"
    assert config["output_type"] == "generate_until" and config["generation_kwargs"]["until"] == []
    utils = _utils()
    assert callable(utils.process_results)
    out = tmp_path / "docs.jsonl"
    assert utils.export_docs("bank-numeric", out) == len(get_task("bank-numeric").load())
    doc = json.loads(out.read_text().splitlines()[0])
    for field in ("prompt", "answer"):  # doc_to_text and doc_to_target read these
        assert "{{" + field + "}}" in (config["doc_to_text"], config["doc_to_target"])
        assert doc[field]


@pytest.mark.parametrize("sample", range(6))
def test_process_results_is_physevals_verdict(sample: int, tmp_path: Path) -> None:
    utils = _utils()
    out = tmp_path / "docs.jsonl"
    utils.export_docs("bank-numeric", out)
    doc = json.loads(out.read_text().splitlines()[sample * 7])
    task = get_task("bank-numeric")
    [problem] = [p for p in task.load() if (p.id, p.variant) == (doc["id"], doc["variant"])]
    unit = doc["meta"].get("unit_latex")
    right = f"<think>working</think>\\boxed{{{doc['answer']}\\,{unit}}}" if unit else f"\\boxed{{{doc['answer']}}}"
    wrong = "\\boxed{1.23 \\times 10^{-30}}"
    assert utils.process_results(doc, [right]) == {"acc": 1.0}
    assert utils.process_results(doc, [wrong]) == {"acc": 0.0}
    assert task.grade(problem, wrong).correct is False
