"""physeval tasks as lm-evaluation-harness tasks: one YAML, one JSONL of documents and a hook shim.

``physeval export-lm-eval bank-numeric bank-symbolic --out lm_tasks`` writes, for each task,

- ``physeval_<name>.jsonl``: one document per problem variant: ``task``, ``options`` (JSON text of
  the physeval task options), ``id``, ``variant``, ``template``, ``prompt`` (the task's user
  prompt), ``answer``, and ``shots``: worked examples chosen by physeval's own few-shot rule (never
  from the question's template, so no shot gives the question's answer away), each a
  ``{prompt, solution}`` whose solution ends in a boxed answer (the task's own few-shot pool where
  it has one, as ``physeval run --fewshot`` shows it; else other templates' original questions with
  their reference answers);
- ``physeval_<name>.yaml``: the lm-eval task, with the **absolute** path of that JSONL (the task
  runs from any directory), the task's system prompt as lm-eval's ``description`` (sent as the
  system message under ``--apply_chat_template``), a few-shot sampler that takes the document's own
  ``shots`` (``--num_fewshot N`` shows the first N), and one metric per physeval headline metric,
  each aggregated by physeval's own reduction (:mod:`physeval.integrations.lm_eval`);

and once ``physeval_hooks.py``, the module lm-eval's ``!function physeval_hooks.NAME`` tags load
(it re-exports :mod:`physeval.integrations.lm_eval`).

Nothing here imports lm-eval: the export works without it installed.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from physeval.errors import UserError
from physeval.graded import SampleRecord, graded_outcomes
from physeval.problems import Problem
from physeval.tasks.base import Task
from physeval.tasks.registry import get_task, task_class

__all__ = ["HOOKS_MODULE", "ExportedTask", "export_lm_eval", "lm_eval_task_name", "metric_names"]

HOOKS_MODULE = "physeval_hooks"
MAX_FEWSHOT = 5
_LOWER_IS_BETTER = frozenset({"delta"})  # static minus dynamic accuracy: what the variants cost

_HOOKS_SOURCE = '''"""lm-eval hooks of the physeval tasks in this folder (written by `physeval export-lm-eval`)."""

from physeval.integrations.lm_eval import *  # noqa: F403
from physeval.integrations.lm_eval import __getattr__  # noqa: F401  (one aggregation per metric name)
'''


@dataclass(frozen=True)
class ExportedTask:
    """What :func:`export_lm_eval` wrote for one physeval task."""

    task: str
    lm_eval_name: str
    yaml: Path
    documents: Path
    count: int
    metrics: tuple[str, ...]


def lm_eval_task_name(name: str) -> str:
    """The lm-eval name of physeval task ``name``: ``physeval_`` + the name with ``-`` as ``_``."""
    return "physeval_" + name.replace("-", "_")


def metric_names(task: Task) -> tuple[str, ...]:
    """The headline metrics ``task.metrics()`` reports for one sample per variant (``accuracy``,
    ``eed_mean``, ``static_accuracy``...): the metrics the exported YAML aggregates."""
    problems = task.load()
    right = [SampleRecord(p.id, p.variant, 0, "answered", True, 1.0, None, dict(p.meta)) for p in problems]
    return tuple(task.measure(graded_outcomes(right)).keys())


def _template(problem: Problem) -> str:
    return str(problem.meta.get("template", problem.id))


def _reference_shots(problems: list[Problem], max_fewshot: int) -> Callable[[Problem], list[tuple[str, str]]]:
    """For a task without a few-shot pool: other templates' original questions with their reference
    answer boxed, chosen by a hash of the question's id (physeval's own rule for its pools)."""
    originals = {_template(p): p for p in problems if p.variant == "0"}

    def shots(problem: Problem) -> list[tuple[str, str]]:
        own = _template(problem)
        ranked = sorted((t for t in originals if t != own),
                        key=lambda t: hashlib.sha256(f"{problem.id}|{t}".encode()).hexdigest())
        return [(originals[t].question, f"The answer is \\boxed{{{originals[t].answer}}}.")
                for t in ranked[:max_fewshot]]

    return shots


def _documents(name: str, options: Mapping[str, Any], max_fewshot: int) -> tuple[list[dict[str, Any]], Task]:
    task = get_task(name, **{**options, "fewshot": 0})
    problems = task.load()
    shots_of: Callable[[Problem], list[tuple[str, str]]]
    if task.fewshot_pool() is not None:
        shots_of = get_task(name, **{**options, "fewshot": max_fewshot}).fewshot_examples
    else:
        shots_of = _reference_shots(problems, max_fewshot)
    options_text = json.dumps(dict(options), sort_keys=True)
    docs = []
    for problem in problems:
        messages = task.prompt(problem)
        shots = shots_of(problem) if max_fewshot > 0 else []
        docs.append({
            "task": name, "options": options_text, "id": problem.id, "variant": problem.variant,
            "template": _template(problem), "prompt": messages[-1]["content"],
            "answer": str(problem.answer),
            "shots": [{"prompt": task.prompt_template.replace("{question}", q), "solution": a} for q, a in shots],
        })
    return docs, task


def _yaml_text(name: str, documents: Path, task: Task, metrics: tuple[str, ...], has_shots: bool) -> str:
    def quoted(text: str) -> str:
        return json.dumps(text, ensure_ascii=False)  # a JSON string is a YAML string

    lines = [
        f"# physeval task {name} as an lm-evaluation-harness task (written by `physeval export-lm-eval`).",
        "# Each metric is physeval's own reduction over the documents (see physeval_hooks.py);",
        "# lm-eval prints no stderr for them: `physeval score` on the --log_samples file gives intervals and n.",
        f"task: {lm_eval_task_name(name)}",
        "dataset_path: json",
        "dataset_kwargs:",
        "  data_files:",
        f"    test: {quoted(str(documents.resolve()))}",
        "test_split: test",
        "output_type: generate_until",
        'doc_to_text: "{{prompt}}"',
        'doc_to_target: "{{answer}}"',
    ]
    if task.system_prompt:
        lines.append(f"description: {quoted(task.system_prompt)}")
    if has_shots:
        lines += [
            "fewshot_split: test  # the sampler reads the question's own `shots` (never its template)",
            "fewshot_config:",
            f"  sampler: !function {HOOKS_MODULE}.TemplateFreeSampler",
            '  doc_to_text: "{{prompt}}"',
            '  doc_to_target: "{{solution}}"',
        ]
    lines += [
        "generation_kwargs:",
        "  until: []  # worked solutions span paragraphs: no stop sequence",
        "  max_gen_toks: 4096",
        "  do_sample: false",
        f"process_results: !function {HOOKS_MODULE}.process_results",
        "metric_list:",
    ]
    for metric in metrics:
        lines += [f"  - metric: {metric}", f"    aggregation: !function {HOOKS_MODULE}.{metric}",
                  f"    higher_is_better: {'false' if metric in _LOWER_IS_BETTER else 'true'}"]
    lines += ["metadata:", "  version: 1.0", f"  physeval_task: {quoted(name)}"]
    text = "\n".join(lines) + "\n"
    yaml.load(text, Loader=_FunctionTagLoader)  # noqa: S506 - a SafeLoader; the text we wrote must parse
    return text


class _FunctionTagLoader(yaml.SafeLoader):
    """Reads lm-eval's ``!function module.name`` tags as their text."""


_FunctionTagLoader.add_constructor("!function", lambda loader, node: loader.construct_scalar(node))


def export_lm_eval(names: list[str], out_dir: str | Path, options: Mapping[str, Any] | None = None, *,
                   max_fewshot: int = MAX_FEWSHOT) -> list[ExportedTask]:
    """Write the lm-eval YAML and documents of each physeval task in ``names`` (built with
    ``options``) and the hook shim into ``out_dir``; returns what was written, per task."""
    out = Path(out_dir).resolve()
    written = []
    for name in names:
        if task_class(name).track == "scene":
            raise UserError(f"{name}: scene tasks render programs and ask judges while grading; run them with "
                            "`physeval run` or `inspect eval physeval/...`, not as lm-eval documents")
        task_options = dict(options or {})
        if task_options.get("data"):
            task_options["data"] = str(Path(task_options["data"]).expanduser().resolve())
        docs, task = _documents(name, task_options, max_fewshot)
        out.mkdir(parents=True, exist_ok=True)
        documents = out / f"{lm_eval_task_name(name)}.jsonl"
        documents.write_text("".join(json.dumps(d, ensure_ascii=False) + "\n" for d in docs), encoding="utf-8")
        metrics = metric_names(task)
        yaml_path = out / f"{lm_eval_task_name(name)}.yaml"
        yaml_path.write_text(_yaml_text(name, documents, task, metrics, any(d["shots"] for d in docs)),
                             encoding="utf-8")
        written.append(ExportedTask(name, lm_eval_task_name(name), yaml_path, documents, len(docs), metrics))
    (out / f"{HOOKS_MODULE}.py").write_text(_HOOKS_SOURCE, encoding="utf-8")
    return written
