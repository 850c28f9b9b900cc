"""Phy_B problems written in whole nuclei (mids 6, 28, 86): the generators read the released texts to
their answers, and write fresh variants from whole, consistent nuclei -- thorium as Z = 90, a mass
difference that is a multiple of 4, both track ratios from one alpha emitter -- the same for a seed,
with the instruction asking as many figures as the count has digits."""

from __future__ import annotations

import re
from decimal import Decimal
from pathlib import Path

import pytest

from physeval.problems import Problem
from physeval.variation.abench_phy_b import load_phy_b_solutions, phy_b_rows
from physeval.variation.abench_phy_b.fresh import fresh_variants
from physeval.variation.abench_phy_b.generators import ALPHA_EMITTERS, recompute_generated
from physeval.variation.plain import read_instruction

DATA = Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "abench"
SOLUTIONS = load_phy_b_solutions()
NUCLIDE = re.compile(r"\{\}_\{(\d+)\}\^\{(\d+)\}\\mathrm\{(?:\\;)?\{([A-Z][a-z]?)\}\}")


@pytest.fixture(scope="module")
def members() -> dict[str, list[Problem]]:
    if not (DATA / "Phy_B_dynamic_100.csv").is_file():
        pytest.skip("ABench data not present at ../shared/data/abench")
    rows = phy_b_rows(DATA)
    return {mid: [Problem(id=mid, question=r["standard_question"], answer=r["standard_answer"].strip(),
                          variant=r["subid"]) for r in rows[mid]] for mid in ("6", "28", "86")}


def test_texts_written_by_hand() -> None:
    chain = r"当 \( {}_{80}^{232}\mathrm{{Th}} \) 衰变为 \( {}_{82}^{208}\mathrm{\;{Pb}} \)时"  # as ABench writes Th
    assert recompute_generated("alpha_decays", chain) == 6
    assert recompute_generated("beta_decays", chain) == 4  # Z = 90 from the element: 6 alphas reach 78, 4 beta- 82
    odd = chain.replace("{232}", "{230}")
    assert recompute_generated("alpha_decays", odd) is None  # no whole number of alpha decays
    assert recompute_generated("alpha_track_ratios", "轨道半径比为45:1，运动周期比为90:117。") == 146  # U-238
    assert recompute_generated("alpha_track_ratios", "轨道半径比为46:1，运动周期比为90:117。") is None


@pytest.mark.parametrize("mid", ["6", "28", "86"])
def test_fresh_variants_are_whole_nuclei(mid: str, members: dict[str, list[Problem]]) -> None:
    entry = SOLUTIONS[mid]
    fresh = fresh_variants(entry, members[mid], 8, 11)
    assert len({p.question for p in fresh} | {members[mid][0].question}) == 9  # distinct, and not the base
    assert fresh == fresh_variants(entry, members[mid], 8, 11)
    for p in fresh:
        value = recompute_generated(entry.generator, p.question)
        assert value is not None and Decimal(p.meta["value"]) == value and p.answer == str(value)
        instruction = read_instruction(p.question)
        assert instruction is not None and instruction.sig_figs == len(p.answer)  # as many figures as digits
        if mid == "6":
            assert (p.meta["params"]["Z"], p.meta["params"]["A"]) in ALPHA_EMITTERS
        else:
            (z, a, element), (z2, a2, element2) = NUCLIDE.findall(p.question)
            assert (element, z, element2, z2) == ("Th", "90", "Pb", "82")
            assert (int(a) - int(a2)) % 4 == 0 and int(a2) in (204, 206, 207, 208)
