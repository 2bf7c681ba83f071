"""log: the natural logarithm."""

from __future__ import annotations

import math

import numpy as np
from flint import arb
from mpmath import mp

from ulplab.functions._parts import (
    GENERIC_REGIONS,
    INF,
    DoubleReference,
    Form,
    Function,
    Naive,
    Peers,
    peer,
)
from ulplab.functions._shared import sgn


def arb_form(x: float, X: arb) -> Form:
    if 0.5 < x < 1.5:  # log1p(x - 1): x - 1 is exact, no cancellation near 1
        return 0.0, (X - 1).log1p(), sgn(x - 1)
    return 0.0, X.log(), sgn(x - 1)


def exact(x: float) -> float | None:
    """log(±0) = -inf, log(x < 0) = NaN, log(1) = +0 (the only rational value)."""
    if x == 0:
        return -INF
    if x < 0:
        return math.nan
    if x == 1:
        return 0.0
    return None


FUNCTION = Function(
    "log", "natural logarithm", GENERIC_REGIONS, arb_form,
    at_inf=(INF, math.nan), exact=exact,
    mpmath_form=mp.log, negative_for_negative_x=False,
    double=DoubleReference(np.log, side_small=None, side_large=None),
    naive=Naive(np.log, "np.log", ("log",)),
    peers=Peers(peer("torch.log"), peer("jax.numpy.log"), peer("numpy.log"), "logf"),
)
