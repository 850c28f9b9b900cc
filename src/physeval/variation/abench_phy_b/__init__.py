"""Solutions for the 100 ABench Phy_B problems: load them, and check them against the released variants.

Why: ABench-Physics' Phy_B set is "dynamic", but its variant engine was never released; only four
fixed variants per problem are public, and some of their answers are wrong. Each ``solutions_*.yaml``
beside this module holds, per problem ``mid``, a formula over the constant names that
:func:`physeval.variation.find_constants` reads from the question (never the question text: the data
is read from ``--data`` at run time), the physical constants it expects, per-parameter ranges that
keep the problem physical, and the outcome of checking it against the four released variants.

Entry fields (a mapping under the mid, as a string)::

    status: varied | static
    solution: "2*pi*A/v_m"          # or a list of "name = expression" steps; SI values
    generator: alpha_decays         # instead of a solution: a problem in whole nuclei (see .generators)
    constants: {g: "9.8 m/s^2"}     # physical constants by name ("VALUE UNIT" or a BUILTIN_CONSTANTS name)
    ranges: {A: [0.01, 0.1]}        # SI bounds per parameter, step name or answer (either bound may be null)
    draws: {c1: [1, 10]}            # SI intervals a parameter is drawn from instead of value +/- perturb
    integers: []                    # parameters drawn as integers
    fixed: []                       # constants of the question kept as written (a stated e or g)
    continuous: []                  # integer-written quantities drawn with decimals (4 s -> 4.3 s)
    vary_coefficients: []           # numbers read as formula coefficients that are data (cos(1.6 pi x))
    answer_unit: "h"                # the answer's unit where a variant's instruction names none
    perturb: 0.5                    # relative half-width of the draws (default 0.3), for few-valued counts
    confirmed: ["0", "1", "2", "3"] # released variants the formula reproduces
    dataset_errors: {"2": {stated: "46.25", recomputed: "48.75", reason: "..."}}  # recomputed as the variant asks
    figure_errors: {"1": {stated: "305.5", recomputed: "305.6", reason: "..."}}   # confirmed, wrong at the figures
    ill_posed: {"2": "no answer satisfies the question: ..."}                     # no recomputed value exists
    static_reason: ""               # why a static problem cannot be varied honestly
    notes: ""

Policy (one for both files): a problem is ``varied`` when its formula is confirmed by at least three
released variants, OR every released variant it does not confirm is a documented dataset error with a
recomputed value or a documented ill-posed text (so fresh variants start from a confirmed or a
corrected variant); otherwise it is ``static`` and says why. A ``recomputed`` value is the exact value
written with the significant figures and the notation the variant's instruction asks
(:func:`written_as_asked`); a confirmed variant (within 1 %) whose stated answer differs from that
writing is a ``figure_errors`` entry. A static entry may still keep a formula and its recorded errors, for the audit.

:func:`load_phy_b_solutions` reads and validates every file; :func:`check_solution` recomputes one
problem's released variants; :func:`convert_variant` gives the template of one released variant.
"""


from __future__ import annotations

from .checking import (
    TEXTBOOK_FIGURES,
    SolutionReport,
    VariantCheck,
    check_solution,
    convert_variant,
    figures_verdict,
    phy_b_rows,
    same_at_asked_figures,
    written_as_asked,
)
from .entries import DatasetError, PhyBSolution, PhyBSolutionError, load_phy_b_solutions

__all__ = [
    "TEXTBOOK_FIGURES",
    "DatasetError",
    "PhyBSolution",
    "PhyBSolutionError",
    "SolutionReport",
    "VariantCheck",
    "check_solution",
    "convert_variant",
    "figures_verdict",
    "load_phy_b_solutions",
    "phy_b_rows",
    "same_at_asked_figures",
    "written_as_asked",
]
