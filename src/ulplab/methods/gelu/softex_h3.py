"""The seed's SoftEx family: H3 Pure, H3 SoftEx (tanh-form GELU through an arithmetic exp).

Idea (seed): the Hendrycks & Gimpel tanh form
    GELU(x) ~ x/2 (1 + tanh(u)),  u = sqrt(2/pi) (x + 0.044715 x^3),
with tanh from an exp that is a Pade [2/2] rational, e^r ~ (12 + 6r + r^2)/(12 - 6r + r^2)
(the SoftEx idea: exp from a few multiply-adds and one division, no transcendental unit).

Evaluation here: x/2 (1 + tanh(u)) = x sigma(2u) = x / (1 + e^(-2u)), which needs no
subtraction (the seed's (e^2z - 1)/(e^2z + 1) cancels for negative z). e^w by ``pade_exp``:
Cody-Waite reduction w = n ln2 + r (n = rint(w log2 e), two FMAs with ln2 split hi/lo as in
``tail.exp_neg``), |r| <= ln2/2, the Pade [2/2] of e^r, then 2^n by ldexp. On |r| <= 0.347 the
Pade error is r^5/720 < 7e-6 relative, 50 times below a bfloat16 half-ulp. The seed applied
the Pade form to the unreduced argument, accurate only for |w| < 2, and fell back beyond: that,
not the tanh form, caused its 861 (H3 Pure) and 1247 (H3 SoftEx) ulps.

What is left is the tanh form itself: x sigma(2u) differs from x Phi(x) by up to 3e-4 absolute,
which is up to 10% relative at x = -3 (GELU_tanh(-3) = -0.00364 vs -0.00405) and grows below.
    H3 Pure    asymptotic tail below H3_PURE_TAIL = -2.5 and the mirror x + GELU(-x) from 3.
               Thresholds -2.25, -2.375, -2.5, -2.625, -2.75, -3, -3.25 measured 15, 8, 8, 8, 9,
               23, 40 bfloat16 ulps; -2.5 has the smallest mean (0.0065) of the 8-ulp ones.
    H3 SoftEx  the seed's shared tail LUT below -3.5 (its 87-ulp limit at -7.66) and x -> x from 3.

Seed (bfloat16 max/mean): H3 Pure 861/0.67, H3 SoftEx 1247/1.26. Measured here: see the
claims (H3 Pure 8/0.0065, H3 SoftEx 87/0.0966).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ulplab.kit import fma, ldexp
from ulplab.kit.ops import f32hex
from ulplab.methods.gelu.framing import Core, frame_params, make_kernel, measured
from ulplab.methods.gelu.seed_table import seed_figures
from ulplab.methods.gelu.tail import LN2_HI, LN2_LO, LOG2E, where32
from ulplab.methods.params import Params, constant
from ulplab.methods.registry import built, register

f32 = np.float32


_h = f32hex  # exact hex literal -> float32


SQRT_2_OVER_PI = _h("0x1.988454p-1")  # sqrt(2/pi) rounded to float32 (Hendrycks & Gimpel)
TANH_CUBIC = f32(0.044715)            # Hendrycks & Gimpel's cubic coefficient, rounded to float32
EXP_CLAMP = 150.0                     # |w| <= 150: e^w is 0 or inf in float32 beyond
H3_PURE_TAIL = -2.5


def pade_exp(w: np.ndarray, p: Params | None = None) -> np.ndarray:
    """e^w: Cody-Waite reduction to |r| <= ln2/2, Pade [2/2] (12+6r+r^2)/(12-6r+r^2), ldexp."""
    with np.errstate(all="ignore"):
        wc = np.minimum(np.maximum(w, -EXP_CLAMP), EXP_CLAMP)
        n = np.rint(wc * LOG2E)
        r = fma(n, np.full_like(wc, -LN2_HI), wc)
        r = fma(n, np.full_like(wc, -LN2_LO), r)
        r2 = r * r
        q = (12.0 + 6.0 * r + r2) / (12.0 - 6.0 * r + r2)
        nn = where32(np.isnan(n), 0.0, n)
        return ldexp(q, nn.astype(np.int32))


def tanh_form_core(exp_fn: Callable[..., np.ndarray]) -> Core:
    """x / (1 + e^(-2u)), u = A (x + B x^3) (A = sqrt(2/pi), B = 0.044715 by default), with the
    given exp (called as exp_fn(w, p); shared by H2)."""

    def core(x: np.ndarray, p: Params) -> np.ndarray:
        u = p.SQRT_2_OVER_PI * (x + p.TANH_CUBIC * (x * x * x))
        return x * (1.0 / (1.0 + exp_fn(-2.0 * u, p)))

    return core


TANH_FORM_PARAMS = {"SQRT_2_OVER_PI": constant(SQRT_2_OVER_PI),
                    "TANH_CUBIC": constant(TANH_CUBIC)}

register(built(
    "gelu", "H3 Pure", "softex",
    "tanh form x sigma(2u) with e^w by range reduction + Pade [2/2]; asymptotic tail below -2.5",
    make_kernel(tanh_form_core(pade_exp), "pure"),
    Params({**TANH_FORM_PARAMS, **frame_params("pure", H3_PURE_TAIL)}),
    claims=measured((8, 0.0065), (69, 0.2892)),
    seed=seed_figures("H3 Pure"),
))
register(built(
    "gelu", "H3 SoftEx", "softex",
    "tanh form x sigma(2u) with e^w by range reduction + Pade [2/2]; the seed's tail LUT",
    make_kernel(tanh_form_core(pade_exp), "lut"),
    Params({**TANH_FORM_PARAMS, **frame_params("lut")}),
    claims=measured((87, 0.0966), (460, 2.1809)),
    seed=seed_figures("H3 SoftEx"),
))
