"""Bounds on what a parsed expression can become, checked before any exact arithmetic.

An answer is untrusted text: ``10^{10^{10}}``, ``9999999!`` or ``(a+b)^{100000}`` parse in
milliseconds into a tiny SymPy tree, but evaluating, expanding or simplifying that tree
asks for a number with ten billion digits or a polynomial with a hundred thousand terms.
Every reader (the numeric one in :mod:`physeval.answers.quantity` and the LaTeX one in
:mod:`physeval.answers.latex` that ``grade_symbolic`` and ``eed`` use) runs
:func:`check_bounds` on the *unevaluated* parse, before anything is computed, so every
grader answers within a small, machine-independent amount of work.

The check walks the tree once and estimates, from above and in floating point (log space),
three things:

* **digits**: for every numeric subexpression, ``log10 max(|v|, 1/|v|)`` of the value it can
  become (integers, rationals, float exponents, powers, power towers, ``exp``,
  factorials, double factorials, ``Gamma``, binomials, ceilings); free symbols count as
  values of order one, the scale of the equivalence probe's points;
* **degree**: integer exponents on a non-numeric base and numeric arguments of
  combinatorial functions of symbols (``x^{10^{100}}``, ``\\binom{n}{10^7}``);
* **nodes**: the size of the tree itself.

Beyond a bound the result is an explicit :data:`TOO_LARGE` verdict naming the bound; a
caller turns it into the outcome ``too_large`` with that reason. :func:`expanded_terms`
is a second, softer estimate (how many terms ``expand`` would produce) that graders use as
an operation budget for ``simplify``. Nothing here depends on wall-clock time.

The defaults are far above any physics answer: an exact number of 4,000 digits (SymPy and
Python print up to 4,300), an exponent of 1,000 on a symbol, 3,000 nodes.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = [
    "Bounds",
    "BoundCheck",
    "DEFAULT_BOUNDS",
    "TOO_LARGE",
    "BUDGET",
    "check_bounds",
    "expanded_terms",
    "parse_bounded",
]

TOO_LARGE = "too_large"
BUDGET = "budget"

_LOG10_2 = math.log10(2.0)
_LOG10_E = math.log10(math.e)
_SYMBOL_SIZE = 0.5  # a free symbol counts as a value up to 10**0.5 (probe points lie in [0.5, 3])
_INF = float("inf")


@dataclass(frozen=True)
class Bounds:
    """What one expression may become (hashable: it keys caches).

    Attributes:
        max_digits: Largest ``log10 max(|v|, 1/|v|)`` of any numeric subexpression's value.
        max_degree: Largest integer exponent on a non-numeric base, and largest numeric
            argument of a combinatorial function of symbols.
        max_nodes: Largest number of nodes in the parsed tree.
    """

    max_digits: float = 4000.0
    max_degree: int = 1000
    max_nodes: int = 3000


DEFAULT_BOUNDS = Bounds()


@dataclass(frozen=True)
class BoundCheck:
    """The verdict of :func:`check_bounds`.

    Attributes:
        ok: True when the expression is within every bound.
        bound: ``""`` when ok, else the bound that was exceeded: ``digits``, ``degree`` or
            ``nodes``.
        reason: Which subexpression exceeded it, in words (empty when ok).
    """

    ok: bool
    bound: str = ""
    reason: str = ""


_OK = BoundCheck(True)


class _Exceeded(Exception):
    def __init__(self, bound: str, reason: str) -> None:
        super().__init__(reason)
        self.bound = bound
        self.reason = reason


def _short(expr: Any) -> str:
    """A short, safe description of a node (never prints a huge number)."""
    try:
        name = type(expr).__name__
        if getattr(expr, "is_Integer", False) and abs(int(expr)).bit_length() > 64:
            return f"an integer of {int(abs(int(expr)).bit_length() * _LOG10_2) + 1} digits"
        text = str(expr) if _node_count_upto(expr, 20) < 20 else name
    except Exception:  # printing itself may refuse (int str limit); describe by type
        return type(expr).__name__
    return text if len(text) <= 60 else text[:57] + "..."


def _node_count_upto(expr: Any, limit: int) -> int:
    count = 0
    stack = [expr]
    while stack and count < limit:
        node = stack.pop()
        count += 1
        stack.extend(getattr(node, "args", ()))
    return count


def _int_digits(n: int) -> float:
    n = abs(int(n))
    return 0.0 if n <= 1 else math.log10(n)  # math.log10 takes integers of any size


def _estimate_value(size: float) -> float:
    """Upper bound on |v| from a digit size (inf when it does not fit a float)."""
    return 10.0**size if size < 300 else _INF


def _exponent_value(exponent: Any, size: float) -> float:
    """Upper bound on an exponent's magnitude. A Float's size counts its precision's digits (what
    exact arithmetic on it would hold), not its magnitude: ``g^{0.5}`` has a 16-digit Float for its
    exponent, whose value is 0.5, not 10^16 (it was ``too_large``)."""
    import sympy

    if isinstance(exponent, sympy.Float):
        magnitude = abs(float(exponent))
        return magnitude if math.isfinite(magnitude) else _INF
    return _estimate_value(size)


def _factorial_digits(n: float) -> float:
    """log10(n!) for an upper bound ``n`` on the argument (inf when it does not fit a float)."""
    if n == _INF or n > 1e300:
        return _INF
    if n < 2:
        return 0.0
    return math.lgamma(n + 1.0) / math.log(10.0)


_PERIODIC_OR_BOUNDED = frozenset(
    {"sin", "cos", "tanh", "sech", "atan", "acot", "asin", "acos", "sign", "erf", "erfc", "atan2"}
)
_LOGS = frozenset({"log", "ln"})
_COMBINATORIAL = frozenset(
    {
        "factorial", "factorial2", "subfactorial", "gamma", "binomial", "RisingFactorial",
        "FallingFactorial", "fibonacci", "lucas", "bell", "catalan", "harmonic", "bernoulli",
        "euler", "partition", "primorial", "prime", "multinomial", "loggamma", "polygamma",
        "uppergamma", "lowergamma", "beta", "zeta",
    }
)  # fmt: skip


class _Sizer:
    """One walk: digit sizes of numeric nodes, degree and node checks, memoised per node."""

    def __init__(self, bounds: Bounds) -> None:
        self.bounds = bounds
        self.memo: dict[int, tuple[float, bool]] = {}
        self.keep: list[Any] = []  # keep nodes alive so id() keys stay unique

    def check_size(self, size: float, node: Any) -> float:
        if size > self.bounds.max_digits:
            shown = "more than 10^300" if size == _INF or size > 1e300 else f"about {size:.3g}"
            raise _Exceeded(
                "digits",
                f"{_short(node)} has {shown} digits (bound {self.bounds.max_digits:g})",
            )
        return size

    def degree(self, value: float, node: Any, what: str) -> None:
        if value > self.bounds.max_degree:
            shown = "more than 10^300" if value == _INF else f"{value:.4g}"
            raise _Exceeded("degree", f"{what} {shown} in {_short(node)} exceeds the bound {self.bounds.max_degree}")

    def size(self, root: Any) -> tuple[float, bool]:
        """(digit size, has free symbols) of ``root``, iteratively (deep trees do not recurse)."""
        stack: list[tuple[Any, bool]] = [(root, False)]
        nodes = 0
        while stack:
            node, ready = stack.pop()
            key = id(node)
            if key in self.memo:
                continue
            args = getattr(node, "args", ())
            if not ready:
                nodes += 1
                if nodes > self.bounds.max_nodes:
                    raise _Exceeded("nodes", f"the expression has more than {self.bounds.max_nodes} nodes")
                stack.append((node, True))
                stack.extend((a, False) for a in args if id(a) not in self.memo)
                continue
            self.keep.append(node)
            self.memo[key] = self._node(node, [self.memo[id(a)] for a in args])
        return self.memo[id(root)]

    def _node(self, node: Any, kids: list[tuple[float, bool]]) -> tuple[float, bool]:
        size, symbolic = self._raw(node, kids)
        if not symbolic:  # only numbers become exact arithmetic; symbols are probed in floats
            self.check_size(size, node)
        return size, symbolic

    def _raw(self, node: Any, kids: list[tuple[float, bool]]) -> tuple[float, bool]:
        import sympy

        symbolic = any(s for _, s in kids)
        if isinstance(node, sympy.Symbol):
            return _SYMBOL_SIZE, True
        if isinstance(node, sympy.Integer):
            return _int_digits(node.p), False
        if isinstance(node, sympy.Rational):
            return max(_int_digits(node.p), _int_digits(node.q)), False
        if isinstance(node, sympy.Float):
            mantissa, exponent = node._mpf_[1], node._mpf_[2]
            return abs(exponent + int(mantissa).bit_length()) * _LOG10_2 + node._prec * _LOG10_2, False
        if not kids:  # pi, E, I, oo, NumberSymbol, ...
            return 1.0, bool(getattr(node, "free_symbols", ()))
        if isinstance(node, (sympy.Add, sympy.Mul)):
            return sum(k for k, _ in kids), symbolic
        if isinstance(node, sympy.Pow):
            return self._pow(node, kids), symbolic
        name = getattr(getattr(node, "func", None), "__name__", type(node).__name__)
        biggest = max(k for k, _ in kids)
        if name == "exp":
            return _estimate_value(kids[0][0]) * _LOG10_E, kids[0][1]
        if name in _COMBINATORIAL:
            return self._combinatorial(node, name, kids), symbolic
        if name in _PERIODIC_OR_BOUNDED:
            return 2.0, symbolic
        if name in _LOGS:
            return math.log10(max(biggest, 1.0)) + 1.0, symbolic
        return biggest, symbolic

    def _pow(self, node: Any, kids: list[tuple[float, bool]]) -> float:
        (base_size, base_symbolic), (exp_size, exp_symbolic) = kids
        base, exponent = node.args
        if base_symbolic and not exp_symbolic and not base.is_number:
            # x^n, (a+b)^n: the exponent is a polynomial degree (of a root x^(1/n), its numerator)
            degree = float(abs(exponent.p)) if exponent.is_Rational else _exponent_value(exponent, exp_size)
            self.degree(degree, node, "exponent")
        if base.is_number and base in (0, 1, -1):
            return 0.0
        if base_size == 0.0 and not base_symbolic:
            return 0.0
        value = _exponent_value(exponent, exp_size)
        if value == _INF:
            return _INF
        return max(base_size, _SYMBOL_SIZE if base_symbolic else 0.0) * value

    def _combinatorial(self, node: Any, name: str, kids: list[tuple[float, bool]]) -> float:
        args = node.args
        if any(s for _, s in kids):
            # f(n, 10^7) of symbols: expand_func would build a product of 10^7 factors
            for _arg, (size, symbolic) in zip(args, kids):
                if not symbolic:
                    self.degree(_estimate_value(size), node, "argument")
            return max(k for k, _ in kids) * 10.0
        n = _estimate_value(kids[0][0])
        if name in ("binomial", "multinomial"):
            return n * _LOG10_2 + 1.0 if n != _INF else _INF
        if name == "factorial2":
            return _factorial_digits(n) / 2.0 + 1.0
        if name in ("gamma", "uppergamma", "lowergamma"):
            return _factorial_digits(n - 1.0)
        if name in ("loggamma", "harmonic", "zeta", "polygamma"):
            return math.log10(max(n, 1.0)) * 2.0 + 2.0 if n != _INF else _INF
        if name in ("fibonacci", "lucas"):
            return n * 0.21 + 1.0 if n != _INF else _INF
        if name in ("prime", "partition"):
            return math.sqrt(n) * 1.2 + math.log10(max(n, 1.0)) + 2.0 if n != _INF else _INF
        return _factorial_digits(n)  # factorial-like growth


def check_bounds(expr: Any, bounds: Bounds = DEFAULT_BOUNDS) -> BoundCheck:
    """Is ``expr`` (a SymPy tree, ideally unevaluated) within ``bounds``? Never raises.

    Pure bookkeeping on the tree: no SymPy arithmetic, simplification or printing of large
    numbers happens here, so the check itself is linear in the tree's size.
    """
    try:
        _Sizer(bounds).size(expr)
    except _Exceeded as exc:
        return BoundCheck(False, exc.bound, exc.reason)
    except RecursionError:
        return BoundCheck(False, "nodes", "the expression is nested too deeply")
    except Exception as exc:  # an odd node type: the bound cannot be shown, so refuse it
        return BoundCheck(False, "nodes", f"bounds could not be checked: {type(exc).__name__}")
    return _OK


def _small_integer(value: Any, cap: int) -> int | None:
    """``value`` as an int when it is a numeric integer (evaluated or not), at most ``cap``."""
    if value.is_Integer:
        return min(int(value), cap)
    if not value.is_number or not check_bounds(value, Bounds(max_digits=18)).ok:
        return None
    try:
        number = value.doit()
        return min(int(number), cap) if number.is_Integer else None
    except Exception:  # an odd numeric node: not a degree we can read
        return None


def expanded_terms(expr: Any, cap: int = 10**9) -> int:
    """Upper estimate of how many terms ``expand(expr)`` has (capped at ``cap``); never raises.

    A sum adds, a product multiplies, ``(t_1 + ... + t_k)^n`` for a positive integer ``n``
    gives ``binomial(n + k - 1, k - 1)`` times the terms of its summands to the ``n``; other
    nodes count as one term. The exponent may be unevaluated (``10^3``). Used as the operation budget
    in front of ``simplify`` and ``expand``, whose cost grows with this number.
    """
    import sympy

    memo: dict[int, int] = {}
    keep: list[Any] = []
    stack: list[tuple[Any, bool]] = [(expr, False)]
    try:
        while stack:
            node, ready = stack.pop()
            if id(node) in memo:
                continue
            if not ready:
                stack.append((node, True))
                if isinstance(node, (sympy.Add, sympy.Mul, sympy.Pow)):
                    stack.extend((a, False) for a in node.args)
                continue
            keep.append(node)
            if isinstance(node, sympy.Add):
                count = sum(memo[id(a)] for a in node.args)
            elif isinstance(node, sympy.Mul):
                count = 1
                for a in node.args:
                    count = min(cap, count * memo[id(a)])
            elif isinstance(node, sympy.Pow):
                base_terms = memo[id(node.args[0])]
                exponent = node.args[1]
                n = _small_integer(exponent, cap)
                if base_terms > 1 and n is not None and n > 1:
                    k = base_terms
                    count = cap if n * math.log2(k) > 64 else min(cap, math.comb(n + k - 1, k - 1) if k < 64 else k**n)
                else:
                    count = 1
            else:
                count = 1
            memo[id(node)] = min(cap, count)
        return memo[id(expr)]
    except Exception:  # estimation is advisory: an odd tree counts as over any budget
        return cap


# Constructs latex2sympy2_extended evaluates *while* parsing (binomial and Gamma of
# integers): those texts are parsed with evaluation off first, to check the bounds.
_EAGER = re.compile(r"binom|choose|\\Gamma|\\gamma|\\operatorname")


def parse_bounded(parse: Callable[[str], Any], text: str, bounds: Bounds = DEFAULT_BOUNDS) -> tuple[Any, BoundCheck]:
    """``parse(text)`` unless what it would evaluate is beyond ``bounds``.

    Returns ``(expr, check)``; ``expr`` is ``None`` when ``check`` is not ok. Exceptions of
    ``parse`` propagate (the caller reports them as unparseable).
    """
    if _EAGER.search(text):
        import sympy

        try:
            with sympy.evaluate(False):
                lazy = parse(text)
        except Exception:  # the lazy parse is only a look ahead; the real parse decides
            lazy = None
        check = check_bounds(lazy, bounds) if isinstance(lazy, sympy.Basic) else _OK
        if not check.ok:
            return None, check
    expr = parse(text)
    try:
        import sympy

        if not isinstance(expr, sympy.Basic):
            return expr, _OK
    except ImportError:  # pragma: no cover - sympy is a dependency
        return expr, _OK
    check = check_bounds(expr, bounds)
    return (expr, check) if check.ok else (None, check)
