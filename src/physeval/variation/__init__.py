"""Dynamic problems: templates, the seeded variation engine, plain-problem conversion and the answer audit."""

from .audit import Finding, audit_problems, phy_b_consistency
from .bank import bank_problems, load_bank, resolve_template, vary
from .commands import audit_command, vary_command
from .engine import Variant
from .plain import Constant as PlainConstant
from .plain import PlainConversion, find_constants, template_from_plain
from .sampling import SamplingError
from .solution import load_template
from .template import Template, TemplateError

__all__ = [
    "Template",
    "TemplateError",
    "load_template",
    "Variant",
    "vary",
    "SamplingError",
    "load_bank",
    "bank_problems",
    "resolve_template",
    "find_constants",
    "template_from_plain",
    "PlainConversion",
    "PlainConstant",
    "Finding",
    "audit_problems",
    "phy_b_consistency",
    "vary_command",
    "audit_command",
]
