"""A new provider is one registered class; the wrapper gives it retries, attempts and the preflight."""

from __future__ import annotations

import asyncio

import pytest

from physeval.errors import ModelError, OptionError
from physeval.models import Completion, GenerateConfig, RetryingModel, model_from_spec, register_provider
from physeval.models.registry import provider_names
from physeval.testing import Reply
from physeval.testing.model import ScriptedModel


@register_provider("flaky-test")
class FlakyProvider:
    """Fails twice with a retryable error, then answers; counts its calls."""

    def __init__(self, name: str, *, base_url: str | None = None, api_key: str | None = None,
                 timeout: float = 600.0) -> None:
        self.name, self.calls, self.configs = name, 0, []

    @property
    def cache_identity(self) -> str:
        return f"flaky|{self.name}"

    async def call(self, messages: list[dict], config: GenerateConfig, n: int) -> list[Completion]:
        self.calls += 1
        self.configs.append(config)
        if self.calls <= 2:
            raise ModelError("server_error", "warming up", retryable=True, retry_after=0.0)
        return [Completion(text=f"\\boxed{{{config.temperature}}}")]


def test_a_registered_provider_gets_retries_for_free() -> None:
    model = model_from_spec("flaky-test/anything", max_attempts=3)
    assert isinstance(model, RetryingModel) and "flaky-test" in provider_names()
    [completion] = asyncio.run(model.generate([{"role": "user", "content": "hi"}], temperature=0.5))
    assert completion.text == "\\boxed{0.5}" and completion.attempts == 3
    assert model.api.calls == 3 and model.api.configs[0] == GenerateConfig(temperature=0.5)


def test_a_provider_that_keeps_failing_reports_its_attempts() -> None:
    model = model_from_spec("flaky-test/x", max_attempts=2)
    with pytest.raises(ModelError) as info:
        asyncio.run(model.generate([{"role": "user", "content": "hi"}]))
    assert info.value.attempts == 2 and info.value.kind == "server_error"


def test_unknown_providers_are_a_clear_option_error() -> None:
    with pytest.raises(OptionError, match="unknown model provider 'nope'"):
        model_from_spec("nope/model")


def test_generate_config_is_frozen_and_hashable() -> None:
    config = GenerateConfig.of(temperature=0.6, stop=["\n\n"], extra_body={"top_k": 20})
    assert config == GenerateConfig(0.6, 1.0, None, None, ("\n\n",), (("top_k", 20),)) and hash(config)


def test_the_scripted_model_fails_like_a_server_and_is_retried_the_same_way() -> None:
    replies = iter([Reply.error(503), Reply.drop(), Reply.text("<think>hm</think>\\boxed{1}")])
    model = ScriptedModel(lambda request: next(replies))
    [completion] = asyncio.run(model.generate([{"role": "user", "content": "q"}]))
    assert completion.text == "\\boxed{1}" and completion.reasoning == "hm" and completion.attempts == 3
    fatal = ScriptedModel(lambda request: Reply.error(401))
    with pytest.raises(ModelError) as info:
        asyncio.run(fatal.generate([{"role": "user", "content": "q"}]))
    assert info.value.kind == "auth" and info.value.fatal and len(fatal.requests) == 1


def test_local_servers_never_receive_the_users_openai_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret")
    assert model_from_spec("vllm/Qwen3-8B").api._api_key == "EMPTY"
    assert model_from_spec("vllm/Qwen3-8B", api_key="mine").api._api_key == "mine"
    assert model_from_spec("openai/gpt-x").api._api_key == "sk-secret"
