"""Deciding the correctly rounded result: a Ziv loop over certified Arb balls.

For an input x the loop evaluates f(x) = anchor + d (see ``forms``) at a working precision,
and rounds both ends of the resulting interval in every mode. Rounding is monotone, so when both
ends round to the same pattern every point between them does: the result is proven. Otherwise the
precision doubles. The first precision grows with 2*|exponent of x| because tiny inputs sit close
to representable numbers (sin x = x - x^3/6; GELU(x) = x/2 + x^2/sqrt(2 pi) with x/2 a midpoint).

When |d| is provably below a quarter of the quantum next to the anchor (or, with anchor 0, a
quarter of the smallest subnormal), its sign alone decides the rounding: anchor + d rounds like
anchor + sign(d) * 2^(q-2), which is computed exactly instead of adding numbers 2^(10^38) apart.
"""

from __future__ import annotations

import functools
import math
import struct
from fractions import Fraction

import numpy as np
from flint import arb, ctx

from ulplab.formats import Format, round_dyadic, round_fraction, round_to_format, to_values
from ulplab.oracle.forms import evaluate, special

MAX_PRECISION = 1 << 15


class OracleUndecided(RuntimeError):
    """The rounding could not be decided within MAX_PRECISION bits (never observed)."""


Dyadic = tuple[int, int]  # signed integer significand, binary exponent


def _dyadic_of_float(v: float) -> Dyadic:
    num, den = v.as_integer_ratio()
    return num, -(den.bit_length() - 1)


def _dyadic_of_arb(b: arb) -> Dyadic:
    man, exp = b.man_exp()
    return int(man), int(exp)


def _add(a: Dyadic, b: Dyadic) -> Dyadic:
    if a[0] == 0:
        return b
    if b[0] == 0:
        return a
    e = min(a[1], b[1])
    return (a[0] << (a[1] - e)) + (b[0] << (b[1] - e)), e


def _round(v: Dyadic, fmt: Format) -> tuple[int, ...]:
    return round_dyadic(v[0] < 0, abs(v[0]), v[1], fmt)


def _quantum_exponent_below(anchor: float, fmt: Format) -> int:
    """Exponent of the spacing of format values just below |anchor| (anchor representable)."""
    if anchor == 0:
        return fmt.emin - fmt.precision + 1
    mant, e = math.frexp(abs(anchor))  # |anchor| = mant * 2^e, 0.5 <= mant < 1
    binade = e - 1 - (1 if mant == 0.5 else 0)
    return max(binade, fmt.emin) - fmt.precision + 1


def _representable(v: float, fmt: Format) -> bool:
    """Is v a value of fmt? (The sign-of-d shortcut needs the anchor to be one.)"""
    if v == 0:
        return True
    r = round_fraction(Fraction(v), fmt)
    return r[2] == r[3]  # up == down: exact


def decide(anchor: float, d: arb, sign: int, fmt: Format) -> tuple[int, ...] | None:
    """Bit patterns of round(anchor + d) in every mode, or None if this ball cannot tell."""
    if not d.is_finite():
        return None
    if sign == 0 and not d.is_zero():
        if d > 0:
            sign = 1
        elif d < 0:
            sign = -1
    if d.is_exact():
        return _round(_add(_dyadic_of_float(anchor), _dyadic_of_arb(d)), fmt)
    if sign != 0 and _representable(anchor, fmt):
        q = _quantum_exponent_below(anchor, fmt)
        if d.abs_upper() < arb(math.ldexp(1.0, q - 2)):
            return _round(_add(_dyadic_of_float(anchor), (sign, q - 3)), fmt)
        if (sign > 0 and not d > 0) or (sign < 0 and not d < 0):
            return None
    a = _dyadic_of_float(anchor)
    lo = _round(_add(a, _dyadic_of_arb(d.lower())), fmt)
    hi = _round(_add(a, _dyadic_of_arb(d.upper())), fmt)
    return lo if lo == hi else None


@functools.lru_cache(maxsize=256)
def _special_patterns(value: bytes, fmt: Format) -> tuple[int, ...]:
    """Patterns of an exact special value (NaN, +-inf, +-0, ...; its float64 bytes, so that
    -0 and NaN are keys) in every mode: the same ``round_to_format`` calls, made once per value
    and format instead of once per input (half of log's inputs are negative)."""
    v = struct.unpack("<d", value)[0]
    return tuple(int(round_to_format(np.array([v]), fmt, m)[0])
                 for m in ("nearest-even", "toward-zero", "up", "down"))


def _starting_precision(x: float) -> int:
    _, e = math.frexp(x)
    return 64 + 2 * max(0, -e)


def correctly_rounded(name: str, x: float, fmt: Format) -> tuple[int, ...]:
    """Bit patterns of f(x) correctly rounded to ``fmt`` in each of ROUNDING_MODES."""
    exact = special(name, x)
    if isinstance(exact, Fraction):
        return round_fraction(exact, fmt)
    if exact is not None:
        return _special_patterns(struct.pack("<d", exact), fmt)
    prec = _starting_precision(x)
    saved = ctx.prec
    try:
        while prec <= MAX_PRECISION:
            ctx.prec = prec
            anchor, d, sign = evaluate(name, x)
            result = decide(anchor, d, sign, fmt)
            if result is not None:
                return result
            prec *= 2
    finally:
        ctx.prec = saved
    raise OracleUndecided(f"{name}({x.hex()}) undecided at {MAX_PRECISION} bits")


def correctly_rounded_array(name: str, xs: np.ndarray, fmt: Format) -> np.ndarray:
    """Shape (4, n) array of bit patterns for inputs ``xs`` (values of ``fmt``), modes in rows."""
    xs = np.asarray(xs, dtype=np.float64)
    finite = np.isfinite(xs)
    back = np.where(finite, to_values(round_to_format(xs, fmt), fmt), 0.0)
    if not np.array_equal(back[finite], xs[finite]):
        raise ValueError(f"inputs must be values of {fmt.name}")
    out = np.empty((4, len(xs)), dtype=np.int64)
    for i, x in enumerate(np.asarray(xs, dtype=np.float64).tolist()):
        out[:, i] = correctly_rounded(name, x, fmt)
    return out.astype(fmt.uint)
