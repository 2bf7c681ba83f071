"""tan: tan(x), x in radians."""

from __future__ import annotations

import math

import numpy as np
from flint import arb
from mpmath import mp

from ulplab.functions._float64 import ABS, LIBM_ULPS, Form64, put, signs, split
from ulplab.functions._parts import (
    GENERIC_REGIONS,
    DoubleReference,
    Form,
    Function,
    Naive,
    Peers,
    odd_zero,
    peer,
)
from ulplab.functions._shared import sgn


def arb_form(x: float, X: arb) -> Form:
    # Near a pole (no float is one) Arb's ball keeps its relative accuracy as precision grows.
    return 0.0, X.tan(), sgn(x) if abs(x) < 1 else 0  # tan has the sign of x on (-pi/2, pi/2)


def float64_form(x: np.ndarray) -> Form64:
    """|x| < 2^-12: x + x^3/3, three roundings (4 u charged); tan x = x + x^3/3 + 2x^5/15 + ...:
    the relative truncation is below 2x^2/5 (+ ABS). Else 0 + tan(x): L, with the sign of x for
    |x| < 1."""
    f = Form64(x.size)
    ax = np.abs(x)
    tiny, m = split(ax < 2.0**-12)
    xt = x[tiny]
    d = xt * xt * xt / 3.0
    put(f, tiny, xt, d, 4.0, signs(xt), np.abs(d) * 0.4 * xt * xt + ABS)
    put(f, m, 0.0, np.tan(x[m]), LIBM_ULPS, np.where(ax[m] < 1, signs(x[m]), 0))
    return f


FUNCTION = Function(
    "tan", "tan(x)", GENERIC_REGIONS, arb_form,
    at_inf=(math.nan, math.nan), exact=odd_zero,  # tan(0) is its only rational value
    mpmath_form=mp.tan, negative_for_negative_x=False,
    float64_form=float64_form,
    double=DoubleReference(np.tan, side_small=lambda s: s, side_large=None,  # x + x^3/3
                           small_below=2.0**-13),
    naive=Naive(np.tan, "np.tan", ("tan",)),
    peers=Peers(peer("torch.tan"), peer("jax.numpy.tan"), peer("numpy.tan"), "tanf"),
)
