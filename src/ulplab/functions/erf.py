"""erf: the error function 2/sqrt(pi) * integral_0^x e^(-t^2) dt."""

from __future__ import annotations

import numpy as np
from flint import arb
from mpmath import mp

from ulplab.functions._float64 import Form64, erfc_pos, signs
from ulplab.functions._parts import (
    GENERIC_REGIONS,
    DoubleReference,
    Form,
    Function,
    Naive,
    Peers,
    odd_zero,
    peer,
)
from ulplab.functions._shared import erf64, erf_f32, sgn


def arb_form(x: float, X: arb) -> Form:
    if abs(x) <= 0.5:
        return 0.0, X.erf(), sgn(x)
    if x > 0:  # 1 - erfc(x): erf(30) is a ball around 1, erfc(30) is not
        return 1.0, -X.erfc(), -1
    return -1.0, (-X).erfc(), 1


def float64_form(x: np.ndarray) -> Form64:
    """From erf|x| and erfc|x| with their absolute bounds (``erfc_pos``: the series for
    2x^2 <= 9, 3N + L + 8 with N = 44 terms and truncation 2^-58; else the continued fraction,
    122 + L + 8 and truncation 2^-56; one u more for 1 - the other): |x| <= 1/2: 0 + sign(x)
    erf|x|; beyond: ±1 ∓ erfc|x|."""
    f = Form64(x.size)
    e, c, err_e, err_c = erfc_pos(np.abs(x))
    s = signs(x)
    inner = np.abs(x) <= 0.5
    f.anchor = np.where(inner, 0.0, s.astype(np.float64))
    f.delta = np.where(inner, s * e, -s * c)
    f.err = np.where(inner, err_e, err_c)
    f.sign = np.where(inner, s, -s)
    return f


FUNCTION = Function(
    "erf", "2/sqrt(pi) * integral_0^x e^(-t^2) dt", GENERIC_REGIONS, arb_form,
    at_inf=(1.0, -1.0), exact=odd_zero,
    mpmath_form=mp.erf, negative_for_negative_x=True,
    float64_form=float64_form,
    # near 0 the rest 2x/sqrt(pi) is no anchor's; beyond 32, ±(1 - erfc|x|)
    double=DoubleReference(erf64, side_small=None, side_large=lambda s: -s),
    naive=Naive(erf_f32, "libm erf rounded to float32", ("erf",)),
    peers=Peers(peer("torch.erf"), peer("jax.scipy.special.erf"), None, "erff"),
)
