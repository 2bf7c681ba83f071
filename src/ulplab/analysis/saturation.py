"""Saturation: where the correctly rounded f(x) stops depending on anything but x.

For each side (positive, negative inputs) and each target (the result equals x, 0, ±1, 2 or
±inf), find the longest run of inputs from the largest magnitude inward whose rounded result
equals the target. Its innermost input is the exact threshold: for every input beyond it, the
format cannot tell f(x) from the target. An unsigned format (float8_e8m0fnu) has no negative side.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ulplab.formats import Format, get_format, to_values
from ulplab.oracle.table import oracle_table
from ulplab.stats import hex_bits

TARGETS = ("x", "0", "1", "-1", "2", "inf", "-inf")


def _target_values(target: str, xs: np.ndarray) -> np.ndarray:
    return xs if target == "x" else np.full_like(xs, float(target))


def saturation(func: str, fmt: Format | str, rounding: str = "nearest-even",
               denormals: str = "ieee") -> dict[str, Any]:
    fmt = get_format(fmt)
    table = oracle_table(func, fmt, rounding, denormals)
    # increasing magnitude, finite, nonzero (float8_e8m0fnu's pattern 0 is 2**-127, not zero)
    mags = np.arange(1 if fmt.has_zero else 0, fmt.max_bits + 1, dtype=np.int64)
    sides: dict[str, list[dict[str, Any]]] = {"positive": [], "negative": []}
    for side, sign in (("positive", 0), ("negative", fmt.sign_bit))[:2 if fmt.signed else 1]:
        bits = (mags | sign).astype(fmt.uint)
        xs = to_values(bits, fmt)
        ys = to_values(table[bits], fmt)
        found = []
        for target in TARGETS:
            with np.errstate(invalid="ignore"):
                hit = ys == _target_values(target, xs)
            misses = np.flatnonzero(~hit)
            start = int(misses[-1]) + 1 if misses.size else 0  # first index of the final run
            if start < len(xs):
                found.append({"target": target, "threshold": float(xs[start]),
                              "threshold_hex": hex_bits(bits[start], fmt),
                              "inputs": int(len(xs) - start)})
        sides[side] = found
    return {"function": func, "format": fmt.name, "rounding": rounding, "denormals": denormals,
            "positive": sides["positive"], "negative": sides["negative"]}
