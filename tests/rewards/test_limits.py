"""physeval.rewards.limits.bounded: every string in an answer, however deep, is cut with a marker."""

from __future__ import annotations

import enum

from physeval.rewards.limits import MAX_ECHO_CHARS, bound_text, bounded


def test_every_string_however_deep_is_cut_with_a_marker_saying_how_much() -> None:
    long = "k" * (MAX_ECHO_CHARS + 1000)
    big = enum.StrEnum("Big", {"A": "a" * (MAX_ECHO_CHARS + 7)}).A  # a str subclass is a string too
    out = bounded({long: ["y" * (MAX_ECHO_CHARS + 1), ("z" * MAX_ECHO_CHARS,)], "e": big, "n": 3, "f": None})
    key = "k" * MAX_ECHO_CHARS + "…[1000 more characters cut]"
    assert out == {key: ["y" * MAX_ECHO_CHARS + "…[1 more characters cut]", ["z" * MAX_ECHO_CHARS]],
                   "e": "a" * MAX_ECHO_CHARS + "…[7 more characters cut]", "n": 3, "f": None}
    assert bound_text("short") == "short" and bound_text("abcdef", 4) == "abcd…[2 more characters cut]"
