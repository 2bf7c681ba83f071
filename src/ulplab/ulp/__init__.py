"""Stage: ULP distance between two results, by two independent calculators.

Both map a finite bit pattern to an ordinal index such that neighbouring values differ by one and
+0 and -0 share an index (formats without -0, fnuz, have one zero; float8_e8m0fnu, with no zero
and no sign, numbers its values 0..254 from 2**-127); the ULP distance of two finite values is
the difference of their indices.

* ``ordinal_bitwise`` reads the index off the encoding (sign-magnitude -> signed integer).
* ``ordinal_sorted`` looks the value up in the sorted list of every distinct finite value.

With ``ftz=True`` subnormals are read as zero and the smallest normal is one step from zero (the
flush-to-zero ordinal). NaN and infinities have no index (-2**62 marks them); callers count
NaN/inf disagreements separately.

``real_ulp_error`` is the other figure: a result against the real (unrounded) f(x), in ULPs of
the format at f(x), a fraction (0.5: correctly rounded to nearest; < 1: faithful).
"""

from __future__ import annotations

import functools

import numpy as np

from ulplab.formats import Format, Kind, classify, flush_subnormals, is_finite, to_values

NO_INDEX = -(2**62)


def ordinal_bitwise(bits: np.ndarray, fmt: Format, ftz: bool = False) -> np.ndarray:
    """Ordinal index from the bit formula: +mag for positives, -mag for negatives."""
    b = np.asarray(bits).astype(np.int64)
    mag = b & fmt.mag_mask
    if ftz and fmt.has_zero:  # float8_e8m0fnu has neither zero nor subnormals
        mag = np.where(mag < fmt.min_normal_bits, 0, mag - fmt.min_normal_bits + 1)
    idx = np.where((b & fmt.sign_bit) != 0, -mag, mag)
    return np.where(is_finite(bits, fmt), idx, NO_INDEX)


@functools.lru_cache(maxsize=16)
def _sorted_values(fmt: Format, ftz: bool) -> tuple[np.ndarray, int]:
    if not fmt.exhaustive:
        raise ValueError(f"the sorted-table calculator enumerates every value; not for {fmt.name}")
    bits = np.arange(fmt.n_patterns, dtype=np.int64).astype(fmt.uint)
    bits = bits[is_finite(bits, fmt)]
    if ftz:
        bits = flush_subnormals(bits, fmt)
    vals = np.unique(to_values(bits, fmt))  # -0.0 == 0.0: one entry
    return vals, int(np.searchsorted(vals, 0.0))


def ordinal_sorted(bits: np.ndarray, fmt: Format, ftz: bool = False) -> np.ndarray:
    """Ordinal index by binary search in the sorted table of distinct finite values."""
    vals, zero = _sorted_values(fmt, ftz)
    finite = is_finite(bits, fmt)
    b = flush_subnormals(bits, fmt) if ftz else np.asarray(bits)
    x = np.where(finite, to_values(b, fmt), 0.0)
    idx = np.searchsorted(vals, x).astype(np.int64)
    if not np.array_equal(vals[np.minimum(idx, len(vals) - 1)][finite], x[finite]):
        raise AssertionError("a finite value is missing from the sorted table")
    return np.where(finite, idx - zero, NO_INDEX)


def ulp_distance(a: np.ndarray, b: np.ndarray, fmt: Format, ftz: bool = False,
                 calculator: str = "bitwise") -> np.ndarray:
    """|index(a) - index(b)| for finite pairs; -1 where either side is NaN or infinite."""
    ordinal = {"bitwise": ordinal_bitwise, "sorted": ordinal_sorted}[calculator]
    ia, ib = ordinal(a, fmt, ftz), ordinal(b, fmt, ftz)
    ok = (ia != NO_INDEX) & (ib != NO_INDEX)
    return np.where(ok, np.abs(ia - ib), -1)


def ulp_at(real: np.ndarray, fmt: Format, ftz: bool = False) -> np.ndarray:
    """The ULP of ``fmt`` at each real value (float64; sign ignored): 2^(e - p + 1) with e the
    binade of |real| (2^e <= |real| < 2^(e+1); a power of two is the first value of its binade,
    so 2^e has the larger spacing, the one above it), e clamped to [emin, emax]:

    * below the normal range (and at 0) the subnormal quantum 2^(emin - p + 1), the spacing of
      the subnormals; with ``ftz`` 2^emin, the step from 0 to the smallest normal;
    * at and beyond 2^(emax + 1) (and at ±inf) the spacing of the last binade, the ULP of the
      largest finite value.

    float8_e8m0fnu (p = 1, no zero) follows the same rule: its spacing at 2^e is 2^e. NaN in,
    NaN out.
    """
    r = np.abs(np.asarray(real, dtype=np.float64))
    with np.errstate(invalid="ignore"):
        _, e = np.frexp(np.where(np.isfinite(r), r, 0.0))  # r = m 2^e, 0.5 <= m < 1
    binade = np.where(r == 0, fmt.emin, e - 1)
    binade = np.where(np.isinf(r), fmt.emax, np.clip(binade, fmt.emin, fmt.emax))
    ulp = np.ldexp(1.0, binade - fmt.precision + 1)
    if ftz and fmt.has_zero:
        ulp = np.where(r < fmt.min_normal, fmt.min_normal, ulp)
    return np.where(np.isnan(r), np.nan, ulp)


def overflow_value(fmt: Format) -> float:
    """What an overflow result (+inf; NaN in a format whose overflow gives NaN) stands for: the
    largest finite value plus its ULP, 2^(emax+1) in an IEEE format (float8_e4m3fn: 480)."""
    return fmt.max_value + float(ulp_at(np.array([fmt.max_value]), fmt)[0])


def _distance_to_odd(g: np.ndarray, real: np.ndarray) -> np.ndarray:
    """|g - real| in float64, rounded to odd: exact when it is a float64, else the neighbour of
    the rounded difference, on the side of the exact one, whose last bit is 1. A figure that is
    not exact is then never a number with a short significand (0.5, 1, 2 ...), so it compares
    with those as the exact distance does: bfloat16's smallest subnormal against f(x) = 2^-200
    is 1 - 2^-67 ULP, which rounds to 1.0 but is below 1 (faithful)."""
    diff = g - real
    back = diff - g  # TwoSum (Knuth): g + (-real) = diff + residual exactly
    residual = (g - (diff - back)) + (-real - back)
    residual = np.where(np.isfinite(residual), residual, 0.0)
    out = np.abs(diff)
    toward = np.where(diff < 0, -residual, residual)  # the exact |g - real| is out + toward
    significand = np.abs(diff).view(np.int64) & 1
    move = (toward != 0) & (significand == 0) & (out != 0)
    return np.where(move, np.nextafter(out, np.where(toward > 0, np.inf, 0.0)), out)


def real_ulp_error(got: np.ndarray, real: np.ndarray, fmt: Format,
                   ftz: bool = False) -> np.ndarray:
    """|got - f(x)| / ulp(f(x)): each result (bit patterns of ``fmt``) against the real value
    (float64, ``ulplab.oracle.real``), in ULPs of the format at the real value (``ulp_at``:
    the binade of |f(x)|, the subnormal quantum below the normal range, the last binade's ULP
    beyond it). A float64 array; 0.5 or less on every input of a correctly rounded (to nearest)
    result, below 1 for a faithful one.

    * The figure is rounded to odd (``_distance_to_odd``): whether it is above 0.5, at least 1
      and so on is decided as for the exact |got - real| / ulp.
    * +0 and -0 are the value 0 (a sign of zero is not an error of size).
    * NaN result and NaN real value: 0. NaN on one side only: inf, except a NaN that is the
      format's overflow result (below).
    * An overflow result, +inf or -inf (and NaN in a format whose overflow gives NaN: the fnuz
      and e4m3fn formats), stands for every value from ``overflow_value`` (OV = max + ulp(max))
      up. Against a real value of the same sign (either sign for a NaN) beyond the largest
      finite value it scores max(0, OV - |f(x)|) / ulp(max): below 1 (faithful) there, at most
      0.5 once |f(x)| reaches the rounding threshold max + ulp(max)/2, 0 for |f(x)| >= OV or
      an infinite f(x). Against a real value the format can hold (|f(x)| <= max) or of the
      other sign: inf.
    * A finite result against an infinite real value (log(0), or |f(x)| beyond float64): inf.
    * The largest finite value is always measured as the value it is: in the saturating
      formats (float6/float4: no infinity, no NaN) and in a directed rounding toward zero
      beyond the range, the error grows with f(x) (correct rounding there is not <= 0.5).

    ``ftz``: the flush-to-zero format (no subnormals), as in ``ulp_distance``: below the
    smallest normal the ULP is the step from 0 to it. A policy that flushes subnormal results is
    otherwise measured as it is: a flushed subnormal counts its distance to f(x).
    """
    real = np.asarray(real, dtype=np.float64)
    bits = np.asarray(got)
    if bits.shape != real.shape:
        raise ValueError(f"got and real differ in shape: {bits.shape} and {real.shape}")
    g = to_values(bits, fmt)
    kind = classify(bits, fmt)
    with np.errstate(invalid="ignore", over="ignore"):
        ulp = ulp_at(real, fmt, ftz)
        err = _distance_to_odd(g, real) / ulp  # ulp: a power of two, the division exact
        top_ulp = float(ulp_at(np.array([fmt.max_value]), fmt)[0])
        beyond = np.abs(real) > fmt.max_value  # inf included
        standing = np.maximum(0.0, overflow_value(fmt) - np.abs(real)) / top_ulp
        standing = np.where(np.isinf(real), 0.0, standing)
    finite_g = np.isfinite(g)
    err = np.where(finite_g & np.isinf(real), np.inf, err)
    is_inf = kind == Kind.INF
    same_sign = np.signbit(g) == np.signbit(real)
    err = np.where(is_inf, np.where(beyond & same_sign & ~np.isnan(real), standing, np.inf), err)
    is_nan = kind == Kind.NAN
    nan_err = np.where(np.isnan(real), 0.0, np.inf)
    if fmt.overflow == "nan":
        nan_err = np.where(beyond & ~np.isnan(real), standing, nan_err)
    err = np.where(is_nan, nan_err, err)
    return np.where(~is_nan & np.isnan(real), np.inf, err)


__all__ = ["NO_INDEX", "ordinal_bitwise", "ordinal_sorted", "overflow_value", "real_ulp_error",
           "ulp_at", "ulp_distance"]
