"""The float32 claims of a det kernel checked at scale: correctly rounded, or rounded to odd.

``rounded_check(func, rounding, n)`` runs the compiled kernel (same bits as the NumPy one; the
NumPy kernel where no C compiler exists) on ``n`` random float32 bit patterns and compares every
result, bit for bit, with the truth from the oracle's fast path
(``oracle.fast32.correctly_rounded32``: float64 with a proven bound, Arb for the rest):

* ``float32``: the correctly rounded float32 f(x) (nearest-even);
* ``odd``: the float32 round-to-odd of f(x) (f(x) when it is a float32, else the neighbour with
  an odd significand), from the oracle's roundings down and up. A finite input whose correctly
  rounded result is infinite must give that infinity (the kernels' one stated exception).

A NaN result matches only a NaN truth; +0 and -0 differ.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ulplab.oracle.fast32 import correctly_rounded32


def _truth(func: str, x: np.ndarray, rounding: str) -> tuple[np.ndarray, int]:
    near, hard = correctly_rounded32(func, x)
    if rounding == "float32":
        return near, hard
    down, h1 = correctly_rounded32(func, x, "down")
    up, h2 = correctly_rounded32(func, x, "up")
    odd = np.where((down == up) | ((down & 1) == 1), down, up)
    overflow = ((near & np.uint32(0x7FFFFFFF)) == np.uint32(0x7F800000)) & np.isfinite(x)
    return np.where(overflow, near, odd), hard + h1 + h2


def _same(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    nan_a = (a & np.uint32(0x7FFFFFFF)) > np.uint32(0x7F800000)
    nan_b = (b & np.uint32(0x7FFFFFFF)) > np.uint32(0x7F800000)
    return (a == b) | (nan_a & nan_b)


def rounded_check(func: str, rounding: str, n: int, seed: int = 7, chunk: int = 1 << 22,
                  advance: Callable[[int], None] | None = None) -> dict[str, Any]:
    """How many of ``n`` random float32 inputs (seeded) the kernel does not round as claimed."""
    from ulplab.det import float32_kernel

    kernel = float32_kernel(func, rounding)
    rng = np.random.default_rng(seed)
    checked = wrong = by_arb = 0
    examples: list[str] = []
    for start in range(0, n, chunk):
        m = min(chunk, n - start)
        x = rng.integers(0, 2**32, m, dtype=np.uint64).astype(np.uint32).view(np.float32)
        with np.errstate(all="ignore"):
            got = kernel(x).view(np.uint32)
        want, hard = _truth(func, x, rounding)
        bad = np.flatnonzero(~_same(got, want))
        wrong += bad.size
        by_arb += hard
        checked += m
        examples += [f"0x{int(x.view(np.uint32)[i]):08x}->0x{int(got[i]):08x}"
                     f"(want 0x{int(want[i]):08x})" for i in bad[: max(0, 8 - len(examples))]]
        if advance is not None:
            advance(m)
    return {"function": func, "rounding": rounding, "checked": checked, "seed": seed,
            "wrong": wrong, "decided_by_arb": by_arb, "examples": examples}
