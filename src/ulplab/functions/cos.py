"""cos: cos(x), x in radians."""

from __future__ import annotations

import math

import numpy as np
from flint import arb
from mpmath import mp

from ulplab.functions._float64 import LIBM_ULPS, Form64, put, split
from ulplab.functions._parts import (
    GENERIC_REGIONS,
    DoubleReference,
    Form,
    Function,
    Naive,
    Peers,
    peer,
    value_at_zero,
)


def arb_form(x: float, X: arb) -> Form:
    if abs(x) < 0.5:  # 1 - 2 sin^2(x/2): the rest below 1 without cancellation
        return 1.0, -2 * (X / 2).sin() ** 2, -1
    return 0.0, X.cos(), 0


def float64_form(x: np.ndarray) -> Form64:
    """|x| < 1/2: 1 - 2 sin^2(x/2) (x/2 exact; the square doubles sin's error, then one
    rounding): 2L + 4. Else 0 + cos(x): L, sign unknown."""
    f = Form64(x.size)
    m, other = split(np.abs(x) < 0.5)
    h = np.sin(x[m] * 0.5)
    put(f, m, 1.0, -2.0 * h * h, 2 * LIBM_ULPS + 4, -1)
    put(f, other, 0.0, np.cos(x[other]), LIBM_ULPS, 0)
    return f


FUNCTION = Function(
    "cos", "cos(x)", GENERIC_REGIONS, arb_form,
    at_inf=(math.nan, math.nan), exact=value_at_zero(1.0),
    mpmath_form=mp.cos, negative_for_negative_x=False,
    float64_form=float64_form,
    double=DoubleReference(np.cos, side_small=lambda s: -1, side_large=None,  # 1 - x^2/2
                           small_below=2.0**-13),
    naive=Naive(np.cos, "np.cos", ("cos",)),
    peers=Peers(peer("torch.cos"), peer("jax.numpy.cos"), peer("numpy.cos"), "cosf"),
)
