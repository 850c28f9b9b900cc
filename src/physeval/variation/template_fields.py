"""Checks of one template field: a number, an integer, a flag, a name, a unit; errors are collected.

Every error of a file is gathered in one :class:`FieldErrors` (with the field's path,
``parameters.v0.range``) and reported together, so a template's author sees them all at once.
"""

from __future__ import annotations

import keyword
import re
from decimal import Decimal, InvalidOperation
from typing import Any

from physeval.units import UnitError, unit_dimension, unit_to_si

__all__ = ["FieldErrors", "check_name", "check_unit", "read_bool", "read_decimal", "read_int"]

_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")


_RESERVED = {
    "answer", "pi", "sqrt", "cbrt", "root", "sin", "cos", "tan", "cot", "sec", "csc", "asin",
    "acos", "atan", "atan2", "acot", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "exp",
    "log", "ln", "Abs", "Min", "Max", "sign", "erf", "Rational", "Integer", "Float", "Symbol",
    "oo",
}


class FieldErrors:
    """Every (field path, message) wrong in one file, in the order found."""

    def __init__(self) -> None:
        self.items: list[tuple[str, str]] = []

    def add(self, where: str, message: str) -> None:
        """Record that the field at ``where`` is wrong, and why."""
        self.items.append((where, message))


def read_decimal(raw: Any, where: str, errors: FieldErrors) -> Decimal | None:
    """``raw`` as an exact finite decimal, or ``None`` (the error recorded)."""
    if isinstance(raw, bool) or raw is None or isinstance(raw, (list, dict)):
        errors.add(where, f"expected a number (preferably quoted, e.g. \"9.81\"), got {raw!r}")
        return None
    try:
        value = Decimal(str(raw).strip())
    except (InvalidOperation, ValueError):
        errors.add(where, f"not a number: {raw!r}")
        return None
    if not value.is_finite():
        errors.add(where, f"not a finite number: {raw!r}")
        return None
    return value


def read_int(raw: Any, where: str, errors: FieldErrors, low: int, high: int) -> int | None:
    """``raw`` as an integer in ``[low, high]``, or ``None`` (the error recorded)."""
    if isinstance(raw, bool) or not isinstance(raw, int) or not low <= raw <= high:
        errors.add(where, f"expected an integer from {low} to {high}, got {raw!r}")
        return None
    return raw


def read_bool(raw: Any, where: str, errors: FieldErrors) -> bool:
    """``raw`` as a flag (``False`` and the error recorded when it is not one)."""
    if not isinstance(raw, bool):
        errors.add(where, f"expected true or false, got {raw!r}")
        return False
    return raw


def check_name(name: Any, where: str, errors: FieldErrors) -> bool:
    """Whether ``name`` may name a parameter or constant (an identifier, not reserved)."""
    if not isinstance(name, str) or not _NAME.match(name):
        errors.add(where, f"name {name!r} must be an identifier (letters, digits, _; starting with a letter)")
        return False
    if keyword.iskeyword(name) or name in _RESERVED:
        errors.add(where, f"name {name!r} is reserved (Python keyword or a function/constant of the solution language)")
        return False
    return True


def check_unit(unit: Any, where: str, errors: FieldErrors) -> str:
    """``unit`` when pint reads it (``""`` for none, or after recording the error)."""
    if unit is None:
        return ""
    if not isinstance(unit, str):
        errors.add(where, f"expected a pint unit string such as 'm/s**2', got {unit!r}")
        return ""
    try:
        unit_to_si(unit)
        unit_dimension(unit)
    except UnitError as exc:
        errors.add(where, str(exc))
        return ""
    return unit.strip()
