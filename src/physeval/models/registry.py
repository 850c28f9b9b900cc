"""Model providers by name: ``--model PROVIDER/NAME`` resolves through this registry.

Why: a new backend should be one registered class, not another branch in an ``if``-chain.
A provider is a :class:`~physeval.models.base.ModelAPI` class whose constructor takes
``(name, *, base_url, api_key, timeout)``; :func:`model_from_spec` wraps it in a
:class:`~physeval.models.retry.RetryingModel`, so it gets retries, backoff, attempt counting and
the preflight for free. Built-in providers are registered here; plugin packages add theirs
through the entry-point group ``physeval.providers`` (each entry point names a provider class,
loaded only when its name is asked for).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from importlib import metadata
from typing import Any, TypeVar

from physeval.errors import OptionError

__all__ = ["register_provider", "provider_names", "get_provider", "ENTRY_POINT_GROUP", "DEFAULT_BASE_URLS"]

ENTRY_POINT_GROUP = "physeval.providers"

DEFAULT_BASE_URLS: dict[str, str] = {
    "vllm": "http://127.0.0.1:8000/v1",
    "sglang": "http://127.0.0.1:30000/v1",
    "ollama": "http://127.0.0.1:11434/v1",
    "llamacpp": "http://127.0.0.1:8080/v1",
}

ProviderFactory = Callable[..., Any]
F = TypeVar("F", bound=ProviderFactory)

_PROVIDERS: dict[str, ProviderFactory] = {}
_LOCK = threading.Lock()
_ENTRY_POINTS_LOADED = False


def register_provider(name: str) -> Callable[[F], F]:
    """Class (or factory) decorator: make ``--model NAME/<model>`` build this provider."""

    def decorate(factory: F) -> F:
        with _LOCK:
            _PROVIDERS[name] = factory
        return factory

    return decorate


def _load_entry_points() -> None:
    global _ENTRY_POINTS_LOADED
    with _LOCK:
        if _ENTRY_POINTS_LOADED:
            return
        _ENTRY_POINTS_LOADED = True
        found = list(metadata.entry_points(group=ENTRY_POINT_GROUP))
    for entry in found:
        if entry.name not in _PROVIDERS:
            _PROVIDERS[entry.name] = _lazy(entry)


def _lazy(entry: metadata.EntryPoint) -> ProviderFactory:
    def build(*args: Any, **kwargs: Any) -> Any:
        return entry.load()(*args, **kwargs)

    return build


def provider_names() -> list[str]:
    """Every registered provider name, sorted."""
    _builtin()
    _load_entry_points()
    return sorted(_PROVIDERS)


def get_provider(name: str) -> ProviderFactory:
    """The provider registered under ``name``; :class:`OptionError` naming the known ones otherwise."""
    _builtin()
    _load_entry_points()
    try:
        return _PROVIDERS[name]
    except KeyError:
        raise OptionError(f"unknown model provider {name!r}: use 'local' or PROVIDER/NAME with PROVIDER one of "
                          f"{', '.join(sorted(_PROVIDERS))}") from None


_BUILTIN_DONE = False


def _builtin() -> None:
    """Register the built-in providers (importing the OpenAI client only when one is built)."""
    global _BUILTIN_DONE
    with _LOCK:
        if _BUILTIN_DONE:
            return
        _BUILTIN_DONE = True
    register_provider("openai")(_openai_compatible(None))
    for provider, url in DEFAULT_BASE_URLS.items():
        register_provider(provider)(_openai_compatible(url))


def _openai_compatible(default_url: str | None) -> ProviderFactory:
    def build(name: str, *, base_url: str | None = None, api_key: str | None = None, timeout: float = 600.0) -> Any:
        from physeval.models.openai_compat import OpenAICompatibleAPI

        if default_url is None:  # openai/NAME: --base-url, then OPENAI_BASE_URL, then the OpenAI API
            url = base_url or os.environ.get("OPENAI_BASE_URL")
        else:  # a local server never receives the user's OPENAI_API_KEY unless asked (--api-key)
            url = base_url or default_url
            api_key = api_key if api_key is not None else "EMPTY"
        return OpenAICompatibleAPI(name, url, api_key, timeout=timeout)

    return build
