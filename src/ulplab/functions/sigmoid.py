"""sigmoid: the logistic function 1 / (1 + e^-x)."""

from __future__ import annotations

import numpy as np
from flint import arb
from mpmath import mp, mpf

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
from ulplab.functions._shared import sigmoid64, sigmoid_f32


def arb_form(x: float, X: arb) -> Form:
    if x > 0:
        return 1.0, -1 / (1 + X.exp()), -1
    return 0.0, 1 / (1 + (-X).exp()), 1


def mpmath_form(x: mpf) -> mpf:
    return 1 / (1 + mp.exp(-x))


FUNCTION = Function(
    "sigmoid", "1 / (1 + e^-x)", GENERIC_REGIONS, arb_form,
    at_inf=(1.0, 0.0), exact=value_at_zero(0.5),
    mpmath_form=mpmath_form, negative_for_negative_x=False,
    # 1/2 + x/4 near 0; 1 - e^-x beyond 32 (below 32, e^x is the value itself)
    double=DoubleReference(sigmoid64, side_small=lambda s: s,
                           side_large=lambda s: np.where(s > 0, -1, 1)),
    naive=Naive(sigmoid_f32, "1 / (1 + exp(-x))", ("exp",)),
    peers=Peers(peer("torch.sigmoid"), peer("jax.nn.sigmoid"), None, None),
)
