"""The real (unrounded) value of f at every input, as float64, for errors in fractional ULPs.

The correctly rounded tables (``table.oracle_table``) say which value of the format f(x) rounds
to; the accelerator world's figure ("max pure ULP < 1.0": faithful) measures a result against
f(x) itself (``ulplab.ulp.real_ulp_error``). This module gives f(x) as a float64 v that is
f(x) rounded to odd on a grid of ``GRID_BITS`` = 40 significant bits:

* v = f(x) when f(x) lies on that grid; otherwise v is the one of the two grid neighbours of
  f(x) whose last (40th) bit is 1. So |v - f(x)| < 2^-39 |f(x)| (``REAL_RELATIVE_ERROR``).
* v is never a power of two unless f(x) is that power, so v lies in the binade of f(x) and the
  ULP the error is counted in (``ulplab.ulp.ulp_at``: the binade of |f(x)|) is the same.
* Comparisons are kept: for every number w of at most 39 significant bits (every value of every
  format here, and every midpoint between two neighbouring values of a format of up to 38 bits,
  float32 included), v < w, v = w, v > w exactly when f(x) < w, = w, > w. Hence whether an
  error is above 0.5, at least 1, ... (|got - f(x)| against ulp/2, ulp: multiples of numbers of
  <= 25 bits) is decided exactly, not to within the accuracy below.
* Tiny values: 0 < |f(x)| < 2^-190 (far below half the smallest quantum of every format,
  2^-150) is stored as ±2^-200 (every comparison above kept: no format value or midpoint lies
  in between).
* Beyond float64's largest value (exp of inputs above 709.8) v is ±inf; NaN where f(x) is
  undefined (log(-1)); f(±inf) and the exact cases as the oracle has them (``forms.special``).

Accuracy of the figure itself (``accuracy_ulps``): in ULPs of a format with p significand bits
|error with v - error with f(x)| < 2^(p-39), and below 2^-190 at most 2^-190 / (the smallest
quantum), 2^-41 for float32: float32 2^-15, bfloat16 2^-31, float16 2^-28. Beyond the format's
range, where the ULP stays that of its largest value, the bound is 2^-39 of the error itself.

How: the float32 oracle's float64 forms (``fast32``: f = anchor + delta with a proven bound)
decide v where |delta| is provably far below the grid step next to the anchor (v: the anchor's
odd neighbour on delta's side) or where the proven interval (y - 2 margin, y + 2 margin) lies
strictly between two neighbours of the grid (4 margin >= 2^-50 |y| wide; the grid: 2^-39 |y|).
Every other input (NaN, infinities, zeros, grid straddles, tails where a form cannot tell the
sign of delta, values outside 2^-190 ... 2^128) goes to Arb (``forms.evaluate``, the oracle's
own formulas) in a Ziv loop until its ball does. Measured here: a bfloat16 or float16 table of
any function in 0.02 to 2 s on one core.
"""

from __future__ import annotations

import math
import sys
from fractions import Fraction

import numpy as np
from flint import arb, ctx

from ulplab import cache
from ulplab.formats import (
    Format,
    Kind,
    all_patterns,
    classify,
    get_format,
    get_policy,
    signed_zero,
    to_values,
)
from ulplab.functions import get_function
from ulplab.oracle.fast32 import SAFETY
from ulplab.oracle.forms import evaluate, special
from ulplab.oracle.table import oracle_source_hash
from ulplab.oracle.ziv import MAX_PRECISION, OracleUndecided

GRID_BITS = 40
"""Significant bits of the grid f(x) is rounded to odd on."""
REAL_RELATIVE_ERROR = 2.0 ** (1 - GRID_BITS)
"""|v - f(x)| < REAL_RELATIVE_ERROR |f(x)| for every stored value (module docstring)."""
TINY_EXPONENT = -190
"""0 < |f(x)| < 2^TINY_EXPONENT is stored as ±2^TINY_STORED."""
TINY_STORED = -200
LIMIT = Fraction(sys.float_info.max)
"""float64's largest value: a real value beyond it is stored as ±inf."""


def accuracy_ulps(fmt: Format | str) -> float:
    """Bound on |error measured with these values - error against the exact f(x)|, in ULPs of
    ``fmt`` (module docstring): 2^(p - 39), or 2^-190 / (the smallest quantum) if larger."""
    fmt = get_format(fmt)
    quantum = 2.0 ** (fmt.emin - fmt.precision + 1)
    return max(REAL_RELATIVE_ERROR * 2.0**fmt.precision, 2.0**TINY_EXPONENT / quantum)


# ---------------------------------------------------------------- exact rounding to odd (Arb)
def _binade(q: Fraction) -> int:
    """e with 2^e <= |q| < 2^(e+1) (q != 0)."""
    q = abs(q)
    e = q.numerator.bit_length() - q.denominator.bit_length()
    return e if Fraction(2) ** e <= q else e - 1


def _odd_on_grid(lo: Fraction, hi: Fraction) -> Fraction | None:
    """The grid point with an odd last bit of the two neighbours that hold [lo, hi] strictly
    between them (lo <= hi, one sign, not zero), or lo itself when lo == hi is a grid point;
    None when a grid point lies inside [lo, hi] otherwise (refine)."""
    e = _binade(lo)
    if _binade(hi) != e:
        return None
    step = Fraction(2) ** (e - GRID_BITS + 1)
    k = math.floor(lo / step)
    if lo == hi and k * step == lo:
        return lo
    if k * step == lo or (k + 1) * step <= hi:
        return None
    return (k if k % 2 else k + 1) * step


def _stored(value: Fraction) -> float:
    """A grid point (or an exact case already rounded to odd) as the float64 stored."""
    if value > LIMIT:
        return math.inf
    if value < -LIMIT:
        return -math.inf
    return float(value)  # a 40-bit grid point: exact


def _rounded_to_odd(lo: Fraction, hi: Fraction) -> float | None:
    """v for a real value known to lie in [lo, hi] (module docstring), or None (refine)."""
    if lo > 0 or hi < 0:
        if lo > LIMIT or hi < -LIMIT:
            return math.inf if lo > 0 else -math.inf
        tiny = Fraction(2) ** TINY_EXPONENT
        if -tiny < lo and hi < tiny:
            return math.ldexp(1.0 if lo > 0 else -1.0, TINY_STORED)
        odd = _odd_on_grid(lo, hi) if lo > 0 else _odd_on_grid(-hi, -lo)
        if odd is None:
            return None
        return _stored(odd if lo > 0 else -odd)
    if lo == hi == 0:
        return 0.0
    return None


def _fraction(b: arb) -> Fraction:
    """An exact arb (a ball's end) as a Fraction; magnitudes beyond 2^1100 or below 2^-1200
    clamped there (nothing past them changes what is stored)."""
    man, exp = (int(t) for t in b.man_exp())
    if man == 0:
        return Fraction(0)
    top = man.bit_length() + exp
    if top > 1100:
        return Fraction(1 << 1100) * (1 if man > 0 else -1)
    if top < -1200:
        return Fraction(1, 1 << 1200) * (1 if man > 0 else -1)
    return Fraction(man) * Fraction(2) ** exp


def _beside_anchor(anchor: float, d: arb, sign: int) -> float | None:
    """anchor + d when |d| is provably below a quarter of the grid step next to the anchor
    (gelu(256) = 256 - 2^-47000: no precision separates the sum's ball from 256): the odd one
    of the anchor and its grid neighbour on d's side (the anchor is a float32 value: on the
    grid, with a last bit 0); None when that is not proven."""
    if anchor == 0 or not d.is_finite():
        return None
    if sign == 0:
        sign = 1 if d > 0 else -1 if d < 0 else 0
    if sign == 0 or not d.abs_upper() < arb(abs(anchor) * 2.0 ** (-GRID_BITS - 2)):
        return None
    a = Fraction(anchor)
    nudge = Fraction(2) ** (_binade(a) - GRID_BITS - 4)  # inside the step next to the anchor
    return _rounded_to_odd(a + sign * nudge, a + sign * nudge)


def real_value_arb(func: str, x: float) -> float:
    """f(x) rounded to odd on the 40-bit grid (module docstring), by Arb: one input."""
    exact = special(func, x)
    if isinstance(exact, Fraction):
        return _exact(exact)
    if exact is not None:
        return float(exact)
    _, e = math.frexp(x)
    prec = 64 + 2 * max(0, -e)  # as the oracle's Ziv loop starts: tiny x sits close to anchors
    saved = ctx.prec
    try:
        while prec <= MAX_PRECISION:
            ctx.prec = prec
            anchor, d, sign = evaluate(func, x)
            near = _beside_anchor(anchor, d, sign)
            if near is not None:
                return near
            total = arb(anchor) + d
            if total.is_finite():
                lo, hi = _fraction(total.lower()), _fraction(total.upper())
                if anchor == 0 and sign != 0 and lo < 0 < hi:  # only |d| bounded: its sign
                    lo, hi = (Fraction(0), hi) if sign > 0 else (lo, Fraction(0))
                    bound = max(-lo, hi)
                    if bound < Fraction(2) ** TINY_EXPONENT:
                        return math.ldexp(float(sign), TINY_STORED)
                v = _rounded_to_odd(lo, hi)
                if v is not None:
                    return v
            prec *= 2
    finally:
        ctx.prec = saved
    raise OracleUndecided(f"real {func}({x.hex()}) undecided at {MAX_PRECISION} bits")


def _exact(value: Fraction) -> float:
    """An exact case (``special``'s Fractions: 0, 1/2, 2^k ...) rounded to odd on the grid."""
    if value == 0:
        return 0.0
    v = _rounded_to_odd(value, value)
    if v is None:  # unreachable: a single point is on the grid or strictly between two
        raise AssertionError(f"exact value {value} not placed on the grid")
    return v


# ---------------------------------------------------------------- arrays, tables
def _fast(func: str, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(v, decided) from the float64 form f = anchor + delta (``fast32``: |delta64 - delta| <=
    SAFETY err). Where |delta| is provably below a quarter grid step of the anchor (exp(2^-100)
    = 1 + 2^-100), v is the anchor's odd grid neighbour on delta's side; elsewhere, where the
    proven interval (y - 2 margin, y + 2 margin) of ``decide64`` lies strictly between two grid
    neighbours, v is the odd one. Only inside float32's range (2^-190 ... 2^128): outside it the
    forms bound, rather than follow, f (e^x -> inf / 0)."""
    form = get_function(func).float64_form
    if form is None:
        return np.full(x.shape, np.nan), np.zeros(x.shape, bool)
    with np.errstate(all="ignore"):
        f = form(x)
        anchor, delta = (np.broadcast_to(np.asarray(t, np.float64), x.shape)
                         for t in (f.anchor, f.delta))
        err = np.broadcast_to(SAFETY * np.asarray(f.err, np.float64), x.shape)
        sign = np.broadcast_to(np.asarray(f.sign), x.shape)
        sign = np.where(sign != 0, sign, np.where(np.abs(delta) > err, np.sign(delta), 0))
        # beside the anchor: a float32 value (<= 25 bits), so even on the grid
        _, ea = np.frexp(np.abs(anchor))  # |anchor| = m 2^ea: binade ea - 1
        beside = ((anchor != 0) & (sign != 0)
                  & (np.abs(delta) + err < np.ldexp(np.abs(anchor), -GRID_BITS - 2)))
        toward_zero = np.signbit(sign * anchor)
        power_of_two = np.ldexp(0.5, ea) == np.abs(anchor)
        step = np.ldexp(1.0, ea - GRID_BITS - np.where(toward_zero & power_of_two, 1, 0))
        v_beside = anchor + sign * step
        # the general case
        y = anchor + delta
        margin = err + 2.0**-52 * np.abs(y)
        lo, hi = y - 2 * margin, y + 2 * margin
        a_lo, a_hi = np.abs(np.where(lo > 0, lo, hi)), np.abs(np.where(lo > 0, hi, lo))
        _, e = np.frexp(a_lo)  # a_lo = m 2^e, 0.5 <= m < 1: binade e - 1, step 2^(e - 40)
        k_lo = np.floor(np.ldexp(a_lo, GRID_BITS - e))
        k_hi = np.floor(np.ldexp(a_hi, GRID_BITS - e))
        inside = ((lo > 0) | (hi < 0)) & (a_lo >= 2.0**TINY_EXPONENT) & (a_hi < 2.0**128)
        inside &= (k_lo == k_hi) & (np.ldexp(k_lo, e - GRID_BITS) != a_lo)
        inside &= np.frexp(a_hi)[1] == e
        odd = np.where(k_lo % 2 == 1, k_lo, k_lo + 1)
        v_inside = np.copysign(np.ldexp(odd, e - GRID_BITS), y)
        in_range = np.abs(anchor) < 2.0**128
        ok = in_range & (beside | inside)
        v = np.where(beside, v_beside, v_inside)
    return np.where(ok, v, np.nan), ok


def real_values_at(func: str, x: np.ndarray) -> np.ndarray:
    """f at the values ``x`` (float32 values: any input of any format here, as float64),
    unrounded: rounded to odd on the 40-bit grid (module docstring); x's shape, float64."""
    spec = get_function(func)
    x = np.asarray(x, dtype=np.float64)
    flat = x.ravel()
    out = np.full(flat.shape, np.nan)
    undefined = np.isnan(flat)
    if spec.nan_below is not None:
        undefined |= flat < spec.nan_below
    regular = np.flatnonzero(np.isfinite(flat) & (flat != 0) & ~undefined)
    hard = np.flatnonzero((~np.isfinite(flat) | (flat == 0)) & ~undefined)
    if regular.size:
        v, ok = _fast(func, flat[regular])
        out[regular[ok]] = v[ok]
        hard = np.concatenate([hard, regular[~ok]])
    for i in hard.tolist():
        out[i] = real_value_arb(func, float(flat[i]))
    return out.reshape(x.shape)


def _cache_key(func: str, fmt: Format) -> str:
    return f"real{GRID_BITS}-{func}-{fmt.name}-{oracle_source_hash(func)}"


def real_values(func: str, fmt: Format | str, denormals: str = "ieee") -> np.ndarray:
    """f(x) unrounded (float64, module docstring) for every bit pattern of a 16/8/6/4-bit
    format: entry i is f(input with pattern i) (NaN for NaN inputs). Cached like the oracle
    tables. Under a policy that reads subnormal inputs as zero (daz, ftz+daz) a subnormal input
    takes f of the zero of its sign; flushing of results does not apply to a real value."""
    get_function(func)
    fmt = get_format(fmt)
    policy = get_policy(denormals)
    if not fmt.exhaustive:
        raise ValueError(f"{fmt.name} is not enumerated; use real_values_at on its inputs")
    key = _cache_key(func, fmt)
    table = cache.load(key)
    if table is None or table.dtype != np.float64 or table.size != fmt.n_patterns:
        table = real_values_at(func, to_values(all_patterns(fmt), fmt))
        cache.save(key, table)
    if policy.daz:
        patterns = all_patterns(fmt)
        sub = classify(patterns, fmt) == Kind.SUBNORMAL
        table = np.where(sub, table[signed_zero(patterns, fmt)], table)
    return table


def real_values_of(func: str, fmt: Format | str, denormals: str = "ieee",
                   bits: np.ndarray | None = None) -> np.ndarray:
    """The real values in a sweep's input order: every pattern of ``fmt`` (``bits`` None) or
    the patterns ``bits`` (any format, float32 included), read under ``denormals``."""
    fmt = get_format(fmt)
    if bits is None:
        return real_values(func, fmt, denormals)
    bits = np.asarray(bits).astype(fmt.uint)
    if fmt.exhaustive:
        return real_values(func, fmt, denormals)[bits.astype(np.int64)]
    x = to_values(bits, fmt)
    if get_policy(denormals).daz:
        x = np.where((x != 0) & (np.abs(x) < fmt.min_normal), np.copysign(0.0, x), x)
    return real_values_at(func, x)


__all__ = ["GRID_BITS", "REAL_RELATIVE_ERROR", "accuracy_ulps", "real_value_arb",
           "real_values", "real_values_at", "real_values_of"]
