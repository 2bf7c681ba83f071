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


def float32_range(lo_bits: int, hi_bits: int) -> np.ndarray:
    """float32 values whose bit patterns are lo_bits .. hi_bits-1 (a contiguous slice of 2**32)."""
    return np.arange(lo_bits, hi_bits, dtype=np.int64).astype(np.uint32).view(np.float32)


def float32_random(n: int, seed: int = 0) -> np.ndarray:
    """``n`` uniformly random float32 bit patterns (NaN and inf included), reproducible by seed."""
    rng = np.random.default_rng(seed)
    return rng.integers(0, 2**32, size=n, dtype=np.uint64).astype(np.uint32).view(np.float32)


__all__ = ["exhaustive", "float32_random", "float32_range"]
