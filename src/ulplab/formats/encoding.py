"""Bit patterns of a format: enumeration, decoding, classification, neighbours.

All functions are vectorized over NumPy arrays of bit patterns (the format's unsigned dtype).
"""

from __future__ import annotations

from enum import IntEnum

import numpy as np

from ulplab.formats.spec import Format


class Kind(IntEnum):
    """Classification of a bit pattern."""

    ZERO = 0
    SUBNORMAL = 1
    NORMAL = 2
    INF = 3
    NAN = 4


def all_patterns(fmt: Format) -> np.ndarray:
    """Every bit pattern of ``fmt`` in increasing order (2**bits of them; float4_e2m1fn: 16).

    Refuses float32, whose 2**32 patterns are enumerated in chunks by ``ulplab.inputs``.
    """
    if not fmt.exhaustive:
        raise ValueError(f"{fmt.name} has {fmt.n_patterns} patterns; iterate over ranges instead")
    return np.arange(fmt.n_patterns, dtype=np.int64).astype(fmt.uint)


def as_bits(bits: np.ndarray | int, fmt: Format) -> np.ndarray:
    return np.asarray(bits).astype(fmt.uint)


def to_values(bits: np.ndarray, fmt: Format) -> np.ndarray:
    """Decode bit patterns to float64 (exact: every format here is a subset of float64).

    ulplab's marker for a format without NaN (``fmt.nan_bits``) decodes to NaN.
    """
    b = as_bits(bits, fmt)
    with np.errstate(invalid="ignore"):  # NaN patterns decode to NaN without a warning
        values = b.view(fmt.dtype).astype(np.float64)
    if not fmt.has_nan:
        values = np.where(b >= fmt.n_patterns, np.nan, values)
    return values


def to_format(bits: np.ndarray, fmt: Format) -> np.ndarray:
    """View bit patterns as an array of the format's own dtype."""
    return as_bits(bits, fmt).view(fmt.dtype)


def from_format(values: np.ndarray, fmt: Format) -> np.ndarray:
    """Bit patterns of an array already in the format's dtype."""
    arr = np.asarray(values)
    if arr.dtype != fmt.dtype:
        raise TypeError(f"expected an array of {fmt.name}, got {arr.dtype}")
    return arr.view(fmt.uint)


def magnitude(bits: np.ndarray, fmt: Format) -> np.ndarray:
    return as_bits(bits, fmt).astype(np.int64) & fmt.mag_mask


def is_negative(bits: np.ndarray, fmt: Format) -> np.ndarray:
    return (as_bits(bits, fmt).astype(np.int64) & fmt.sign_bit) != 0


def classify(bits: np.ndarray, fmt: Format) -> np.ndarray:
    """The Kind of each pattern, as an int8 array.

    NaN: a magnitude above the largest finite one that is not an infinity, the -0 pattern of a
    signed format without -0 (fnuz: 0x80), and any pattern beyond the storage bits (the marker
    of a format without NaN). float8_e8m0fnu has no zero and no subnormals.
    """
    b = as_bits(bits, fmt).astype(np.int64)
    mag = b & fmt.mag_mask
    kind = np.full(mag.shape, Kind.NORMAL, dtype=np.int8)
    kind[mag < fmt.min_normal_bits] = Kind.SUBNORMAL
    if fmt.has_zero:
        kind[mag == 0] = Kind.ZERO
    nan = mag > fmt.max_bits
    if fmt.has_inf:
        kind[mag == fmt.inf_bits] = Kind.INF
        nan &= mag != fmt.inf_bits
    if fmt.signed and not fmt.has_neg_zero:
        nan |= b == fmt.sign_bit
    kind[nan | (b >= fmt.n_patterns)] = Kind.NAN
    return kind


def is_nan(bits: np.ndarray, fmt: Format) -> np.ndarray:
    return classify(bits, fmt) == Kind.NAN


def is_finite(bits: np.ndarray, fmt: Format) -> np.ndarray:
    return classify(bits, fmt) <= Kind.NORMAL


def signed_zero(bits: np.ndarray, fmt: Format) -> np.ndarray:
    """The zero with the sign of each pattern (+0 in a format without -0), as int64.

    Used by the denormal policies; float8_e8m0fnu has no zero (and no subnormal to flush).
    """
    b = as_bits(bits, fmt).astype(np.int64)
    return b & fmt.sign_bit if fmt.has_neg_zero else np.zeros_like(b)


def _no_value_above(fmt: Format) -> int:
    """nextUp of the largest finite value: +inf, or NaN (or the marker) without infinities."""
    return fmt.inf_bits if fmt.inf_bits is not None else fmt.nan_bits


def next_up(bits: np.ndarray, fmt: Format) -> np.ndarray:
    """The next pattern toward +inf (IEEE nextUp).

    NaN stays NaN, +inf stays +inf, nextUp(±0) is the smallest subnormal, nextUp of the smallest
    negative subnormal is -0 (+0 without -0), and nextUp of the largest finite value is +inf
    (``fmt.nan_bits`` in a format without infinities: there is no value above).
    """
    b = as_bits(bits, fmt).astype(np.int64)
    mag = b & fmt.mag_mask
    neg = (b & fmt.sign_bit) != 0
    kind = classify(bits, fmt)
    out = np.where(neg, b - 1, b + 1)
    if fmt.has_zero:
        out = np.where(kind == Kind.ZERO, 1, out)
        out = np.where(neg & (mag == 1), fmt.sign_bit if fmt.has_neg_zero else 0, out)
    out = np.where(~neg & (mag == fmt.max_bits), _no_value_above(fmt), out)
    if fmt.has_inf:
        out = np.where(kind == Kind.INF, np.where(neg, fmt.sign_bit | fmt.max_bits, b), out)
    out = np.where(kind == Kind.NAN, b, out)
    return out.astype(fmt.uint)


def negate(bits: np.ndarray, fmt: Format) -> np.ndarray:
    """-x: the sign bit flipped; NaN stays itself, and +0 stays +0 in a format without -0.

    In an unsigned format (float8_e8m0fnu) -x is not a value: NaN.
    """
    b = as_bits(bits, fmt).astype(np.int64)
    kind = classify(bits, fmt)
    if not fmt.signed:
        return np.where(kind == Kind.NAN, b, fmt.nan_bits).astype(fmt.uint)
    out = b ^ fmt.sign_bit
    if not fmt.has_neg_zero:
        out = np.where(kind == Kind.ZERO, 0, out)
    return np.where(kind == Kind.NAN, b, out).astype(fmt.uint)


def next_down(bits: np.ndarray, fmt: Format) -> np.ndarray:
    """The next pattern toward -inf: nextDown(x) = -nextUp(-x).

    In an unsigned format the pattern below; nextDown of the smallest value is NaN (no value
    lies below it: float8_e8m0fnu has no zero).
    """
    if fmt.signed:
        return negate(next_up(negate(bits, fmt), fmt), fmt)
    b = as_bits(bits, fmt).astype(np.int64)
    out = np.where(b == 0, fmt.nan_bits, b - 1)
    return np.where(classify(bits, fmt) == Kind.NAN, b, out).astype(fmt.uint)


def counts(fmt: Format, ftz: bool = False) -> dict[str, int]:
    """Sizes of the value space: patterns, finite, subnormal, distinct ordinal indices.

    Counted over every pattern of a small format; float32's follow from the IEEE layout. With
    ``ftz`` subnormals are read as zero, so they add no ordinal of their own.
    """
    if fmt.exhaustive:
        tally = np.bincount(classify(all_patterns(fmt), fmt), minlength=len(Kind))
        n_zero, n_sub, n_normal, n_inf, n_nan = (int(tally[k]) for k in Kind)
    else:  # IEEE interchange layout: +-0, +-inf, the rest of the top exponent is NaN
        n_zero, n_inf = 2, 2
        n_sub = 2 * (fmt.min_normal_bits - 1)
        n_normal = 2 * (fmt.max_bits + 1) - n_zero - n_sub
        n_nan = fmt.n_patterns - 2 * (fmt.max_bits + 1) - n_inf
    finite = n_zero + n_sub + n_normal
    distinct = finite - (1 if fmt.has_neg_zero else 0)  # +0 and -0 share one index
    if ftz:
        distinct -= n_sub
    return {
        "patterns": fmt.n_patterns,
        "finite": finite,
        "subnormal": n_sub,
        "normal": n_normal,
        "nan": n_nan,
        "inf": n_inf,
        "distinct_finite": distinct,
    }
