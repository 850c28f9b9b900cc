"""The problem bank shipped in the package: ``bank/numeric/*.yaml`` and ``bank/symbolic/*.yaml``.

Why: physeval's own dynamic tasks (``bank-numeric``, ``bank-symbolic``) need problems whose
every variant is provably right and whose text is free of any dataset's. Adding a problem is
adding one YAML file here (plus one test row); this module finds, loads and caches them.
"""

from __future__ import annotations

import difflib
import threading
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from ..errors import DataNotFoundError, UserError
from ..problems import Problem
from .bank_cache import cached_problems
from .template import Template

if TYPE_CHECKING:
    from .engine import Variant

__all__ = ["BANK_DIR", "load_bank", "bank_problems", "build_bank_problems", "resolve_template", "bank_ids", "vary",
           "UnknownTemplateError"]

BANK_DIR = Path(__file__).resolve().parent / "bank"


class UnknownTemplateError(UserError, KeyError):
    """No bank template has this id and no file has this path."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


Kind = Literal["numeric", "symbolic"]


def _check_kind(kind: str) -> None:
    if kind not in ("numeric", "symbolic"):
        raise ValueError(f"bank kind must be 'numeric' or 'symbolic', got {kind!r}")


_LOAD_LOCKS = {"numeric": threading.Lock(), "symbolic": threading.Lock()}
_ONE_LOCK = threading.Lock()


def _load(kind: str) -> tuple[Template, ...]:
    """The bank of ``kind``, loaded and compiled once per process (concurrent first calls wait for it)."""
    with _LOAD_LOCKS[kind]:
        return _load_cached(kind)


@lru_cache(maxsize=2)
def _load_cached(kind: str) -> tuple[Template, ...]:
    from .solution import load_template

    templates = []
    for path in sorted((BANK_DIR / kind).glob("*.yaml")):
        template = load_template(path)
        if template.kind != kind:
            raise ValueError(f"{path}: kind {template.kind!r} does not match its folder bank/{kind}")
        templates.append(template)
    return tuple(templates)


def _load_one(path: str) -> Template:
    """One bank template, loaded once per process (under a lock, so every caller gets the same object)."""
    with _ONE_LOCK:
        return _load_one_cached(path)


@lru_cache(maxsize=256)
def _load_one_cached(path: str) -> Template:
    from .solution import load_template

    return load_template(Path(path))


def load_bank(kind: Kind) -> list[Template]:
    """Every template of the ``numeric`` or ``symbolic`` bank, validated, sorted by id."""
    _check_kind(kind)
    return list(_load(kind))


def bank_ids(kind: Kind) -> list[str]:
    """The ids of the bank's templates (without loading them)."""
    _check_kind(kind)
    return sorted(p.stem for p in (BANK_DIR / kind).glob("*.yaml"))


def resolve_template(ref: str | Path) -> Template:
    """A template from a YAML path, or from the bank by id; a clear error with suggestions otherwise."""
    text = str(ref)
    path = Path(text)
    if text.endswith((".yaml", ".yml")) or path.is_file():
        if not path.is_file():
            raise DataNotFoundError(f"template file not found: {text}")
        from .solution import load_template

        return load_template(path)
    for kind in ("numeric", "symbolic"):
        candidate = BANK_DIR / kind / f"{text}.yaml"
        if candidate.is_file():
            return _load_one(str(candidate))  # only this file: a broken neighbour must not matter
    known = bank_ids("numeric") + bank_ids("symbolic")
    close = difflib.get_close_matches(text, known, n=3)
    hint = f"; did you mean {', '.join(close)}?" if close else f" ({len(known)} bank templates; see docs/templates.md)"
    raise UnknownTemplateError(f"no template file or bank id {text!r}{hint}")


def bank_problems(kind: Kind, *, variants: int = 4, seed: int = 0) -> list[Problem]:
    """The bank as :class:`Problem` records: ``variants`` variants of every template.

    ``Problem.id`` is the template id, ``variant`` is ``"0"``.. and ``answer`` the written
    answer (a rounded number in ABench style, or LaTeX). ``meta`` holds domain, topic, level,
    language and the answer format (numeric: unit, unit_latex, sig_figs, scientific; symbolic:
    dimensions of every symbol and of the answer). A symbolic template with no varying
    parameter contributes its variant 0 only.

    The problems are built once per machine and read back afterwards
    (:mod:`physeval.variation.bank_cache`, keyed by the templates, the code and the arguments).
    """
    _check_kind(kind)
    if variants < 1:
        raise ValueError(f"variants must be at least 1, got {variants}")
    return cached_problems(kind, variants, seed, BANK_DIR / kind, lambda: build_bank_problems(kind, variants, seed))


def build_bank_problems(kind: Kind, variants: int, seed: int) -> list[Problem]:
    """:func:`bank_problems` computed: every template compiled, its variants drawn (seconds of SymPy)."""
    from .engine import vary_template

    problems: list[Problem] = []
    for template in _load(kind):
        count = variants if template.varying else 1
        problems.extend(v.to_problem() for v in vary_template(template, count, seed))
    return problems


def vary(template: Template | str, n: int, seed: int = 0) -> list[Variant]:
    """``n`` variants of ``template`` (a Template, a bank id, or a YAML path) for ``seed``.

    Raises :class:`~physeval.variation.sampling.SamplingError` when the variants cannot be drawn
    within the template's tries, ``ValueError`` when ``n < 1``, and
    :class:`UnknownTemplateError` for an id that is no template. Thread-safe.
    """
    from .engine import vary_template

    return vary_template(template if isinstance(template, Template) else resolve_template(template), n, seed)
