"""silu (swish): x * sigmoid(x)."""

from __future__ import annotations

import numpy as np
from flint import arb
from mpmath import mp, mpf

from ulplab.functions._float64 import ABS, LIBM_ULPS, Form64, put, rows, tails
from ulplab.functions._parts import (
    GELU_REGIONS,
    INF,
    DoubleReference,
    Form,
    Function,
    Naive,
    Peers,
    odd_zero,
    peer,
)
from ulplab.functions._shared import sigmoid64, sigmoid_f32


def arb_form(x: float, X: arb) -> Form:
    if x > 0:  # x - x/(1 + e^x)
        return x, -X / (1 + X.exp()), -1
    return 0.0, X / (1 + (-X).exp()), -1


def mpmath_form(x: mpf) -> mpf:
    return x / (1 + mp.exp(-x))


def double(x: np.ndarray) -> np.ndarray:
    return x * sigmoid64(x)


def naive(x: np.ndarray) -> np.ndarray:
    return x * sigmoid_f32(x)


def float64_form(x: np.ndarray) -> Form64:
    """|x| <= 1: x/2 + x tanh(x/2)/2 (the rest is never negative; halvings exact, one product
    more than sigmoid's): L + 5. Beyond: x - x/(1 + e^x) for x > 0, 0 + x/(1 + e^-x) for x < 0:
    L + 4 as sigmoid's, and ABS max(1, |x|) where e^x underflows."""
    f = Form64(x.size)
    ax = np.abs(x)
    near_cond = ax <= 1.0
    near = rows(near_cond)
    xn = x[near]
    put(f, near, xn * 0.5, xn * (np.tanh(xn * 0.5) * 0.5), LIBM_ULPS + 5, 1, ABS)
    for positive, m in tails(x, near_cond):
        xm = x[m]
        extra = ABS * np.maximum(ax[m], 1.0)
        if positive:
            put(f, m, xm, -xm / (1.0 + np.exp(xm)), LIBM_ULPS + 4, -1, extra)
        else:
            put(f, m, 0.0, xm / (1.0 + np.exp(-xm)), LIBM_ULPS + 4, -1, extra)
    return f


FUNCTION = Function(
    "silu", "x * sigmoid(x)", GELU_REGIONS, arb_form,
    at_inf=(INF, -0.0), exact=odd_zero,
    mpmath_form=mpmath_form, negative_for_negative_x=True,
    float64_form=float64_form,
    # x/2 + x^2/4 near 0; x - x e^-x beyond 32, and below -32 a value that is not an anchor
    double=DoubleReference(double, side_small=lambda s: 1,
                           side_large=lambda s: np.where(s > 0, -1, 0)),
    naive=Naive(naive, "x / (1 + exp(-x))", ("exp",)),
    peers=Peers(peer("torch.nn.functional.silu"), peer("jax.nn.silu"), None, None),
)
