"""exp2: 2^x."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
from flint import arb
from mpmath import mp, mpf

from ulplab.functions._float64 import ABS, LIBM_ULPS, Form64, put, signs, split
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

_LN2 = float.fromhex("0x1.62e42fefa39efp-1")  # ln 2, within half an ulp


def arb_form(x: float, X: arb) -> Form:
    y = X * arb.const_log2()
    if abs(x) < 0.5:
        return 1.0, y.expm1(), sgn(x)
    return 0.0, y.exp(), 1


def exact(x: float) -> Fraction | None:
    """2^k for an integer k: exact, and in fp8 a tie (beyond |k| = 4096, out of every range)."""
    if x == int(x) and abs(x) < 4096:
        return Fraction(2) ** int(x)
    return None


def mpmath_form(x: mpf) -> mpf:
    return mp.power(2, x)


def float64_form(x: np.ndarray) -> Form64:
    """|x| < 1/2: 1 + expm1(y), y = x ln 2: L + 4 (y is within 2 u: the constant's half ulp
    and one rounding; expm1 multiplies a relative error of y by y e^y / (e^y - 1) < 1.2 for
    |y| < 0.35). Else 0 + exp2(x): L (+ ABS), x clipped at 1000 as exp clips at 700."""
    f = Form64(x.size)
    m, other = split(np.abs(x) < 0.5)
    put(f, m, 1.0, np.expm1(x[m] * _LN2), LIBM_ULPS + 4, signs(x[m]))
    put(f, other, 0.0, np.exp2(np.minimum(x[other], 1000.0)), LIBM_ULPS, 1, ABS)
    return f


FUNCTION = Function(
    "exp2", "2^x", GENERIC_REGIONS, arb_form,
    at_inf=(INF, 0.0), exact=exact,
    mpmath_form=mpmath_form, negative_for_negative_x=False,
    float64_form=float64_form,
    double=DoubleReference(np.exp2, side_small=lambda s: s, side_large=None),  # 1 + x ln 2
    naive=Naive(np.exp2, "np.exp2", ("exp2",)),
    peers=Peers(peer("torch.exp2"), peer("jax.numpy.exp2"), peer("numpy.exp2"), "exp2f"),
)
