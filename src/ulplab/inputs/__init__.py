"""Stage: the inputs of a sweep: every pattern of a small format; float32 ranges and samples."""

from __future__ import annotations

import numpy as np

from ulplab.formats import Format, all_patterns, flush_subnormals, get_policy, to_values


def exhaustive(fmt: Format, denormals: str = "ieee") -> tuple[np.ndarray, np.ndarray]:
    """(patterns, values as the kernel reads them): every pattern in order; under DAZ a subnormal
    input is read as the zero of its sign."""
    bits = all_patterns(fmt)
    read = flush_subnormals(bits, fmt) if get_policy(denormals).daz else bits
    return bits, to_values(read, fmt)


INPUT_SETS = ("all", "normal")
"""``all``: every pattern; ``normal``: +0 and every normal finite value (no -0, subnormal, inf or
NaN), the 65,025 bfloat16 inputs of seed 002's tanh diagnostic."""


def input_set(fmt: Format, which: str) -> np.ndarray:
    """The patterns of ``fmt`` in the set ``which`` (one of INPUT_SETS), in increasing order."""
    from ulplab.errors import unknown_choice
    from ulplab.formats import magnitude

    if which not in INPUT_SETS:
        raise unknown_choice("input set", which, INPUT_SETS)
    bits = all_patterns(fmt)
    if which == "all":
        return bits
    mag = magnitude(bits, fmt)
    keep = ((mag >= fmt.min_normal_bits) & (mag <= fmt.max_bits)) | (bits == 0)
    return bits[keep]


def float32_range(lo_bits: int, hi_bits: int) -> np.ndarray:
    """float32 values whose bit patterns are lo_bits .. hi_bits-1 (a contiguous slice of 2**32)."""
    return np.arange(lo_bits, hi_bits, dtype=np.int64).astype(np.uint32).view(np.float32)


def float32_random(n: int, seed: int = 0) -> np.ndarray:
    """``n`` uniformly random float32 bit patterns (NaN and inf included), reproducible by seed."""
    rng = np.random.default_rng(seed)
    return rng.integers(0, 2**32, size=n, dtype=np.uint64).astype(np.uint32).view(np.float32)


def _order_key(v: np.ndarray) -> np.ndarray:
    """A monotone integer image of float32 order (-0 and +0 both map to 0)."""
    u = v.astype(np.float32).view(np.int32).astype(np.int64)
    return np.where(u >= 0, u, -(u & 0x7FFFFFFF))


def _from_key(k: np.ndarray) -> np.ndarray:
    return np.where(k >= 0, k, (-k) | 0x80000000).astype(np.int64).astype(np.uint32).view(
        np.float32)


def float32_between(a: float, b: float, n: int, seed: int = 0) -> np.ndarray:
    """Sorted distinct float32 values in [a, b]: all of them when there are at most ``n``, else
    about ``n`` spread half uniformly over bit patterns (every binade) and half over values."""
    lo, hi = np.float32(a), np.float32(b)
    if lo < a:
        lo = np.nextafter(lo, np.float32(np.inf))
    if hi > b:
        hi = np.nextafter(hi, np.float32(-np.inf))
    ka, kb = (int(k) for k in _order_key(np.array([lo, hi], np.float32)))
    if kb - ka + 1 <= n:
        return _from_key(np.arange(ka, kb + 1, dtype=np.int64))
    rng = np.random.default_rng(seed)
    by_pattern = _from_key(rng.integers(ka, kb + 1, n - n // 2))
    by_value = np.linspace(float(lo), float(hi), n // 2).astype(np.float32)
    return np.unique(np.concatenate([by_pattern, by_value]))


__all__ = ["exhaustive", "float32_between", "float32_random", "float32_range"]
