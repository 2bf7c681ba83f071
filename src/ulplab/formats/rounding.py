"""Rounding exact values to a format, once, in four rounding modes.

Two implementations with the same rules, tested against each other:

* ``round_to_format`` rounds float64 (or float32) arrays in one step with integer operations on
  the float64 encoding. ml_dtypes' float64 -> bfloat16 cast goes through float32 and rounds twice
  (1 + 2**-8 + 2**-40 becomes 1.0 instead of 1.0078125); this function never does.
* ``round_dyadic`` and ``round_fraction`` round one exact value (an integer significand and a
  binary exponent of any size, or a rational) in every mode at once; the oracle uses them.

Rules shared by both:

* subnormal results are kept (denormal policies are applied separately, see ``denormals``);
* a zero result keeps the sign of the exact value, except in a format without -0 (fnuz: +0);
* overflow, by the format's rule (``Format.overflow``, read from ml_dtypes' casts): nearest-even
  goes beyond the largest finite value when ``|v| >= max + ulp(max)/2`` (the tie goes to the
  even neighbour, the would-be ``2**(emax+1)``) and gives inf (IEEE), NaN (float8_e4m3fn, fnuz,
  float8_e8m0fnu) or the largest finite value (``saturate``: float6/float4). A directed mode
  that rounds toward zero gives the largest finite value; an infinite input rounds like an
  overflow away from zero;
* a format without zero (float8_e8m0fnu): an exact zero, a negative value and, in a mode that
  rounds toward zero, a positive value below the smallest give NaN; nearest and upward give
  the smallest value 2**-127 (ml_dtypes' cast does the same in nearest);
* a NaN input gives the format's canonical NaN (ulplab's marker in a format without NaN);
* precision 1 (float8_e8m0fnu): a tie is rounded on the significand, which is always 1, so it
  goes up (0.75 -> 1, 1.5 -> 2), as ml_dtypes does.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from ulplab.errors import unknown_choice
from ulplab.formats.spec import Format

ROUNDING_MODES: tuple[str, ...] = ("nearest-even", "toward-zero", "up", "down")
"""Rounding modes, in the order the oracle stores them."""


def check_mode(mode: str) -> str:
    if mode not in ROUNDING_MODES:
        raise unknown_choice("rounding mode", mode, ROUNDING_MODES)
    return mode


def _encode(neg: np.ndarray, mag: np.ndarray, toward_zero: np.ndarray, exact_zero: np.ndarray,
            fmt: Format) -> np.ndarray:
    """Bit patterns from rounded magnitudes laid out as in IEEE formats (int64 arrays).

    ``mag`` is ``((e - emin) << (precision - 1)) + significand`` after rounding: it may exceed the
    largest finite magnitude (overflow) and is 0 for a result below half the smallest positive
    value. ``fmt.encoding_offset`` maps it to the format's own patterns.
    """
    off = fmt.encoding_offset
    out_mag = mag - off
    nan = np.zeros_like(neg)
    over = mag > fmt.max_bits + off
    if fmt.overflow == "inf":
        assert fmt.inf_bits is not None
        out_mag = np.where(over, np.where(toward_zero, fmt.max_bits, fmt.inf_bits), out_mag)
    elif fmt.overflow == "saturate":
        out_mag = np.where(over, fmt.max_bits, out_mag)
    else:
        out_mag = np.where(over & toward_zero, fmt.max_bits, out_mag)
        nan |= over & ~toward_zero
    if not fmt.has_zero:
        under = mag == 0  # no zero to round to: the smallest value, or NaN toward zero
        out_mag = np.where(under, 0, out_mag)
        nan |= under & (toward_zero | exact_zero)
    if fmt.signed:
        zero_sign = neg & ((out_mag != 0) | fmt.has_neg_zero)
        out = out_mag | np.where(zero_sign, fmt.sign_bit, 0)
    else:
        out = out_mag
        nan |= neg
    return np.where(nan, np.where(neg, fmt.nan_bits | fmt.sign_bit, fmt.nan_bits), out)


def round_to_format(values: np.ndarray, fmt: Format, mode: str = "nearest-even") -> np.ndarray:
    """Round float64/float32 values to ``fmt`` in one step; returns bit patterns (fmt.uint).

    ``fmt.precision`` must be at most 24 (every format here), so that a normal float64 always has
    at least 29 bits below the format's quantum.
    """
    check_mode(mode)
    v = np.asarray(values)
    if v.dtype != np.float64:
        with np.errstate(invalid="ignore"):  # signalling NaNs are quieted, silently
            v = v.astype(np.float64)  # exact for float32 / float16 / bfloat16 / fp8 inputs
    raw = v.view(np.uint64)
    neg = (raw >> np.uint64(63)).astype(bool)
    bexp = ((raw >> np.uint64(52)) & np.uint64(0x7FF)).astype(np.int64)
    frac = (raw & np.uint64((1 << 52) - 1)).astype(np.int64)
    sub64 = bexp == 0
    sig = np.where(sub64, frac, frac | (1 << 52))  # |v| = sig * 2**scale
    scale = np.where(sub64, -1074, bexp - 1075)
    e = np.where(sub64, -1023, bexp - 1023)  # any value below every format's emin works for sub64
    ee = np.maximum(e, fmt.emin)
    shift = np.minimum(ee - (fmt.precision - 1) - scale, 60)  # >= 29; 60 keeps sig < half
    n = sig >> shift
    rem = sig - (n << shift)
    half = np.int64(1) << (shift - 1)
    inexact = rem != 0
    if mode == "nearest-even":
        inc = (rem > half) | ((rem == half) & ((n & 1) == 1))
    elif mode == "toward-zero":
        inc = np.zeros_like(inexact)
    elif mode == "up":
        inc = inexact & ~neg
    else:
        inc = inexact & neg
    mag = ((ee - fmt.emin) << (fmt.precision - 1)) + n + inc
    toward_zero = {"nearest-even": np.zeros_like(neg), "toward-zero": np.ones_like(neg),
                   "up": neg, "down": ~neg}[mode]
    isinf = np.isinf(v)
    mag = np.where(sig == 0, 0, np.where(isinf, fmt.n_patterns << 1, mag))
    out = _encode(neg, mag, toward_zero & ~isinf, sig == 0, fmt)
    out = np.where(np.isnan(v), fmt.nan_bits, out)
    return out.astype(fmt.uint)


def _encode_one(neg: bool, mag: int, toward_zero: bool, fmt: Format) -> int:
    """``_encode`` for one nonzero value (the oracle's hot path: no NumPy call per value)."""
    off = fmt.encoding_offset
    nan = fmt.nan_bits | (fmt.sign_bit if neg else 0)
    if mag > fmt.max_bits + off:  # overflow
        if toward_zero or fmt.overflow == "saturate":
            mag = fmt.max_bits + off
        elif fmt.overflow == "inf":
            assert fmt.inf_bits is not None
            mag = fmt.inf_bits + off
        else:
            return nan
    if mag == 0 and not fmt.has_zero:  # below the smallest value of a format without zero
        if toward_zero:
            return nan
        mag = off
    if not fmt.signed:
        return nan if neg else mag - off
    if neg and (mag != 0 or fmt.has_neg_zero):
        return (mag - off) | fmt.sign_bit
    return mag - off


def _finish(neg: bool, ee: int, n: int, cmp_half: int, inexact: bool,
            fmt: Format) -> tuple[int, ...]:
    """Bit patterns in every mode from the truncated significand ``n`` at binade ``ee``.

    ``cmp_half`` is the sign of (remainder - half quantum).
    """
    base = (ee - fmt.emin) << (fmt.precision - 1)
    trunc = base + n
    away = trunc + (1 if inexact else 0)
    nearest = trunc + (1 if cmp_half > 0 or (cmp_half == 0 and n & 1) else 0)
    up, down = (trunc, away) if neg else (away, trunc)
    return (
        _encode_one(neg, nearest, False, fmt),
        _encode_one(neg, trunc, True, fmt),
        _encode_one(neg, up, neg, fmt),
        _encode_one(neg, down, not neg, fmt),
    )


def round_dyadic(neg: bool, man: int, exp: int, fmt: Format) -> tuple[int, ...]:
    """Round the exact value ``(-1)**neg * man * 2**exp`` (``man >= 0``) in every mode at once.

    Returns bit patterns in the order of ``ROUNDING_MODES``. ``exp`` may be astronomically large
    or small (Arb balls of exp(1e38) have exponents near 1.4e38): no shift of that size is made.
    """
    if man == 0:
        zero = _encode(np.full(4, neg), np.zeros(4, dtype=np.int64), np.zeros(4, dtype=bool),
                       np.ones(4, dtype=bool), fmt)
        return tuple(int(b) for b in zero)
    e = man.bit_length() - 1 + exp
    if e > fmt.emax + 1:
        return _finish(neg, fmt.emax + 2, 0, 1, True, fmt)  # beyond every finite value
    ee = max(e, fmt.emin)
    shift = ee - (fmt.precision - 1) - exp
    if shift <= 0:
        return _finish(neg, ee, man << -shift, -1, False, fmt)
    if shift > man.bit_length() + 1:
        return _finish(neg, ee, 0, -1, True, fmt)
    n = man >> shift
    rem = man - (n << shift)
    half = 1 << (shift - 1)
    return _finish(neg, ee, n, (rem > half) - (rem < half), rem != 0, fmt)


def round_fraction(value: Fraction | int, fmt: Format) -> tuple[int, ...]:
    """Round an exact rational in every mode at once (order of ``ROUNDING_MODES``)."""
    value = Fraction(value)
    neg = value < 0
    num, den = abs(value.numerator), value.denominator
    if num == 0:
        return round_dyadic(neg, 0, 0, fmt)
    if den & (den - 1) == 0:
        return round_dyadic(neg, num, -(den.bit_length() - 1), fmt)
    e = num.bit_length() - den.bit_length()
    if (num << max(0, -e)) < (den << max(0, e)):
        e -= 1  # now 2**e <= |value| < 2**(e+1)
    if e > fmt.emax + 1:
        return _finish(neg, fmt.emax + 2, 0, 1, True, fmt)
    ee = max(e, fmt.emin)
    q = ee - (fmt.precision - 1)
    scaled_num, scaled_den = (num, den << q) if q >= 0 else (num << -q, den)
    n, rem = divmod(scaled_num, scaled_den)
    twice = 2 * rem
    return _finish(neg, ee, n, (twice > scaled_den) - (twice < scaled_den), rem != 0, fmt)


def round_value(value: Fraction | int, fmt: Format, mode: str = "nearest-even") -> int:
    """Round one exact rational in one mode; returns its bit pattern."""
    return round_fraction(value, fmt)[ROUNDING_MODES.index(check_mode(mode))]
