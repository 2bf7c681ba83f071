"""log1p: log(1 + x), accurate for small x."""

from __future__ import annotations

import math

import numpy as np
from flint import arb
from mpmath import mp

from ulplab.functions._float64 import ABS, LIBM_ULPS, Form64, put, signs, split
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
    return 0.0, X.log1p(), sgn(x)


def exact(x: float) -> float | None:
    """log1p(±0) = ±0 (its only rational value), log1p(-1) = -inf, log1p(x < -1) = NaN."""
    if x == 0:
        return x
    if x == -1:
        return -INF
    if x < -1:
        return math.nan
    return None


def float64_form(x: np.ndarray) -> Form64:
    """|x| < 2^-12: x + delta, delta = x^2 (x/3 - 1/2) = -x^2/2 + x^3/3 < 0, at most four
    roundings (4 u); the next term -x^4/4 is x^2/2 of delta, charged x^2 |delta| (+ ABS). Else
    0 + log1p(x): L. x >= -1 (``nan_below``)."""
    f = Form64(x.size)
    tiny, m = split(np.abs(x) < 2.0**-12)
    xt = x[tiny]
    d = xt * xt * (xt / 3.0 - 0.5)
    put(f, tiny, xt, d, 4.0, -1, np.abs(d) * xt * xt + ABS)
    put(f, m, 0.0, np.log1p(x[m]), LIBM_ULPS, signs(x[m]))
    return f


FUNCTION = Function(
    "log1p", "log(1 + x)", GENERIC_REGIONS, arb_form,
    at_inf=(INF, math.nan), exact=exact,
    mpmath_form=mp.log1p, negative_for_negative_x=True,
    float64_form=float64_form, nan_below=-1.0,
    double=DoubleReference(np.log1p, side_small=lambda s: -1, side_large=None),  # x - x^2/2
    naive=Naive(np.log1p, "np.log1p", ("log1p",)),
    peers=Peers(peer("torch.log1p"), peer("jax.numpy.log1p"), peer("numpy.log1p"), "log1pf"),
)
