"""cos: cos(x), x in radians."""

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
    peer,
    value_at_zero,
)


def arb_form(x: float, X: arb) -> Form:
    if abs(x) < 0.5:  # 1 - 2 sin^2(x/2): the rest below 1 without cancellation
        return 1.0, -2 * (X / 2).sin() ** 2, -1
    return 0.0, X.cos(), 0


FUNCTION = Function(
    "cos", "cos(x)", GENERIC_REGIONS, arb_form,
    at_inf=(math.nan, math.nan), exact=value_at_zero(1.0),
    mpmath_form=mp.cos, negative_for_negative_x=False,
    double=DoubleReference(np.cos, side_small=lambda s: -1, side_large=None,  # 1 - x^2/2
                           small_below=2.0**-13),
    naive=Naive(np.cos, "np.cos", ("cos",)),
    peers=Peers(peer("torch.cos"), peer("jax.numpy.cos"), peer("numpy.cos"), "cosf"),
)
