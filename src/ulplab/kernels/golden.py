"""The golden input set and the golden hash: the bits every backend of a kernel must reproduce.

``golden_hash(func, entry_point)`` is the SHA-256 of the kernel's output bits (little-endian
uint32) on the golden input set: every bfloat16 and float16 pattern (as float32), the special
values, every power of two with its neighbours, and 2^20 random float32 patterns (seed 2026), in
that order. The registry (``registry.json``) keeps each entry point's hash; the exports, the
compiled runner and every backend are held to it (tests/test_export.py, tests/test_native.py).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable

import numpy as np

from ulplab.formats import EXHAUSTIVE_FORMATS, get_format

GOLDEN_SETS = ("bfloat16", "float16", "special", "powers_of_two", "random_float32")
GOLDEN_SAMPLES = 1 << 20
SEED = 2026

SPECIAL_BITS = (0, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00000, 0x7F800001,
                0xFFBFFFFF, 0x00000001, 0x80000001, 0x007FFFFF, 0x00800000, 0x7F7FFFFF,
                0xFF7FFFFF)
"""±0, ±inf, quiet and signalling NaNs of both signs, the smallest and largest subnormals and
normals."""


def input_sets(samples: int = 10_000_000, seed: int = SEED) -> dict[str, np.ndarray]:
    """The fixed inputs: every pattern of each small format (as float32), special values, every
    power of two with its neighbours, and ``samples`` random float32 bit patterns."""
    sets: dict[str, np.ndarray] = {}
    for name in EXHAUSTIVE_FORMATS:
        fmt = get_format(name)
        bits = np.arange(fmt.n_patterns, dtype=np.int64).astype(fmt.uint)
        with np.errstate(invalid="ignore"):
            sets[name] = bits.view(fmt.dtype).astype(np.float32)
    sets["special"] = np.array(SPECIAL_BITS, np.uint32).view(np.float32)
    exps = (np.arange(0, 255, dtype=np.uint32) << np.uint32(23))
    pow2 = np.concatenate([exps, exps | np.uint32(0x80000000)])
    near = np.concatenate([pow2, pow2 + np.uint32(1), pow2 - np.uint32(1),
                           np.arange(1, 64, dtype=np.uint32)])
    sets["powers_of_two"] = near.view(np.float32)
    rng = np.random.default_rng(seed)
    sets["random_float32"] = rng.integers(0, 2**32, samples, dtype=np.uint64).astype(
        np.uint32).view(np.float32)
    return sets


def golden_hash(func: str, kernel: Callable[[np.ndarray], np.ndarray] | None = None,
                entry_point: str = "float32") -> str:
    """SHA-256 of ``kernel``'s output bits on the golden input set (default: the registered
    NumPy kernel of ``func``'s ``entry_point``)."""
    if kernel is None:
        from ulplab.kernels.registry import get

        kernel = get(func).impl(entry_point)
    sets = input_sets(GOLDEN_SAMPLES)
    h = hashlib.sha256()
    for name in GOLDEN_SETS:
        with np.errstate(all="ignore"):
            h.update(np.ascontiguousarray(kernel(sets[name])).astype("<f4").view(np.uint32)
                     .tobytes())
    return h.hexdigest()


__all__ = ["GOLDEN_SETS", "SPECIAL_BITS", "golden_hash", "input_sets"]
