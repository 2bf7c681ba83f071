"""erf: the error function 2/sqrt(pi) * integral_0^x e^(-t^2) dt."""

from __future__ import annotations

from flint import arb
from mpmath import mp

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


FUNCTION = Function(
    "erf", "2/sqrt(pi) * integral_0^x e^(-t^2) dt", GENERIC_REGIONS, arb_form,
    at_inf=(1.0, -1.0), exact=odd_zero,
    mpmath_form=mp.erf, negative_for_negative_x=True,
    # near 0 the rest 2x/sqrt(pi) is no anchor's; beyond 32, ±(1 - erfc|x|)
    double=DoubleReference(erf64, side_small=None, side_large=lambda s: -s),
    naive=Naive(erf_f32, "libm erf rounded to float32", ("erf",)),
    peers=Peers(peer("torch.erf"), peer("jax.scipy.special.erf"), None, "erff"),
)
