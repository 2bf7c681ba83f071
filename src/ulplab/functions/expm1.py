"""expm1: e^x - 1, accurate for small x."""

from __future__ import annotations

import numpy as np
from flint import arb
from mpmath import mp

from ulplab.functions._float64 import LIBM_ULPS, Form64, put, signs
from ulplab.functions._parts import (
    GENERIC_REGIONS,
    INF,
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
    if x < -0.5:  # -1 + e^x: e^-100 is far below any precision's radius around -1
        return -1.0, X.exp(), 1
    return 0.0, X.expm1(), sgn(x)


def float64_form(x: np.ndarray) -> Form64:
    """0 + expm1(x): L (anchor 0: no cancellation). Beyond x = 700 both e^x - 1 and e^700 - 1
    are far above float32's range: they round alike, so x is clipped there."""
    f = Form64(x.size)
    put(f, slice(None), 0.0, np.expm1(np.minimum(x, 700.0)), LIBM_ULPS, signs(x))
    return f


FUNCTION = Function(
    "expm1", "e^x - 1", GENERIC_REGIONS, arb_form,
    at_inf=(INF, -1.0), exact=odd_zero,  # expm1(0) is its only rational value
    mpmath_form=mp.expm1, negative_for_negative_x=True,
    float64_form=float64_form,
    # x + x^2/2 near 0; -1 + e^x below -32 (above 32 a value that is no anchor's)
    double=DoubleReference(np.expm1, side_small=lambda s: 1,
                           side_large=lambda s: np.where(s > 0, 0, 1)),
    naive=Naive(np.expm1, "np.expm1", ("expm1",)),
    peers=Peers(peer("torch.expm1"), peer("jax.numpy.expm1"), peer("numpy.expm1"), "expm1f"),
)
