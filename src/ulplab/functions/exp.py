"""exp: e^x."""

from __future__ import annotations

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
    value_at_zero,
)
from ulplab.functions._shared import sgn


def arb_form(x: float, X: arb) -> Form:
    if abs(x) < 0.5:  # 1 + expm1(x): the rest beside 1 keeps its relative accuracy
        return 1.0, X.expm1(), sgn(x)
    return 0.0, X.exp(), 1


def float64_form(x: np.ndarray) -> Form64:
    """|x| < 1/2: 1 + expm1(x); else 0 + exp(x). One libm call on the exact x: L (+ ABS where
    e^x underflows). Beyond x = 700 both e^x and e^700 are far above float32's range: they round
    alike, so x is clipped there (no float64 overflow)."""
    f = Form64(x.size)
    m, other = split(np.abs(x) < 0.5)
    put(f, m, 1.0, np.expm1(x[m]), LIBM_ULPS, signs(x[m]))
    put(f, other, 0.0, np.exp(np.minimum(x[other], 700.0)), LIBM_ULPS, 1, ABS)
    return f


FUNCTION = Function(
    "exp", "e^x", GENERIC_REGIONS, arb_form,
    at_inf=(INF, 0.0), exact=value_at_zero(1.0),
    mpmath_form=mp.exp, negative_for_negative_x=False, derivative="exp",
    float64_form=float64_form,
    double=DoubleReference(np.exp, side_small=lambda s: s, side_large=None),  # 1 + x
    naive=Naive(np.exp, "np.exp", ("exp",)),
    peers=Peers(peer("torch.exp"), peer("jax.numpy.exp"), peer("numpy.exp"), "expf"),
)
