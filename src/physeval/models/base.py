"""The one model protocol every backend implements, and the Completion it returns.

A model takes chat messages and sampling parameters and returns ``n`` completions. It
knows nothing of physics or runs. Reasoning (a ``reasoning_content`` field or
``<think>...</think>`` spans) is kept apart from the answer text and never graded.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from physeval.errors import ModelError

__all__ = ["Completion", "GenerateConfig", "Model", "ModelAPI", "ModelError", "split_reasoning"]

Message = dict[str, Any]

_THINK = re.compile(r"<think>(.*?)</think>", re.DOTALL | re.IGNORECASE)


@dataclass(frozen=True)
class Completion:
    """One sampled answer.

    Attributes:
        text: The answer text with reasoning removed; this is what graders read.
        reasoning: Reasoning kept apart (a server's ``reasoning_content`` and/or ``<think>``
            spans), or ``None``.
        finish_reason: ``stop``, ``length``, ... as the server reported it.
        usage: Token counts (``prompt_tokens``, ``completion_tokens``) when known.
        latency_s: Seconds from request to response, for the request that produced it.
        raw_text: The text exactly as returned, before ``<think>`` spans were removed.
        attempts: How many requests it took (retries of transient failures included).
    """

    text: str
    reasoning: str | None = None
    finish_reason: str | None = None
    usage: dict[str, int] = field(default_factory=dict)
    latency_s: float = 0.0
    raw_text: str | None = None
    attempts: int = 1


@dataclass(frozen=True)
class GenerateConfig:
    """Sampling parameters of one request; frozen, so it can key a cache and travel between layers.

    Attributes:
        temperature, top_p, max_tokens, seed, stop: As the OpenAI chat API defines them
            (``None`` leaves a parameter to the server).
        extra_body: Further JSON fields sent as they are (``top_k``, ``min_p``,
            ``chat_template_kwargs``...), as ``(key, value)`` pairs so the config stays hashable.
    """

    temperature: float = 0.0
    top_p: float = 1.0
    max_tokens: int | None = None
    seed: int | None = None
    stop: tuple[str, ...] | None = None
    extra_body: tuple[tuple[str, Any], ...] = ()

    @classmethod
    def of(cls, *, temperature: float = 0.0, top_p: float = 1.0, max_tokens: int | None = None,
           seed: int | None = None, stop: list[str] | tuple[str, ...] | None = None,
           extra_body: dict[str, Any] | None = None) -> GenerateConfig:
        """Build from the keyword arguments of :meth:`Model.generate`."""
        return cls(temperature, top_p, max_tokens, seed, tuple(stop) if stop else None,
                   tuple(sorted((extra_body or {}).items())))


@runtime_checkable
class ModelAPI(Protocol):
    """A provider: makes one call and classifies its failure; it never retries.

    Register one with :func:`physeval.models.register_provider` and it gets retries, backoff,
    attempt counting and closing from :class:`physeval.models.RetryingModel` for free.
    """

    @property
    def name(self) -> str:
        """The model's name, as its server knows it."""
        ...

    @property
    def cache_identity(self) -> str:
        """A string that identifies this model and endpoint for the response cache."""
        ...

    async def call(self, messages: list[Message], config: GenerateConfig, n: int) -> list[Completion]:
        """One request for ``n`` completions; raise :class:`ModelError` (``retryable`` set) on failure."""
        ...


@runtime_checkable
class Model(Protocol):
    """What the runner and the judges need from a model backend."""

    @property
    def name(self) -> str:
        """The model's name."""
        ...

    @property
    def cache_identity(self) -> str:
        """A string that identifies this model and endpoint for the response cache."""
        ...

    async def generate(
        self,
        messages: list[Message],
        *,
        n: int = 1,
        temperature: float = 0.0,
        top_p: float = 1.0,
        max_tokens: int | None = None,
        seed: int | None = None,
        stop: list[str] | None = None,
        extra_body: dict[str, Any] | None = None,
    ) -> list[Completion]:
        """Sample ``n`` completions for ``messages``; raise :class:`ModelError` on failure."""
        ...


def split_reasoning(text: str | None, reasoning: str | None = None) -> tuple[str, str | None]:
    """Separate ``<think>`` spans (and an unterminated trailing one) from the answer text.

    Returns ``(answer_text, reasoning_text_or_None)``; a separate ``reasoning`` field from the
    server comes first in the joined reasoning.
    """
    text = text or ""
    parts = [reasoning] if reasoning else []
    parts += [m.strip() for m in _THINK.findall(text)]
    answer = _THINK.sub("", text)
    lower = answer.lower()
    if "</think>" in lower:  # reasoning with only a closing tag (the template opened it)
        cut = lower.rindex("</think>")
        parts.append(answer[:cut].strip())
        answer = answer[cut + len("</think>") :]
    elif "<think>" in lower:  # truncated inside the reasoning
        cut = lower.index("<think>")
        parts.append(answer[cut + len("<think>") :].strip())
        answer = answer[:cut]
    joined = "\n\n".join(p for p in parts if p)
    return answer.strip(), (joined or None)
