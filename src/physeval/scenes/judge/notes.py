"""Notes on judges whose replies could not be read, so such a run never reads as a model's zero.

A judge reply that no parser can read makes every question false (the protocol's rule), and a
question a reply leaves out counts false too. Both are the judge's failure to answer, not the
program's: :func:`judge_reply_notes` counts them over a run's graded scene samples, for the
summary's notes.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["judge_reply_notes"]


def judge_reply_notes(grades: Iterable[Mapping[str, Any] | None]) -> tuple[str, ...]:
    """The notes for judged samples whose judge replies could not be read, or left questions out.

    ``grades`` are the samples' grade dicts (a scene grade holds its verdict under ``"judge"``).
    """
    verdicts = [g["judge"] for g in grades if g and g.get("judged") and isinstance(g.get("judge"), Mapping)]
    unread = sum(1 for v in verdicts if v.get("outcome") == "unparseable")
    partial = sum(1 for v in verdicts if v.get("outcome") != "unparseable"
                  and any(isinstance(r, Mapping) and r.get("outcome") in ("partial", "unparseable")
                          for r in v.get("judges") or ()))
    notes = []
    if unread:
        notes.append(f"no judge reply could be read for {unread} of {len(verdicts)} judged samples: they count as "
                     "wrong (outcome unparseable), which measures the judge, not the programs; check that --judge "
                     "names a model that answers the verification questions (its replies are kept in samples.sqlite)")
    if partial:
        notes.append(f"in {partial} of {len(verdicts)} judged samples a judge's reply was unreadable or left "
                     "questions unanswered: those questions count false")
    return tuple(notes)
