"""log: the natural logarithm."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from flint import arb
from mpmath import mp

from ulplab.functions._float64 import LIBM_ULPS, Form64, put, split
from ulplab.functions._parts import (
    GENERIC_REGIONS,
    INF,
    DoubleReference,
    Form,
    Function,
    Naive,
    Peers,
    peer,
)
from ulplab.functions._shared import sgn


def arb_form(x: float, X: arb) -> Form:
    if 0.5 < x < 1.5:  # log1p(x - 1): x - 1 is exact, no cancellation near 1
        return 0.0, (X - 1).log1p(), sgn(x - 1)
    return 0.0, X.log(), sgn(x - 1)


def exact(x: float) -> float | None:
    """log(±0) = -inf, log(x < 0) = NaN, log(1) = +0 (the only rational value)."""
    if x == 0:
        return -INF
    if x < 0:
        return math.nan
    if x == 1:
        return 0.0
    return None


def log_form(x: np.ndarray, scale: float, far: Callable[[np.ndarray], np.ndarray]) -> Form64:
    """1/2 < x < 3/2: 0 + log1p(x - 1) * scale (x - 1 exact: no cancellation near 1); else
    0 + far(x). L + 2: one libm call, and the scale's product (its constant's half ulp and one
    rounding; scale 1 for log, 1/ln 2 for log2). x > 0 (``nan_below``)."""
    f = Form64(x.size)
    m, other = split((x > 0.5) & (x < 1.5))  # x - 1 exact
    s = np.sign(x - 1.0).astype(np.int64)  # 0 at x = 1: log(1) = +0 is left to the grid test
    put(f, m, 0.0, np.log1p(x[m] - 1.0) * scale, LIBM_ULPS + 2, s[m])
    put(f, other, 0.0, far(x[other]), LIBM_ULPS + 2, s[other])
    return f


def float64_form(x: np.ndarray) -> Form64:
    """``log_form`` with scale 1 and log."""
    return log_form(x, 1.0, np.log)


FUNCTION = Function(
    "log", "natural logarithm", GENERIC_REGIONS, arb_form,
    at_inf=(INF, math.nan), exact=exact,
    mpmath_form=mp.log, negative_for_negative_x=False,
    float64_form=float64_form, nan_below=0.0,
    double=DoubleReference(np.log, side_small=None, side_large=None),
    naive=Naive(np.log, "np.log", ("log",)),
    peers=Peers(peer("torch.log"), peer("jax.numpy.log"), peer("numpy.log"), "logf"),
)
