"""A fast reader for the LaTeX that models write, giving latex2sympy2's SymPy tree node for node.

``latex2sympy2_extended`` parses with an ANTLR grammar whose prediction tables are built afresh
in every process: a cold parse costs about a third of a second, most of a cold EED run. This
module reads the common subset of that grammar -- sums, products (explicit and implicit),
quotients, powers, sub- and superscripts, ``\\frac``, ``\\sqrt``, the elementary functions,
``e^x``, absolute values, groups, letters, Greek letters and accents, numbers -- by recursive
descent, and builds the expression with *the same SymPy constructor calls in the same order* as
latex2sympy2's converter, so ``srepr`` is identical (``tests/answers/test_latex_fast.py``
checks every PHYBench answer, reference and solution step, the texts of the tests and of
``bench/``, and generated expressions).

Anything outside the subset -- relations, commas, sets, matrices, integrals, sums, limits,
derivatives, ``\\operatorname``, multi-letter name tokens, unicode, a construct whose reading
depends on ANTLR's ambiguity resolution in a way not mirrored here -- raises :class:`Outside`,
and the caller parses the text with latex2sympy2 instead. A syntax error is also
:class:`Outside`, so the error messages stay latex2sympy2's. The reader never accepts a text the
grammar rejects.

Two dialects: ``"1.11"`` reads like latex2sympy2_extended 1.11 (``\\%`` as an unevaluated 1/100;
``\\gamma`` and ``\\Gamma`` are left to latex2sympy2); ``"1.10"`` like 1.10.2, the version the
PHYBench pipeline pins (``\\gamma`` and ``\\Gamma`` are Greek letters, plain symbols), which is
what ``compat="phybench"`` needs.

The tokens (the lexer and the look-ahead over them) are :mod:`physeval.answers.latex_tokens`;
this module is the parser.
"""

from __future__ import annotations

from typing import Any

from physeval.answers.latex_tokens import ATOMS as _ATOMS
from physeval.answers.latex_tokens import DIALECTS, Outside, Token, closing, is_call
from physeval.answers.latex_tokens import tokens as _lex

__all__ = ["Outside", "parse_fast", "DIALECTS"]


_STARTS = frozenset({"LETTER", "GREEK", "OTHER", "ACCENT", "NUMBER", "E_NOTATION", "PERCENT", "E", "DIFFERENTIAL",
                     "INFTY", "(", "[", "{", "|", "FRAC"})
_STARTS_FUNC = _STARTS | {"FUNC", "SQRT", "EXP_E"}
_ARC = {"arcsin": "asin", "arccos": "acos", "arctan": "atan", "arccsc": "acsc", "arcsec": "asec", "arccot": "acot"}
_AR_HYPERBOLIC = {"arsinh": "asinh", "arcosh": "acosh", "artanh": "atanh", "arcsinh": "asinh", "arccosh": "acosh",
                  "arctanh": "atanh"}


class _Parser:
    """Recursive descent over the tokens; each method mirrors one rule of latex2sympy2's grammar
    and the converter method that reads it."""

    def __init__(self, tokens: list[Token], dialect: str) -> None:
        import sympy

        self.sp = sympy
        self.t = tokens
        self.i = 0
        self.dialect = dialect
        self.in_bars = 0

    # -- helpers
    def peek(self, k: int = 0) -> str:
        j = self.i + k
        return self.t[j].kind if j < len(self.t) else "EOF"

    def take(self, kind: str) -> Token:
        if self.peek() != kind:
            raise Outside(f"expected {kind}, found {self.peek()}")
        self.i += 1
        return self.t[self.i - 1]

    def text_of(self, start: int, stop: int) -> str:
        """ANTLR's ``getText()`` of a rule: its tokens' texts, skipped ones left out."""
        return "".join(tok.text for tok in self.t[start:stop])

    def mul_flat(self, lh: Any, rh: Any) -> Any:
        lm = getattr(lh, "is_Mul", False)
        rm = getattr(rh, "is_Mul", False)
        if lm or rm:
            args = (list(lh.args) if lm else [lh]) + (list(rh.args) if rm else [rh])
            return self.sp.Mul(*args, evaluate=False)
        return self.sp.Mul(lh, rh, evaluate=False)

    def add_flat(self, lh: Any, rh: Any) -> Any:
        la = getattr(lh, "is_Add", False)
        ra = getattr(rh, "is_Add", False)
        if la or ra:
            args = (list(lh.args) if la else [lh]) + (list(rh.args) if ra else [rh])
            return self.sp.Add(*args, evaluate=False)
        return self.sp.Add(lh, rh, evaluate=False)

    def symbol(self, text: str) -> Any:
        """latex2sympy2's ``get_symbol`` (no lowercasing, ``is_real=None``)."""
        letter = text.strip()
        if letter.startswith("\\"):
            letter = letter[1:]
        if letter == "pi":
            return self.sp.pi
        if letter in ("gamma", "Gamma") and self.dialect != "1.10":
            return self.sp.EulerGamma
        return self.sp.Symbol(letter, real=None)

    # -- expr, additive, mp, unary
    def expr(self) -> Any:
        left = self.mp(nofunc=False)
        while self.peek() in ("ADD", "SUB"):
            op = self.take(self.peek()).kind
            right = self.mp(nofunc=False)
            if op == "ADD":
                left = self.add_flat(left, right)
            else:
                right = -right if right.func.is_Number else self.mul_flat(-1, right)
                left = self.add_flat(left, right)
        return left

    def mp(self, nofunc: bool) -> Any:
        left = self.unary(nofunc)
        while self.peek() in ("MUL", "DIV"):
            op = self.take(self.peek()).kind
            right = self.unary(nofunc)
            if op == "MUL":
                left = self.mul_flat(left, right)
            elif getattr(left, "is_Integer", False) and getattr(right, "is_Integer", False):
                left = self.sp.Rational(left, right)
            else:
                left = self.sp.Mul(left, self.sp.Pow(right, -1, evaluate=False), evaluate=False)
        return left

    def unary(self, nofunc: bool) -> Any:
        kind = self.peek()
        if kind == "ADD":
            self.i += 1
            return self.unary(nofunc)
        if kind == "SUB":
            self.i += 1
            value = self.unary(nofunc)
            if value.func.is_Number or getattr(value, "is_Number", False):
                return -value
            return self.mul_flat(-1, value)
        items = [self.postfix(allow_func=True)]
        starts = _STARTS if nofunc else _STARTS_FUNC
        while self.peek() in starts and not (self.peek() == "|" and self.in_bars):
            items.append(self.postfix(allow_func=not nofunc))
        return self.postfix_list(items)

    def postfix_list(self, items: list[Any]) -> Any:
        res = items[0]
        if not isinstance(res, self.sp.Expr):
            raise Outside("not an expression")
        if len(items) == 1:
            return res
        rh = self.postfix_list(items[1:])
        if (getattr(res, "is_Integer", False) and getattr(rh, "is_Rational", False) and rh.p > 0 and rh.q > 0):
            if res < 0:
                return self.sp.Rational(res * rh.q - rh.p, rh.q)
            return self.sp.Rational(res * rh.q + rh.p, rh.q)
        return self.mul_flat(res, rh)

    def postfix(self, allow_func: bool) -> Any:
        value = self.exp(allow_func)
        while self.peek() == "!":
            self.i += 1
            value = self.sp.factorial(value, evaluate=False)
        return value

    # -- exp, comp
    def exp(self, allow_func: bool) -> Any:
        base = self.comp(allow_func)
        while self.peek() == "^":
            self.i += 1
            exponent = self.superscript_body()
            if self.peek() == "_":
                self.subscript_text()  # read and ignored, as latex2sympy2 does
            base = self.sp.Pow(base, exponent, evaluate=False)
        return base

    def superscript_body(self, inner_sub: bool = True) -> Any:
        """``supexpr`` after its caret: an atom or a braced expression."""
        if self.peek() == "{":
            self.i += 1
            value = self.expr()
            self.take("}")
            return value
        if self.peek() in _ATOMS:
            return self.atom(sub=inner_sub, sup=True)
        raise Outside("a superscript that is not an atom or a group")

    def group(self, close: str) -> Any:
        self.i += 1
        saved, self.in_bars = self.in_bars, 0
        value = self.expr()
        self.in_bars = saved
        self.take(close)
        return value

    def comp(self, allow_func: bool) -> Any:
        kind = self.peek()
        if kind == "(":
            return self.group(")")
        if kind == "[":
            return self.group("]")
        if kind == "{":
            return self.group("}")
        if kind == "|":
            if self.in_bars:
                raise Outside("nested bars")
            self.i += 1
            self.in_bars += 1
            value = self.expr()
            self.in_bars -= 1
            self.take("|")
            return self.sp.Abs(value, evaluate=False)
        if kind == "FRAC":
            return self.frac()
        if allow_func:
            if kind == "FUNC":
                return self.function()
            if kind == "SQRT":
                return self.sqrt()
            if kind == "EXP_E":
                self.i += 1
                arg: Any = 1
                if self.peek() == "^":
                    self.i += 1
                    arg = self.superscript_body()
                return self.sp.exp(arg)
            if kind in ("LETTER", "GREEK", "OTHER", "ACCENT") and is_call(self.t, self.i):
                return self.call()
        if kind in _ATOMS:
            return self.atom()
        raise Outside(f"{kind} cannot start an operand here")

    # -- functions
    def call(self) -> Any:
        start = self.i
        self.i += 1
        if self.peek() == "_":
            self.subscript_text()
        name = self.text_of(start, self.i)
        power = None
        if self.peek() == "^":
            self.i += 1
            power = self.superscript_body()
        self.take("(")
        arg_start = self.i
        self.atom()
        arg_text = self.text_of(arg_start, self.i)
        self.take(")")
        arg = parse_fast_normalized(arg_text, self.dialect)
        applied = self.sp.Function(name)(arg)
        return applied if power is None else self.sp.Pow(applied, power, evaluate=False)

    def function(self) -> Any:
        name = self.take("FUNC").text[1:]
        base: Any = None
        has_sub = False
        power = None
        for _ in range(2):
            if self.peek() == "_" and not has_sub:
                self.i += 1
                has_sub = True
                base = self.script_operand()
            elif self.peek() == "^" and power is None:
                self.i += 1
                power = self.superscript_body()
        if has_sub and power is not None or self.peek() in ("_", "^"):
            raise Outside("a function with both scripts")
        arg = self.group(")") if self.peek() == "(" else self.mp(nofunc=True)
        sp = self.sp
        if name in _ARC:
            expr = getattr(sp, _ARC[name])(arg, evaluate=False)
        elif name in _AR_HYPERBOLIC:
            expr = getattr(sp, _AR_HYPERBOLIC[name])(arg, evaluate=False)
        elif name in ("log", "ln"):
            if not has_sub:
                base = 10 if name == "log" else sp.E
            expr = sp.log(arg, base, evaluate=False)
        elif name == "exp":
            expr = sp.exp(arg, evaluate=False)
        elif name == "floor":
            expr = sp.floor(arg, evaluate=False)
        elif name == "ceil":
            expr = sp.ceiling(arg, evaluate=False)
        elif name in ("sin", "cos", "tan", "csc", "sec", "cot", "sinh", "cosh", "tanh"):
            if power == -1:
                name = "a" + name
                power = None
            expr = getattr(sp, name)(arg, evaluate=False)
        else:  # pragma: no cover - _FUNCTIONS lists only the names above
            raise Outside(name)
        if power:
            expr = sp.Pow(expr, power, evaluate=False)
        return expr

    def script_operand(self) -> Any:
        """The operand of ``_`` (an atom or a braced expression), as a value."""
        if self.peek() == "{":
            self.i += 1
            value = self.expr()
            self.take("}")
            return value
        if self.peek() in _ATOMS:
            return self.atom()
        raise Outside("a subscript that is not an atom or a group")

    def sqrt(self) -> Any:
        self.take("SQRT")
        root = None
        if self.peek() == "[":
            self.i += 1
            root = self.expr()
            self.take("]")
        self.take("{")
        base = self.expr()
        self.take("}")
        if root is None:
            return self.sp.Pow(base, self.sp.S.Half, evaluate=False)
        return self.sp.Pow(base, 1 / root, evaluate=False)

    def frac(self) -> Any:
        self.take("FRAC")
        self.take("{")
        upper = self.expr()
        self.take("}")
        self.take("{")
        if self.peek() == "DIFFERENTIAL":
            raise Outside("a derivative")
        lower = self.expr()
        self.take("}")
        if getattr(upper, "is_Integer", False) and getattr(lower, "is_Integer", False):
            return self.sp.Rational(upper, lower)
        return self.sp.Mul(upper, self.sp.Pow(lower, -1, evaluate=False), evaluate=False)

    # -- atoms
    def subscript_text(self, inner_sup: bool = True) -> str:
        """``_x`` or ``_{...}``: the subscript's text as the symbol name takes it."""
        self.take("_")
        if self.peek() == "{":
            self.i += 1
            start = self.i
            self.expr()
            text = self.text_of(start, self.i)
            self.take("}")
        elif self.peek() in _ATOMS:
            start = self.i
            self.atom(sub=True, sup=inner_sup)
            text = self.text_of(start, self.i)
        else:
            raise Outside("an empty subscript")
        text = text.strip()
        return "_{" + text + "}" if len(text) > 1 else "_" + text

    def atom(self, sub: bool = True, sup: bool = True) -> Any:
        """An atom; ``sub``/``sup`` say whether a letter-like atom may take its own sub- or
        superscript here (an outer atom that still has that slot takes it first, as ANTLR's
        prediction chooses: ``n_b^2`` is ``n_b`` squared, not ``n`` with subscript ``b^2``)."""
        token = self.t[self.i]
        kind = token.kind
        sp = self.sp
        if kind in ("LETTER", "GREEK", "OTHER", "ACCENT"):
            return self.atom_expr(sub, sup)
        self.i += 1
        if kind == "NUMBER":
            return self.number(token.text)
        if kind == "E_NOTATION":
            return self.number(token.text)
        if kind == "PERCENT":
            number = self.number(token.text.replace("\\%", "").replace("%", "").replace(",", "").strip())
            if self.dialect == "1.10":
                return sp.Mul(number, sp.Rational(1, 100), evaluate=False)
            return sp.Mul(number, sp.UnevaluatedExpr(sp.Rational(1, 100)), evaluate=False)
        if kind == "E":
            return sp.Symbol("E", real=None)
        if kind == "INFTY":
            return sp.oo
        if kind == "DIFFERENTIAL":
            rest = token.text[1:].lstrip(" \t\r\n")
            rest = rest[1:] if rest.startswith("\\") else rest
            return sp.Symbol("d" + sp.Symbol(rest, real=None).name, real=None)
        raise Outside(f"{kind} is not an atom")

    def number(self, text: str) -> Any:
        text = text.replace(",", "")
        if text.isdigit():
            text = text.lstrip("0") or "0"
        return self.sp.Number(text)

    def atom_expr(self, sub: bool = True, sup: bool = True) -> Any:
        token = self.t[self.i]
        self.i += 1
        if token.kind == "LETTER" and token.text == "I":
            self.scripts(sub, sup)
            return self.sp.I
        if token.kind == "ACCENT":
            atom_text = self.accent_text(token.text)
        else:
            atom_text = token.text
        subscript, power = self.scripts(sub, sup)
        symbol = self.symbol(atom_text.strip() + subscript)
        if power is not None:
            return self.sp.Pow(symbol, power, evaluate=False)
        return symbol

    def scripts(self, sub: bool = True, sup: bool = True) -> tuple[str, Any]:
        """``(supexpr subexpr | subexpr supexpr | subexpr | supexpr)?`` of an atom: the script the
        atom has a slot left for after its first one is its own; an atom inside the first one
        leaves that slot to it."""
        subscript, power = "", None
        if self.peek() == "_" and sub:
            subscript = self.subscript_text(inner_sup=not sup)
            if self.peek() == "^" and sup:
                self.i += 1
                power = self.superscript_body()
        elif self.peek() == "^" and sup:
            self.i += 1
            power = self.superscript_body(inner_sub=not sub)
            if self.peek() == "_" and sub:
                subscript = self.subscript_text()
        return subscript, power

    @staticmethod
    def accent_text(text: str) -> str:
        start = text.index("{")
        name = text[1:start]
        inner = text[start + 1 : -1].replace(" ", "")
        if name in ("bar", "overline"):
            name = "bar"
        elif name in ("vec", "overrightarrow"):
            name = "vec"
        elif name in ("tilde", "widetilde"):
            name = "tilde"
        elif "text" in name or "mbox" in name:
            name = ""
            inner = inner.replace("(", "").replace(")", "")
        elif "math" in name:
            name = "math"
        return f"{name}{{{inner}}}" if name else inner


def parse_fast_normalized(text: str, dialect: str = "1.11") -> Any:
    """The SymPy expression latex2sympy2 gives for ``text`` (already through its
    ``normalize_latex``); :class:`Outside` when the text is not in the subset read here."""
    if dialect not in DIALECTS:
        raise ValueError(f"dialect must be one of {DIALECTS}, not {dialect!r}")
    tokens = _lex(text)
    if not tokens:
        raise Outside("empty")
    if dialect != "1.10" and any(t.kind == "GREEK" and t.text.strip() in ("\\gamma", "\\Gamma") for t in tokens):
        raise Outside("\\gamma is a function token in latex2sympy2 1.11")
    if tokens[0].kind == "{" and closing(tokens, 0) == len(tokens) - 1:
        raise Outside("a whole text in braces is a set")
    if sum(t.kind == "|" for t in tokens) > 2:
        raise Outside("more than one pair of bars")
    parser = _Parser(tokens, dialect)
    try:
        value = parser.expr()
    except (Outside, RecursionError):
        raise
    except Exception as exc:  # a SymPy constructor refusing: latex2sympy2 decides what that is
        raise Outside(f"{type(exc).__name__}") from exc
    if parser.i != len(tokens):
        raise Outside(f"{tokens[parser.i].kind} after a complete expression")
    return value


parse_fast = parse_fast_normalized
