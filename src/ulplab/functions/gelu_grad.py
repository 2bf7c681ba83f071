"""gelu_grad: d/dx gelu(x) = Phi(x) + x phi(x)."""

from __future__ import annotations

import math

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
    signs,
)
from ulplab.functions._parts import (
    GELU_REGIONS,
    DoubleReference,
    Form,
    Function,
    Naive,
    Peers,
    value_at_zero,
)
from ulplab.functions._shared import HALF, ONE, erf_f32, erfc64, normal_density
from ulplab.kit.ops import f32hex

_INV_SQRT2 = f32hex("0x1.6a09e6p-1")  # 1/sqrt(2) rounded to float32
_INV_SQRT_2PI = f32hex("0x1.988454p-2")  # 1/sqrt(2 pi) rounded to float32


def arb_form(x: float, X: arb) -> Form:
    s = arb(2).sqrt()
    if x > 0:  # Phi(x) + x phi(x) = 1 + (x phi(x) - erfc(x/sqrt2)/2), above 1 for x > 1
        return 1.0, X * normal_density(X) - (X / s).erfc() / 2, 1 if x >= 1 else 0
    return 0.0, (-X / s).erfc() / 2 + X * normal_density(X), -1 if x <= -1 else 0


def mpmath_form(x: mpf) -> mpf:
    return mp.erfc(-x / mp.sqrt(2)) / 2 + x * mp.npdf(x)


def double(x: np.ndarray) -> np.ndarray:
    v = 0.5 * erfc64(-x / 2**0.5) + x * np.exp(-0.5 * x * x) / math.sqrt(2 * math.pi)
    # below about -38.6 both terms underflow; the value is negative, so the zero is -0 (a +0
    # sent every such input of the faithfulness check to the oracle: a quarter of random
    # bit patterns)
    return np.where((v == 0) & (x < 0), -0.0, v)


def naive(x: np.ndarray) -> np.ndarray:
    cdf = HALF * (ONE + erf_f32(x * _INV_SQRT2))
    pdf = np.exp(-HALF * x * x) * _INV_SQRT_2PI
    return cdf + x * pdf


def float64_form(x: np.ndarray) -> Form64:
    """x^2 <= 9: Phi(x) + x phi(x) = 1/2 + x phi(x) (T(x^2) + 1) (``normal_series``: the
    series' 3N + L + 8, N = 44 terms, truncation 2^-58, and 4 u). Beyond, with Q(a) = phi(a) r
    (``normal_tails``: 122 + L + 8, truncation 2^-56, and 4 u): x > 3: 1 + phi(x) (x - r);
    x < -3: 0 + phi(a) (r - a), a = -x; neither difference cancels (r < 1/a < a). ABS for
    underflow."""
    f = Form64(x.size)
    near_cond, near, phi, t = normal_series(x)
    xs = x[near]
    put(f, near, 0.5, xs * phi * (t + 1), SERIES_UNITS + 4, signs(xs), ABS)
    for positive, m, a, phi_a, r in normal_tails(x, near_cond):
        d = phi_a * (a - r) if positive else phi_a * (r - a)
        put(f, m, 1.0 if positive else 0.0, d, FRACTION_UNITS + 4, 1 if positive else -1, ABS)
    return f


FUNCTION = Function(
    "gelu_grad", "d/dx gelu(x) = Phi(x) + x * phi(x)", GELU_REGIONS, arb_form,
    at_inf=(1.0, -0.0), exact=value_at_zero(0.5),
    mpmath_form=mpmath_form, negative_for_negative_x=True,
    float64_form=float64_form,
    # 1/2 + 2x/sqrt(2 pi) near 0; above 1 beyond 32. The two terms cancel at the root
    # x = -0.75179...; the slope there is about 0.43 and the terms' double error about 2^-54,
    # so within (-0.77, -0.73) the double value may be off by more than 2^-46 (relative).
    double=DoubleReference(double, side_small=lambda s: s,
                           side_large=lambda s: np.where(s > 0, 1, 0),
                           oracle_between=(-0.77, -0.73)),
    naive=Naive(naive, "Phi(x) + x exp(-x^2/2)/sqrt(2 pi)", ("erf", "exp")),
    peers=Peers(None, None, None, None),
)
