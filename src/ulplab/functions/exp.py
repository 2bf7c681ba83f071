"""exp: e^x."""

from __future__ import annotations

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
    value_at_zero,
)
from ulplab.functions._shared import sgn


def arb_form(x: float, X: arb) -> Form:
    if abs(x) < 0.5:  # 1 + expm1(x): the rest beside 1 keeps its relative accuracy
        return 1.0, X.expm1(), sgn(x)
    return 0.0, X.exp(), 1


FUNCTION = Function(
    "exp", "e^x", GENERIC_REGIONS, arb_form,
    at_inf=(INF, 0.0), exact=value_at_zero(1.0),
    mpmath_form=mp.exp, negative_for_negative_x=False,
    double=DoubleReference(np.exp, side_small=lambda s: s, side_large=None),  # 1 + x
    naive=Naive(np.exp, "np.exp", ("exp",)),
    peers=Peers(peer("torch.exp"), peer("jax.numpy.exp"), peer("numpy.exp"), "expf"),
)
