"""The settings of a run: :class:`RunConfig` (sampling, how much to run, orchestration).

Why a room of its own: every step reads it (the plan its ``limit``, ``sample_strategy`` and
``samples``, execution its sampling and concurrency, the record all of it), and none of them
should import another to get it.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Literal

from physeval.errors import OptionError

__all__ = ["RunConfig"]


@dataclass(frozen=True)
class RunConfig:
    """Sampling and orchestration settings of a run (all recorded in ``summary.json``).

    Attributes:
        samples: K samples per problem variant (for avg@K, pass@K, maj@K); at least 1.
        temperature, top_p, max_tokens, stop: Sampling parameters sent to the model.
        seed: Base sampling seed; sample ``s`` is requested with ``seed + s`` (None: no seed sent).
            Problem variation has its own seed (a task option, ``--variant-seed``).
        max_connections: Requests in flight at once.
        limit: Keep only the first N problems (all their variants); at least 1.
        use_cache: Read and write the response cache.
        retry_errors: On resume, retry rows that ended in an error instead of keeping them
            (rows whose grader or judge failed are graded again from their stored completion).
        grade_concurrency: Gradings (renders, judge calls) in flight at once while generation
            goes on (default: twice ``max_connections``).
        max_consecutive_errors: The circuit breaker: stop after this many failed samples in a
            row (model or judge failures; 0 disables it).
        preflight: Check the model (and judges) before the first request.
        extra_body: Further request fields sent as they are (``top_k``, ``min_p``,
            ``chat_template_kwargs``, ``reasoning_effort``...), from ``--model-args``/``--extra-body``.
        sample_strategy: Which ``limit`` problems: the ``first``, a seeded ``random`` choice, or
            ``stratified`` (round-robin over the problems' domain/tag/level/language groups).
        price_in, price_out: Dollars per million prompt / completion tokens, for the cost line.
    """

    samples: int = 1
    temperature: float = 0.0
    top_p: float = 1.0
    max_tokens: int | None = None
    stop: tuple[str, ...] | None = None
    seed: int | None = None
    max_connections: int = 16
    limit: int | None = None
    use_cache: bool = True
    retry_errors: bool = False
    grade_concurrency: int | None = None
    max_consecutive_errors: int = 20
    preflight: bool = True
    extra_body: dict[str, Any] | None = None
    sample_strategy: Literal["first", "random", "stratified"] = "first"
    price_in: float | None = None
    price_out: float | None = None

    def __post_init__(self) -> None:
        if self.samples < 1:
            raise OptionError(f"samples must be at least 1, not {self.samples}")
        if self.limit is not None and self.limit < 1:
            raise OptionError(f"limit must be at least 1 problem, not {self.limit} (leave it out for all problems)")
        if self.max_connections < 1:
            raise OptionError(f"max_connections must be at least 1, not {self.max_connections}")
        if self.max_consecutive_errors < 0:
            raise OptionError("max_consecutive_errors must be 0 (off) or more")

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready settings."""
        data = asdict(self)
        data["stop"] = list(self.stop) if self.stop else None
        return data

    def sampling(self) -> dict[str, Any]:
        """The settings that decide what a sample is (resuming with others is refused)."""
        return {"temperature": self.temperature, "top_p": self.top_p, "max_tokens": self.max_tokens,
                "seed": self.seed, "stop": list(self.stop) if self.stop else None, "extra_body": self.extra_body}
