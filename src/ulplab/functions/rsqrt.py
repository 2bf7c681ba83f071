"""rsqrt: 1 / sqrt(x), the reciprocal square root of every normalization layer."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
from flint import arb
from mpmath import mp, mpf

from ulplab.functions._float64 import Form64, put
from ulplab.functions._parts import (
    GENERIC_REGIONS,
    DoubleReference,
    Form,
    Function,
    Naive,
    Peers,
    peer,
)
from ulplab.functions._shared import ONE


def arb_form(x: float, X: arb) -> Form:
    return 0.0, X.rsqrt(), 1


def exact(x: float) -> float | Fraction | None:
    """rsqrt(±0) = ±inf, rsqrt(x < 0) = NaN, and rsqrt(4^k) = 2^-k.

    1/sqrt(x) is a dyadic number (a rounding boundary can only be one) only for x = 4^k: if
    1/sqrt(x) = p/2^j with p odd, x = 4^j/p^2 is dyadic only for p = 1. Every other value is
    irrational or has an odd denominator, so a ball decides it.
    """
    if x == 0:
        return math.copysign(math.inf, x)
    if x < 0:
        return math.nan
    mant, e = math.frexp(x)  # x = 2^(e-1) exactly when mant == 1/2
    if mant == 0.5 and (e - 1) % 2 == 0:
        return Fraction(2) ** (-(e - 1) // 2)
    return None


def mpmath_form(x: mpf) -> mpf:
    return 1 / mp.sqrt(x)


def double(x: np.ndarray) -> np.ndarray:
    return 1 / np.sqrt(x)  # two roundings: within 1.5 double ulps


def naive(x: np.ndarray) -> np.ndarray:
    return ONE / np.sqrt(x)


def float64_form(x: np.ndarray) -> Form64:
    """0 + 1/sqrt(x): two correctly rounded operations, 2 u. x > 0 (``nan_below``; 0 is the
    oracle's special case)."""
    f = Form64(x.size)
    put(f, slice(None), 0.0, 1.0 / np.sqrt(x), 2.0, 1)
    return f


FUNCTION = Function(
    "rsqrt", "1 / sqrt(x)", GENERIC_REGIONS, arb_form,
    at_inf=(0.0, math.nan), exact=exact,
    mpmath_form=mpmath_form, negative_for_negative_x=False,
    float64_form=float64_form, nan_below=0.0,
    double=DoubleReference(double, side_small=None, side_large=None),
    naive=Naive(naive, "1 / np.sqrt(x)", ("sqrt",)),  # a baseline names its library calls
    peers=Peers(peer("torch.rsqrt"), peer("jax.lax.rsqrt"), None, None),
)
