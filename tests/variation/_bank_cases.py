"""Bank builds for the fresh-process thread test: every template compiled, varied and written."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def cases() -> list[tuple[str, Callable[[], Any]]]:
    """The numeric and the symbolic bank, 2 variants each, as (name, build) pairs."""
    from physeval.variation.bank import bank_problems

    return [(kind, lambda kind=kind: bank_problems(kind, variants=2, seed=11)) for kind in ("numeric", "symbolic")]


def verdict(result: Any) -> Any:
    """Every variant's id, index and written answer."""
    return [[p.id, p.variant, p.answer] for p in result]
