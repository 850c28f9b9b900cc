"""Typed task options: each task declares a frozen dataclass; raw values are checked against it.

Why: options used to be a free dict read with ``options.get(k) or default``, so ``rel_tol=0``
silently became 0.01 and a misspelt option was ignored. Now a task declares ``Options`` (a
frozen dataclass whose fields carry their help text), :func:`parse_options` rejects unknown keys
(suggesting the closest name) and values of the wrong type, and coerces the strings of the
command line (``-T rel_tol=0.02``) by the field's type. Options are hashable, so they can key
caches, and the command line's flags are generated from them.
"""

from __future__ import annotations

import dataclasses
import difflib
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Union, get_args, get_origin

from physeval.errors import OptionError

__all__ = ["TaskOptions", "option", "parse_options", "option_fields", "coerce", "describe_type"]


def option(default: Any = None, help: str = "", **metadata: Any) -> Any:  # noqa: A002 - argparse's word
    """A dataclass field with ``help`` text for ``--help`` and ``physeval tasks``."""
    return field(default=default, metadata={"help": help, **metadata})


@dataclass(frozen=True)
class TaskOptions:
    """Options every task takes: where its data is, and a prompt template file."""

    data: str | None = option(None, "dataset file or folder (tasks that need one)")
    prompt_file: str | None = option(None, "prompt template file with a {question} placeholder")
    system_prompt: str | None = option(None, "a system message (text, or a file holding it) sent before the question")
    fewshot: int = option(0, "worked examples shown before each question (tasks with a few-shot pool)")
    metrics: tuple[str, ...] = option((), "registered metrics to add to the summary (plugins add theirs; "
                                          "physeval.metrics.register_metric)")


def option_fields(cls: type[TaskOptions]) -> list[tuple[dataclasses.Field[Any], Any]]:
    """Every field of an options class with its resolved type."""
    hints = typing.get_type_hints(cls)
    return [(f, hints[f.name]) for f in dataclasses.fields(cls)]


def parse_options(cls: type[TaskOptions], raw: Mapping[str, Any], *, task: str = "task") -> TaskOptions:
    """An instance of ``cls`` from ``raw`` (``None`` values mean "not given").

    Raises :class:`OptionError` for an unknown key (naming the closest known one) or a value
    that does not fit the field's type.
    """
    known = {f.name: hint for f, hint in option_fields(cls)}
    values: dict[str, Any] = {}
    for key, value in raw.items():
        name = key.replace("-", "_")
        if name not in known:
            close = difflib.get_close_matches(name, list(known), n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise OptionError(f"{task} has no option {key!r}{hint} (its options: {', '.join(sorted(known))})")
        if value is None:
            continue
        try:
            values[name] = coerce(value, known[name])
        except (TypeError, ValueError) as exc:
            raise OptionError(f"{task}: option {name}={value!r}: {exc}") from None
    return cls(**values)


def coerce(value: Any, hint: Any) -> Any:
    """``value`` as type ``hint`` (strings from the command line are parsed); TypeError if it cannot be."""
    origin = get_origin(hint)
    if origin in (Union, types.UnionType):
        options = get_args(hint)
        if value is None and type(None) in options:
            return None
        errors = []
        for option_type in (o for o in options if o is not type(None)):
            try:
                return coerce(value, option_type)
            except (TypeError, ValueError) as exc:
                errors.append(str(exc))
        raise TypeError("; ".join(errors) or f"expected {describe_type(hint)}")
    if origin is Literal:
        allowed = get_args(hint)
        if value in allowed:
            return value
        raise ValueError(f"must be one of {', '.join(repr(a) for a in allowed)}")
    if origin is tuple:
        item = get_args(hint)[0] if get_args(hint) else str
        if isinstance(value, str):
            value = [v.strip() for v in value.split(",") if v.strip()]
        if not isinstance(value, (list, tuple)):
            raise TypeError(f"expected a list, not {type(value).__name__}")
        return tuple(coerce(v, item) for v in value)
    if hint is bool:
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.lower() in ("1", "true", "yes", "on"):
            return True
        if isinstance(value, str) and value.lower() in ("0", "false", "no", "off"):
            return False
        raise TypeError(f"expected true or false, not {value!r}")
    if hint is int:
        if isinstance(value, bool):
            raise TypeError("expected an integer, not a boolean")
        if isinstance(value, int):
            return value
        if isinstance(value, str):
            return int(value)
        raise TypeError(f"expected an integer, not {type(value).__name__}")
    if hint is float:
        if isinstance(value, bool):
            raise TypeError("expected a number, not a boolean")
        if isinstance(value, (int, float)):
            return float(value)
        if isinstance(value, str):
            return float(value)
        raise TypeError(f"expected a number, not {type(value).__name__}")
    if hint is str:
        if isinstance(value, str):
            return value
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return str(value)
        if hasattr(value, "__fspath__"):
            return str(value)
        raise TypeError(f"expected text, not {type(value).__name__}")
    if hint is Any:
        return value
    raise TypeError(f"unsupported option type {describe_type(hint)}")


def describe_type(hint: Any) -> str:
    """A short human name for an option type (for ``--help``)."""
    origin = get_origin(hint)
    if origin in (Union, types.UnionType):
        return " | ".join(describe_type(a) for a in get_args(hint) if a is not type(None))
    if origin is Literal:
        return "|".join(str(a) for a in get_args(hint))
    if origin is tuple:
        return f"list of {describe_type(get_args(hint)[0])}"
    return getattr(hint, "__name__", str(hint))
