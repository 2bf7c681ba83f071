"""sin: sin(x), x in radians."""

from __future__ import annotations

import math

import numpy as np
from flint import arb
from mpmath import mp

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


FUNCTION = Function(
    "sin", "sin(x)", GENERIC_REGIONS, arb_form,
    at_inf=(math.nan, math.nan), exact=odd_zero,
    mpmath_form=mp.sin, negative_for_negative_x=True,
    # x - x^3/6: the rest is quadratic in x relative to x, below half an ulp for |x| < 2^-13
    double=DoubleReference(np.sin, side_small=lambda s: -s, side_large=None,
                           small_below=2.0**-13),
    naive=Naive(np.sin, "np.sin", ("sin",)),
    peers=Peers(peer("torch.sin"), peer("jax.numpy.sin"), peer("numpy.sin"), "sinf"),
)
