"""silu (swish): x * sigmoid(x)."""

from __future__ import annotations

import numpy as np
from flint import arb
from mpmath import mp, mpf

from ulplab.functions._parts import (
    GELU_REGIONS,
    INF,
    DoubleReference,
    Form,
    Function,
    Naive,
    Peers,
    odd_zero,
    peer,
)
from ulplab.functions._shared import sigmoid64, sigmoid_f32


def arb_form(x: float, X: arb) -> Form:
    if x > 0:  # x - x/(1 + e^x)
        return x, -X / (1 + X.exp()), -1
    return 0.0, X / (1 + (-X).exp()), -1


def mpmath_form(x: mpf) -> mpf:
    return x / (1 + mp.exp(-x))


def double(x: np.ndarray) -> np.ndarray:
    return x * sigmoid64(x)


def naive(x: np.ndarray) -> np.ndarray:
    return x * sigmoid_f32(x)


FUNCTION = Function(
    "silu", "x * sigmoid(x)", GELU_REGIONS, arb_form,
    at_inf=(INF, -0.0), exact=odd_zero,
    mpmath_form=mpmath_form, negative_for_negative_x=True,
    # x/2 + x^2/4 near 0; x - x e^-x beyond 32, and below -32 a value that is not an anchor
    double=DoubleReference(double, side_small=lambda s: 1,
                           side_large=lambda s: np.where(s > 0, -1, 0)),
    naive=Naive(naive, "x / (1 + exp(-x))", ("exp",)),
    peers=Peers(peer("torch.nn.functional.silu"), peer("jax.nn.silu"), None, None),
)
