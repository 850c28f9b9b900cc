"""Dynamic problems: templates, the seeded variation engine, plain-problem conversion and the answer audit.

The names below load lazily: ``physeval.variation.bank`` (a run of a bank task reading its cached
problems) imports neither the audit nor the plain-problem converter, nor SymPy until a template is built.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_EXPORTS: dict[str, tuple[str, str]] = {
    "Finding": ("audit", "Finding"),
    "audit_problems": ("audit", "audit_problems"),
    "phy_b_consistency": ("audit", "phy_b_consistency"),
    "bank_problems": ("bank", "bank_problems"),
    "load_bank": ("bank", "load_bank"),
    "resolve_template": ("bank", "resolve_template"),
    "vary": ("bank", "vary"),
    "audit_command": ("commands", "audit_command"),
    "vary_command": ("commands", "vary_command"),
    "Variant": ("engine", "Variant"),
    "PlainConstant": ("plain", "Constant"),
    "PlainConversion": ("plain", "PlainConversion"),
    "find_constants": ("plain", "find_constants"),
    "template_from_plain": ("plain", "template_from_plain"),
    "SamplingError": ("sampling", "SamplingError"),
    "load_template": ("solution", "load_template"),
    "Template": ("template", "Template"),
    "TemplateError": ("template", "TemplateError"),
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    entry = _EXPORTS.get(name)
    if entry is None:
        raise AttributeError(f"module 'physeval.variation' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"physeval.variation.{entry[0]}"), entry[1])
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__


if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs
    from physeval.variation.audit import Finding as Finding
    from physeval.variation.audit import audit_problems as audit_problems
    from physeval.variation.audit import phy_b_consistency as phy_b_consistency
    from physeval.variation.bank import bank_problems as bank_problems
    from physeval.variation.bank import load_bank as load_bank
    from physeval.variation.bank import resolve_template as resolve_template
    from physeval.variation.bank import vary as vary
    from physeval.variation.commands import audit_command as audit_command
    from physeval.variation.commands import vary_command as vary_command
    from physeval.variation.engine import Variant as Variant
    from physeval.variation.plain import Constant as PlainConstant  # noqa: F401 - re-exported
    from physeval.variation.plain import PlainConversion as PlainConversion
    from physeval.variation.plain import find_constants as find_constants
    from physeval.variation.plain import template_from_plain as template_from_plain
    from physeval.variation.sampling import SamplingError as SamplingError
    from physeval.variation.solution import load_template as load_template
    from physeval.variation.template import Template as Template
    from physeval.variation.template import TemplateError as TemplateError
