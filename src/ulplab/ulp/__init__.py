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
"""

from __future__ import annotations

import functools

import numpy as np

from ulplab.formats import Format, flush_subnormals, is_finite, to_values

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


__all__ = ["NO_INDEX", "ordinal_bitwise", "ordinal_sorted", "ulp_distance"]
