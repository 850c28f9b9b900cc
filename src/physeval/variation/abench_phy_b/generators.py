"""Fresh Phy_B variants the plain converter cannot make: whole nuclei, drawn consistent.

Why: three Phy_B problems are written in nuclei -- mass and charge numbers as LaTeX scripts
(``{}_{80}^{232}\\mathrm{{Th}}``, which the plain reader rightly never reads as data) or as the
track ratios of an alpha decay -- and their answers are counts that only mean something when the
numbers belong to real, consistent nuclei. A generator reads those numbers from the text,
recomputes the answer from them (so the released variants can be checked), and writes a fresh
variant by drawing a whole consistent set and rewriting the text around it, with the instruction's
significant figures set to the digits of the count it asks for. Draws come from
:class:`physeval.variation.sampling.UniformStream` over :func:`~physeval.variation.sampling.derive_key`,
so a seed gives the same variants on every machine.

=====================  ===========================================================================
generator              problem
=====================  ===========================================================================
``alpha_decays``       the number of alpha decays from parent to daughter: (A - A') / 4
``beta_decays``        the number of beta- decays: 2 n_alpha - (Z - Z'), Z from the element (the
                       text's thorium is written Z = 80; it is 90, as the released answer assumes)
``alpha_track_ratios`` the parent's neutron number from the radius and period ratios of the alpha
                       particle and the daughter in one field: Z_d = 2 r_a/r_d, A_d = 2 Z_d T_d/T_a
=====================  ===========================================================================
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal

from ..sampling import UniformStream, derive_key

__all__ = ["GENERATORS", "Generated", "Generator", "generate", "recompute_generated"]

ELEMENT_Z = {"Pb": 82, "Bi": 83, "Po": 84, "Rn": 86, "Ra": 88, "Ac": 89, "Th": 90, "Pa": 91, "U": 92, "Np": 93,
             "Pu": 94, "Am": 95, "Cm": 96, "Cf": 98}
"""Atomic numbers by element symbol: a nuclide's charge comes from its element, not from a typo."""

DAUGHTER_MASSES = (204, 206, 207, 208)
"""Stable lead isotopes, the ends of the decay chains drawn."""

ALPHA_EMITTERS = ((84, 210), (86, 222), (88, 224), (88, 226), (90, 228), (90, 230), (90, 232), (92, 234),
                  (92, 236), (92, 238), (94, 238), (94, 240), (94, 242), (96, 244), (96, 248), (98, 252))
"""(Z, A) of alpha emitters with even Z and A, so both track ratios are whole numbers."""

_NUCLIDE = re.compile(r"\{\}_\{(?P<z>\d+)\}\^\{(?P<a>\d+)\}\\mathrm\{(?P<space>\\;)?\{(?P<el>[A-Z][a-z]?)\}\}")
_FIGURES = re.compile(r"保留(\d+)位有效数字")
_RATIOS = re.compile(r"轨道半径比为(?P<r1>\d+):(?P<r2>\d+)，运动周期比为(?P<t1>\d+):(?P<t2>\d+)")
MAX_DRAWS = 200
"""Draws tried per fresh variant before giving up (an operation budget)."""


@dataclass(frozen=True)
class Generated:
    """One fresh variant: the rewritten question, its answer as asked, the drawn numbers, the value."""

    question: str
    answer: str
    params: dict[str, int]
    value: Decimal


@dataclass(frozen=True)
class Generator:
    """How one kind of problem is read and redrawn."""

    recompute: Callable[[str], Decimal | None]
    draw: Callable[[str, UniformStream], tuple[str, dict[str, int], int] | None]


def _nuclides(question: str) -> list[re.Match[str]]:
    return list(_NUCLIDE.finditer(question))


def _alpha_count(question: str) -> int | None:
    found = _nuclides(question)
    if len(found) != 2:
        return None
    delta = int(found[0]["a"]) - int(found[1]["a"])
    return delta // 4 if delta >= 0 and delta % 4 == 0 else None


def _beta_count(question: str) -> int | None:
    found = _nuclides(question)
    alphas = _alpha_count(question)
    if alphas is None or any(m["el"] not in ELEMENT_Z for m in found):
        return None
    betas = 2 * alphas - (ELEMENT_Z[found[0]["el"]] - ELEMENT_Z[found[1]["el"]])
    return betas if betas >= 0 else None


def _write_nuclide(match: re.Match[str], mass: int) -> str:
    return f"{{}}_{{{ELEMENT_Z[match['el']]}}}^{{{mass}}}\\mathrm{{{match['space'] or ''}{{{match['el']}}}}}"


def _pick(stream: UniformStream, choices: tuple[int, ...] | list[int]) -> int:
    return choices[min(len(choices) - 1, int(stream.random() * len(choices)))]


def _decay_draw(count: Callable[[str], int | None], lowest: int) -> Callable[[str, UniformStream],
                                                                            tuple[str, dict[str, int], int] | None]:
    def draw(question: str, stream: UniformStream) -> tuple[str, dict[str, int], int] | None:
        found = _nuclides(question)
        if len(found) != 2 or found[1]["el"] not in ELEMENT_Z or found[0]["el"] not in ELEMENT_Z:
            return None
        daughter = _pick(stream, DAUGHTER_MASSES)
        alphas = _pick(stream, list(range(lowest, 11)))
        parent = daughter + 4 * alphas
        first, second = found
        text = (question[:first.start()] + _write_nuclide(first, parent) + question[first.end():second.start()]
                + _write_nuclide(second, daughter) + question[second.end():])
        value = count(text)
        return (text, {"A_parent": parent, "A_daughter": daughter}, value) if value is not None else None

    return draw


def _track_neutrons(question: str) -> int | None:
    match = _RATIOS.search(question)
    if match is None:
        return None
    r1, r2, t1, t2 = (int(match[k]) for k in ("r1", "r2", "t1", "t2"))
    # r_a/r_d = q_d/q_a (equal momenta): Z_d = 2 r1/r2; T_a/T_d = (m_a/q_a)/(m_d/q_d): A_d = 2 Z_d t2/t1
    z_num, a_num = 2 * r1, 4 * r1 * t2
    if z_num % r2 or a_num % (r2 * t1):
        return None  # no whole nucleus has these ratios
    z = z_num // r2 + 2
    a = a_num // (r2 * t1) + 4
    return a - z


def _track_draw(question: str, stream: UniformStream) -> tuple[str, dict[str, int], int] | None:
    match = _RATIOS.search(question)
    if match is None:
        return None
    z, a = ALPHA_EMITTERS[_pick(stream, list(range(len(ALPHA_EMITTERS))))]
    ratios = f"轨道半径比为{(z - 2) // 2}:1，运动周期比为{z - 2}:{(a - 4) // 2}"
    text = question[:match.start()] + ratios + question[match.end():]
    return text, {"Z": z, "A": a}, a - z


GENERATORS: dict[str, Generator] = {
    "alpha_decays": Generator(lambda q: _as_decimal(_alpha_count(q)), _decay_draw(_alpha_count, 3)),
    "beta_decays": Generator(lambda q: _as_decimal(_beta_count(q)), _decay_draw(_beta_count, 4)),
    "alpha_track_ratios": Generator(lambda q: _as_decimal(_track_neutrons(q)), _track_draw),
}
"""The generators by the name a solution entry gives in ``generator:``."""


def _as_decimal(value: int | None) -> Decimal | None:
    return None if value is None else Decimal(value)


def recompute_generated(name: str, question: str) -> Decimal | None:
    """The answer generator ``name`` reads from ``question`` (``None`` when no whole nucleus fits)."""
    return GENERATORS[name].recompute(question)


def _with_figures(question: str, value: int) -> str:
    """``question`` asking for as many significant figures as the count has digits."""
    return _FIGURES.sub(f"保留{len(str(abs(value)))}位有效数字", question)


def generate(name: str, question: str, n: int, seed: int, template_id: str) -> list[Generated]:
    """``n`` distinct fresh variants of ``question`` (indices 1..n), none equal to the question itself.

    Raises ValueError when the text is not one the generator reads, or ``n`` distinct variants are
    not found within :data:`MAX_DRAWS` draws each.
    """
    generator = GENERATORS[name]
    seen = {question}
    out: list[Generated] = []
    for index in range(1, n + 1):
        stream = UniformStream(derive_key(seed, template_id, index))
        for _ in range(MAX_DRAWS):
            drawn = generator.draw(question, stream)
            if drawn is None:
                raise ValueError(f"{name}: the question is not one this generator reads")
            text, params, value = drawn
            text = _with_figures(text, value)
            if text not in seen:
                seen.add(text)
                out.append(Generated(text, str(value), params, Decimal(value)))
                break
        else:
            raise ValueError(f"{name}: no new variant {index} in {MAX_DRAWS} draws (seed {seed})")
    return out
