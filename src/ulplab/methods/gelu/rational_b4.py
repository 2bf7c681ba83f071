"""The seed's rational erf with range reduction: B4 Rational.

Idea (the seed): two forms of erf for two ranges of z = x/sqrt 2,
    |z| < 1:  erf(z) ~ z (p0 + p1 z^2 + p2 z^4)/(1 + q1 z^2 + q2 z^4)   (a [2/2] rational in z^2)
    |z| >= 1: erf(z) ~ sign(z) (1 - R(|z|) e^(-z^2)), R the Abramowitz & Stegun 7.1.26 rational
and Phi = (1 + erf)/2, GELU = x Phi.

Here:
    |x| < sqrt 2: the [2/2] rational with coefficients from
        ``tanh_r4.fit_odd_rational(erf, z_hi=1.0, p=2, q=2, n=3000, iters=60)`` (minimax
        ABSOLUTE error of erf on [0, 1], what Phi = 1/2 +- erf/2 needs): 5.7e-8 after rounding
        to float32, below a float32 ulp of erf(1) = 0.84. The seed's coefficients are not
        stated; its core_neg max 314 suggests a Pade-like fit accurate only near 0.
        Evaluation: s = z^2, P(s) and Q(s) by Horner with FMA, one division; Phi = 1/2 + z P/(2Q).
    |x| >= sqrt 2: the A&S form with the refitted coefficients of the B3 family
        (``erf_b3.AS_P``, ``erf_b3.AS_COEFFS``: least max relative error of erfc on
        [1, 8.3125/sqrt 2], 1.95e-5), erfc/2 for x < 0 (no cancellation), 1 - erfc/2 for x > 0;
        e^(-z^2) = ``tail.exp_neg(x^2/2)``.
    x < -8.3125: the seed's asymptotic tail (``tail.asymptotic_tail``), where the A&S fit ends
        (series error below 105/x^8 = 6.9e-6).

Seed (bfloat16): max 535, mean 0.56 (core_pos 5, core_neg 314, tail_neg 535). Measured here:
the claims below (max 1 in both formats): the better-fitted rational and the A&S form refitted
for relative error remove the seed's core and tail errors.
"""

from __future__ import annotations

import numpy as np

from ulplab.kit import fma
from ulplab.kit.ops import f32hex
from ulplab.methods.gelu import erf_b3, tail
from ulplab.methods.gelu.seed_table import seed_figures
from ulplab.methods.gelu.tail import where32
from ulplab.methods.params import Params, coeffs, evaluate_poly, threshold
from ulplab.methods.registry import ArrayFn, Claim, built, register

f32 = np.float32


_h = f32hex  # exact hex literal -> float32


# erf(z) ~ z P(z^2)/Q(z^2) on [0, 1]: tanh_r4.fit_odd_rational(erf, 1.0, 2, 2, n=3000,
# iters=60) with erf = np.vectorize(math.erf); low to high, float32; max abs error 5.7e-8
ERF_P = (_h("0x1.20dd6ap+0"), _h("0x1.f62f58p-4"), _h("0x1.0acc94p-6"))
ERF_Q = (_h("0x1.000000p+0"), _h("0x1.c49514p-2"), _h("0x1.fa9886p-5"))
B4_TAIL = tail.TAIL_LUT_END  # -8.3125


def fit_erf_rational() -> tuple[tuple[np.float32, ...], tuple[np.float32, ...], float]:
    """Regenerate ERF_P, ERF_Q (fit time only, float64)."""
    import math

    from ulplab.methods.gelu.tanh_r4 import fit_odd_rational

    return fit_odd_rational(np.vectorize(math.erf), 1.0, 2, 2, n=3000, iters=60)


def phi_b4(x: np.ndarray, p: Params) -> np.ndarray:
    """Phi(x): [2/2] rational erf for |x| < sqrt 2, refitted A&S erfc beyond."""
    with np.errstate(all="ignore"):
        z = x * erf_b3.INV_SQRT2
        s = z * z
        half_erf = (0.5 * z) * evaluate_poly(p.SCHEME, s, p.ERF_P) \
            / evaluate_poly(p.SCHEME, s, p.ERF_Q)
        phi_small = 0.5 + half_erf
        az = np.abs(z)
        t = 1.0 / fma(np.full_like(x, p.AS_P), az, np.full_like(x, 1.0))
        half_erfc = 0.5 * (t * evaluate_poly(p.SCHEME, t, p.AS_COEFFS)) \
            * tail.exp_neg(0.5 * (x * x), p)
        phi_big = where32(x < 0.0, half_erfc, 1.0 - half_erfc)
        return where32(np.abs(x) < p.SMALL_BELOW, phi_small, phi_big)


def build_b4(p: Params) -> ArrayFn:
    def impl(x: np.ndarray) -> np.ndarray:
        with np.errstate(all="ignore"):
            y = tail.with_tail(x, x * phi_b4(x, p), p.TAIL_START, tail.asymptotic_tail, p)
            return where32(np.isnan(x), x, y)  # NaN -> the input NaN itself

    return impl


_B4_DECL = {k: v for k, v in erf_b3.PHI_DECL.items() if k != "ERF_TAYLOR"}
register(built(
    "gelu", "B4 Rational", "erf",
    "erf by a minimax [2/2] rational in z^2 for |z|<1 and the refitted A&S 7.1.26 form beyond; "
    "asymptotic tail below -8.3125",
    build_b4,
    Params({"ERF_P": coeffs(ERF_P), "ERF_Q": coeffs(ERF_Q), **_B4_DECL,
            "TAIL_START": threshold(B4_TAIL)}),
    table_bytes=0,
    claims={"bfloat16": Claim(1, 0.002), "float16": Claim(1, 0.0007)},
    seed=seed_figures("B4 Rational"),
))
