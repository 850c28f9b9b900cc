"""``delete_constant``: a physical constant deleted with its exponent (an emptied group becomes ``1``)."""

from __future__ import annotations

import re

from physeval.probes.latex_structure import enclosing_group_is_only, in_script
from physeval.probes.rules.site import Site

__all__ = ["CONSTANTS", "constant_sites", "delete_constant"]


CONSTANTS: tuple[str, ...] = ("\\hbar", "\\varepsilon_0", "\\varepsilon_{0}", "\\epsilon_0", "\\epsilon_{0}",
                              "\\mu_0", "\\mu_{0}", "k_B", "k_{B}", "k_{\\mathrm{B}}", "N_A", "N_{A}",
                              "h", "c", "G", "g")
"""Physical constants ``delete_constant`` may delete (single letters only as standalone symbols)."""


def delete_constant(math: str, mask: list[bool]) -> list[Site]:
    """Every standalone occurrence of every constant of :data:`CONSTANTS`."""
    found = []
    for const in CONSTANTS:
        for s, e in constant_sites(math, mask, const):
            found.append(Site(f"delete {const}", s, e, "1" if enclosing_group_is_only(math, s, e) else "",
                              token=const))
    return found


def constant_sites(math: str, mask: list[bool], const: str) -> list[tuple[int, int]]:
    """Where ``const`` stands alone as a symbol (with any ``^`` exponent that follows it).

    A command (``\\hbar``) must not run on into a longer name; a single letter must not be part
    of a command name or a ``\\text{}`` argument, sit in a sub- or superscript, or carry a
    subscript or prime of its own (``h_1`` is another symbol). Adjacent letters (``mgh``) are
    separate symbols, as LaTeX math reads them.
    """
    sites: list[tuple[int, int]] = []
    start = 0
    while True:
        pos = math.find(const, start)
        if pos < 0:
            return sites
        start = pos + 1
        end = pos + len(const)
        after = math[end] if end < len(math) else ""
        if const.startswith("\\"):
            if after.isalpha() or (pos > 0 and math[pos - 1] == "\\"):
                continue
        elif mask[pos] or in_script(math, pos) or (pos > 0 and math[pos - 1] == "\\"):
            continue
        if after in ("_", "'"):
            continue
        m = re.match(r"\s*\^\s*(\{[^{}]*\}|[0-9a-zA-Z])", math[end:])
        if m:
            end += m.end()
        sites.append((pos, end))
