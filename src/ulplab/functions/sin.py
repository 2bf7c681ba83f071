"""sin: sin(x), x in radians."""

from __future__ import annotations

import math

import numpy as np
from flint import arb
from mpmath import mp

from ulplab.functions._float64 import LIBM_ULPS, Form64, odd_small, put, signs, split
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
    return 0.0, X.sin(), sgn(x) if abs(x) < 1 else 0  # sin has the sign of x on (-pi, pi)


def float64_form(x: np.ndarray) -> Form64:
    """|x| < 2^-12: x - x^3/6 (``odd_small``, 4 u; sin x = x - x^3/6 + x^5/120 - ...: relative
    truncation below x^2/20). Else 0 + sin(x): L, with the sign of x for |x| < 1."""
    f = Form64(x.size)
    ax = np.abs(x)
    tiny, m = split(ax < 2.0**-12)
    odd_small(f, x, tiny, 1 / 6, 1 / 20)
    put(f, m, 0.0, np.sin(x[m]), LIBM_ULPS, np.where(ax[m] < 1, signs(x[m]), 0))
    return f


FUNCTION = Function(
    "sin", "sin(x)", GENERIC_REGIONS, arb_form,
    at_inf=(math.nan, math.nan), exact=odd_zero,
    mpmath_form=mp.sin, negative_for_negative_x=True, derivative="cos",
    float64_form=float64_form,
    # x - x^3/6: the rest is quadratic in x relative to x, below half an ulp for |x| < 2^-13
    double=DoubleReference(np.sin, side_small=lambda s: -s, side_large=None,
                           small_below=2.0**-13),
    naive=Naive(np.sin, "np.sin", ("sin",)),
    peers=Peers(peer("torch.sin"), peer("jax.numpy.sin"), peer("numpy.sin"), "sinf"),
)
