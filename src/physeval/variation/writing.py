"""How numbers are written: rounding to significant figures or decimals, decimal and scientific forms.

Why: a variant's parameters are *the numbers as written in the text* (the model sees nothing
else), and the answer is rounded only when written. Everything here works on
``decimal.Decimal`` so rounding is exact and reproducible on every machine. Rounding is
half-up (away from zero), the convention of "rounded to N significant figures".
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal, localcontext

__all__ = [
    "round_sig",
    "round_decimals",
    "write_plain",
    "write_scientific",
    "write_figures",
    "abench_suffix",
    "sig_figs_of",
]


def round_sig(value: Decimal, sig_figs: int) -> Decimal:
    """``value`` rounded half-up to ``sig_figs`` significant figures (0 stays 0)."""
    if value == 0:
        return Decimal(0)
    with localcontext() as ctx:
        ctx.prec = 80
        exponent = value.adjusted() - sig_figs + 1
        out = value.quantize(Decimal(1).scaleb(exponent), rounding=ROUND_HALF_UP)
        if out.adjusted() > value.adjusted():  # 9.96 -> 10.0: keep sig_figs digits
            out = out.quantize(Decimal(1).scaleb(exponent + 1), rounding=ROUND_HALF_UP)
    return out


def round_decimals(value: Decimal, decimals: int) -> Decimal:
    """``value`` rounded half-up to ``decimals`` places after the point (0 -> an integer)."""
    with localcontext() as ctx:
        ctx.prec = 80
        return value.quantize(Decimal(1).scaleb(-decimals), rounding=ROUND_HALF_UP)


def write_plain(value: Decimal) -> str:
    """Positional notation keeping the value's trailing zeros: ``1.40``, ``12000``, ``-0.052``."""
    text = format(value, "f")
    return "0" if text in ("-0", "0") else text


def write_scientific(value: Decimal, sig_figs: int) -> str:
    """ABench's scientific form: ``2.9 \\times 10^{-11}`` (mantissa with ``sig_figs`` digits)."""
    rounded = round_sig(value, sig_figs)
    if rounded == 0:
        return "0"
    exponent = rounded.adjusted()
    mantissa = rounded.scaleb(-exponent)
    with localcontext() as ctx:
        ctx.prec = 80
        mantissa = mantissa.quantize(Decimal(1).scaleb(-(sig_figs - 1)), rounding=ROUND_HALF_UP)
    return f"{write_plain(mantissa)} \\times 10^{{{exponent}}}"


def write_figures(value: Decimal, sig_figs: int, scientific: bool) -> str:
    """``value`` written as an instruction asks: ``sig_figs`` significant figures, in ABench's
    scientific form when ``scientific`` (``2.90 \\times 10^{-3}``), else positionally (``12.188``)."""
    rounded = round_sig(value, sig_figs)
    return write_scientific(rounded, sig_figs) if scientific else write_plain(rounded)


def sig_figs_of(written: str) -> int:
    """Significant figures of a plainly written number (``"0.0520"`` -> 3, ``"1200"`` -> 2)."""
    digits = written.strip().lstrip("+-")
    if "e" in digits.lower():
        digits = digits.lower().split("e")[0]
    if "." in digits:
        whole, frac = digits.split(".", 1)
        stripped = (whole + frac).lstrip("0")
        return max(len(stripped), 1)
    stripped = digits.lstrip("0").rstrip("0")
    return max(len(stripped), 1)


def abench_suffix(unit_latex: str, sig_figs: int, scientific: bool) -> str:
    """The ABench English instruction that ends every numeric question.

    Reproduces the four wordings of ABench-Physics exactly (including the missing space
    after the comma), so a grader reading required units and figures from ABench reads ours.
    """
    parts = ["(Results should be expressed "]
    if scientific:
        parts.append("in scientific notation, ")
    if unit_latex:
        parts.append(f"with units of $ {unit_latex} $,")
    parts.append(f"and rounded to {sig_figs} significant figures)")
    return "".join(parts)
