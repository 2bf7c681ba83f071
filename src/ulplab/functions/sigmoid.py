"""sigmoid: the logistic function 1 / (1 + e^-x)."""

from __future__ import annotations

import numpy as np
from flint import arb
from mpmath import mp, mpf

from ulplab.functions._float64 import ABS, LIBM_ULPS, Form64, put, rows, signs, tails
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
from ulplab.functions._shared import sigmoid64, sigmoid_f32


def arb_form(x: float, X: arb) -> Form:
    if x > 0:
        return 1.0, -1 / (1 + X.exp()), -1
    return 0.0, 1 / (1 + (-X).exp()), 1


def mpmath_form(x: mpf) -> mpf:
    return 1 / (1 + mp.exp(-x))


def float64_form(x: np.ndarray) -> Form64:
    """|x| <= 1/16: 1/2 + tanh(x/2)/2 (halvings exact): L + 4. Beyond: 1 - 1/(1 + e^x) for
    x > 0, 0 + 1/(1 + e^-x) for x < 0 (exp's error passes at most once through 1 + e and the
    quotient, plus two roundings): L + 4, and ABS max(1, |x|) where e^x underflows."""
    f = Form64(x.size)
    ax = np.abs(x)
    near_cond = ax <= 0.0625
    near = rows(near_cond)
    xn = x[near]
    put(f, near, 0.5, np.tanh(xn * 0.5) * 0.5, LIBM_ULPS + 4, signs(xn), ABS)
    for positive, m in tails(x, near_cond):
        xm = x[m]
        extra = ABS * np.maximum(ax[m], 1.0)
        if positive:
            put(f, m, 1.0, -1.0 / (1.0 + np.exp(xm)), LIBM_ULPS + 4, -1, extra)
        else:
            put(f, m, 0.0, 1.0 / (1.0 + np.exp(-xm)), LIBM_ULPS + 4, 1, extra)
    return f


FUNCTION = Function(
    "sigmoid", "1 / (1 + e^-x)", GENERIC_REGIONS, arb_form,
    at_inf=(1.0, 0.0), exact=value_at_zero(0.5),
    mpmath_form=mpmath_form, negative_for_negative_x=False,
    float64_form=float64_form,
    # 1/2 + x/4 near 0; 1 - e^-x beyond 32 (below 32, e^x is the value itself)
    double=DoubleReference(sigmoid64, side_small=lambda s: s,
                           side_large=lambda s: np.where(s > 0, -1, 1)),
    naive=Naive(sigmoid_f32, "1 / (1 + exp(-x))", ("exp",)),
    peers=Peers(peer("torch.sigmoid"), peer("jax.nn.sigmoid"), None, None),
)
