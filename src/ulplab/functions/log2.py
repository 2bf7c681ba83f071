"""log2: the base-2 logarithm, log(x) / log(2)."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
from flint import arb
from mpmath import mp, mpf

from ulplab.functions import log
from ulplab.functions._float64 import Form64
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

_INV_LN2 = float.fromhex("0x1.71547652b82fep+0")  # 1 / ln 2, within half an ulp


def arb_form(x: float, X: arb) -> Form:
    anchor, d, sign = log.arb_form(x, X)
    return anchor, d / arb.const_log2(), sign


def exact(x: float) -> float | Fraction | None:
    """log's edges, and log2(2^k) = k exactly (a tie in fp8)."""
    edge = log.exact(x)
    if edge is not None:
        return edge
    mant, e = math.frexp(x)  # x = mant 2^e, 1/2 <= mant < 1: a power of two when mant = 1/2
    return Fraction(e - 1) if mant == 0.5 else None


def mpmath_form(x: mpf) -> mpf:
    return mp.log(x, 2)


def float64_form(x: np.ndarray) -> Form64:
    """log's form (``log.log_form``) with scale 1/ln 2 and log2: L + 2."""
    return log.log_form(x, _INV_LN2, np.log2)


FUNCTION = Function(
    "log2", "base-2 logarithm", GENERIC_REGIONS, arb_form,
    at_inf=(INF, math.nan), exact=exact,
    mpmath_form=mpmath_form, negative_for_negative_x=False,
    float64_form=float64_form, nan_below=0.0,
    double=DoubleReference(np.log2, side_small=None, side_large=None),
    naive=Naive(np.log2, "np.log2", ("log2",)),
    peers=Peers(peer("torch.log2"), peer("jax.numpy.log2"), peer("numpy.log2"), "log2f"),
)
