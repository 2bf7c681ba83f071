"""gelu_tanh: the tanh form of GELU, x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))."""

from __future__ import annotations

import numpy as np
from flint import arb
from mpmath import mp, mpf

from ulplab.functions._float64 import ABS, LIBM_ULPS, Form64, put, rows
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
_SQRT_2_OVER_PI_F64 = float.fromhex("0x1.9884533d43651p-1")  # sqrt(2/pi), within half an ulp
_C_F64 = 0.044715  # the decimal constant as a float64, within half an ulp


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


def float64_form(x: np.ndarray) -> Form64:
    """With u = sqrt(2/pi) (x + 0.044715 x^3) (relative error at most 7 u: two constants, five
    roundings, no cancellation): |x| <= 1: x/2 + x tanh(u)/2 (tanh passes u's error on at most
    once: 7 u + L + one product); x > 1: x - x/(1 + e^(2u)); x < -1: 0 + x/(1 + e^(-2u)) (e^(2u)
    turns u's error into 2|u| times it: 14|u| u + L + two roundings). Both within the charged
    (L + 8)(1 + 2|u|); and ABS |x| where e^(2u) underflows."""
    f = Form64(x.size)
    ax = np.abs(x)
    u = _SQRT_2_OVER_PI_F64 * (x + _C_F64 * x * x * x)
    grow = 1.0 + 2.0 * np.abs(u)
    near = rows(ax <= 1.0)
    xn = x[near]
    put(f, near, xn * 0.5, xn * np.tanh(u[near]) * 0.5, (LIBM_ULPS + 8) * grow[near], 1, ABS)
    pos = rows((ax > 1.0) & (x > 0))
    put(f, pos, x[pos], -x[pos] / (1.0 + np.exp(2.0 * u[pos])), (LIBM_ULPS + 8) * grow[pos],
        -1, ABS * ax[pos])
    neg = rows((ax > 1.0) & (x < 0))
    put(f, neg, 0.0, x[neg] / (1.0 + np.exp(-2.0 * u[neg])), (LIBM_ULPS + 8) * grow[neg],
        -1, ABS * ax[neg])
    return f


FUNCTION = Function(
    "gelu_tanh", "x/2 * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3))), 0.044715 exact",
    GELU_REGIONS, arb_form,
    at_inf=(INF, -0.0), exact=odd_zero,
    mpmath_form=mpmath_form, negative_for_negative_x=True,
    float64_form=float64_form,
    double=DoubleReference(double, side_small=lambda s: 1,  # as gelu: x/2 + x^2 sqrt(2/pi)/2
                           side_large=lambda s: np.where(s > 0, -1, 0)),
    naive=Naive(naive, "x/2 (1 + tanh(sqrt(2/pi)(x + 0.044715 x^3)))", ("tanh",)),
    peers=Peers(peer("torch.nn.functional.gelu", approximate="tanh"),
                peer("jax.nn.gelu", approximate=True), None, None),
)
