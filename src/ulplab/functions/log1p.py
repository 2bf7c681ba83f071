"""log1p: log(1 + x), accurate for small x."""

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
    return 0.0, X.log1p(), sgn(x)


def exact(x: float) -> float | None:
    """log1p(±0) = ±0 (its only rational value), log1p(-1) = -inf, log1p(x < -1) = NaN."""
    if x == 0:
        return x
    if x == -1:
        return -INF
    if x < -1:
        return math.nan
    return None


FUNCTION = Function(
    "log1p", "log(1 + x)", GENERIC_REGIONS, arb_form,
    at_inf=(INF, math.nan), exact=exact,
    mpmath_form=mp.log1p, negative_for_negative_x=True,
    double=DoubleReference(np.log1p, side_small=lambda s: -1, side_large=None),  # x - x^2/2
    naive=Naive(np.log1p, "np.log1p", ("log1p",)),
    peers=Peers(peer("torch.log1p"), peer("jax.numpy.log1p"), peer("numpy.log1p"), "log1pf"),
)
