"""Turn a ``--model`` string into a Model: ``local``, ``local:PATH.gguf``, ``PROVIDER/NAME``."""

from __future__ import annotations

from physeval.errors import OptionError
from physeval.models.base import Model, ModelAPI
from physeval.models.registry import DEFAULT_BASE_URLS, get_provider
from physeval.models.retry import RetryingModel, RetryPolicy
from physeval.registry import PluginError

__all__ = ["model_from_spec", "PROVIDERS"]

PROVIDERS = ("openai", *DEFAULT_BASE_URLS)
"""The built-in OpenAI-compatible provider names (plugins add theirs to the registry)."""


def model_from_spec(spec: str | None, *, base_url: str | None = None, api_key: str | None = None,
                    timeout: float = 600.0, max_attempts: int = 5) -> Model:
    """Build the model named by ``spec``, wrapped with retries.

    ``local`` (or nothing) is the embedded SmolLM2; ``local:PATH.gguf`` another GGUF;
    ``openai/NAME`` uses ``--base-url``, then ``OPENAI_BASE_URL``, then the OpenAI API;
    ``vllm/NAME``, ``sglang/NAME``, ``ollama/NAME``, ``llamacpp/NAME`` default to that server's
    usual local address; any other ``PROVIDER/NAME`` is looked up in the provider registry
    (:func:`physeval.models.register_provider`, entry points ``physeval.providers``).
    """
    if not spec or spec == "local" or spec.startswith("local:"):
        from physeval.models.local import LocalModel

        return LocalModel(spec.split(":", 1)[1] if spec and ":" in spec else None)
    provider, sep, name = spec.partition("/")
    if not sep or not name:
        raise OptionError(f"unknown model {spec!r}: use 'local' or PROVIDER/NAME with PROVIDER one of "
                          f"{', '.join(PROVIDERS)} (or a registered plugin provider)")
    api = get_provider(provider)(name, base_url=base_url, api_key=api_key, timeout=timeout)
    if not isinstance(api, ModelAPI):
        raise PluginError(f"model provider {provider!r} built {type(api).__module__}.{type(api).__qualname__}, "
                          "which is not a ModelAPI (a name, a cache_identity and an async call(messages, config, n))")
    wrapper: type[RetryingModel] = getattr(api, "wrapper", RetryingModel)  # a provider may name its own
    return wrapper.around(api, retry=RetryPolicy(max_attempts=max_attempts))
