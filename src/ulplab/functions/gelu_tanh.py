"""gelu_tanh: the tanh form of GELU, x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))."""

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
from ulplab.functions._shared import GELU_TANH_C, HALF, ONE, f32
from ulplab.kit.ops import f32hex

_SQRT_2_OVER_PI = f32hex("0x1.988454p-1")  # sqrt(2/pi) rounded to float32
_C_F32 = f32(0.044715)  # the decimal constant of the tanh form, rounded to float32


def arb_form(x: float, X: arb) -> Form:
    u = (2 / arb.pi()).sqrt() * (X + arb(GELU_TANH_C) * X * X * X)
    if x > 0:  # x/2 (1 + tanh u) = x / (1 + e^-2u) = x - x / (1 + e^2u)
        return x, -X / (1 + (2 * u).exp()), -1
    return 0.0, X / (1 + (-2 * u).exp()), -1


def mpmath_form(x: mpf) -> mpf:
    k = mp.sqrt(2 / mp.pi)
    c = mpf(44715) / 10**6
    return x / (1 + mp.exp(-2 * k * (x + c * x**3)))  # = x/2 (1 + tanh u), no cancellation


def double(x: np.ndarray) -> np.ndarray:
    u = (2 / np.pi) ** 0.5 * (x + 0.044715 * x**3)
    return x / (1 + np.exp(-2 * u))


def naive(x: np.ndarray) -> np.ndarray:
    return HALF * x * (ONE + np.tanh(_SQRT_2_OVER_PI * (x + _C_F32 * x * x * x)))


FUNCTION = Function(
    "gelu_tanh", "x/2 * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3))), 0.044715 exact",
    GELU_REGIONS, arb_form,
    at_inf=(INF, -0.0), exact=odd_zero,
    mpmath_form=mpmath_form, negative_for_negative_x=True,
    double=DoubleReference(double, side_small=lambda s: 1,  # as gelu: x/2 + x^2 sqrt(2/pi)/2
                           side_large=lambda s: np.where(s > 0, -1, 0)),
    naive=Naive(naive, "x/2 (1 + tanh(sqrt(2/pi)(x + 0.044715 x^3)))", ("tanh",)),
    peers=Peers(peer("torch.nn.functional.gelu", approximate="tanh"),
                peer("jax.nn.gelu", approximate=True), None, None),
)
