"""Asking a model for JSON: through the response cache, recorded in the build store, bounded retries.

Every model request of a build goes through :meth:`JsonCaller.ask`:

1. the request is looked up in the shared :class:`~physeval.cache.ResponseCache` (keyed by the
   model's identity, the messages and the sampling parameters, the seed included); only a miss
   reaches the model, and its reply is cached at once, so a killed build never pays twice for a
   reply it received;
2. the reply is parsed against the stage's schema (:func:`~physeval.scene_builder.schemas.parse_reply`)
   and recorded in the build store, usable or not;
3. an unusable reply is sent back with the reason (the ``repair`` prompt) and asked again, at
   most ``reply_attempts`` times in all; then the record is rejected with the last reply kept.

With ``json_mode`` the requests also ask the server for a JSON object (``response_format``,
which OpenAI, vLLM and SGLang honour); the schema check stays, since no server promises the
fields.

Transport failures (429, 5xx, dropped connections) are retried below this, by
:class:`~physeval.models.RetryingModel`; a request that still fails raises
:class:`~physeval.errors.ModelError` to the stage, which leaves that record unfinished so a
rerun asks again. The seed sent with each request is derived from the build seed and the
request's place (stage, record, round, attempt), never from the order requests happen to run in.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from pydantic import BaseModel

from physeval.cache import ResponseCache, cache_key
from physeval.models.base import Completion, Model
from physeval.scene_builder.prompts import Prompts
from physeval.scene_builder.schemas import parse_reply
from physeval.scene_builder.store import BuildStore

__all__ = ["Asked", "CachedModel", "JsonCaller", "Role", "derived_seed"]

S = TypeVar("S", bound=BaseModel)


@dataclass(frozen=True)
class Role:
    """A model in one job of the build (generator, checker, reviewer, solver) with its sampling."""

    name: str
    model: Model
    temperature: float = 0.0
    max_tokens: int | None = None


@dataclass(frozen=True)
class Asked(Generic[S]):
    """What a model's answer came to: the parsed object, or why there is none, and the last reply."""

    value: S | None
    reply: str | None
    reason: str
    attempts: int

    @property
    def ok(self) -> bool:
        """Whether a usable object came back."""
        return self.value is not None


def derived_seed(seed: int, *parts: object) -> int:
    """A 31-bit seed from the build seed and a request's place in the build."""
    text = "|".join([str(seed), *map(str, parts)])
    return int(hashlib.sha256(text.encode("utf-8")).hexdigest()[:8], 16) & 0x7FFFFFFF


class JsonCaller:
    """Asks models for schema-checked JSON; counts requests and cache hits per stage."""

    def __init__(self, store: BuildStore, cache: ResponseCache | None, prompts: Prompts, *, seed: int = 0,
                 reply_attempts: int = 3, json_mode: bool = False) -> None:
        self.store = store
        self.extra_body = {"response_format": {"type": "json_object"}} if json_mode else None
        self.cache = cache
        self.prompts = prompts
        self.seed = seed
        self.reply_attempts = max(1, reply_attempts)
        self.requests: Counter[str] = Counter()
        self.cache_hits: Counter[str] = Counter()

    async def ask(self, role: Role, schema: type[S], *, stage: str, key: str, prompt: str,
                  round: int = 0) -> Asked[S]:
        """Ask ``role`` with ``prompt`` until a reply fits ``schema`` or the attempts run out."""
        messages: list[dict[str, Any]] = [{"role": "user", "content": prompt}]
        reply: str | None = None
        reason = ""
        for attempt in range(self.reply_attempts):
            completion, cached = await self.complete(role, messages, stage=stage, extra_body=self.extra_body,
                                                     seed=derived_seed(self.seed, stage, key, round, attempt))
            reply = completion.text
            value, reason = parse_reply(reply, schema)
            self.store.record_call(stage=stage, key=key, round=round, attempt=attempt, model=role.model.name,
                                   messages=messages, reply=reply, reasoning=completion.reasoning,
                                   ok=value is not None, error=reason or None, cached=cached)
            if value is not None:
                return Asked(value, reply, "", attempt + 1)
            messages = messages + [{"role": "assistant", "content": reply},
                                   {"role": "user", "content": self.prompts.render("repair", error=reason)}]
        return Asked(None, reply, f"no usable reply in {self.reply_attempts} attempts: {reason}",
                     self.reply_attempts)

    async def complete(self, role: Role, messages: list[dict[str, Any]], *, stage: str, seed: int | None,
                       sample: int = 0, top_p: float = 1.0,
                       extra_body: dict[str, Any] | None = None) -> tuple[Completion, bool]:
        """One completion for ``messages`` from the cache or the model; ``(completion, was_cached)``."""
        params: dict[str, Any] = {"temperature": role.temperature, "top_p": top_p, "max_tokens": role.max_tokens,
                                  "seed": seed}
        if extra_body:
            params["extra_body"] = extra_body
        key = cache_key(role.model.cache_identity, messages, params, sample)
        if self.cache is not None:
            hit = self.cache.get(key)
            if hit is not None:
                self.cache_hits[stage] += 1
                return hit, True
        self.requests[stage] += 1
        completion = (await role.model.generate(messages, n=1, **params))[0]
        if self.cache is not None:
            self.cache.put(key, completion)
        return completion, False


class CachedModel:
    """A :class:`~physeval.models.base.Model` whose replies go through the response cache.

    For models the build does not call itself (the judges, which :func:`physeval.scenes.judge.judge_video`
    asks): a repeated request is answered from the cache and counted as a hit of ``stage``.
    Failures are not cached.
    """

    def __init__(self, model: Model, caller: JsonCaller, stage: str) -> None:
        self.model = model
        self.name = model.name
        self.caller = caller
        self.stage = stage

    @property
    def cache_identity(self) -> str:
        """The wrapped model's identity."""
        return self.model.cache_identity

    async def generate(self, messages: list[dict[str, Any]], *, n: int = 1, temperature: float = 0.0,
                       top_p: float = 1.0, max_tokens: int | None = None, seed: int | None = None,
                       stop: list[str] | None = None, extra_body: dict[str, Any] | None = None) -> list[Completion]:
        """One completion, from the cache when it holds this request (several, or stop strings: uncached)."""
        if n != 1 or stop:
            return await self.model.generate(messages, n=n, temperature=temperature, top_p=top_p,
                                             max_tokens=max_tokens, seed=seed, stop=stop, extra_body=extra_body)
        role = Role(self.stage, self.model, temperature, max_tokens)
        completion, _ = await self.caller.complete(role, messages, stage=self.stage, seed=seed, top_p=top_p,
                                                   extra_body=extra_body)
        return [completion]
