"""tanh_grad: d/dx tanh(x) = 1 - tanh(x)^2 = sech(x)^2."""

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
    value_at_zero,
)
from ulplab.functions._shared import ONE


def arb_form(x: float, X: arb) -> Form:
    if abs(x) < 0.5:
        return 1.0, -(X.tanh() ** 2), -1
    return 0.0, X.sech() ** 2, 1


def mpmath_form(x: mpf) -> mpf:
    return mp.sech(x) ** 2


def double(x: np.ndarray) -> np.ndarray:
    return 1 / np.cosh(x) ** 2  # cosh overflowing gives 0: an underflow


def naive(x: np.ndarray) -> np.ndarray:
    return ONE - np.tanh(x) ** 2


FUNCTION = Function(
    "tanh_grad", "d/dx tanh(x) = 1 - tanh(x)^2", GENERIC_REGIONS, arb_form,
    at_inf=(0.0, 0.0), exact=value_at_zero(1.0),
    mpmath_form=mpmath_form, negative_for_negative_x=False,
    double=DoubleReference(double, side_small=lambda s: -1, side_large=None,  # 1 - x^2
                           small_below=2.0**-13),
    naive=Naive(naive, "1 - tanh(x)^2", ("tanh",)),
    peers=Peers(None, None, None, None),
)
