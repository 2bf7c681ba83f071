"""Faithfulness of a det kernel's float32 results at scale (10^8 random inputs and more).

The claim checked is the issue's: every float32 result within 1 ULP of the correctly rounded
f(x) (``unfaithful`` counts the inputs where it is not). Stricter, a result is faithful in the
bracket sense when it is one of the two float32 numbers around f(x); a round-to-odd result of a
value that lies within the kernel's error (about 2^-40) of a float32 number w can be w's odd
neighbour on the far side — 1 ULP from the correctly rounded w, outside the bracket — and
``outside_bracket`` counts those.

A float32 result's bracket is the two float32 numbers around f(x) (f(x) itself when it is one).
The Arb oracle decides it for any input but costs ~15 µs a value; here a float64 evaluation
(PyTorch's double-precision functions, or a stable double formula) brackets f(x) first, and only
inputs whose double value lies within 2^-44 (relative) of a float32 number — where a double's
error (about 1 ulp, 2^-52; the stable formulas here a few) could move it across — go to the
oracle, unless the input is so small or large that f(x) is within half an ulp of its anchor and
the side is known (``_SIDE``). Every other input's bracket is the bracket of its double value.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ulplab.formats import get_format, to_values
from ulplab.oracle.table import evaluate
from ulplab.ulp import ulp_distance

F32 = get_format("float32")


def _double_reference() -> dict[str, Callable[[Any], Any]]:
    import torch

    sq2pi = (2 / torch.pi) ** 0.5

    def softplus(x: Any) -> Any:
        return torch.log1p(torch.exp(-x.abs())) + torch.clamp(x, min=0)

    def gelu_tanh(x: Any) -> Any:
        u = sq2pi * (x + 0.044715 * x**3)
        return x / (1 + torch.exp(-2 * u))

    return {
        "exp": torch.exp, "exp2": torch.exp2, "log": torch.log, "log2": torch.log2,
        "sin": torch.sin, "cos": torch.cos, "tanh": torch.tanh, "sigmoid": torch.sigmoid,
        "softplus": softplus, "silu": lambda x: x * torch.sigmoid(x),
        "erf": torch.special.erf, "gelu": lambda x: 0.5 * x * torch.special.erfc(-x / 2**0.5),
        "gelu_tanh": gelu_tanh,
    }


# Where the double value lands on (or within 2^-44 of) a float32 value v, it cannot show the tiny
# rest. For small |x| (below 2^-13 where the rest is quadratic in x: sin, cos, tanh; below 2^-26
# elsewhere) and for |x| > 32, f(x) is within half an ulp of the anchor it tends to (1, x, x/2,
# 1/2, ±1), so v is that anchor, and the side of the rest is known from the series or the
# asymptote, as a function of sign(x); None means "ask the oracle".
_SMALL = {"sin": 2.0**-13, "cos": 2.0**-13, "tanh": 2.0**-13}
_SIDE: dict[str, tuple[Any, Any]] = {
    "exp": (lambda s: s, None), "exp2": (lambda s: s, None),
    "sin": (lambda s: -s, None), "cos": (lambda s: -1, None),
    "tanh": (lambda s: -s, lambda s: -s), "erf": (None, lambda s: -s),
    "sigmoid": (lambda s: s, lambda s: np.where(s > 0, -1, 1)),
    "silu": (lambda s: 1, lambda s: np.where(s > 0, -1, 0)),
    "gelu": (lambda s: 1, lambda s: np.where(s > 0, -1, 0)),
    "gelu_tanh": (lambda s: 1, lambda s: np.where(s > 0, -1, 0)),
    "softplus": (None, lambda s: np.where(s > 0, 1, 0)),
    "log": (None, None), "log2": (None, None),
}


def _side(func: str, x: np.ndarray) -> np.ndarray:
    """+1 / -1: the side of f(x) from a float32 value it rounds onto in double; 0: unknown."""
    small, large = _SIDE[func]
    s = np.where(np.signbit(x), -1, 1)
    out = np.zeros(x.shape, np.int64)
    ax = np.abs(x.astype(np.float64))
    if small is not None:
        out = np.where(ax < _SMALL.get(func, 2.0**-26), np.broadcast_to(small(s), x.shape), out)
    if large is not None:
        out = np.where(ax > 32, np.broadcast_to(large(s), x.shape), out)
    return out


def faithful_check(func: str, kernel: Callable[[np.ndarray], np.ndarray], n: int,
                   seed: int = 7, chunk: int = 1 << 22,
                   advance: Callable[[int], None] | None = None) -> dict[str, Any]:
    """Count unfaithful float32 results of ``kernel`` on ``n`` random float32 bit patterns
    (``advance(m)`` is called after each chunk of ``m``)."""
    import torch

    ref = _double_reference()[func]
    rng = np.random.default_rng(seed)
    checked = unfaithful = by_oracle = outside = 0
    examples: list[str] = []
    for start in range(0, n, chunk):
        m = min(chunk, n - start)
        x = rng.integers(0, 2**32, m, dtype=np.uint64).astype(np.uint32).view(np.float32)
        with np.errstate(all="ignore"):
            got = kernel(x)
        with np.errstate(invalid="ignore"):
            v = ref(torch.from_numpy(x.astype(np.float64))).numpy()
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
            # on a float32 exactly: the bracket is (v, its neighbour on the known side)
            side = _side(func, x)
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
        if advance is not None:
            advance(m)
    return {"function": func, "checked": checked, "decided_by_oracle": by_oracle,
            "unfaithful": unfaithful, "outside_bracket": outside, "examples": examples[:8]}
