"""erfc: the complementary error function 1 - erf(x)."""

from __future__ import annotations

import numpy as np
from flint import arb
from mpmath import mp

from ulplab.functions._float64 import Form64, erfc_pos
from ulplab.functions._parts import (
    GENERIC_REGIONS,
    DoubleReference,
    Form,
    Function,
    Naive,
    Peers,
    peer,
    value_at_zero,
)
from ulplab.functions._shared import erfc64, erfc_f32


def arb_form(x: float, X: arb) -> Form:
    if x >= -0.5:
        return 0.0, X.erfc(), 1
    return 2.0, -(-X).erfc(), -1  # 2 - erfc(-x): a ball around 2 would hide the rest


def float64_form(x: np.ndarray) -> Form64:
    """From erf|x| and erfc|x| with their bounds (``erfc_pos``, as erf's form): |x| <= 1/2:
    1 - erf(x); x > 1/2: 0 + erfc(x); x < -1/2: 2 - erfc|x|."""
    f = Form64(x.size)
    e, c, err_e, err_c = erfc_pos(np.abs(x))
    inner = np.abs(x) <= 0.5
    neg = x < 0
    f.anchor = np.where(inner, 1.0, np.where(neg, 2.0, 0.0))
    f.delta = np.where(inner, np.where(neg, e, -e), np.where(neg, -c, c))
    f.err = np.where(inner, err_e, err_c)
    f.sign = np.where(inner, np.where(neg, 1, -1), np.where(neg, -1, 1))
    return f


FUNCTION = Function(
    "erfc", "1 - erf(x)", GENERIC_REGIONS, arb_form,
    at_inf=(0.0, 2.0), exact=value_at_zero(1.0),
    mpmath_form=mp.erfc, negative_for_negative_x=False,
    float64_form=float64_form,
    # 1 - 2x/sqrt(pi) near 0; below -32, 2 - erfc|x| (above 32 the double value underflows)
    double=DoubleReference(erfc64, side_small=lambda s: -s,
                           side_large=lambda s: np.where(s > 0, 0, -1)),
    naive=Naive(erfc_f32, "libm erfc rounded to float32", ("erfc",)),
    peers=Peers(peer("torch.erfc"), peer("jax.scipy.special.erfc"), None, "erfcf"),
)
