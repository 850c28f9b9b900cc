"""Model providers by name: ``--model PROVIDER/NAME`` resolves through this registry.

Why: a new backend should be one registered class, not another branch in an ``if``-chain.
A provider is a :class:`~physeval.models.base.ModelAPI` class whose constructor takes
``(name, *, base_url, api_key, timeout)``; :func:`model_from_spec` wraps it in a
:class:`~physeval.models.retry.RetryingModel`, so it gets retries, backoff, attempt counting and
the preflight for free. Built-in providers are registered here; plugin packages add theirs
through the entry-point group ``physeval.providers`` (each entry point names a provider class,
loaded only when its name is asked for). The table is a :class:`physeval.registry.Registry`.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Protocol, TypeVar

from physeval.errors import OptionError
from physeval.models.base import ModelAPI
from physeval.registry import Registry

__all__ = ["register_provider", "provider_names", "get_provider", "ENTRY_POINT_GROUP", "DEFAULT_BASE_URLS",
           "PROVIDERS", "ProviderFactory"]

ENTRY_POINT_GROUP = "physeval.providers"

DEFAULT_BASE_URLS: dict[str, str] = {
    "vllm": "http://127.0.0.1:8000/v1",
    "sglang": "http://127.0.0.1:30000/v1",
    "ollama": "http://127.0.0.1:11434/v1",
    "llamacpp": "http://127.0.0.1:8080/v1",
}


class ProviderFactory(Protocol):
    """What a provider is: a :class:`~physeval.models.base.ModelAPI` class, or a function, called
    with the model's name and how to reach it."""

    def __call__(self, name: str, *, base_url: str | None = None, api_key: str | None = None,
                 timeout: float = 600.0) -> ModelAPI:
        """The provider for model ``name``."""
        ...


F = TypeVar("F", bound=ProviderFactory)

PROVIDERS: Registry[ProviderFactory] = Registry(
    "model provider", ENTRY_POINT_GROUP, check=callable, error=OptionError,
    expects="a ModelAPI class or factory taking (name, *, base_url, api_key, timeout)")
"""Every provider by name: the built-in OpenAI-compatible ones, plugins' entry points, registered ones."""


def register_provider(name: str) -> Callable[[F], F]:
    """Class (or factory) decorator: make ``--model NAME/<model>`` build this provider."""

    def decorate(factory: F) -> F:
        PROVIDERS.register(name, factory)
        return factory

    return decorate


def provider_names() -> list[str]:
    """Every registered provider name, sorted."""
    return PROVIDERS.names()


def get_provider(name: str) -> ProviderFactory:
    """The provider registered under ``name``; :class:`OptionError` naming the known ones otherwise."""
    return PROVIDERS.get(name)


def _openai_compatible(default_url: str | None) -> ProviderFactory:
    def build(name: str, *, base_url: str | None = None, api_key: str | None = None, timeout: float = 600.0,
              ) -> ModelAPI:
        from physeval.models.openai_compat import OpenAICompatibleAPI

        if default_url is None:  # openai/NAME: --base-url, then OPENAI_BASE_URL, then the OpenAI API
            url = base_url or os.environ.get("OPENAI_BASE_URL")
        else:  # a local server never receives the user's OPENAI_API_KEY unless asked (--api-key)
            url = base_url or default_url
            api_key = api_key if api_key is not None else "EMPTY"
        return OpenAICompatibleAPI(name, url, api_key, timeout=timeout)

    return build


# The built-in providers (the OpenAI client is imported only when one is built).
PROVIDERS.register("openai", _openai_compatible(None), origin="physeval")
for _provider, _url in DEFAULT_BASE_URLS.items():
    PROVIDERS.register(_provider, _openai_compatible(_url), origin="physeval")
