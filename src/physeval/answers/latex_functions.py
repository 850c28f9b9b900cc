"""Function names latex2sympy2 misreads, read as the functions they name (physeval's default mode).

latex2sympy2's grammar knows ``\\sinh``, ``\\cosh`` and ``\\tanh`` but not their reciprocals, nor
the error function: its lexer takes the longest command it knows, so ``\\coth x`` is ``\\cot``
times ``h x``, ``\\operatorname{sech}(x)`` is ``sec(h(x))`` and ``\\operatorname{erf}(x)`` does
not parse. A function name in roman type (``\\mathrm{sin}``, ``\\text{tanh}``, ``\\mathrm{erf}``),
common in typeset solutions, is unwrapped to its letters and read as a product (``s i n``;
``E r f``, with Euler's number). Each is a wrong verdict waiting to happen, and the PHYBench
pipeline (whose reading ``compat="phybench"`` keeps) has them too. Two repairs, for the default
mode only:

* :func:`roman_function_names` writes a roman-type function name as its command
  (``\\mathrm{sin}`` -> ``\\sin``), before the normal form unwraps the roman type;
* :func:`function_standins` writes ``\\coth``, ``\\sech``, ``\\csch`` (and their inverses
  ``\\arcoth``, ``\\arccoth``, ...), ``\\erf`` and ``\\erfc`` as trigonometric commands the text
  does not use, so both parsers read them with the grammar of every other function (powers,
  ``^{-1}``, arguments with or without brackets); :func:`restore_functions` then renames those
  functions in the parsed expression (``cot`` -> ``coth``, ``acot`` -> ``acoth``). When the text
  already uses every stand-in (six trigonometric functions besides), it is parsed as
  latex2sympy2 reads it.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["function_standins", "restore_functions", "roman_function_names", "subscript_labels"]

_NAMED = (  # the names a roman-type group may hold to be read as the function
    "sin cos tan cot sec csc sinh cosh tanh coth sech csch arcsin arccos arctan arccot arcsec arccsc "
    "arsinh arcosh artanh arcoth arsech arcsch arcsinh arccosh arctanh arccoth arcsech arccsch "
    "ln log exp erf erfc"
).split()
_ROMAN_NAME = re.compile(
    r"\\(?:mathrm|text|textrm|operatorname|mathit|rm)\s*\{\s*(" + "|".join(sorted(_NAMED, key=len, reverse=True))
    + r")\s*\}")


def roman_function_names(text: str) -> str:
    """``\\mathrm{sin}``, ``\\text{tanh}``, ``\\operatorname{coth}`` ... written as ``\\sin``,
    ``\\tanh``, ``\\coth``: a function's name in roman type is the function, not a product of its
    letters. Only whole names of functions inside the braces are rewritten."""
    if "{" not in text:
        return text

    def write(match: re.Match[str]) -> str:
        if _is_label(text, match.start(), match.end()):
            return match.group(0)
        return "\\" + match.group(1) + " "

    return _ROMAN_NAME.sub(write, text)


_LABEL_COMMAND = re.compile(r"\\(max|min|sup|inf)(?![A-Za-z])|\\rm\s*(?:\{\s*([A-Za-z]+)\s*\}|([A-Za-z]+))")


def subscript_labels(text: str) -> str:
    """``v_{\\max}``, ``\\theta_\\min``, ``v_{\\rm max}`` written as ``v_{\\text{max}}``: in a subscript
    (or as a whole superscript) ``\\max`` and ``\\min`` are labels, and ``\\rm`` sets a label in roman
    type. latex2sympy2 cannot parse either there, so a reference or an answer naming
    ``x_{\\max}`` was unparseable. ``\\max(a, b)`` elsewhere stays the function."""
    if "\\" not in text:
        return text

    def write(match: re.Match[str]) -> str:
        if not _is_label(text, match.start(), match.end()):
            return match.group(0)
        label = match.group(1) or match.group(2) or match.group(3)
        braced = text[:match.start()].rstrip(" ").endswith(("_", "^"))  # v_\max: no group of its own
        return f"{{\\text{{{label}}}}}" if braced else f"\\text{{{label}}}"

    return _LABEL_COMMAND.sub(write, text)


def _is_label(text: str, start: int, end: int) -> bool:
    """Whether the roman name at ``text[start:end]`` names a quantity rather than applies a
    function: anywhere in a subscript (``v_{\\mathrm{sin}}``, ``v_{a\\mathrm{sin}}``,
    ``v_\\mathrm{exp}``), or as the whole of a superscript (``E^{\\text{cos}}``). In an exponent
    with an argument (``e^{\\mathrm{sin}\\theta}``) it is the function."""
    before = text[:start].rstrip(" ")
    if before[-1:] in ("_", "^"):
        return True
    depth = 0
    for k in range(len(before) - 1, -1, -1):  # the innermost group that holds the name
        char = before[k]
        if char == "}":
            depth += 1
        elif char == "{":
            if depth == 0:
                opener = before[:k].rstrip(" ")[-1:]
                if opener == "_":
                    return True
                whole = before[k + 1:].strip() == "" and text[end:].lstrip(" ").startswith("}")
                return opener == "^" and whole
            depth -= 1
    return False


# The functions latex2sympy2 has no command for, each with its inverse in SymPy (``\\coth^{-1}``,
# ``\\arcoth`` and ``\\arccoth`` name ``acoth``), and the stand-in tried first for each.
_INVERSES = {"coth": "acoth", "sech": "asech", "csch": "acsch", "erf": "erfinv", "erfc": "erfcinv"}
_PREFERRED = {"coth": "cot", "sech": "sec", "csch": "csc"}
_TRIG = ("cot", "sec", "csc", "sin", "cos", "tan")  # the stand-ins
_COMMAND = re.compile(r"\\(arc|ar)?(coth|sech|csch|erfc|erf)(?![A-Za-z])")


def _uses(others: str, trig: str) -> bool:
    """Whether ``others`` (the text without the commands being replaced) holds a command the
    parser would lex as ``\\trig`` or ``\\arctrig``: the command itself, or a longer name that
    starts with it (``\\cotan x`` is lexed ``\\cot`` ``a n x``)."""
    return re.search(r"\\(?:arc)?" + trig, others) is not None


def function_standins(text: str) -> tuple[str, dict[str, str]]:
    """``text`` with each command of a function latex2sympy2 does not know (``\\coth``, ``\\sech``,
    ``\\csch``, ``\\erf``, ``\\erfc``) written as a free trigonometric one, and the renames that
    :func:`restore_functions` applies to the parsed expression.

    ``\\coth x`` becomes ``\\cot x`` with ``{"cot": "coth", "acot": "acoth"}``; ``\\arcoth``
    and ``\\arccoth`` become ``\\arccot``. A text without such a command comes back unchanged
    with no renames; so does one that leaves no free stand-in.
    """
    if _COMMAND.search(text) is None:
        return text, {}
    written = {match.group(2) for match in _COMMAND.finditer(text)}
    used = [name for name in _INVERSES if name in written]
    others = _COMMAND.sub(" ", text)
    free = [trig for trig in _TRIG if not _uses(others, trig)]
    standin: dict[str, str] = {}
    for name in used:
        preferred = _PREFERRED.get(name)
        choice = preferred if preferred in free else next(iter(free), None)
        if choice is None:
            return text, {}
        free.remove(choice)
        standin[name] = choice

    def write(match: re.Match[str]) -> str:
        trig = standin[match.group(2)]
        return "\\arc" + trig if match.group(1) else "\\" + trig

    renames: dict[str, str] = {}
    for name, trig in standin.items():
        renames[trig] = name
        renames["a" + trig] = _INVERSES[name]
    return _COMMAND.sub(write, text), renames


def restore_functions(expr: Any, renames: dict[str, str]) -> Any:
    """``expr`` with every application of a function named in ``renames`` replaced by the
    function it stands for (same arguments), and every undefined function named as its symbol
    would be (:func:`_symbol_like_name`): ``\\eta_{k}(0)`` and ``\\eta_k(0)`` are one function,
    as the symbols ``\\eta_{k}`` and ``\\eta_k`` are one symbol (latex2sympy2 names a function
    by its raw text). Only the nodes above a replacement are rebuilt: sums, products, powers and
    functions unevaluated, as the parsers build them; other nodes (an integral, a limit) by their
    own constructor, which evaluates nothing they hold."""
    import sympy
    from sympy.core.function import AppliedUndef

    if not isinstance(expr, sympy.Basic):
        return expr
    targets = {getattr(sympy, old): getattr(sympy, new) for old, new in renames.items()}
    if not targets and not expr.has(AppliedUndef):
        return expr
    unevaluated = (sympy.Add, sympy.Mul, sympy.Pow, sympy.Function)

    def rebuild(node: Any) -> Any:
        if not node.args:
            return node
        args = [rebuild(arg) for arg in node.args]
        if node.func in targets:
            return targets[node.func](*args, evaluate=False)
        if isinstance(node, AppliedUndef):
            name = _symbol_like_name(node.func.__name__)
            if name != node.func.__name__:
                return sympy.Function(name)(*args)
        if all(new is old for new, old in zip(args, node.args)):
            return node
        if isinstance(node, unevaluated):
            return node.func(*args, evaluate=False)
        return node.func(*args)

    return rebuild(expr)


_BRACED_ONE = re.compile(r"_\{([A-Za-z0-9])\}")


def _symbol_like_name(name: str) -> str:
    """An undefined function's name as latex2sympy2 names the symbol written the same way: no
    leading backslash, a one-character subscript without braces (``\\eta_{k}`` -> ``eta_k``)."""
    if name.startswith("\\") and "\\" not in name[1:] and "{" not in name.split("_", 1)[0]:
        name = name[1:]
    return _BRACED_ONE.sub(r"_\1", name.replace(" ", ""))
