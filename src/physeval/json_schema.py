"""The JSON Schema of a frozen dataclass, read from its type hints and its docstring.

Why: a result type (``summary.json``'s :class:`~physeval.summary.RunSummary`) should have one
definition. Its schema is derived from the dataclass, field by field, so the published schema
cannot drift from the code; each field's description is its line under ``Attributes:``.
"""

from __future__ import annotations

import dataclasses
import re
import types
import typing
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["dataclass_schema"]

_SIMPLE: dict[Any, dict[str, Any]] = {
    int: {"type": "integer"},
    float: {"type": ["number", "null"]},  # a non-finite float is written as null
    str: {"type": "string"},
    bool: {"type": "boolean"},
    type(None): {"type": "null"},
}


def dataclass_schema(cls: type, *, title: str = "", description: str = "") -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of dataclass ``cls`` as its ``to_dict`` form would be
    written: nested dataclasses under ``$defs``, every field required, no other key allowed."""
    defs: dict[str, dict[str, Any]] = {}
    root = _object(cls, defs)
    schema: dict[str, Any] = {"$schema": "https://json-schema.org/draft/2020-12/schema"}
    if title:
        schema["title"] = title
    if description:
        schema["description"] = description
    schema.update(root)
    schema["$defs"] = dict(sorted(defs.items()))
    return schema


def _object(cls: type, defs: dict[str, dict[str, Any]]) -> dict[str, Any]:
    hints = typing.get_type_hints(cls)
    described = _attribute_lines(cls.__doc__ or "")
    properties = {}
    for f in dataclasses.fields(cls):
        prop = _type(hints[f.name], defs)
        if f.name in described:
            prop = {**prop, "description": described[f.name]}
        properties[f.name] = prop
    return {"type": "object", "properties": properties, "required": sorted(properties),
            "additionalProperties": False}


def _type(hint: Any, defs: dict[str, dict[str, Any]]) -> dict[str, Any]:
    if hint in _SIMPLE:
        return dict(_SIMPLE[hint])
    if hint is Any:
        return {}
    if dataclasses.is_dataclass(hint) and isinstance(hint, type):
        if hint.__name__ not in defs:
            defs[hint.__name__] = {}  # a placeholder first: a type may refer to itself
            defs[hint.__name__] = _object(hint, defs)
        return {"$ref": f"#/$defs/{hint.__name__}"}
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is typing.Literal:
        return {"enum": list(args)}
    if origin in (typing.Union, types.UnionType):
        return {"anyOf": [_type(a, defs) for a in args]}
    if origin is not None and isinstance(origin, type):
        if issubclass(origin, Mapping):
            return {"type": "object", "additionalProperties": _type(args[1], defs) if args else {}}
        if issubclass(origin, Sequence) and origin is not str:
            return {"type": "array", "items": _type(args[0], defs) if args else {}}
    raise TypeError(f"no JSON Schema for the type {hint!r}")


_ATTRIBUTE = re.compile(r"^\s{4,8}([A-Za-z_][\w, ]*):\s+(.*)$")


def _attribute_lines(doc: str) -> dict[str, str]:
    """Field name -> description, from a Google-style ``Attributes:`` section (a line naming
    several fields, ``a, b: text``, describes each; continuation lines are joined)."""
    out: dict[str, str] = {}
    if "Attributes:" not in doc:
        return out
    names: list[str] = []
    for line in doc.split("Attributes:", 1)[1].splitlines():
        match = _ATTRIBUTE.match(line)
        if match and line.startswith(" " * 4) and not line.startswith(" " * 12):
            names = [n.strip() for n in match.group(1).split(",")]
            for name in names:
                out[name] = match.group(2).strip()
        elif line.strip() and names:
            for name in names:
                out[name] += " " + line.strip()
        elif not line.strip() and out:
            break
    return {k: " ".join(_ROLE.sub(r"\1", v).replace("``", "").split()) for k, v in out.items()}


_ROLE = re.compile(r":\w+:`~?(?:[\w.]+\.)?([^`]+)`")
