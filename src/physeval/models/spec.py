"""Turn a ``--model`` string into a Model: ``local``, ``openai/NAME``, ``vllm/NAME``, ..."""

from __future__ import annotations

import os

from physeval.errors import OptionError
from physeval.models.base import Model
from physeval.models.local import LocalModel
from physeval.models.openai_compat import DEFAULT_BASE_URLS, OpenAICompatibleModel, RetryPolicy

__all__ = ["model_from_spec", "PROVIDERS"]

PROVIDERS = ("openai", *DEFAULT_BASE_URLS)


def model_from_spec(spec: str | None, *, base_url: str | None = None, api_key: str | None = None,
                    timeout: float = 600.0, max_attempts: int = 5) -> Model:
    """Build the model named by ``spec``.

    ``local`` (or nothing) is the embedded SmolLM2; ``local:PATH.gguf`` another GGUF;
    ``openai/NAME`` uses ``--base-url``, then ``OPENAI_BASE_URL``, then the OpenAI API;
    ``vllm/NAME``, ``sglang/NAME``, ``ollama/NAME``, ``llamacpp/NAME`` default to that server's
    usual local address.
    """
    if not spec or spec == "local":
        return LocalModel()
    if spec.startswith("local:"):
        return LocalModel(spec.split(":", 1)[1])
    provider, sep, name = spec.partition("/")
    if not sep or provider not in PROVIDERS or not name:
        raise OptionError(
            f"unknown model {spec!r}: use 'local' or PROVIDER/NAME with PROVIDER one of {', '.join(PROVIDERS)}"
        )
    url = base_url or (os.environ.get("OPENAI_BASE_URL") if provider == "openai" else None)
    url = url or DEFAULT_BASE_URLS.get(provider)
    if provider != "openai" and api_key is None:
        api_key = "EMPTY"  # a local server never receives the user's OPENAI_API_KEY unless asked (--api-key)
    return OpenAICompatibleModel(name, url, api_key, timeout=timeout, retry=RetryPolicy(max_attempts=max_attempts))
