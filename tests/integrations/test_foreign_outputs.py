"""``physeval score`` reads the outputs inspect and lm-eval wrote, with the same result as a native run.

Each tool runs for real against a scripted OpenAI-compatible server on 127.0.0.1 (inspect in
process through its ``openai-api`` provider; lm-eval as the ``lm_eval`` command, started from
another directory than the exported YAMLs, with few-shot examples), and ``physeval run`` runs
against the same script. The script answers by the question (right, wrong or unboxed by a hash of
the problem), so both sides get the same completions; every metric physeval reports must then be
equal, not close.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import zlib
from pathlib import Path
from typing import Any

import pytest

from physeval import RunConfig, RunSpec, run, score_responses
from physeval.cli import EXIT_USER_ERROR, main
from physeval.problems import Problem
from physeval.summary import RunSummary, read_summary
from physeval.tasks.registry import get_task
from physeval.testing import Reply, Request, ScriptedServer


def _answer(task_name: str, problem: Problem) -> str:
    pick = zlib.crc32(f"{problem.id}|{problem.variant}".encode()) % 6
    if pick == 0:
        return "I am not sure how to finish this."
    if pick in (1, 2):
        wrong = "x^{2} + 1" if task_name == "bank-symbolic" else "7.77 \\times 10^{3}"
        return f"<think>guessing</think>The answer is \\boxed{{{wrong}}}."
    unit = problem.meta.get("unit_latex")
    return f"<think>work</think>So \\boxed{{{problem.answer}\\,{unit}}}." if unit else \
        f"<think>work</think>So \\boxed{{{problem.answer}}}."


def _script(task_names: list[str], options: dict[str, Any] | None = None) -> Any:
    """Reply to a request by the problem whose prompt is the request's last user message."""
    table: dict[str, tuple[str, Problem]] = {}
    for name in task_names:
        task = get_task(name, **(options or {}))
        table.update({task.prompt(p)[-1]["content"]: (name, p) for p in task.load()})

    def reply(request: Request) -> Reply:
        name, problem = table[request.prompt]
        return Reply.text(_answer(name, problem))

    return reply


def _native(task_name: str, limit: int, tmp_path: Path, options: dict[str, Any] | None = None) -> dict[str, Any]:
    with ScriptedServer(_script([task_name], options)) as server:
        summary, _ = run(RunSpec(task=task_name, task_options=dict(options or {}), model="openai/m",
                                 base_url=server.base_url, run_dir=tmp_path / f"native-{task_name}",
                                 config=RunConfig(limit=limit, preflight=False, use_cache=False),
                                 show_progress=False))
    return summary


def _metrics(summary: RunSummary) -> dict[str, Any]:
    """Every metric value (NaN: None), grouped ones included, with its n."""
    return {key.label: (None if math.isnan(m.value) else m.value, m.n) for key, m in summary.entries()}


# -- inspect ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("log_format", ["eval", "json"])
def test_physeval_score_of_an_inspect_log_equals_the_native_run(log_format: str, tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("inspect_ai")
    from inspect_ai import eval as inspect_eval
    from inspect_ai.model import get_model

    from physeval.integrations import inspect as pi

    task_name, n_problems = "bank-numeric", 5
    n_samples = n_problems * 4  # four variants each
    with ScriptedServer(_script([task_name])) as server:
        model = get_model("openai-api/scripted/m", base_url=server.base_url, api_key="test-key",
                          memoize=False)  # a model per server: a memoised one would call the last test's port
        [log] = inspect_eval(pi.inspect_task_for(task_name), model=model, limit=n_samples,
                             log_dir=str(tmp_path / "logs"), log_format=log_format, display="none")
    assert log.status == "success"
    [log_file] = (tmp_path / "logs").glob(f"*.{log_format}")

    out = tmp_path / "scored"
    assert main(["score", task_name, "--responses", str(log_file), "--out", str(out)]) == 0
    assert f"as an inspect output: {n_samples} generations graded (model openai-api/scripted/m)" in \
        capsys.readouterr().err
    scored = read_summary(out)
    native = _native(task_name, n_problems, tmp_path)
    assert scored.counts.samples == native.counts.samples == n_samples
    assert _metrics(scored) == _metrics(native)
    assert scored.model == "openai-api/scripted/m"
    assert scored.provenance.tokens.completion_tokens > 0  # inspect's usage is kept


def test_report_compare_and_leaderboard_take_an_inspect_log_in_place_of_a_run_directory(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("inspect_ai")
    from inspect_ai import eval as inspect_eval
    from inspect_ai.model import get_model

    from physeval.integrations import inspect as pi

    with ScriptedServer(_script(["bank-symbolic"])) as server:
        model = get_model("openai-api/scripted/m", base_url=server.base_url, api_key="k", memoize=False)
        inspect_eval(pi.inspect_task_for("bank-symbolic"), model=model, limit=8, log_dir=str(tmp_path / "logs"),
                     display="none")
    [log_file] = (tmp_path / "logs").glob("*.eval")
    native = _native("bank-symbolic", 8, tmp_path)
    capsys.readouterr()

    assert main(["report", str(log_file), "--no-breakdowns"]) == 0
    out, err = capsys.readouterr()
    assert "as a run of bank-symbolic: 8 samples graded" in err
    assert f"{native.metrics['eed_mean'].value:.2f}" in out
    assert main(["compare", str(log_file), str(tmp_path / "native-bank-symbolic")]) == 0
    assert "openai-api/scripted/m" in capsys.readouterr().out
    assert main(["leaderboard", str(log_file), "--format", "csv"]) == 0
    assert "openai-api/scripted/m" in capsys.readouterr().out


# -- lm-eval ---------------------------------------------------------------------------------------
def _lm_eval(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HF_DATASETS_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}
    return subprocess.run([sys.executable, "-m", "lm_eval", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=600, check=False)


@pytest.mark.slow
@pytest.mark.timeout(900)  # lm_eval's import and run took 31 s of CPU beside other work: over a tenth of 300 s
def test_lm_eval_runs_the_exported_yamls_from_elsewhere_with_fewshot_and_physeval_scores_its_samples(
        tmp_path: Path) -> None:
    pytest.importorskip("lm_eval")
    system = "You are a careful physicist."
    tasks_dir, elsewhere = tmp_path / "lm_tasks", tmp_path / "elsewhere"
    elsewhere.mkdir()
    assert main(["export-lm-eval", "bank-numeric", "bank-symbolic", "--out", str(tasks_dir),
                 "-T", f"system_prompt={system}"]) == 0
    limits = {"bank-numeric": 3, "bank-symbolic": 12}  # problems in lm-eval's first 12 documents
    options = {"system_prompt": system}
    with ScriptedServer(_script(list(limits), options)) as server:
        done = _lm_eval(["--model", "local-chat-completions", "--model_args",
                         f"model=m,base_url={server.base_url}/chat/completions,tokenizer_backend=None",
                         "--apply_chat_template", "--include_path", str(tasks_dir),
                         "--tasks", "physeval_bank_numeric,physeval_bank_symbolic", "--limit", "12",
                         "--num_fewshot", "2", "--log_samples", "--output_path", "out"], elsewhere)
        requests = list(server.requests)
    assert done.returncode == 0, done.stderr[-3000:]
    assert len(requests) == 12 + 12  # --limit counts documents: 3 numeric problems x 4 variants; 12 symbolic
    bodies = [r.body["messages"] for r in requests]
    assert all(m[0] == {"role": "system", "content": system} for m in bodies)
    _assert_shots_never_share_the_question_template(bodies, options)

    results = json.loads(next((elsewhere / "out").rglob("results_*.json")).read_text())["results"]
    for task_name, n_problems in limits.items():
        [samples_file] = (elsewhere / "out").rglob(f"samples_physeval_{task_name.replace('-', '_')}_*.jsonl")
        summary, report = score_responses(task_name, samples_file, run_dir=tmp_path / f"scored-{task_name}")
        assert report.source == "lm-eval" and not report.unknown_ids and summary.model == "m"
        native = _native(task_name, n_problems, tmp_path, options)
        assert _metrics(summary) == _metrics(native)
        lm_side = results[f"physeval_{task_name.replace('-', '_')}"]
        for name, metric in native.metrics.items():  # lm-eval's table shows physeval's reduction
            assert lm_side[f"{name},none"] == pytest.approx(metric.value, abs=1e-12), name
    assert "eed_mean,none" in results["physeval_bank_symbolic"]


def _assert_shots_never_share_the_question_template(bodies: list[list[dict[str, str]]],
                                                   options: dict[str, Any]) -> None:
    templates: dict[str, str] = {}
    for name in ("bank-numeric", "bank-symbolic"):
        task = get_task(name, **options)
        templates |= {task.prompt(p)[-1]["content"]: str(p.meta.get("template", p.id)) for p in task.load()}
        pool = task.fewshot_pool() or []  # bank-symbolic has none: its shots are other templates' originals
        templates |= {task.prompt_template.replace("{question}", q): group for group, q, _ in pool}
    for messages in bodies:
        users = [m["content"] for m in messages if m["role"] == "user"]
        answers = [m["content"] for m in messages if m["role"] == "assistant"]
        assert len(users) == 3 and len(answers) == 2  # two worked examples, as user/assistant turns
        question_template = templates[users[-1]]
        assert all(templates[shot] != question_template for shot in users[:-1])


# -- a file of another kind ------------------------------------------------------------------------
@pytest.mark.parametrize(("content", "why"), [
    (b"\x89PNG\r\n\x1a\n\x00\x00\xff\xfe", "not UTF-8 text"),
    (b'{"doc": 1, "model": "x"}\n', "needs an 'id'"),
    (b'{"doc_id": 0, "doc": {"question": "q"}, "resps": [["a"]]}\n', "no physeval 'id'"),
])
def test_a_file_of_another_kind_gets_one_line_naming_the_formats_read(content: bytes, why: str, tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "responses.jsonl"
    path.write_bytes(content)
    assert main(["score", "bank-numeric", "--responses", str(path), "--out", str(tmp_path / "o")]) == EXIT_USER_ERROR
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and why in err
    assert "inspect log (.eval or .json)" in err and "lm-eval samples_*.jsonl" in err
