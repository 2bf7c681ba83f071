"""softplus: log(1 + e^x)."""

from __future__ import annotations

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


FUNCTION = Function(
    "softplus", "log(1 + e^x)", GENERIC_REGIONS, arb_form,
    at_inf=(INF, 0.0), exact=no_exact_cases,  # softplus(0) = log 2
    mpmath_form=mpmath_form, negative_for_negative_x=False,
    double=DoubleReference(double, side_small=None,
                           side_large=lambda s: np.where(s > 0, 1, 0)),  # x + e^-x
    naive=Naive(naive, "log(1 + exp(x))", ("exp", "log")),
    peers=Peers(peer("torch.nn.functional.softplus"), peer("jax.nn.softplus"), None, None),
)
