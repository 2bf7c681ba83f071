"""tan: tan(x), x in radians."""

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
    # Near a pole (no float is one) Arb's ball keeps its relative accuracy as precision grows.
    return 0.0, X.tan(), sgn(x) if abs(x) < 1 else 0  # tan has the sign of x on (-pi/2, pi/2)


FUNCTION = Function(
    "tan", "tan(x)", GENERIC_REGIONS, arb_form,
    at_inf=(math.nan, math.nan), exact=odd_zero,  # tan(0) is its only rational value
    mpmath_form=mp.tan, negative_for_negative_x=False,
    double=DoubleReference(np.tan, side_small=lambda s: s, side_large=None,  # x + x^3/3
                           small_below=2.0**-13),
    naive=Naive(np.tan, "np.tan", ("tan",)),
    peers=Peers(peer("torch.tan"), peer("jax.numpy.tan"), peer("numpy.tan"), "tanf"),
)
