"""The one place model requests are retried: backoff, ``Retry-After``, attempt counts, closing.

Why: providers should only know how to make a call and how to classify its failure (as
inspect_ai splits ``ModelAPI.should_retry`` from the ``Model`` wrapper); retry policy, attempt
accounting and the preflight check then behave the same for every provider, the embedded model
included, and a new provider gets them for free.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from physeval.errors import ModelError
from physeval.models.base import Completion, GenerateConfig, Message, ModelAPI

__all__ = ["RetryPolicy", "RetryingModel"]

T = TypeVar("T")


class RetryPolicy:
    """Bounded exponential backoff with full jitter: attempt k waits U(0, min(cap, base*2^k)).

    A server's ``Retry-After`` (on 429 and 503) raises the wait to what it asked for, up to the cap.
    """

    def __init__(self, max_attempts: int = 5, base_s: float = 0.5, cap_s: float = 30.0):
        self.max_attempts = max(1, max_attempts)
        self.base_s = base_s
        self.cap_s = cap_s

    def delay(self, attempt: int, rng: random.Random) -> float:
        """Seconds to wait before retrying after failed ``attempt`` (1-based)."""
        return rng.uniform(0, min(self.cap_s, self.base_s * 2 ** (attempt - 1)))

    def wait_after(self, error: ModelError, attempt: int, rng: random.Random) -> float:
        """The wait before the next attempt, honouring the server's ``Retry-After``."""
        wait = self.delay(attempt, rng)
        if error.retry_after is not None:
            wait = max(wait, min(error.retry_after, self.cap_s))
        return wait


class RetryingModel:
    """A :class:`~physeval.models.base.Model` made of a provider and a retry policy.

    ``generate`` retries the provider's retryable failures (``ModelError.retryable``) with the
    policy's backoff and records on each completion, and on the final error, how many attempts it
    took. ``preflight`` and ``aclose`` are passed to the provider when it has them.
    """

    def __init__(self, api: ModelAPI, *, retry: RetryPolicy | None = None, seed: int | None = None) -> None:
        self.api = api
        self.retry = retry or RetryPolicy()
        self._rng = random.Random(seed)

    @classmethod
    def around(cls, api: ModelAPI, *, retry: RetryPolicy | None = None) -> RetryingModel:
        """Wrap ``api`` in this class (a subclass keeps its type, whatever its own constructor takes)."""
        model = cls.__new__(cls)
        RetryingModel.__init__(model, api, retry=retry)
        return model

    @property
    def name(self) -> str:
        """The provider's model name."""
        return self.api.name

    @property
    def cache_identity(self) -> str:
        """The provider's identity (model and endpoint)."""
        return self.api.cache_identity

    def __getattr__(self, attribute: str) -> Any:
        # provider facts (base_url, model_path, ...) read through the wrapper
        if attribute == "api":
            raise AttributeError(attribute)
        return getattr(self.api, attribute)

    async def with_retries(self, call: Callable[[], Awaitable[T]]) -> tuple[T, int]:
        """Run ``call`` until it succeeds or fails for good; return its value and the attempts used."""
        attempt = 0
        while True:
            attempt += 1
            try:
                return await call(), attempt
            except ModelError as error:
                error.attempts = attempt
                if not error.retryable or attempt >= self.retry.max_attempts:
                    raise
                await asyncio.sleep(self.retry.wait_after(error, attempt, self._rng))

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
        """Sample ``n`` completions, retrying transient failures; raise ModelError when out of tries."""
        config = GenerateConfig.of(temperature=temperature, top_p=top_p, max_tokens=max_tokens, seed=seed,
                                   stop=stop, extra_body=extra_body)
        completions, attempts = await self.with_retries(lambda: self.api.call(messages, config, n))
        return [_with_attempts(c, attempts) for c in completions]

    async def preflight(self) -> str:
        """The provider's own check (with retries), else one tiny request."""
        check = getattr(self.api, "preflight", None)
        if check is not None:
            result, _ = await self.with_retries(check)
            return str(result)
        await self.generate([{"role": "user", "content": "Reply with the single word OK."}], max_tokens=8)
        return f"{self.name}: answered a test request"

    async def aclose(self) -> None:
        """Close the provider's connections, if it holds any."""
        close = getattr(self.api, "aclose", None)
        if close is not None:
            await close()


def _with_attempts(completion: Completion, attempts: int) -> Completion:
    if completion.attempts == attempts:
        return completion
    from dataclasses import replace

    return replace(completion, attempts=attempts)
