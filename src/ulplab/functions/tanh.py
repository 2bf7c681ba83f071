"""tanh: the hyperbolic tangent."""

from __future__ import annotations

import numpy as np
from flint import arb
from mpmath import mp

from ulplab.functions._float64 import LIBM_ULPS, Form64, odd_small, put, rows, signs
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
    if abs(x) <= 0.5:
        return 0.0, X.tanh(), sgn(x)
    if x > 0:  # 1 - 2/(e^2x + 1): tanh(1e30) is a ball around 1, its distance below 1 is not
        return 1.0, -2 / ((2 * X).exp() + 1), -1
    return -1.0, 2 / ((-2 * X).exp() + 1), 1


def float64_form(x: np.ndarray) -> Form64:
    """|x| < 2^-12: x - x^3/3 (``odd_small``, 4 u; tanh x = x - x^3/3 + 2x^5/15 - ...: relative
    truncation below 2x^2/5). |x| <= 1/2: 0 + tanh(x): L. Beyond: ±1 ∓ 2/(e^(2|x|) + 1) (2|x|
    exact; exp's error passes at most once through e + 1 and the quotient, plus two roundings):
    L + 4."""
    f = Form64(x.size)
    ax = np.abs(x)
    odd_small(f, x, rows(ax < 2.0**-12), 1 / 3, 2 / 5)
    mid = rows((ax >= 2.0**-12) & (ax <= 0.5))
    put(f, mid, 0.0, np.tanh(x[mid]), LIBM_ULPS, signs(x[mid]))
    far = rows(ax > 0.5)
    s = signs(x[far])
    put(f, far, s.astype(np.float64), -s * 2.0 / (np.exp(2.0 * ax[far]) + 1.0),
        LIBM_ULPS + 4, -s)
    return f


FUNCTION = Function(
    "tanh", "tanh(x)", GENERIC_REGIONS, arb_form,
    at_inf=(1.0, -1.0), exact=odd_zero,
    mpmath_form=mp.tanh, negative_for_negative_x=True,
    float64_form=float64_form,
    # x - x^3/3 near 0; ±(1 - 2e^-2|x|) beyond 32
    double=DoubleReference(np.tanh, side_small=lambda s: -s, side_large=lambda s: -s,
                           small_below=2.0**-13),
    naive=Naive(np.tanh, "np.tanh", ("tanh",)),
    peers=Peers(peer("torch.tanh"), peer("jax.numpy.tanh"), peer("numpy.tanh"), "tanhf"),
    derivative="tanh_grad",
)
