"""The OpenAI-compatible client: reasoning kept apart, failures classified, retries bounded."""

from __future__ import annotations

import asyncio

import pytest

from physeval.models import DEFAULT_BASE_URLS, ModelError, OpenAICompatibleModel, RetryPolicy, model_from_spec
from physeval.models.base import split_reasoning
from physeval.testing import Reply, ScriptedServer

MESSAGES = [{"role": "user", "content": "What is 2 + 2?"}]


def _generate(server: ScriptedServer, attempts: int = 3, **kw):  # type: ignore[no-untyped-def]
    model = OpenAICompatibleModel("m", server.base_url, retry=RetryPolicy(attempts, base_s=0.001, cap_s=0.01))
    return asyncio.run(model.generate(MESSAGES, **kw))


def test_reasoning_field_and_think_spans_are_kept_apart() -> None:
    with ScriptedServer(lambda r: Reply.text("<think>2 and 2</think>It is \\boxed{4}", reasoning="count")) as s:
        [c] = _generate(s)
    assert c.text == "It is \\boxed{4}" and c.reasoning == "count\n\n2 and 2"
    assert c.raw_text.startswith("<think>") and c.finish_reason == "stop"


def test_sampling_parameters_reach_the_server() -> None:
    with ScriptedServer(lambda r: Reply.text("ok")) as s:
        completions = _generate(s, n=3, temperature=0.7, top_p=0.9, max_tokens=50, seed=11, stop=["\n\n"])
        body = s.requests[0].body
    assert len(completions) == 3
    assert (body["n"], body["temperature"], body["top_p"], body["max_tokens"], body["seed"], body["stop"]) == (
        3, 0.7, 0.9, 50, 11, ["\n\n"])


@pytest.mark.parametrize(("reply", "kind", "retried"), [
    (Reply.error(500), "server_error", True), (Reply.error(503), "server_error", True),
    (Reply.error(429), "rate_limit", True), (Reply.drop(), "connection", True),
    (Reply.garbage(), "bad_response", True), (Reply.error(400), "bad_request", False),
    (Reply.error(401), "auth", False),
])
def test_failures_are_classified_and_only_transient_ones_retried(reply: Reply, kind: str, retried: bool) -> None:
    with ScriptedServer(lambda r: reply) as s:
        with pytest.raises(ModelError) as info:
            _generate(s, attempts=3)
        assert info.value.kind == kind
        assert len(s.requests) == (3 if retried else 1) and info.value.attempts == len(s.requests)


def test_slow_reply_times_out_as_a_timeout() -> None:
    with ScriptedServer(lambda r: Reply.text("late", delay_s=0.5)) as s:
        model = OpenAICompatibleModel("m", s.base_url, timeout=0.1, retry=RetryPolicy(2, base_s=0.001))
        with pytest.raises(ModelError) as info:
            asyncio.run(model.generate(MESSAGES))
    assert info.value.kind == "timeout" and info.value.attempts == 2


def test_recovers_after_transient_failures() -> None:
    replies = iter([Reply.error(500), Reply.drop(), Reply.text("\\boxed{4}")])
    with ScriptedServer(lambda r: next(replies)) as s:
        [c] = _generate(s, attempts=5)
    assert c.text == "\\boxed{4}" and c.attempts == 3


def test_backoff_is_bounded_and_jittered() -> None:
    import random

    policy = RetryPolicy(max_attempts=6, base_s=0.5, cap_s=4.0)
    delays = [policy.delay(k, random.Random(k)) for k in range(1, 10)]
    assert all(0 <= d <= 4.0 for d in delays) and len(set(delays)) == len(delays)


@pytest.mark.parametrize(("spec", "url"), [
    ("vllm/Qwen3-8B", DEFAULT_BASE_URLS["vllm"]), ("sglang/x", DEFAULT_BASE_URLS["sglang"]),
    ("ollama/llama3", DEFAULT_BASE_URLS["ollama"]),
])
def test_provider_prefixes_default_to_their_local_servers(spec: str, url: str) -> None:
    model = model_from_spec(spec)
    assert isinstance(model, OpenAICompatibleModel) and model.base_url == url and model.name == spec.split("/", 1)[1]


def test_openai_prefix_reads_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    assert model_from_spec("openai/gpt-x").base_url == "http://127.0.0.1:9/v1"
    assert model_from_spec("openai/gpt-x", base_url="http://127.0.0.1:7/v1").base_url == "http://127.0.0.1:7/v1"
    with pytest.raises(ValueError, match="unknown model"):
        model_from_spec("gpt-4o")


@pytest.mark.parametrize(("raw", "answer", "reasoning"), [
    ("plain", "plain", None),
    ("<think>a</think>b<think>c</think>d", "bd", "a\n\nc"),
    ("reasoning only closed</think> answer", "answer", "reasoning only closed"),
    ("answer <think>cut off mid-thought", "answer", "cut off mid-thought"),
])
def test_split_reasoning(raw: str, answer: str, reasoning: str | None) -> None:
    assert split_reasoning(raw) == (answer, reasoning)
