"""tanh_grad: d/dx tanh(x) = 1 - tanh(x)^2 = sech(x)^2."""

from __future__ import annotations

import numpy as np
from flint import arb
from mpmath import mp, mpf

from ulplab.functions._float64 import ABS, LIBM_ULPS, Form64, put, split
from ulplab.functions._parts import (
    GENERIC_REGIONS,
    DoubleReference,
    Form,
    Function,
    Naive,
    Peers,
    value_at_zero,
)
from ulplab.functions._shared import ONE


def arb_form(x: float, X: arb) -> Form:
    if abs(x) < 0.5:
        return 1.0, -(X.tanh() ** 2), -1
    return 0.0, X.sech() ** 2, 1


def mpmath_form(x: mpf) -> mpf:
    return mp.sech(x) ** 2


def double(x: np.ndarray) -> np.ndarray:
    return 1 / np.cosh(x) ** 2  # cosh overflowing gives 0: an underflow


def naive(x: np.ndarray) -> np.ndarray:
    return ONE - np.tanh(x) ** 2


def float64_form(x: np.ndarray) -> Form64:
    """|x| < 1/2: 1 - tanh(x)^2 (the square doubles tanh's error): 2L + 4. Beyond: sech^2 x =
    0 + 4t/(1 + t)^2, t = e^(-2|x|) (t's error enters the numerator once and the denominator at
    most once, 2t/(1 + t) < 1, plus four roundings): 2L + 8; ABS for underflow."""
    f = Form64(x.size)
    ax = np.abs(x)
    m, other = split(ax < 0.5)
    t = np.tanh(x[m])
    put(f, m, 1.0, -t * t, 2 * LIBM_ULPS + 4, -1, ABS)
    e = np.exp(-2.0 * ax[other])
    put(f, other, 0.0, 4.0 * e / ((1.0 + e) * (1.0 + e)), 2 * LIBM_ULPS + 8, 1, ABS)
    return f


FUNCTION = Function(
    "tanh_grad", "d/dx tanh(x) = 1 - tanh(x)^2", GENERIC_REGIONS, arb_form,
    at_inf=(0.0, 0.0), exact=value_at_zero(1.0),
    mpmath_form=mpmath_form, negative_for_negative_x=False,
    float64_form=float64_form,
    double=DoubleReference(double, side_small=lambda s: -1, side_large=None,  # 1 - x^2
                           small_below=2.0**-13),
    naive=Naive(naive, "1 - tanh(x)^2", ("tanh",)),
    peers=Peers(None, None, None, None),
)
