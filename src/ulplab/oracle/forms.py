"""Each function, written for certified evaluation with Arb (python-flint): read from its module.

A finite input ``x`` (exact: every input of every format is a float64) is evaluated as

    f(x) = anchor + d

where ``anchor`` is an exactly representable number (0, ±1, 2 or x itself) and ``d`` is an Arb
ball computed with *relative* accuracy (the function module's ``arb_form``). Saturating functions
need this: tanh(1e30) = 1 - 2e^-2e30 is a ball around 1 at any feasible precision, but its
distance below 1 is an ordinary Arb number. ``sign`` is the sign of ``d`` when mathematics tells
it (so a ball that only bounds |d|, such as erfc(1e38) = [0 +/- 1e-1e76], still decides the
rounding), else 0. Forms are chosen to avoid cancellation (erfc for the negative GELU tail,
expm1 and -2 sin^2(x/2) near zero, log1p near one, -1 + e^x for expm1's negative side).

``special`` gives the results for NaN, infinities (the module's ``at_inf``), domain errors and
the exact cases (the module's ``exact``: f(0), log(1), log2(2^k), exp2(k), rsqrt(4^k) ...) that
no precision would decide from a ball.
"""

from __future__ import annotations

import math
from fractions import Fraction

from flint import arb

from ulplab.functions import Form, get_function


def special(name: str, x: float) -> float | Fraction | None:
    """The exact result where no ball can decide it, or None for the general case.

    A float result may be NaN, ±inf or a signed zero; a Fraction is an exact finite value.
    """
    if math.isnan(x):
        return math.nan
    function = get_function(name)
    if math.isinf(x):
        return function.at_inf[0 if x > 0 else 1]
    return function.exact(x)


def evaluate(name: str, x: float) -> Form:
    """Anchor, ball and known sign of f(x) at the current Arb precision (flint.ctx.prec)."""
    return get_function(name).arb_form(x, arb(x))
