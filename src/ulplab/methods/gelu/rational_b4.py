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

B4 Rational (the seed's, ``phi_b4_seed``): its text's form, erf(z) = z (p0 + p1 z^2 + p2 z^4) /
(1 + q1 z^2 + q2 z^4) for |z| < 1 with the [5/4] Pade at 0 (its p_k, q_k are not published; the
Pade is the natural reading), erf(z) = sign(z) (1 - R(|z|) e^(-z^2)) beyond with A&S 7.1.26's
own a_k, Phi = (1 + erf)/2 (the cancellation the seed's erfc insight avoids: in float32 it costs
at most 2^-24/Phi(-3.5) = 2.6e-4 relative, 0.07 bfloat16 ulps), the shared tail LUT below -3.5,
x -> x from 3, the seed's fast exp. B4 Rational (improved): the rows above.

Measured (every input; bfloat16 max / mean, core_neg max; float16 max):
    B4 Rational              87 / 0.0718, 1, 190   seed 535 / 0.56, core_neg 314
    B4 Rational (improved)    1 / 0.0020, 0, 1
Not reproduced: this reading of the seed's text is accurate in its core (core_neg 1), so the
seed's 314 / 535 come from coefficients it does not publish. What the improvement buys: the
asymptotic tail from -8.3125 instead of the LUT takes 87 -> 1 (float16 190 -> 1).
"""

from __future__ import annotations

import numpy as np

from ulplab.kit import fma
from ulplab.kit.ops import f32hex
from ulplab.methods.gelu import erf_b3, tail
from ulplab.methods.gelu.framing import frame_params, make_kernel
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
def seed_pade_erf(n: int = 2, m: int = 2) -> tuple[tuple[np.float32, ...], tuple[np.float32, ...]]:
    """The seed's B4 small-z rational: erf(z)/z ~ P(z^2)/Q(z^2), the [n/m] Pade at 0 of
    erf(z)/z = 2/sqrt(pi) sum_k (-1)^k s^k/(k! (2k + 1)), s = z^2 (mpmath, 40 digits, each
    rounded to float32, Q(0) = 1)."""
    import mpmath

    with mpmath.workdps(40):
        c = [2 / mpmath.sqrt(mpmath.pi) * (-1) ** k / (mpmath.factorial(k) * (2 * k + 1))
             for k in range(n + m + 1)]
        pp, qq = mpmath.pade(c, n, m)
        return tuple(f32(float(v)) for v in pp), tuple(f32(float(v / qq[0])) for v in qq)


SEED_ERF_P, SEED_ERF_Q = seed_pade_erf()


def phi_b4_seed(x: np.ndarray, p: Params) -> np.ndarray:
    """The seed's B4 Phi as its text writes it: erf(z) = z P(z^2)/Q(z^2) for |z| < 1, else
    sign(z) (1 - R(|z|) e^(-z^2)) with R the A&S 7.1.26 rational; Phi = (1 + erf)/2."""
    with np.errstate(all="ignore"):
        z = x * erf_b3.INV_SQRT2
        s = z * z
        erf_small = z * evaluate_poly(p.SCHEME, s, p.ERF_P) / evaluate_poly(p.SCHEME, s, p.ERF_Q)
        az = np.abs(z)
        t = 1.0 / fma(np.full_like(x, p.AS_P), az, np.full_like(x, 1.0))
        big = 1.0 - (t * evaluate_poly(p.SCHEME, t, p.AS_COEFFS)) * tail.exp_neg(s, p)
        erf_big = where32(x < 0.0, -big, big)
        return 0.5 * (1.0 + where32(np.abs(x) < p.SMALL_BELOW, erf_small, erf_big))


register(built(
    "gelu", "B4 Rational", "erf",
    "the seed's: erf by the [5/4] Pade for |z|<1, sign(z)(1 - R e^(-z^2)) with A&S 7.1.26 beyond, "
    "Phi = (1+erf)/2; tail LUT below -3.5, x>=3 -> x",
    make_kernel(lambda x, p: x * phi_b4_seed(x, p), "lut"),
    Params({"ERF_P": coeffs(SEED_ERF_P), "ERF_Q": coeffs(SEED_ERF_Q), **_B4_DECL,
            **frame_params("lut", seed_exp=True)}).replace(AS_COEFFS=erf_b3.AS_COEFFS_SEED),
    table_bytes=tail.TAIL_LUT_BYTES,
    claims={"bfloat16": Claim(87, 0.0718), "float16": Claim(190, 0.573)},
    seed=seed_figures("B4 Rational"),
    note="seed 535, measured 87 (the LUT's; core_neg 1 against the seed's 314): the seed's "
    "p_k, q_k are not published and its text's form is accurate",
))
register(built(
    "gelu", "B4 Rational (improved)", "erf",
    "erf by a minimax [2/2] rational in z^2 for |z|<1 and the refitted A&S 7.1.26 form beyond; "
    "asymptotic tail below -8.3125",
    build_b4,
    Params({"ERF_P": coeffs(ERF_P), "ERF_Q": coeffs(ERF_Q), **_B4_DECL,
            "TAIL_START": threshold(B4_TAIL)}),
    table_bytes=0,
    claims={"bfloat16": Claim(1, 0.002), "float16": Claim(1, 0.0007)},
    seed=seed_figures("B4 Rational (improved)"),
    note="the seed's B4 with a minimax [2/2], the refitted A&S a_k, an accurate exp and the "
    "asymptotic tail from -8.3125 instead of the LUT: bfloat16 max 87 -> 1",
))
