"""gelu: x * Phi(x), Phi the standard normal distribution function."""

from __future__ import annotations

import numpy as np
from flint import arb
from mpmath import mp, mpf

from ulplab.functions._float64 import (
    ABS,
    FRACTION_UNITS,
    SERIES_UNITS,
    Form64,
    normal_series,
    normal_tails,
    put,
)
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
from ulplab.functions._shared import HALF, ONE, erf_f32, erfc64
from ulplab.kit.ops import f32hex

_INV_SQRT2 = f32hex("0x1.6a09e6p-1")  # 1/sqrt(2) rounded to float32


def arb_form(x: float, X: arb) -> Form:
    s = arb(2).sqrt()
    if x > 0:  # x - x erfc(x/sqrt2)/2
        return x, -X * (X / s).erfc() / 2, -1
    return 0.0, X * (-X / s).erfc() / 2, -1  # erfc for the negative tail: no 1 + erf


def mpmath_form(x: mpf) -> mpf:
    return x * mp.erfc(-x / mp.sqrt(2)) / 2


def double(x: np.ndarray) -> np.ndarray:
    return 0.5 * x * erfc64(-x / 2**0.5)


def naive(x: np.ndarray) -> np.ndarray:
    return HALF * x * (ONE + erf_f32(x * _INV_SQRT2))


def float64_form(x: np.ndarray) -> Form64:
    """x^2 <= 9: x Phi(x) = x/2 + x^2 phi(x) T(x^2), a positive rest (``normal_series``; the
    series' 3N + L + 8, N = 44 terms, truncation 2^-58, and 4 u for the products). Beyond, with
    Q(a) = phi(a) r the Mills ratio fraction (122 + L + 8, truncation 2^-56; ``normal_tails``):
    x > 3: x - x Q(x); x < -3: 0 + x Q(-x); 4 u more. ABS max(1, |x|) for underflow."""
    f = Form64(x.size)
    near_cond, near, phi, t = normal_series(x)
    xs = x[near]
    put(f, near, xs * 0.5, xs * xs * phi * t, SERIES_UNITS + 4, 1, ABS)
    for positive, m, a, phi_a, r in normal_tails(x, near_cond):
        put(f, m, x[m] if positive else 0.0, -a * phi_a * r, FRACTION_UNITS + 4, -1,
            ABS * np.maximum(a, 1.0))
    return f


FUNCTION = Function(
    "gelu", "x * Phi(x) = x/2 * (1 + erf(x/sqrt(2)))", GELU_REGIONS, arb_form,
    at_inf=(INF, -0.0), exact=odd_zero,
    mpmath_form=mpmath_form, negative_for_negative_x=True,
    float64_form=float64_form,
    # x/2 + x^2/sqrt(2 pi) near 0; x - tiny beyond 32, and below -32 no anchor
    double=DoubleReference(double, side_small=lambda s: 1,
                           side_large=lambda s: np.where(s > 0, -1, 0)),
    naive=Naive(naive, "x/2 (1 + erf(x/sqrt2))", ("erf",)),
    peers=Peers(peer("torch.nn.functional.gelu"), peer("jax.nn.gelu", approximate=False), None,
                None),
    derivative="gelu_grad",
)
