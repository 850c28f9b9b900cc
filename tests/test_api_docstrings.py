"""The API pages render each public docstring's Returns section as one unnamed value.

Why: mkdocstrings reads the Google style, where ``Returns:`` lines that start ``WORD:`` name a
returned value and unindented continuation lines start new ones; ``A :class:`NumericGrade`...``
rendered as a value named "A" plus two nameless ones on the API page. The check parses each
docstring with griffe, the parser mkdocstrings uses, with the site's ``docstring_style``.
"""

from __future__ import annotations

import inspect
import logging

import pytest

import physeval

griffe = pytest.importorskip("griffe", reason="griffe (the docs extra) is not installed")


def _public_callables() -> list[tuple[str, object]]:
    found = []
    for name in physeval.__all__:
        obj = getattr(physeval, name)
        found.append((name, obj))
        if inspect.isclass(obj):
            found += [(f"{name}.{m}", v) for m, v in vars(obj).items() if not m.startswith("_") and callable(v)]
    return [(n, o) for n, o in found if callable(o) and inspect.getdoc(o)]


@pytest.mark.parametrize(("name", "obj"), [pytest.param(n, o, id=n) for n, o in _public_callables()])
def test_returns_section_is_one_unnamed_value(name: str, obj: object) -> None:
    logging.getLogger("griffe").setLevel(logging.ERROR)  # missing annotations: the signature has them
    sections = griffe.Docstring(inspect.getdoc(obj) or "", parser=griffe.Parser.google).parse()
    for section in sections:
        if section.kind.value == "returns":
            rendered = [(item.name, item.description) for item in section.value]
            assert len(rendered) == 1 and rendered[0][0] == "", f"{name}: Returns renders as {rendered}"
