"""physeval tasks under inspect_ai give physeval's own scores on the same responses.

Two ways in, each compared with physeval itself:

- inspect's mock model (``mockllm/model`` with scripted outputs), in process, over two epochs;
  the responses inspect logged are graded again by :func:`physeval.score_responses`;
- the ``inspect eval physeval/<task>`` command (found through the ``inspect_ai`` entry point)
  against a scripted OpenAI-compatible server on 127.0.0.1, and ``physeval run`` against the same
  server script.

Every metric physeval reports (accuracy, static/dynamic accuracy, delta, pass@K, EED, per-variant
and per-group accuracy) must be equal, not close: both sides run physeval's reduction.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import shutil
import subprocess
import sys
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("inspect_ai")

from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog, read_eval_log
from inspect_ai.model import ModelOutput, ModelUsage, get_model

from physeval import RunConfig, RunSpec, run, score_responses
from physeval.integrations import inspect as pi
from physeval.problems import Problem
from physeval.summary import RunSummary
from physeval.tasks.registry import get_task
from physeval.testing import Reply, Request, ScriptedServer

# -- scripted answers: right, wrong, or missing, chosen by a hash of (id, variant, sample) ------------
SHARED_DATA = Path(__file__).resolve().parents[3] / "shared" / "data"


def _response(task_name: str, problem: Problem, sample: int) -> str:
    """A deterministic mix: about a quarter wrong, one in eight without a boxed answer."""
    pick = zlib.crc32(f"{problem.id}|{problem.variant}|{sample}".encode()) % 8
    if pick == 0:
        return "I am not sure how to finish this."
    if pick in (1, 2):
        wrong = "x^{2} + 1" if task_name == "bank-symbolic" else "7.77 \\times 10^{3}"
        return f"<think>guessing</think>The answer is \\boxed{{{wrong}}}."
    unit = problem.meta.get("unit_latex")
    answer = f"{problem.answer}\\,{unit}" if unit else problem.answer
    return f"<think>work it out</think>So \\boxed{{{answer}}}."


def _by_prompt(task_name: str, options: dict[str, Any] | None = None) -> dict[str, Problem]:
    task = get_task(task_name, **(options or {}))
    table = {task.prompt(p)[-1]["content"]: p for p in task.load()}
    assert len(table) == len(task.load()), "every variant needs its own prompt for the script to find it"
    return table


# -- reading both sides ------------------------------------------------------------------------------
_INTERVAL = ("/ci_low", "/ci_high", "/n")
_INSPECT_OWN = {None, "", "physeval_reduced", "correct", "eed"}  # accuracy/stderr and physeval on reduced scores


def _inspect_metrics(log: EvalLog) -> dict[tuple[str, str], float]:
    """(group, name) -> value over physeval's metrics of the log's one scorer: ("physeval", NAME), and
    (KEY, VALUE) for the grouped ones, which inspect shows as KEY/VALUE."""
    assert log.status == "success", log.error
    assert log.results is not None
    out: dict[tuple[str, str], float] = {}
    for score in log.results.scores:
        for metric in score.metrics.values():
            if metric.group in _INSPECT_OWN or metric.name.endswith(_INTERVAL):
                continue
            if metric.group == "physeval":
                out[("physeval", metric.name)] = metric.value
            else:
                key, _, value = metric.name.partition("/")
                assert key == metric.group, metric.name  # group/value, not a bare value
                out[(key, value)] = metric.value
    return out


def _physeval_metrics(summary: RunSummary) -> dict[tuple[str, str], float]:
    """The same keys from a physeval summary: ("physeval", NAME) and (KEY, VALUE) for accuracy groups."""
    out = {("physeval", name): m.value for name, m in summary.metrics.items() if not math.isnan(m.value)}
    for key, groups in summary.breakdowns.items():
        for value, metrics in groups.items():
            if "accuracy" in metrics and not math.isnan(metrics["accuracy"].value):
                out[(key, value)] = metrics["accuracy"].value
    return out


def _assert_same(inspect_side: dict[tuple[str, str], float], physeval_side: dict[tuple[str, str], float]) -> None:
    assert set(inspect_side) == set(physeval_side)
    different = {k: (inspect_side[k], physeval_side[k]) for k in physeval_side if inspect_side[k] != physeval_side[k]}
    assert not different


# -- mock model, in process ----------------------------------------------------------------------------
def _mock_model(task_name: str, options: dict[str, Any] | None = None,
                response: Callable[[str, Problem, int], str] | None = None) -> Any:
    """mockllm whose reply to a prompt is :func:`_response` for that prompt's problem; a prompt's
    n-th request gets sample n's response (usage given, so inspect counts no tokens itself)."""
    problems = _by_prompt(task_name, options)
    calls: dict[str, int] = {}

    def reply(messages: list[Any], tools: Any, tool_choice: Any, config: Any) -> ModelOutput:
        prompt = messages[-1].text
        sample = calls.get(prompt, 0)
        calls[prompt] = sample + 1
        output = ModelOutput.from_content(model="mockllm",
                                          content=(response or _response)(task_name, problems[prompt], sample))
        output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
        return output

    return get_model("mockllm/model", custom_outputs=reply)


@pytest.mark.parametrize(("task_name", "limit"), [("bank-numeric", 30), ("bank-symbolic", 16), ("abench-b", 24)])
def test_mock_model_scores_equal_physeval_scores_of_the_logged_responses(task_name: str, limit: int,
                                                                         tmp_path: Path) -> None:
    options: dict[str, Any] = {}
    if task_name.startswith("abench"):
        if not (SHARED_DATA / "abench").is_dir():
            pytest.skip("../shared/data is not present")
        options["data"] = str(SHARED_DATA / "abench")
    [log] = inspect_eval(pi.inspect_task_for(task_name, options), model=_mock_model(task_name, options), limit=limit,
                         epochs=2, log_dir=str(tmp_path / "logs"), display="none")
    assert log.samples is not None and len(log.samples) == 2 * limit
    records = [{"id": s.metadata["problem_id"], "variant": s.metadata["variant"], "sample": s.epoch - 1,
                "response": s.output.completion} for s in log.samples]
    summary, report = score_responses(task_name, records, run_dir=tmp_path / "physeval", task_options=options)
    assert report.graded == 2 * limit
    outcomes = summary.counts.outcomes
    assert outcomes.get("correct") and len(outcomes) > 1, "the script must produce both right and wrong answers"
    _assert_same(_inspect_metrics(log), _physeval_metrics(summary))


def test_scores_carry_the_graders_verdict_and_reason(tmp_path: Path) -> None:
    [log] = inspect_eval(pi.inspect_task_for("bank-numeric"), model=_mock_model("bank-numeric"), limit=12,
                         log_dir=str(tmp_path / "logs"), display="none")
    assert log.samples
    task = get_task("bank-numeric")
    problems = {p.key: p for p in task.load()}
    for sample in log.samples:
        [score] = sample.scores.values()
        problem = problems[(sample.metadata["problem_id"], sample.metadata["variant"])]
        expected = task.grade(problem, sample.output.completion)
        assert score.value == ("C" if expected.correct else "I")
        assert score.metadata["outcome"] == expected.outcome
        assert score.metadata["reason"] == expected.reason == score.explanation
        assert score.answer == expected.extracted


def test_dynamic_metrics_over_variant_groups_for_any_inspect_scorer() -> None:
    """static, dynamic and delta read problem_id/variant from sample metadata and 0/1 from values."""
    from inspect_ai.scorer import SampleScore, Score

    def s(pid: str, variant: str, value: str) -> SampleScore:
        return SampleScore(score=Score(value=value), sample_id=f"{pid}#{variant}",
                           sample_metadata={"problem_id": pid, "variant": variant})

    # p1: all three variants right; p2: original right, one variant wrong; p3: original wrong.
    scores = [s("p1", "0", "C"), s("p1", "1", "C"), s("p1", "2", "C"),
              s("p2", "0", "C"), s("p2", "1", "I"), s("p2", "2", "C"),
              s("p3", "0", "I"), s("p3", "1", "C")]
    assert pi.static_accuracy()(scores) == pytest.approx(2 / 3)
    assert pi.dynamic_accuracy()(scores) == pytest.approx(1 / 3)
    assert pi.delta()(scores) == pytest.approx((0 + 1 + 0) / 3)
    assert pi.per_variant()(scores) == {"variant/0": pytest.approx(2 / 3), "variant/1": pytest.approx(2 / 3),
                                        "variant/2": 1.0}


def test_an_error_grade_is_unscored_and_left_out_as_physeval_leaves_error_rows_out() -> None:
    from physeval.problems import Grade

    score = pi._score_of(Grade(False, "error", "the judge did not answer"), epoch=1)
    assert score.metadata["outcome"] == "error" and score.metadata["reason"] == "the judge did not answer"
    assert isinstance(score.value, float) and score.value != score.value  # NaN: inspect's "unscored"


def test_task_options_are_inspect_task_arguments_checked_by_physeval() -> None:
    from inspect_ai._util.registry import registry_info, registry_lookup

    factory = registry_lookup("task", "physeval/bank_numeric")
    assert factory is not None
    params = registry_info(factory).metadata["params"]
    assert {"rel_tol", "data", "system_prompt", "artifacts_dir"} <= set(params)
    from inspect_ai._util.error import PrerequisiteError

    with pytest.raises(PrerequisiteError, match="did you mean 'rel_tol'"):  # inspect prints it as one line
        factory(rel_tl=0.1)
    assert registry_lookup("task", "physeval/bank-numeric") is not None  # physeval's spelling too


# -- the inspect command against a scripted server, and physeval run against the same script --------------
def _server_script(task_name: str) -> Any:
    problems = _by_prompt(task_name)
    calls: dict[str, int] = {}

    def reply(request: Request) -> Reply:
        prompt = request.prompt
        sample = calls.get(prompt, 0)
        calls[prompt] = sample + 1
        return Reply.text(_response(task_name, problems[prompt], sample))

    return reply


def _inspect_command() -> str:
    found = shutil.which("inspect", path=str(Path(sys.executable).parent))
    if found is None:
        pytest.skip("the inspect command is not installed next to this Python")
    return found


@pytest.mark.slow
def test_inspect_eval_command_on_a_scripted_server_equals_physeval_run(tmp_path: Path) -> None:
    task_name, n_problems = "bank-numeric", 6
    problems = get_task(task_name).load()
    first_ids = list(dict.fromkeys(p.id for p in problems))[:n_problems]
    n_samples = sum(p.id in first_ids for p in problems)

    with ScriptedServer(_server_script(task_name)) as server:
        env = {**os.environ, "SCRIPTED_API_KEY": "test-key", "SCRIPTED_BASE_URL": server.base_url}
        done = subprocess.run(
            [_inspect_command(), "eval", "physeval/bank_numeric", "--model", "openai-api/scripted/m",
             "--limit", str(n_samples), "--log-dir", str(tmp_path / "logs"), "--log-format", "json",
             "--display", "none", "--max-connections", "2"],
            env=env, capture_output=True, text=True, timeout=600, check=False)
        assert done.returncode == 0, done.stderr[-3000:]
        inspect_requests = len(server.requests)
    assert inspect_requests == n_samples

    with ScriptedServer(_server_script(task_name)) as server:
        summary, _result = run(RunSpec(task=task_name, model="openai/m", base_url=server.base_url,
                                      config=RunConfig(limit=n_problems, preflight=False, use_cache=False),
                                      run_dir=tmp_path / "physeval", show_progress=False))
    assert summary.counts.samples == n_samples

    [log_file] = (tmp_path / "logs").glob("*.json")
    log = read_eval_log(str(log_file))
    assert log.eval.task == "physeval/bank_numeric"
    _assert_same(_inspect_metrics(log), _physeval_metrics(summary))
    assert json.loads(log_file.read_text())["eval"]["metadata"]["physeval_task"] == task_name


# -- a scene task: the scorer renders the program and asks the judge ---------------------------------------
BALL_PROGRAM = '''```python
import sys, cv2, numpy as np
out = cv2.VideoWriter(sys.argv[1], cv2.VideoWriter_fourcc(*"mp4v"), 15, (320, 240))
for i in range(30):
    frame = np.zeros((240, 320, 3), np.uint8)
    cv2.circle(frame, (160, min(int(20 + 4 * i * i / 15), 220)), 12, (0, 200, 255), -1)
    out.write(frame)
out.release()
```'''


def _scene_reply(index: int) -> str:
    """Every third scene (by load order) gets a program that raises; the others a falling ball that renders."""
    if index % 3 == 0:
        return "```python\nraise RuntimeError('no physics today')\n```"
    return "Here is the animation:\n" + BALL_PROGRAM


def _judge_reply(request: Request) -> Reply:
    """All questions yes for about half the scenes (by the question text), else the second one no."""
    questions = [line for line in request.prompt.splitlines() if line[:1].isdigit()]
    if not questions:  # a text-only check answers like any model
        return Reply.text("OK")
    all_yes = zlib.crc32("".join(questions).encode()) % 2 == 0
    verdicts = [{"index": i + 1, "analysis": "seen", "result": all_yes or i != 1} for i in range(len(questions))]
    return Reply.text(json.dumps(verdicts))


@pytest.mark.slow
def test_scene_task_renders_and_judges_inside_the_scorer_as_physeval_does(tmp_path: Path) -> None:
    pytest.importorskip("cv2")
    with ScriptedServer(_judge_reply) as judge:
        options = {"judge": ["openai/vlm"], "judge_base_url": judge.base_url, "render_timeout": 60,
                   "judge_frames": 2, "render_workers": 1}
        task = get_task("bank-scene", **options)
        order = {task.prompt(p)[-1]["content"]: i for i, p in enumerate(task.load())}

        def reply(messages: list[Any], tools: Any, tool_choice: Any, config: Any) -> ModelOutput:
            output = ModelOutput.from_content(model="mockllm", content=_scene_reply(order[messages[-1].text]))
            output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
            return output

        [log] = inspect_eval(pi.inspect_task_for("bank-scene", options, artifacts_dir=str(tmp_path / "art")),
                             limit=6, display="none",
                             model=get_model("mockllm/model", custom_outputs=reply), log_dir=str(tmp_path / "logs"))
        assert log.samples and len(log.samples) == 6
        records = [{"id": s.metadata["problem_id"], "variant": s.metadata["variant"], "response": s.output.completion}
                   for s in log.samples]
        summary, _ = score_responses("bank-scene", records, run_dir=tmp_path / "physeval", task_options=options)
    stages = {s.scores["physeval/grader"].metadata["grade"]["stage"] for s in log.samples}
    playable = sum(s.scores["physeval/grader"].metadata["grade"]["stage"] == "playable" for s in log.samples)
    assert len(list((tmp_path / "art" / "videos").glob("*.mp4"))) == playable > 0
    assert len(stages) > 1, "the script must give both a crashing and a rendering program"
    assert {"C", "I"} <= {s.scores["physeval/grader"].value for s in log.samples}
    # Judge wall-clock seconds are measured, not graded: they differ between any two gradings.
    timed = {key for key in _physeval_metrics(summary) if "seconds" in key[1]}
    inspect_side = {k: v for k, v in _inspect_metrics(log).items() if k not in timed}
    physeval_side = {k: v for k, v in _physeval_metrics(summary).items() if k not in timed}
    _assert_same(inspect_side, physeval_side)


# -- inspect's own conventions: named tasks, `inspect score`, epochs reducers, -T errors ------------------
def test_inspect_task_for_is_logged_by_name_with_its_arguments(tmp_path: Path) -> None:
    [log] = inspect_eval(pi.inspect_task_for("bank-numeric", {"variants": 2}), model=_mock_model("bank-numeric",
                         {"variants": 2}), limit=4, log_dir=str(tmp_path / "logs"), display="none")
    assert log.eval.task == "physeval/bank_numeric"
    assert log.eval.task_args["variants"] == 2  # so `inspect eval-retry` rebuilds the same task
    assert log.eval.scorers is not None and log.eval.scorers[0].name == "physeval/grader"


def test_symbolic_scores_are_a_dict_with_eed_and_each_physeval_metric_carries_its_interval_and_n(
        tmp_path: Path) -> None:
    [log] = inspect_eval(pi.inspect_task_for("bank-symbolic"), model=_mock_model("bank-symbolic"), limit=8,
                         log_dir=str(tmp_path / "logs"), display="none")
    assert log.samples
    values = [s.scores["physeval/grader"].value for s in log.samples]
    assert all(set(v) == {"correct", "eed"} for v in values)  # type: ignore[arg-type]
    by_group = {(m.group or score.name, m.name): m.value for score in log.results.scores  # type: ignore[union-attr]
                for m in score.metrics.values()}
    assert by_group[("eed", "mean")] == pytest.approx(sum(v["eed"] for v in values) / 8)  # type: ignore[index]
    assert by_group[("physeval", "eed_mean")] == pytest.approx(by_group[("eed", "mean")])
    assert by_group[("correct", "accuracy")] == by_group[("physeval", "accuracy")]
    low, high = by_group[("physeval", "accuracy/ci_low")], by_group[("physeval", "accuracy/ci_high")]
    assert low <= by_group[("physeval", "accuracy")] <= high and by_group[("physeval", "accuracy/n")] == 8


def test_epochs_reducer_max_is_honoured_with_inspects_accuracy_and_stderr_beside_physevals(tmp_path: Path) -> None:
    from inspect_ai import Epochs

    def independent(task_name: str, problem: Problem, sample: int) -> str:
        """Wrong in about half of the epochs, independently (CRC-32 of ids differing in one digit are not)."""
        digest = hashlib.sha256(f"{problem.id}|{problem.variant}|{sample}".encode()).digest()
        return "\\boxed{7}" if digest[0] % 2 else _response(task_name, problem, 1)

    [log] = inspect_eval(pi.inspect_task_for("bank-numeric"), model=_mock_model("bank-numeric", response=independent),
                         limit=24, epochs=Epochs(2, "max"), log_dir=str(tmp_path / "logs"), display="none")
    assert log.reductions and [r.reducer for r in log.reductions] == ["max"]
    metrics = {(score.reducer, m.group, m.name): m.value for score in log.results.scores  # type: ignore[union-attr]
               for m in score.metrics.values()}
    any_right = {}
    for s in log.samples or []:
        any_right[s.id] = any_right.get(s.id, False) or s.scores["physeval/grader"].metadata["correct"]
    assert 0 < sum(any_right.values()) < len(any_right) == 24
    expected = sum(any_right.values()) / 24  # six whole problems of four variants: per variant = per problem
    assert metrics[("max", None, "accuracy")] == pytest.approx(expected)
    assert metrics[("max", "physeval_reduced", "reduced/accuracy")] == pytest.approx(expected)
    assert metrics[(None, "physeval", "pass@2")] == pytest.approx(expected)  # physeval's own view of the epochs
    assert metrics[("max", None, "stderr")] > 0


def test_inspect_score_rescores_a_log_by_the_scorer_it_records(tmp_path: Path) -> None:
    [log] = inspect_eval(pi.inspect_task_for("bank-numeric"), model=_mock_model("bank-numeric"), limit=8,
                         log_dir=str(tmp_path / "logs"), display="none")
    before = _inspect_metrics(log)
    done = subprocess.run([_inspect_command(), "score", str(log.location), "--action", "overwrite", "--overwrite",
                           "--display", "none"], capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    assert _inspect_metrics(read_eval_log(str(log.location))) == before


def test_a_misspelt_or_mistyped_task_argument_is_one_line_from_inspect_eval(tmp_path: Path) -> None:
    for arg, expected in (("rel_tl=0.1", "did you mean 'rel_tol'"), ("rel_tol=abc", "rel_tol")):
        done = subprocess.run([_inspect_command(), "eval", "physeval/bank-numeric", "-T", arg, "--model",
                               "mockllm/model", "--log-dir", str(tmp_path / "logs"), "--display", "plain"],
                              env={**os.environ, "COLUMNS": "400"}, capture_output=True, text=True, timeout=600,
                              check=False)
        assert done.returncode != 0
        message = (done.stdout + done.stderr).strip()  # inspect prints it on its console
        assert expected in message and len(message.splitlines()) == 1, message[-2000:]


@pytest.mark.slow
def test_scene_judges_bound_to_inspects_judge_role_answer_in_the_transcript_and_usage(tmp_path: Path) -> None:
    pytest.importorskip("cv2")
    from inspect_ai.log import ModelEvent

    render = {"render_timeout": 60, "judge_frames": 2, "render_workers": 1}
    with ScriptedServer(_judge_reply) as judge:
        task = get_task("bank-scene", **render)
        order = {task.prompt(p)[-1]["content"]: i for i, p in enumerate(task.load())}

        def reply(messages: list[Any], tools: Any, tool_choice: Any, config: Any) -> ModelOutput:
            output = ModelOutput.from_content(model="mockllm", content=_scene_reply(order[messages[-1].text]))
            output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
            return output

        vlm = get_model("openai-api/scripted/vlm", base_url=judge.base_url, api_key="k", memoize=False)
        [log] = inspect_eval(pi.inspect_task_for("bank-scene", render), limit=6, display="none",
                             model=get_model("mockllm/model", custom_outputs=reply), model_roles={"judge": vlm},
                             log_dir=str(tmp_path / "logs"))
        judge_requests = len(judge.requests)
        records = [{"id": s.metadata["problem_id"], "variant": s.metadata["variant"], "response": s.output.completion}
                   for s in log.samples or []]
        summary, _ = score_responses("bank-scene", records, run_dir=tmp_path / "physeval",
                                     task_options={**render, "judge": ["openai/vlm"], "judge_base_url": judge.base_url})
    judged = [s for s in log.samples or [] if s.scores["physeval/grader"].metadata["grade"]["judged"]]
    assert judged and judge_requests == len(judged)  # one call per playable video, made by inspect's model
    for sample in judged:
        calls = [e for e in sample.events if isinstance(e, ModelEvent) and e.model == "openai-api/scripted/vlm"]
        assert len(calls) == 1  # in the sample's transcript
    assert log.stats.model_usage["openai-api/scripted/vlm"].input_tokens > 0
    # Judge cost is measured, not graded (seconds differ between two gradings; tokens between two clients).
    def graded(side: dict[tuple[str, str], float]) -> dict[tuple[str, str], float]:
        return {k: v for k, v in side.items() if "seconds" not in k[1] and "tokens" not in k[1]}

    _assert_same(graded(_inspect_metrics(log)), graded(_physeval_metrics(summary)))
