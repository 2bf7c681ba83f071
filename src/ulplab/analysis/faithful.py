"""Faithfulness of a det kernel's float32 results at scale (10^8 random inputs and more).

The claim checked is the issue's: every float32 result within 1 ULP of the correctly rounded
f(x) (``unfaithful`` counts the inputs where it is not). Stricter, a result is faithful in the
bracket sense when it is one of the two float32 numbers around f(x); a round-to-odd result of a
value that lies within the kernel's error (about 2^-40) of a float32 number w can be w's odd
neighbour on the far side — 1 ULP from the correctly rounded w, outside the bracket — and
``outside_bracket`` counts those.

A float32 result's bracket is the two float32 numbers around f(x) (f(x) itself when it is one).
The Arb oracle decides it for any input but costs ~15 µs a value; here a float64 evaluation (the
function module's ``double``: NumPy's double-precision functions, the C library's erf, or a stable
double formula; no optional package) brackets f(x) first, and only inputs whose double value lies
within 2^-44 (relative) of a float32 number — where a double's error (about 1 ulp, 2^-52; the
stable formulas here a few) could move it across — go to the oracle, unless the input is so small
or large that f(x) is within half an ulp of its anchor and the side is known (the module's
``side_small``/``side_large``), and so do inputs in the module's ``oracle_between`` window where
its double formula cancels. Every other input's bracket is the bracket of its double value.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ulplab.formats import get_format, to_values
from ulplab.functions import DoubleReference, get_function
from ulplab.oracle.table import evaluate
from ulplab.ulp import ulp_distance

F32 = get_format("float32")


def _side(reference: DoubleReference, x: np.ndarray) -> np.ndarray:
    """+1 / -1: the side of f(x) from a float32 value it rounds onto in double; 0: unknown."""
    s = np.where(np.signbit(x), -1, 1)
    out = np.zeros(x.shape, np.int64)
    ax = np.abs(x.astype(np.float64))
    if reference.side_small is not None:
        out = np.where(ax < reference.small_below,
                       np.broadcast_to(reference.side_small(s), x.shape), out)
    if reference.side_large is not None:
        out = np.where(ax > 32, np.broadcast_to(reference.side_large(s), x.shape), out)
    return out


def faithful_check(func: str, kernel: Callable[[np.ndarray], np.ndarray], n: int,
                   seed: int = 7, chunk: int = 1 << 22) -> dict[str, Any]:
    """Count unfaithful float32 results of ``kernel`` on ``n`` random float32 bit patterns."""
    reference = get_function(func).double
    rng = np.random.default_rng(seed)
    checked = unfaithful = by_oracle = outside = 0
    examples: list[str] = []
    for start in range(0, n, chunk):
        m = min(chunk, n - start)
        x = rng.integers(0, 2**32, m, dtype=np.uint64).astype(np.uint32).view(np.float32)
        with np.errstate(all="ignore"):
            got = kernel(x)
        with np.errstate(all="ignore"):  # overflow, underflow and NaN are values here
            v = np.asarray(reference.evaluate(x.astype(np.float64)), dtype=np.float64)
        gb = got.view(np.uint32)
        nan_x = np.isnan(v)
        neg = np.signbit(v)
        big = np.float64(np.finfo(np.float32).max)
        with np.errstate(all="ignore"):
            vc = np.clip(v, -big, big)
            near = vc.astype(np.float32)
            below = near.astype(np.float64) > vc
            lo = np.where(below, np.nextafter(near, np.float32(-np.inf)), near)
            hi = np.where(lo.astype(np.float64) < vc, np.nextafter(lo, np.float32(np.inf)), lo)
            # beyond float32's range the bracket is (±max, ±inf); a double zero of a non-zero
            # input is an underflow: the bracket is (±0, ±smallest subnormal)
            over = np.abs(v) > big
            lo = np.where(over & ~neg, np.float32(np.finfo(np.float32).max), lo)
            hi = np.where(over & ~neg, np.float32(np.inf), hi)
            lo = np.where(over & neg, np.float32(-np.inf), lo)
            hi = np.where(over & neg, -np.float32(np.finfo(np.float32).max), hi)
            under = (v == 0) & (x != 0)
            tiny = np.float32(2.0**-149)
            lo = np.where(under, np.where(neg, -tiny, np.float32(0.0)), lo)
            hi = np.where(under, np.where(neg, np.float32(-0.0), tiny), hi)
            dist = np.minimum(np.abs(vc - lo.astype(np.float64)),
                              np.abs(hi.astype(np.float64) - vc))
            ambiguous = ~over & ~under & ~nan_x & (dist <= np.abs(v) * 2.0**-44)
            ambiguous |= (v == 0) & (x == 0)
            if reference.oracle_between is not None:  # where the double formula cancels
                lo_x, hi_x = reference.oracle_between
                ambiguous |= (x > lo_x) & (x < hi_x)
            # on a float32 exactly: the bracket is (v, its neighbour on the known side)
            side = _side(reference, x)
            known = ambiguous & (v != 0) & (side != 0)
            anchor = np.where(np.abs(vc - lo.astype(np.float64)) <= dist, lo, hi)
            lo = np.where(known, anchor, lo)
            nb = np.where(side > 0, np.nextafter(anchor, np.float32(np.inf)),
                          np.nextafter(anchor, np.float32(-np.inf)))
            hi = np.where(known, nb, hi)
            ambiguous &= ~known
        same = (gb == lo.view(np.uint32)) | (gb == hi.view(np.uint32)) | (got == lo) | (got == hi)
        ok = same & ~ambiguous & ~nan_x
        ok |= nan_x & (gb == 0x7FC00000)
        doubtful = np.flatnonzero(~ok)
        if doubtful.size:
            xs = to_values(x[doubtful].view(np.uint32), F32)
            down = evaluate(func, xs, F32, "down")
            up = evaluate(func, xs, F32, "up")
            nearest = evaluate(func, xs, F32)
            g = gb[doubtful]
            nan_ref = np.isnan(to_values(down, F32))
            good = (g == down) | (g == up) | (nan_ref & (g == 0x7FC00000))
            good |= (to_values(g, F32) == 0) & (to_values(down, F32) == 0) & \
                (to_values(up, F32) == 0)
            u = ulp_distance(g, nearest, F32)
            within1 = good | ((u >= 0) & (u <= 1)) | (g == nearest)
            by_oracle += doubtful.size
            outside += int((~good).sum())
            bad = doubtful[~within1]
            unfaithful += bad.size
            examples += [f"0x{int(b):08x}" for b in x[bad].view(np.uint32)[:4]]
        checked += m
    return {"function": func, "checked": checked, "decided_by_oracle": by_oracle,
            "unfaithful": unfaithful, "outside_bracket": outside, "examples": examples[:8]}
