"""softplus: log(1 + e^x)."""

from __future__ import annotations

import numpy as np
from flint import arb
from mpmath import mp, mpf

from ulplab.functions._float64 import ABS, LIBM_ULPS, Form64, put, split
from ulplab.functions._parts import (
    GENERIC_REGIONS,
    INF,
    DoubleReference,
    Form,
    Function,
    Naive,
    Peers,
    no_exact_cases,
    peer,
)
from ulplab.functions._shared import ONE


def arb_form(x: float, X: arb) -> Form:
    if x > 0:  # x + log1p(e^-x)
        return x, (-X).exp().log1p(), 1
    return 0.0, X.exp().log1p(), 1


def mpmath_form(x: mpf) -> mpf:
    return mp.log1p(mp.exp(x)) if x < 0 else x + mp.log1p(mp.exp(-x))


def double(x: np.ndarray) -> np.ndarray:
    return np.log1p(np.exp(-np.abs(x))) + np.maximum(x, 0)


def naive(x: np.ndarray) -> np.ndarray:
    return np.log(ONE + np.exp(x))


def float64_form(x: np.ndarray) -> Form64:
    """x + log1p(e^-x) for x > 0, 0 + log1p(e^x) for x < 0 (a positive rest: no cancellation).
    exp's error passes through log1p at most once (log1p(y)'s relative condition,
    y / ((1 + y) log1p(y)), is at most 1), plus log1p's own: 2L + 4 (+ ABS)."""
    f = Form64(x.size)
    pos, neg = split(x > 0)
    d = np.log1p(np.exp(-np.abs(x)))
    put(f, pos, x[pos], d[pos], 2 * LIBM_ULPS + 4, 1, ABS)
    put(f, neg, 0.0, d[neg], 2 * LIBM_ULPS + 4, 1, ABS)
    return f


FUNCTION = Function(
    "softplus", "log(1 + e^x)", GENERIC_REGIONS, arb_form,
    at_inf=(INF, 0.0), exact=no_exact_cases,  # softplus(0) = log 2
    mpmath_form=mpmath_form, negative_for_negative_x=False, derivative="sigmoid",
    float64_form=float64_form,
    double=DoubleReference(double, side_small=None,
                           side_large=lambda s: np.where(s > 0, 1, 0)),  # x + e^-x
    naive=Naive(naive, "log(1 + exp(x))", ("exp", "log")),
    peers=Peers(peer("torch.nn.functional.softplus"), peer("jax.nn.softplus"), None, None),
)
