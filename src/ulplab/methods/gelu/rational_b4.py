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

B4 Rational is the seed's method, bit for bit (``phi_b4_seed``; its C++ at c2bf7bb, every
bfloat16 output checked against its build by tests/test_gelu_seed_bits.py): for |z| < 1 its [2/2]
rational with 6-digit decimals; for 1 <= |z| < 4 A&S 7.1.26's sum with 1/(1 + z^2 (1 + z^2/2))
(the Taylor series of e^(z^2) to z^4, inverted) in place of e^(-z^2); erf = +-1 beyond; Phi =
(1 + erf)/2, the FMAs its build contracts, its tail LUT below -3.5, x -> x from 3. B4 Rational
(improved): the rows above.

Measured (every input; bfloat16 max / mean, core_neg max; float16 max):
    B4 Rational             535 / 0.5597, 314, 4273   seed 535 / 0.56, core_neg 314
    B4 Rational (improved)    1 / 0.0020, 0, 1
What the improvement buys: an exp, the refitted A&S form and the asymptotic tail: 535 -> 1
(float16 4273 -> 1).
"""

from __future__ import annotations

import numpy as np

from ulplab.kit import fma
from ulplab.kit.ops import f32hex
from ulplab.methods.gelu import erf_b3, tail
from ulplab.methods.gelu.framing import frame_params, make_kernel
from ulplab.methods.gelu.seed_table import seed_figures
from ulplab.methods.gelu.tail import where32
from ulplab.methods.params import Params, coeffs, constant, evaluate_poly, threshold
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
# The seed's B4 (gelu_implementations.cpp:1622 at c2bf7bb), bit for bit; its decimals rounded to
# float32: for |z| < 1 erf = ((z 2/sqrt(pi)) (1 + a1 z^2 + a2 z^4)) / (1 + b1 z^2 + b2 z^4)
SEED_B4_SMALL = (_h("-0x1.1ebe9cp-3"), _h("0x1.4f15e8p-6"))   # :1641-1642 a1, a2
SEED_B4_SMALL_Q = (_h("0x1.90880ep-4"), _h("0x1.e518f4p-7"))  # :1643-1644 b1, b2
# for 1 <= |z| < 4: A&S 7.1.26's p and a1..a5 (:1651-1656) with 1/(1 + z^2 (1 + z^2/2)) in place
# of e^(-z^2); erf = +-1 from |z| = 4
SEED_B4_AS_P = _h("0x1.4f740ap-2")  # 0.3275911
SEED_B4_AS = (_h("0x1.04f20cp-2"), _h("-0x1.23531cp-2"), _h("0x1.6be1c6p+0"),
              _h("-0x1.7401c6p+0"), _h("0x1.0fb844p+0"))


def phi_b4_seed(x: np.ndarray, p: Params) -> np.ndarray:
    """The seed's B4 Phi as its README build evaluates it (a*b + c contracted to one FMA):
    z = x (float)(1/sqrt 2), z2 = z z;
    |z| < 1   num = fma(z2, fma(z2, a2, a1), 1), den likewise, erf = ((z S) num)/den;
    |z| < 4   t = 1/fma(p, |z|, 1), t2..t5 by successive products, P = fma(a5, t5, fma(a4, t4,
              fma(a3, t3, fma(a1, t, a2 t2)))), e = 1/fma(z2, fma(z2, 0.5, 1), 1),
              erf = +-fma(-e, P, 1);
    else      erf = +-1;
    clamped to [-1, 1] (NaN -> 1); Phi = 0.5 (1 + erf)."""
    with np.errstate(all="ignore"):
        one = np.full_like(x, 1.0)
        z = x * erf_b3.SEED_ERF_INV_SQRT2
        z2 = z * z
        az = np.abs(z)
        a1, a2 = (np.full_like(x, c) for c in p.SEED_B4_SMALL)
        b1, b2 = (np.full_like(x, c) for c in p.SEED_B4_SMALL_Q)
        num = fma(z2, fma(z2, a2, a1), one)
        den = fma(z2, fma(z2, b2, b1), one)
        small = ((z * erf_b3.SEED_ERF_SCALE) * num) / den
        t = one / fma(np.full_like(x, p.SEED_B4_AS_P), az, one)
        t2 = t * t
        t3 = t2 * t
        t4 = t3 * t
        t5 = t4 * t
        c = [np.full_like(x, v) for v in p.SEED_B4_AS]
        poly = fma(c[4], t5, fma(c[3], t4, fma(c[2], t3, fma(c[0], t, c[1] * t2))))
        e = one / fma(z2, fma(z2, np.full_like(x, 0.5), one), one)
        mid = fma(-e, poly, one)
        big = where32(az < 4.0, mid, one)
        big = where32(z >= 0.0, big, -big)
        erf = where32(az < 1.0, small, big)
        erf = where32(np.isnan(erf), 1.0, np.clip(erf, -1.0, 1.0))
        return f32(0.5) * (f32(1.0) + erf)


register(built(
    "gelu", "B4 Rational", "erf",
    "the seed's: erf by a [2/2] rational in z^2 for |z|<1, the A&S 7.1.26 sum with a rational "
    "for e^(-z^2) for |z|<4, +-1 beyond; its tail LUT below -3.5, x>=3 -> x",
    make_kernel(lambda x, p: x * phi_b4_seed(x, p), "seed-lut"),
    Params({"SEED_B4_SMALL": coeffs(SEED_B4_SMALL), "SEED_B4_SMALL_Q": coeffs(SEED_B4_SMALL_Q),
            "SEED_B4_AS_P": constant(SEED_B4_AS_P), "SEED_B4_AS": coeffs(SEED_B4_AS),
            **frame_params("seed-lut")}),
    table_bytes=4 * (tail.SEED_TAIL_MAIN.size + tail.SEED_TAIL_FINE.size),
    claims={"bfloat16": Claim(535, 0.5597), "float16": Claim(4273, 32.3978)},
    seed=seed_figures("B4 Rational"),
    note="bit for bit the seed's gelu_b4_rational_erf (gelu_implementations.cpp:1622 at "
    "c2bf7bb)",
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
    "asymptotic tail from -8.3125 instead of the LUT: bfloat16 max 535 -> 1",
))
