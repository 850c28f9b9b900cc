"""The one pint ``UnitRegistry`` of physeval: exact magnitudes, offset units, physeval's additions.

Why one: units from two registries cannot be combined (pint raises "different registries"),
and registries built with different settings disagree in small ways; the answer reader, the
numeric grader, the template engine and the dimension check all use this one. Settings:

* ``non_int_type=Fraction``: magnitudes are exact, so ``km -> m`` is exactly 1000, ``degF ->
  degC`` exactly 5/9 and a template's SI factors carry no binary rounding;
* ``autoconvert_offset_to_baseunit=True``: ``degC``/``degF`` quantities convert with their
  offsets, and inside compound units they count as temperature differences;
* definitions pint lacks: ``cmHg``.

Built once, on first use (importing pint and building the registry takes ~0.3 s, so ``import
physeval`` never does it), under a lock: concurrent first calls from grading threads all get
the same object.
"""

from __future__ import annotations

import threading
from fractions import Fraction
from typing import Any

__all__ = ["DEFINITIONS", "registry"]

DEFINITIONS = ("cmHg = 10 * mmHg",)
"""Units physeval adds to pint's defaults."""

_REGISTRY: Any = None
_LOCK = threading.Lock()


def registry() -> Any:
    """The shared pint registry (double-checked locking; built once per process)."""
    global _REGISTRY
    if _REGISTRY is None:
        with _LOCK:
            if _REGISTRY is None:
                import pint

                ureg: Any = pint.UnitRegistry(non_int_type=Fraction, autoconvert_offset_to_baseunit=True)
                for definition in DEFINITIONS:
                    ureg.define(definition)
                _format_exact_exponents(ureg)
                _REGISTRY = ureg
    return _REGISTRY


def _plain_exponent(exponent: Any) -> Any:
    if isinstance(exponent, Fraction):
        return int(exponent) if exponent.denominator == 1 else float(exponent)
    return exponent


def _plain_exponents(unit: Any) -> Any:
    """``unit`` (a Unit, a UnitsContainer or ``(name, exponent)`` items) with int/float exponents."""
    from pint.util import UnitsContainer

    container = getattr(unit, "_units", unit)
    if isinstance(container, UnitsContainer):
        return UnitsContainer({name: _plain_exponent(exp) for name, exp in container.items()})
    if isinstance(unit, str):
        return unit
    try:
        return [(name, _plain_exponent(exp)) for name, exp in unit]
    except (TypeError, ValueError):
        return unit


def _format_exact_exponents(ureg: Any) -> None:
    """Let the registry's formatters show ``Fraction`` exponents (``m ** 2``; pint fails on Python 3.11).

    pint writes exponents with ``"{:n}".format``, which ``Fraction`` does not support before
    Python 3.12. Every formatter of this registry (and only this one) receives whole exponents
    as ``int`` and others as ``float``, as a float registry would have them, so ``str(unit)``,
    ``f"{unit:~}"`` and quantities read as they always did.
    """
    full = ureg.formatter
    for fmt in (full, *getattr(full, "_formatters", {}).values()):
        original = fmt.format_unit

        def format_unit(unit: Any, *args: Any, _original: Any = original, **kwargs: Any) -> str:
            return _original(_plain_exponents(unit), *args, **kwargs)

        fmt.format_unit = format_unit
