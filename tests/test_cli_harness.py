"""The options a harness user reaches for first, each through the command line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from physeval.cli import EXIT_OK, EXIT_USER_ERROR, main
from physeval.store import RunStore
from physeval.testing import Reply, ScriptedServer


@pytest.fixture
def echo_server():  # type: ignore[no-untyped-def]
    with ScriptedServer(lambda request: Reply.text("so \\boxed{1}"), model="m") as server:
        yield server


def _run(server: ScriptedServer, out: Path, *extra: str, task: str = "bank-numeric") -> int:
    return main(["run", task, "--model", "openai/m", "--base-url", server.base_url, "--out", str(out),
                 "--no-progress", "--limit", "1", "--variants", "1", *extra])


def test_system_prompt_as_text_or_file(echo_server: ScriptedServer, tmp_path: Path) -> None:
    assert _run(echo_server, tmp_path / "a", "--system-prompt", "You are careful.") == EXIT_OK
    assert echo_server.requests[-1].body["messages"][0] == {"role": "system", "content": "You are careful."}
    prompt = tmp_path / "system.txt"
    prompt.write_text("Answer in SI units.", encoding="utf-8")
    assert _run(echo_server, tmp_path / "b", "--system-prompt", str(prompt)) == EXIT_OK
    assert echo_server.requests[-1].body["messages"][0]["content"] == "Answer in SI units."


def test_a_scene_prompt_file_keeps_the_sandbox_rules(tmp_path: Path) -> None:
    from physeval.scenes.prompt import SCENE_SYSTEM_PROMPT
    from physeval.tasks.registry import get_task

    template = tmp_path / "p.txt"
    template.write_text("Animate: {question}", encoding="utf-8")
    task = get_task("bank-scene", prompt_file=str(template), system_prompt="Use matplotlib.")
    messages = task.prompt(task.load()[0])
    assert messages[0]["role"] == "system" and messages[0]["content"].startswith(SCENE_SYSTEM_PROMPT)
    assert messages[0]["content"].endswith("Use matplotlib.") and messages[1]["content"].startswith("Animate: ")


def test_model_args_extra_body_and_stop_reach_the_server(echo_server: ScriptedServer, tmp_path: Path) -> None:
    assert _run(echo_server, tmp_path / "a", "--model-args", "top_k=20", "--model-args", "min_p=0",
                "--extra-body", '{"chat_template_kwargs": {"enable_thinking": false}}',
                "--stop", "</answer>") == EXIT_OK
    body = echo_server.requests[-1].body
    assert body["top_k"] == 20 and body["min_p"] == 0 and body["stop"] == ["</answer>"]
    assert body["chat_template_kwargs"] == {"enable_thinking": False}


def test_fewshot_examples_come_from_the_bank_and_never_from_the_same_template(echo_server: ScriptedServer,
                                                                              tmp_path: Path) -> None:
    assert _run(echo_server, tmp_path / "a", "--fewshot", "2") == EXIT_OK
    messages = echo_server.requests[-1].body["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant", "user", "assistant", "user"]
    assert messages[-1]["content"] not in (messages[0]["content"], messages[2]["content"])
    assert "\\boxed{" in messages[1]["content"]


def test_fewshot_on_a_task_without_a_pool_is_a_user_error(echo_server: ScriptedServer, tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "d.jsonl"
    data.write_text(json.dumps({"id": 1, "question": "q", "answer": "1"}) + "\n")
    assert main(["run", "jsonl", "--data", str(data), "--model", "openai/m", "--base-url", echo_server.base_url,
                 "--fewshot", "1", "--out", str(tmp_path / "x"), "--no-progress"]) == EXIT_USER_ERROR
    assert "no few-shot pool" in capsys.readouterr().err


def test_a_config_file_and_the_same_flags_record_identical_runs(echo_server: ScriptedServer, tmp_path: Path) -> None:
    config = tmp_path / "run.yaml"
    config.write_text("temperature: 0.6\nmax_tokens: 256\nsamples: 2\nlimit: 2\nseed: 3\n"
                      "task_options: {variants: 2, rel_tol: 0.02}\n", encoding="utf-8")
    base = ["--model", "openai/m", "--base-url", echo_server.base_url, "--no-progress"]
    assert main(["run", "bank-numeric", "--config", str(config), "--out", str(tmp_path / "a"), *base]) == EXIT_OK
    assert main(["run", "bank-numeric", "--temperature", "0.6", "--max-tokens", "256", "--samples", "2",
                 "--limit", "2", "--seed", "3", "--variants", "2", "--rel-tol", "0.02",
                 "--out", str(tmp_path / "b"), *base]) == EXIT_OK
    a, b = (RunStore(tmp_path / d).run_meta() for d in ("a", "b"))
    assert a is not None and b is not None
    assert (a.config, a.settings, a.task_options) == (b.config, b.settings, b.task_options)
    assert a.config["temperature"] == 0.6 and a.task_options["rel_tol"] == 0.02
    # flags override the file
    assert main(["run", "bank-numeric", "--config", str(config), "--temperature", "0", "--out", str(tmp_path / "c"),
                 *base]) == EXIT_OK
    assert RunStore(tmp_path / "c").run_meta().config["temperature"] == 0.0  # type: ignore[union-attr]


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    from physeval import __version__

    assert main(["--version"]) == 0  # answered before the parser is built
    assert capsys.readouterr().out.strip() == f"physeval {__version__}"
    with pytest.raises(SystemExit):  # the parser's own --version, after other arguments
        main(["--version", "tasks"])
    assert capsys.readouterr().out.strip() == f"physeval {__version__}"


def test_stratified_and_random_limits(echo_server: ScriptedServer, tmp_path: Path) -> None:
    from physeval.flow.plan import select_problems
    from physeval.tasks.registry import get_task

    problems = get_task("bank-numeric", variants=1).load()
    domains = sorted({p.meta["domain"] for p in problems})
    stratified = select_problems(problems, len(domains), "stratified", seed=0)
    assert sorted(p.meta["domain"] for p in stratified) == domains  # one of each domain
    first = select_problems(problems, len(domains), "first")
    assert len({p.meta["domain"] for p in first}) < len(domains)  # the bank is ordered by domain
    assert select_problems(problems, 5, "random", seed=1) == select_problems(problems, 5, "random", seed=1)
    assert select_problems(problems, 5, "random", seed=1) != select_problems(problems, 5, "random", seed=2)
    assert _run(echo_server, tmp_path / "s", "--sample-strategy", "stratified") == EXIT_OK


def test_models_lists_what_a_server_offers(capsys: pytest.CaptureFixture[str]) -> None:
    with ScriptedServer(lambda r: Reply.text("x"), model="Qwen/Qwen3-8B") as server:
        assert main(["models", "--base-url", server.base_url]) == EXIT_OK
    assert capsys.readouterr().out.strip() == "Qwen/Qwen3-8B"


def test_jsonl_numeric_and_symbolic_datasets(echo_server: ScriptedServer, tmp_path: Path) -> None:
    numeric = tmp_path / "n.jsonl"
    numeric.write_text("\n".join([
        json.dumps({"id": "a", "question": "How fast?", "answer": "1000", "unit": "m/s", "tags": ["kinematics"]}),
        json.dumps({"id": "b", "question": "How many?", "answer": "1", "tags": "counting"}),
    ]) + "\n")
    with ScriptedServer(lambda r: Reply.text("\\boxed{1\\ \\mathrm{km/s}}" if "fast" in r.prompt else "\\boxed{1}"),
                        model="m") as server:
        assert main(["run", "jsonl", "--data", str(numeric), "--model", "openai/m", "--base-url", server.base_url,
                     "--out", str(tmp_path / "n"), "--no-progress"]) == EXIT_OK
    summary = json.loads((tmp_path / "n" / "summary.json").read_text())
    assert summary["metrics"]["accuracy"]["value"] == 1.0  # 1 km/s is 1000 m/s
    assert set(summary["breakdowns"]["tag"]) == {"kinematics", "counting"}
    symbolic = tmp_path / "s.jsonl"
    symbolic.write_text(json.dumps({"id": "1", "question": "omega?", "answer": "\\sqrt{k/m}"}) + "\n")
    with ScriptedServer(lambda r: Reply.text("\\boxed{\\sqrt{\\frac{k}{m}}}"), model="m") as server:
        assert main(["run", "jsonl", "--data", str(symbolic), "-T", "kind=symbolic", "--model", "openai/m",
                     "--base-url", server.base_url, "--out", str(tmp_path / "s"), "--no-progress"]) == EXIT_OK
    summary = json.loads((tmp_path / "s" / "summary.json").read_text())
    assert summary["metrics"]["accuracy"]["value"] == 1.0 and summary["metrics"]["eed_mean"]["value"] == 100.0


def test_a_bad_jsonl_line_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "d.jsonl"
    data.write_text(json.dumps({"id": 1, "question": "q", "answer": "1"}) + "\n" + json.dumps({"id": 2}) + "\n")
    assert main(["run", "jsonl", "--data", str(data), "--out", str(tmp_path / "x"), "--no-progress"]) == 2
    assert "line 2: missing question, answer" in capsys.readouterr().err


def test_prices_give_a_cost_line(echo_server: ScriptedServer, tmp_path: Path,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    assert _run(echo_server, tmp_path / "a", "--price-in", "1.0", "--price-out", "2.0") == EXIT_OK
    summary = json.loads((tmp_path / "a" / "summary.json").read_text())
    tokens = summary["provenance"]["tokens"]
    assert summary["cost"]["total_usd"] == pytest.approx((tokens["prompt_tokens"] + 2 * tokens["completion_tokens"]) / 1e6)
    assert "cost $" in capsys.readouterr().err


def test_report_prints_the_token_and_cost_lines_the_run_printed(echo_server: ScriptedServer, tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    assert _run(echo_server, tmp_path / "a", "--price-in", "1.0", "--price-out", "2.0") == EXIT_OK
    run_lines = [line for line in capsys.readouterr().err.splitlines() if line.startswith("tokens:")]
    assert main(["report", str(tmp_path / "a")]) == EXIT_OK
    report_lines = [line for line in capsys.readouterr().err.splitlines() if line.startswith("tokens:")]
    assert report_lines == run_lines and "cost $" in run_lines[0]


def test_report_says_tokens_were_not_recorded_rather_than_printing_zeros(tmp_path: Path,
                                                                         capsys: pytest.CaptureFixture[str]) -> None:
    responses = tmp_path / "r.jsonl"
    responses.write_text(json.dumps({"id": "em_ac_rlc_power", "response": "\\boxed{1}"}) + "\n", encoding="utf-8")
    main(["score", "bank-numeric", "--responses", str(responses), "--out", str(tmp_path / "s")])
    capsys.readouterr()
    assert main(["report", str(tmp_path / "s")]) == EXIT_OK
    lines = [line for line in capsys.readouterr().err.splitlines() if line.startswith("tokens:")]
    assert lines == ["tokens: not recorded (no sample came with token usage)"]
