"""tanh: the hyperbolic tangent."""

from __future__ import annotations

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
    if abs(x) <= 0.5:
        return 0.0, X.tanh(), sgn(x)
    if x > 0:  # 1 - 2/(e^2x + 1): tanh(1e30) is a ball around 1, its distance below 1 is not
        return 1.0, -2 / ((2 * X).exp() + 1), -1
    return -1.0, 2 / ((-2 * X).exp() + 1), 1


FUNCTION = Function(
    "tanh", "tanh(x)", GENERIC_REGIONS, arb_form,
    at_inf=(1.0, -1.0), exact=odd_zero,
    mpmath_form=mp.tanh, negative_for_negative_x=True,
    # x - x^3/3 near 0; ±(1 - 2e^-2|x|) beyond 32
    double=DoubleReference(np.tanh, side_small=lambda s: -s, side_large=lambda s: -s,
                           small_below=2.0**-13),
    naive=Naive(np.tanh, "np.tanh", ("tanh",)),
    peers=Peers(peer("torch.tanh"), peer("jax.numpy.tanh"), peer("numpy.tanh"), "tanhf"),
    derivative="tanh_grad",
)
