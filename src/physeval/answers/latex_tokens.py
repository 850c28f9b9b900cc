"""The tokens of the LaTeX subset that :mod:`physeval.answers.latex_fast` reads: its lexer and look-ahead.

The lexer gives ANTLR's tokens of latex2sympy2's grammar for the subset (the longest command
name a backslash's letters start with, the number forms, differentials, the one-character
tokens) and raises :class:`Outside` on anything the fast reader leaves to latex2sympy2. The
look-ahead functions (:func:`is_call`, :func:`skip_script`, :func:`skip_atom`, :func:`closing`)
scan the token list without building anything: where a function call, a script, an atom or a
brace group ends. Kept apart from the parser so each reads as one job.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["ACCENTS", "ATOMS", "DIALECTS", "GREEK", "SYMBOL_COMMANDS", "Outside", "Token", "closing", "is_call",
           "skip_atom", "skip_script", "tokens"]

DIALECTS = ("1.10", "1.11")


class Outside(Exception):
    """The text is outside the subset read here (or not valid): parse it with latex2sympy2."""


# ------------------------------------------------------------------------------ the lexer

_GREEK = frozenset(
    "alpha beta gamma Gamma delta Delta epsilon varepsilon zeta eta theta Theta vartheta iota kappa "
    "lambda Lambda mu nu xi Xi omicron pi Pi varpi rho varrho sigma Sigma varsigma tau upsilon Upsilon "
    "phi Phi varphi chi psi Psi omega Omega".split())
_OTHER_SYMBOLS = frozenset(
    "Bbbk wp nabla bigstar angle nexists diagdown measuredangle eth diagup sphericalangle clubsuit "
    "varnothing Diamond complement diamondsuit imath Finv triangledown heartsuit jmath Game triangle "
    "spadesuit ell hbar vartriangle hslash blacklozenge lozenge blacksquare mho blacktriangle sharp "
    "prime Im flat square backprime Re natural surd circledS".split())
ACCENTS = frozenset(
    "acute bar overline breve check widecheck dot ddot grave hat tilde widetilde vec overrightarrow bm "
    "boldsymbol text textit textbf textnormal mathbb mathbin mathbf mathcal mathclap mathclose "
    "mathellipsis mathfrak mathinner mathit mathnormal mathop mathopen mathord mathpunct mathrel "
    "mathring mathrlap mathrm mathscr mathsf mathsterling mathtt mbox".split())
_FUNCTIONS = frozenset(
    "log ln exp sin cos tan csc sec cot arcsin arccos arctan arccsc arcsec arccot sinh cosh tanh "
    "arsinh arcosh artanh arcsinh arccosh arctanh floor ceil".split())
_SKIPPED = frozenset(
    "thinspace medspace thickspace quad qquad negthinspace negmedspace negthickspace vrule vcenter vbox "
    "vskip vspace hfil".split())
_OPERATORS = {"cdot": "MUL", "times": "MUL", "div": "DIV"}
# Every other command the grammar knows: read by latex2sympy2, never here. (A command is lexed
# as the longest of all these names that its letters start with, as ANTLR's lexer does.)
_ELSEWHERE = frozenset(
    "over lgroup rgroup lbrace rbrace lbrack rbrack phantom boxed lvert rvert vert langle rangle lfloor "
    "rfloor llcorner lrcorner lceil rceil ulcorner urcorner lim to rightarrow Rightarrow longrightarrow "
    "Longrightarrow int sum prod gcd lcm max min det binom tbinom dbinom choose mod mathit operatorname "
    "begin end exponentialE xrightarrow xRightarrow leftrightarrow Leftrightarrow in equiv approx lt leq "
    "le leqslant gt geq ge geqslant ne neq not char partial variable cup cap setminus pm mp emptyset "
    "supseteq subseteq notin frac dfrac tfrac cfrac sqrt infty".split())
GREEK = _GREEK
"""The Greek letters the grammar reads as symbols (``\\alpha`` ... ``\\Omega``)."""
SYMBOL_COMMANDS = _GREEK | _OTHER_SYMBOLS
"""Every command the grammar reads as a symbol: Greek letters, ``\\ell``, ``\\hbar``, ..."""
_KNOWN = _GREEK | _OTHER_SYMBOLS | _FUNCTIONS | _SKIPPED | frozenset(_OPERATORS) | _ELSEWHERE
# Plain-letter tokens of the grammar (they make a syntax error or a matrix operation outside
# \operatorname): a text where one would be lexed goes to latex2sympy2.
_NAMES = tuple(sorted(
    "arsinh arcsinh arcosh arccosh artanh arctanh gcd lcm floor ceil eye zeros ones cols rows diag norm "
    "rank trace tr rref hstack vstack orth ortho orthogonal orthogonalize nullspace eig eigen diagonalize "
    "eigenvals eigenvalues eigenvects eigenvectors svd SVD matrix pmatrix bmatrix vmatrix".split(),
    key=len, reverse=True))
_PARSER_LITERALS = ("^T", "^{T}", "^{\\top}", "^\\circ", "^\\degree", "^\\circle", "^{\\circ}", "^{\\degree}",
                    "^{\\circle}")
_NUMBER = re.compile(r"\d*\.\d+|\d+")
_E_NOTATION = re.compile(r"(?:\d*\.\d+|\d+)E[-+]?\d+")
_PERCENT = re.compile(r"(?:\d*\.\d+|\d+)[ \t\r\n]?(?:\\%|%)")
_DIFFERENTIAL = re.compile(r"d[ \t\r\n]*(?:[a-zA-Z]|\\[a-zA-Z]+)")
_NUMBERS = (("PERCENT", _PERCENT), ("E_NOTATION", _E_NOTATION), ("NUMBER", _NUMBER))
_SINGLE = {"+": "ADD", "-": "SUB", "*": "MUL", "/": "DIV", ":": "DIV", "(": "(", ")": ")", "[": "[", "]": "]",
           "{": "{", "}": "}", "|": "|", "^": "^", "_": "_", "!": "!"}


@dataclass(frozen=True)
class Token:
    """One ANTLR token: its kind and its text."""

    kind: str  # LETTER, GREEK, OTHER, ACCENT, NUMBER, E_NOTATION, PERCENT, E, EXP_E, DIFFERENTIAL, INFTY, FUNC,
    # FRAC, SQRT, or one of _SINGLE's values
    text: str


def _command(text: str, i: int) -> tuple[Token | None, int]:
    """The token of the backslash command at ``i`` (None for a skipped one) and where it ends."""
    j = i + 1
    while j < len(text) and text[j].isalpha():
        j += 1
    letters = text[i + 1 : j]
    if not letters:
        if text[i + 1 : i + 2] in (",", ":", ";", "!", "$"):
            return None, i + 2
        raise Outside(f"command {text[i:i + 2]!r}")
    if letters in ACCENTS:
        k = j + 1 if text[j : j + 1] in (" ", "\t", "\r", "\n") else j
        if text[k : k + 1] == "{":
            close = text.find("}", k)
            content = text[k + 1 : close]
            if close < 0 or "{" in content or "\\" in content and ("\\}" in content or "\\{" in content):
                raise Outside("an accent whose argument holds braces")
            if letters == "mathbb" and content in ("N", "Z", "Q", "R", "C", "P"):
                raise Outside("a set")
            return Token("ACCENT", text[i : close + 1]), close + 1
    # the longest command name the letters start with (ANTLR's lexer takes the longest match)
    name = next((letters[:n] for n in range(len(letters), 0, -1) if letters[:n] in _KNOWN), None)
    if name is None:
        raise Outside(f"unknown command \\{letters}")
    end = i + 1 + len(name)
    if name in _SKIPPED:
        return None, end
    if name in _GREEK or name in _OTHER_SYMBOLS:
        if text[end : end + 1] == " ":  # GREEK_CMD and OTHER_SYMBOL_CMD keep one trailing space
            end += 1
        return Token("GREEK" if name in _GREEK else "OTHER", text[i:end]), end
    if name in _FUNCTIONS:
        return Token("FUNC", text[i:end]), end
    if name in _OPERATORS:
        return Token(_OPERATORS[name], text[i:end]), end
    if name in ("frac", "dfrac", "tfrac", "cfrac"):
        return Token("FRAC", text[i:end]), end
    if name == "sqrt":
        return Token("SQRT", text[i:end]), end
    if name == "infty":
        if text.startswith("\\%", end) or text.startswith("%", end):
            raise Outside("infinity percent")
        return Token("INFTY", text[i:end]), end
    raise Outside(f"\\{name} is read by latex2sympy2")


def tokens(text: str) -> list[Token]:
    """ANTLR's tokens of ``text`` for the subset; :class:`Outside` for anything else."""
    out: list[Token] = []
    i = 0
    n = len(text)
    while i < n:
        c = text[i]
        if c in " \t\r\n":
            i += 1
        elif not c.isascii():
            raise Outside("a non-ASCII character")
        elif c == "\\":
            token, i = _command(text, i)
            if token is not None:
                out.append(token)
        elif c.isdigit() or c == ".":
            found = next(((kind, m) for kind, m in ((kind, p.match(text, i)) for kind, p in _NUMBERS) if m), None)
            if found is None:
                raise Outside("a lone period")
            out.append(Token(found[0], found[1].group(0)))
            i = found[1].end()
        elif c.isalpha():
            if any(text.startswith(name, i) for name in _NAMES):
                raise Outside("a name token of the grammar")
            if c == "d":
                match = _DIFFERENTIAL.match(text, i)
                if match:
                    out.append(Token("DIFFERENTIAL", match.group(0)))
                    i = match.end()
                    continue
            out.append(Token("EXP_E" if c == "e" else "E" if c == "E" else "LETTER", c))
            i += 1
        elif c == "^" and any(text.startswith(lit, i) for lit in _PARSER_LITERALS):
            raise Outside("a transpose or degree mark")
        elif c in _SINGLE:
            if c == "!" and text.startswith("!=", i):
                raise Outside("a relation")
            if c == "|" and text[i + 1 : i + 2] in ("_", "^"):
                raise Outside("an evaluation bar")
            out.append(Token(_SINGLE[c], c))
            i += 1
        else:
            raise Outside(f"{c!r} is read by latex2sympy2")
    return out


# ------------------------------------------------------------------------------ look-ahead

# The token kinds that make an atom.
ATOMS = frozenset({"LETTER", "GREEK", "OTHER", "ACCENT", "NUMBER", "E_NOTATION", "PERCENT", "E", "DIFFERENTIAL",
                   "INFTY"})


def is_call(t: list[Token], i: int) -> bool:
    """``f(x)`` at ``t[i]``: a letter (with a subscript, then a superscript) before a parenthesised
    atom is a function call in latex2sympy2's grammar."""
    j = i + 1
    if j < len(t) and t[j].kind == "_":
        j = skip_script(t, j)
    if j < len(t) and t[j].kind == "^":
        j = skip_script(t, j)
    if j >= len(t):
        return False
    kind = t[j].kind
    if kind == "[" or (kind == "{" and j + 1 < len(t) and t[j + 1].kind in ("(", "[")):
        raise Outside("a function call in brackets")
    if kind != "(":
        return False
    atom_end = skip_atom(t, j + 1)
    return atom_end is not None and atom_end < len(t) and t[atom_end].kind == ")"


def skip_script(t: list[Token], j: int) -> int:
    """Index after the ``_x``/``^x``/``_{...}``/``^{...}`` starting at ``t[j]``."""
    j += 1
    if j < len(t) and t[j].kind == "{":
        depth = 0
        while j < len(t):
            depth += {"{": 1, "}": -1}.get(t[j].kind, 0)
            j += 1
            if depth == 0:
                return j
        return j
    end = skip_atom(t, j)
    return len(t) if end is None else end


def skip_atom(t: list[Token], j: int) -> int | None:
    """Index after the atom starting at ``t[j]`` (None when none starts there)."""
    if j >= len(t) or t[j].kind not in ATOMS:
        return None
    kind = t[j].kind
    j += 1
    if kind in ("LETTER", "GREEK", "OTHER", "ACCENT"):
        for _ in range(2):
            if j < len(t) and t[j].kind in ("_", "^"):
                j = skip_script(t, j)
    elif kind == "NUMBER" and j < len(t) and t[j].kind == "_":
        raise Outside("a number with a subscript")
    return j


def closing(t: list[Token], start: int) -> int:
    """Index of the ``}`` that closes the ``{`` at ``t[start]`` (-1 when none does)."""
    depth = 0
    for j in range(start, len(t)):
        depth += {"{": 1, "}": -1}.get(t[j].kind, 0)
        if depth == 0:
            return j
    return -1
