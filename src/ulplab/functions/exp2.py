"""exp2: 2^x."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
from flint import arb
from mpmath import mp, mpf

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


FUNCTION = Function(
    "exp2", "2^x", GENERIC_REGIONS, arb_form,
    at_inf=(INF, 0.0), exact=exact,
    mpmath_form=mpmath_form, negative_for_negative_x=False,
    double=DoubleReference(np.exp2, side_small=lambda s: s, side_large=None),  # 1 + x ln 2
    naive=Naive(np.exp2, "np.exp2", ("exp2",)),
    peers=Peers(peer("torch.exp2"), peer("jax.numpy.exp2"), peer("numpy.exp2"), "exp2f"),
)
