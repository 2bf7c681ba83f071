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
    """Every bit pattern of ``fmt`` in increasing order (2**bits of them).

    Refuses float32, whose 2**32 patterns are enumerated in chunks by ``ulplab.inputs``.
    """
    if not fmt.exhaustive:
        raise ValueError(f"{fmt.name} has {fmt.n_patterns} patterns; iterate over ranges instead")
    return np.arange(fmt.n_patterns, dtype=np.int64).astype(fmt.uint)


def as_bits(bits: np.ndarray | int, fmt: Format) -> np.ndarray:
    return np.asarray(bits).astype(fmt.uint)


def to_values(bits: np.ndarray, fmt: Format) -> np.ndarray:
    """Decode bit patterns to float64 (exact: every format here is a subset of float64)."""
    with np.errstate(invalid="ignore"):  # NaN patterns decode to NaN without a warning
        return as_bits(bits, fmt).view(fmt.dtype).astype(np.float64)


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
    """The Kind of each pattern, as an int8 array."""
    mag = magnitude(bits, fmt)
    kind = np.full(mag.shape, Kind.NORMAL, dtype=np.int8)
    kind[mag < fmt.min_normal_bits] = Kind.SUBNORMAL
    kind[mag == 0] = Kind.ZERO
    beyond = mag > fmt.max_bits
    if fmt.has_inf:
        kind[mag == fmt.inf_bits] = Kind.INF
        beyond &= mag != fmt.inf_bits
    kind[beyond] = Kind.NAN
    return kind


def is_nan(bits: np.ndarray, fmt: Format) -> np.ndarray:
    return classify(bits, fmt) == Kind.NAN


def is_finite(bits: np.ndarray, fmt: Format) -> np.ndarray:
    return magnitude(bits, fmt) <= fmt.max_bits


def _overflow_bits(fmt: Format) -> int:
    return fmt.inf_bits if fmt.inf_bits is not None else fmt.nan_bits


def next_up(bits: np.ndarray, fmt: Format) -> np.ndarray:
    """The next pattern toward +inf (IEEE nextUp).

    NaN stays NaN, +inf stays +inf, nextUp(±0) is the smallest subnormal, and nextUp of the largest
    finite value is +inf (NaN in a format without infinities).
    """
    b = as_bits(bits, fmt).astype(np.int64)
    mag = b & fmt.mag_mask
    neg = (b & fmt.sign_bit) != 0
    kind = classify(bits, fmt)
    out = np.where(neg, b - 1, b + 1)
    out = np.where(mag == 0, 1, out)
    out = np.where(neg & (mag == 1), fmt.sign_bit, out)  # -min_subnormal -> -0
    out = np.where(~neg & (mag == fmt.max_bits), _overflow_bits(fmt), out)
    if fmt.has_inf:
        out = np.where(kind == Kind.INF, np.where(neg, fmt.sign_bit | fmt.max_bits, b), out)
    out = np.where(kind == Kind.NAN, b, out)
    return out.astype(fmt.uint)


def negate(bits: np.ndarray, fmt: Format) -> np.ndarray:
    return (as_bits(bits, fmt).astype(np.int64) ^ fmt.sign_bit).astype(fmt.uint)


def next_down(bits: np.ndarray, fmt: Format) -> np.ndarray:
    """The next pattern toward -inf: nextDown(x) = -nextUp(-x)."""
    return negate(next_up(negate(bits, fmt), fmt), fmt)


def counts(fmt: Format, ftz: bool = False) -> dict[str, int]:
    """Sizes of the value space: patterns, finite, subnormal, distinct ordinal indices.

    With ``ftz`` subnormals are read as zero, so they add no ordinal of their own.
    """
    n_sub = 2 * (fmt.min_normal_bits - 1)
    finite = 2 * (fmt.max_bits + 1)
    distinct = finite - 1  # +0 and -0 share one index
    if ftz:
        distinct -= n_sub
    return {
        "patterns": fmt.n_patterns,
        "finite": finite,
        "subnormal": n_sub,
        "normal": finite - 2 - n_sub,
        "nan": fmt.n_patterns - finite - (2 if fmt.has_inf else 0),
        "inf": 2 if fmt.has_inf else 0,
        "distinct_finite": distinct,
    }
