"""Rounding intervals: for every input of a format, the float32 values a kernel may return.

A synthesized kernel computes a float32 value ``v`` and the format's conversion rounds it once
(``ulplab.formats.rounding.round_to_format``, in the recipe's rounding mode). The conversion is
monotone, so the float32 values that round to one result form an interval, and so do those that
round to any result within ``max_ulp`` of the correctly rounded one. ``targets`` finds, for each
input, that interval as a pair of float32 *ordinals* (``ordinal32``: the integers in the order of
the values, -0 just below +0), by bisection over all float32 values at once — exact, no
assumption about the format beyond monotone rounding.

A result the format can only give as NaN from a finite input (``float8_e4m3fn`` has no infinity:
an overflow rounds to NaN) is the key ``+BIG`` or ``-BIG`` by the sign of the value, so that the
order stays monotone; a NaN the function gives inside its domain's hole (log of a negative) has no
interval: ``Targets.nan`` marks it, and the template's own compare and select must produce it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ulplab.formats import Format
from ulplab.formats.encoding import all_patterns, to_values
from ulplab.formats.rounding import round_to_format

BIG = 1 << 40
LOWEST = -0x7F800001  # ordinal of -inf
HIGHEST = 0x7F800000  # ordinal of +inf


def ordinal32(v: np.ndarray) -> np.ndarray:
    """float32 values -> int64 ordinals, increasing with the value; -0 is -1, +0 is 0."""
    b = np.asarray(v, dtype=np.float32).view(np.uint32).astype(np.int64)
    mag = b & 0x7FFFFFFF
    return np.where(b >> 31 != 0, -mag - 1, mag)


def from_ordinal32(o: np.ndarray) -> np.ndarray:
    """The float32 values of ordinals (the inverse of ``ordinal32``)."""
    o = np.asarray(o, dtype=np.int64)
    neg = o < 0
    mag = np.where(neg, -o - 1, o)
    return (mag | (neg.astype(np.int64) << 31)).astype(np.uint32).view(np.float32)


def code_key(codes: np.ndarray, fmt: Format) -> np.ndarray:
    """Bit patterns of ``fmt`` -> int64 keys in the order of their values (-0 below +0)."""
    b = np.asarray(codes).astype(np.int64)
    mag = b & fmt.mag_mask
    neg = (b & fmt.sign_bit) != 0 if fmt.signed else np.zeros(b.shape, bool)
    return np.where(neg, -mag - 1, mag)


def rounded_key(v: np.ndarray, fmt: Format, mode: str) -> np.ndarray:
    """The key of the format's rounding of float32 values; an overflow to NaN is +-BIG."""
    v = np.asarray(v, dtype=np.float32)
    codes = round_to_format(v, fmt, mode)
    key = code_key(codes, fmt)
    nan = np.isnan(to_values(codes, fmt))
    return np.where(nan, np.where(v > 0, BIG, -BIG), key)


def first_at_least(keys: np.ndarray, fmt: Format, mode: str) -> np.ndarray:
    """For each key k, the smallest float32 ordinal whose rounding has key >= k
    (HIGHEST + 1 where none does)."""
    k = np.asarray(keys, dtype=np.int64)
    lo = np.full(k.shape, LOWEST, dtype=np.int64)
    hi = np.full(k.shape, HIGHEST + 1, dtype=np.int64)
    while True:
        active = hi - lo > 0
        if not active.any():
            return hi
        mid = (lo + hi) // 2
        ok = rounded_key(from_ordinal32(np.minimum(mid, HIGHEST)), fmt, mode) >= k
        hi = np.where(active & ok, mid, hi)
        lo = np.where(active & ~ok, mid + 1, lo)


@dataclass
class Targets:
    """Per input (every pattern of the format, in pattern order): its float32 value ``x``, the
    correctly rounded key ``key``, the allowed float32 ordinals ``[lo, hi]`` and ``nan`` where the
    result must be NaN (a NaN input, or a NaN inside the function's domain hole)."""

    fmt: Format
    mode: str
    x: np.ndarray
    expected: np.ndarray
    key: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    nan: np.ndarray

    @property
    def lo_value(self) -> np.ndarray:
        return from_ordinal32(np.clip(self.lo, LOWEST, HIGHEST)).astype(np.float64)

    @property
    def hi_value(self) -> np.ndarray:
        return from_ordinal32(np.clip(self.hi, LOWEST, HIGHEST)).astype(np.float64)

    def accepts(self, v: np.ndarray) -> np.ndarray:
        """Which float32 results are acceptable (inside the interval, or NaN where NaN is due)."""
        v = np.asarray(v, dtype=np.float32)
        o = ordinal32(v)
        isnan = np.isnan(v)
        return np.where(self.nan, isnan, ~isnan & (o >= self.lo) & (o <= self.hi))


def targets(expected: np.ndarray, fmt: Format, mode: str = "nearest-even", max_ulp: int = 0,
            sign_hint: np.ndarray | None = None, allowed: tuple[np.ndarray, np.ndarray] | None
            = None) -> Targets:
    """The rounding intervals for the correctly rounded results ``expected`` (bit patterns of
    every input of ``fmt``, in pattern order), widened to ``max_ulp`` results on each side, or
    to the key range ``allowed`` (lowest, highest key) where given (``--max-error``).

    ``sign_hint``: the sign (+1/-1) of f(x) where the expected result is NaN for a finite input
    (an overflow in a format without infinity); 0 there means a NaN due inside the domain."""
    with np.errstate(invalid="ignore"):
        x = to_values(all_patterns(fmt), fmt).astype(np.float32)
    exp_nan = np.isnan(to_values(expected, fmt))
    key = code_key(expected, fmt)
    if sign_hint is not None:
        key = np.where(exp_nan & (sign_hint > 0), BIG, np.where(exp_nan & (sign_hint < 0),
                                                                -BIG, key))
    nan = exp_nan & (np.isnan(x) | (sign_hint is None) | (sign_hint == 0)
                     if sign_hint is not None else exp_nan)
    if allowed is not None:
        klo, khi = allowed
    else:
        klo = np.where(np.abs(key) >= BIG, key, key - max_ulp)
        khi = np.where(np.abs(key) >= BIG, key, key + max_ulp)
    lo = first_at_least(klo, fmt, mode)
    hi = first_at_least(np.where(khi >= BIG, BIG + 1, khi + 1), fmt, mode) - 1
    return Targets(fmt, mode, x, np.asarray(expected), key, lo, hi, nan)
