"""Seeded, machine-independent sampling of parameter values.

Why: "same seed, same variants, on every machine" rules out Python's ``hash()`` (salted per
process) and anything whose stream may change between library versions. The stream here is
BLAKE2b in counter mode keyed by ``(seed, template id, variant index)``: each 64-byte block gives
eight 64-bit uniforms. It depends on nothing but ``hashlib``, is fast, and lets variant ``i`` be
drawn without drawing variants ``0..i-1`` first.
"""

from __future__ import annotations

import hashlib
import math
from decimal import Decimal

import mpmath

from physeval.errors import UserError

from .precision import working_digits
from .template import Parameter

__all__ = ["UniformStream", "derive_key", "sample_parameter", "SamplingError"]

_SCALE = 1.0 / 2.0**53


class SamplingError(UserError, RuntimeError):
    """No valid parameter set was found within the template's bounded number of tries."""


def derive_key(seed: int, template_id: str, index: int) -> bytes:
    """The stream key of one variant: a digest of seed, template id and variant index."""
    text = f"physeval.variation/1|{int(seed)}|{template_id}|{int(index)}"
    return hashlib.blake2b(text.encode("utf-8"), digest_size=32).digest()


class UniformStream:
    """Uniform floats in [0, 1) from BLAKE2b(key, counter); identical on every platform."""

    __slots__ = ("_key", "_counter", "_buffer", "_pos")

    def __init__(self, key: bytes) -> None:
        self._key = key
        self._counter = 0
        self._buffer = b""
        self._pos = 64

    def random(self) -> float:
        """The next uniform in [0, 1), with 53 random bits."""
        if self._pos >= len(self._buffer):
            self._buffer = hashlib.blake2b(self._counter.to_bytes(8, "little"), key=self._key, digest_size=64).digest()
            self._counter += 1
            self._pos = 0
        chunk = self._buffer[self._pos : self._pos + 8]
        self._pos += 8
        return (int.from_bytes(chunk, "little") >> 11) * _SCALE


def _to_decimal(x: float) -> Decimal:
    return Decimal(repr(x))


def sample_parameter(param: Parameter, stream: UniformStream) -> Decimal | None:
    """One draw of ``param`` as written (quantized), or ``None`` when the draw left its range.

    ``range`` draws uniformly (or log-uniformly) in [low, high], then rounds the way the
    parameter is written; a rounded value outside the range is rejected. ``decimals: 0`` ranges
    draw integers uniformly. ``perturb`` draws in value * (1 +/- perturb).
    """
    rule = param.rule
    if rule == "fixed":
        return param.value
    u = stream.random()
    if rule == "choices":
        return param.choices[min(int(u * len(param.choices)), len(param.choices) - 1)]
    if rule == "range":
        low, high = param.low, param.high
        assert low is not None and high is not None
        if param.decimals == 0 and param.distribution == "uniform":
            lo, hi = math.ceil(low), math.floor(high)
            if hi < lo:
                return None
            return Decimal(lo + min(int(u * (hi - lo + 1)), hi - lo))
        if param.distribution == "log":
            # mpmath, not libm pow: pure integer arithmetic, so the same on every platform
            with working_digits(30):
                x = float(mpmath.mpf(str(low)) * mpmath.power(mpmath.mpf(str(high)) / mpmath.mpf(str(low)), u))
        else:
            x = float(low) + (float(high) - float(low)) * u
        value = param.quantize(_to_decimal(x))
        return value if low <= value <= high else None
    assert param.perturb is not None
    x = float(param.value) * (1.0 + float(param.perturb) * (2.0 * u - 1.0))
    value = param.quantize(_to_decimal(x))
    if value == 0 or (value > 0) != (param.value > 0):
        return None
    return value
