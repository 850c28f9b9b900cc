"""Stage 3, the quality filters: length bounds and near-duplicate removal over the whole set.

Both are pure and cheap, so they run right after ``compose`` (before any checker or question
request is paid for) and over *every* composed scenario at once; the stage is recomputed whole
on each pass, from the records in id order, so its result never depends on how a build was
interrupted. (Malformed model output is the third filter; it lives where replies are read, in
:mod:`physeval.build.calls`.)

* Length: :func:`token_count` counts words and punctuation marks, close to a BPE tokenizer's
  count for English prose; SimuScene's scenarios run 100-350 tokens, the default bounds.
* Near duplicates: `rapidfuzz <https://github.com/rapidfuzz/RapidFuzz>`_'s normalised Indel
  similarity of the word-sorted texts (``fuzz.token_sort_ratio``, 0-100) against every
  scenario kept before it; at or above ``duplicate_threshold`` the later one (by id) goes.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from physeval.build.context import BuildContext, StageReport
from physeval.build.store import Item
from physeval.errors import missing_extra

__all__ = ["filter_stage", "find_near_duplicates", "token_count"]

_TOKEN = re.compile(r"\w+|[^\w\s]")


def token_count(text: str) -> int:
    """Words and punctuation marks in ``text`` (an approximate token count)."""
    return len(_TOKEN.findall(text))


def _normalise(text: str) -> str:
    return " ".join(_TOKEN.findall(text.lower()))


def find_near_duplicates(texts: Sequence[tuple[str, str]], threshold: float) -> dict[str, tuple[str, float]]:
    """For ``(id, text)`` pairs in order: ``{later id: (earlier kept id, similarity)}`` for each text
    at least ``threshold`` similar (0-100) to one kept before it. Needs ``physeval[build]`` (rapidfuzz)."""
    try:
        from rapidfuzz import fuzz, process
    except ImportError as exc:
        raise missing_extra("near-duplicate removal (physeval build)", "build", "rapidfuzz") from exc
    kept_ids: list[str] = []
    kept_texts: list[str] = []
    duplicates: dict[str, tuple[str, float]] = {}
    for rid, text in texts:
        norm = _normalise(text)
        match = process.extractOne(norm, kept_texts, scorer=fuzz.token_sort_ratio, score_cutoff=threshold) \
            if kept_texts else None
        if match is not None:
            _, score, index = match
            duplicates[rid] = (kept_ids[index], round(float(score), 1))
            continue
        kept_ids.append(rid)
        kept_texts.append(norm)
    return duplicates


async def filter_stage(ctx: BuildContext) -> StageReport:
    """Length bounds, then near-duplicate removal among the scenarios within bounds."""
    opts = ctx.options
    records = [i.data for i in ctx.live_items("compose")]
    report = StageReport("filter", total=len(records))
    results: list[Item] = []
    in_bounds: list[dict[str, Any]] = []
    for record in records:
        tokens = token_count(record["scenario"])
        data = {**record, "tokens": tokens}
        if tokens < opts.min_tokens:
            results.append(Item("filter", record["id"], "rejected", data, "too_short",
                                f"{tokens} tokens, fewer than {opts.min_tokens}"))
        elif tokens > opts.max_scenario_tokens:
            results.append(Item("filter", record["id"], "rejected", data, "too_long",
                                f"{tokens} tokens, more than {opts.max_scenario_tokens}"))
        else:
            in_bounds.append(data)
    duplicates = find_near_duplicates([(r["id"], r["scenario"]) for r in in_bounds], opts.duplicate_threshold)
    for data in in_bounds:
        if data["id"] in duplicates:
            other, score = duplicates[data["id"]]
            results.append(Item("filter", data["id"], "rejected", {**data, "duplicate_of": other}, "near_duplicate",
                                f"near duplicate of {other} (similarity {score:g} >= {opts.duplicate_threshold:g})"))
        else:
            results.append(Item("filter", data["id"], "ok", data))
    ctx.store.replace_stage("filter", results)
    report.ok = sum(1 for i in results if i.ok)
    report.rejected = len(results) - report.ok
    return report
