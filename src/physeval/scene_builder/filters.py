"""Stage 3, the quality filters: length bounds and near-duplicate removal over the whole set.

Both are pure and cheap, so they run right after ``compose`` (before any checker or question
request is paid for) and over *every* composed scenario at once; the stage is recomputed whole
on each pass, from the records in id order, so its result never depends on how a build was
interrupted. (Malformed model output is the third filter; it lives where replies are read, in
:mod:`physeval.scene_builder.calls`.)

* Length: :func:`token_count` counts words and punctuation marks, close to a BPE tokenizer's
  count for English prose; SimuScene's scenarios run 100-350 tokens, the default bounds.
* Near duplicates: `rapidfuzz <https://github.com/rapidfuzz/RapidFuzz>`_'s normalised Indel
  similarity of the word-sorted texts (``fuzz.token_sort_ratio``, 0-100) against every
  scenario kept before it; at or above ``duplicate_threshold`` the later one (by id) goes.
  Comparing every pair costs n^2/2 similarities (about 15 us each for 300-token texts, so
  some eight minutes for SimuScene's 7,659), so candidates come first from a
  `datasketch <https://github.com/ekzhu/datasketch>`_ MinHash LSH index over each text's set
  of words (like the word-sorted similarity, blind to order), and only candidates are scored.
  The index is tuned for Jaccard >= 0.5, where a similarity of 90 keeps far more words shared
  (a test checks it finds what scoring every pair finds); LSH is probabilistic, so a pair far
  below that overlap could in principle be missed.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from physeval.errors import missing_extra
from physeval.scene_builder.context import BuildContext, StageReport
from physeval.scene_builder.store import Item

__all__ = ["filter_stage", "find_near_duplicates", "token_count"]

_TOKEN = re.compile(r"\w+|[^\w\s]")


def token_count(text: str) -> int:
    """Words and punctuation marks in ``text`` (an approximate token count)."""
    return len(_TOKEN.findall(text))


def _normalise(text: str) -> str:
    return " ".join(_TOKEN.findall(text.lower()))


_NUM_PERM = 128
_LSH_JACCARD = 0.5


def find_near_duplicates(texts: Sequence[tuple[str, str]], threshold: float) -> dict[str, tuple[str, float]]:
    """For ``(id, text)`` pairs in order: ``{later id: (earlier kept id, similarity)}`` for each text
    at least ``threshold`` similar (0-100) to one kept before it (the most similar; on a tie the
    first kept). Deterministic (seeded MinHash). Needs ``physeval[build]`` (rapidfuzz, datasketch)."""
    try:
        from rapidfuzz import fuzz
    except ImportError as exc:
        raise missing_extra("near-duplicate removal (physeval build)", "build", "rapidfuzz") from exc
    try:
        from datasketch import MinHash, MinHashLSH
    except ImportError as exc:
        raise missing_extra("near-duplicate removal (physeval build)", "build", "datasketch") from exc
    index = MinHashLSH(threshold=_LSH_JACCARD, num_perm=_NUM_PERM)
    kept: dict[str, tuple[int, str]] = {}  # id -> (position, normalised text)
    duplicates: dict[str, tuple[str, float]] = {}
    for rid, text in texts:
        norm = _normalise(text)
        signature = MinHash(num_perm=_NUM_PERM, seed=1)
        signature.update_batch(sorted(w.encode("utf-8") for w in set(norm.split())))
        best: tuple[float, int, str] | None = None
        for other in index.query(signature):
            position, other_text = kept[other]
            score = fuzz.token_sort_ratio(norm, other_text, score_cutoff=threshold)
            if score and (best is None or (score, -position) > (best[0], -best[1])):
                best = (score, position, other)
        if best is not None:
            duplicates[rid] = (best[2], round(float(best[0]), 1))
            continue
        kept[rid] = (len(kept), norm)
        index.insert(rid, signature)
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
