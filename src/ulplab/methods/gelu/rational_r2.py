"""The seed's rational method: R2 Rational.

Idea (seed): (Phi(x) - 1/2)/x is even, so approximate it by a rational function of u = x^2,
    (Phi(x) - 1/2)/x ~ P(u)/Q(u),  P = p0 + p1 u + p2 u^2 + p3 u^3,  Q = 1 + q1 u + q2 u^2 + q3 u^3,
and GELU = x (1/2 + x P/Q). Evaluation: u = x x; P and Q by Horner with FMA; one division;
Phi = 1/2 + x (P/Q) (one FMA); y = x Phi. Tails: the seed's shared tail LUT below -3.5 and
x -> x from 3.

Coefficients: the seed matched Taylor terms (a Pade approximant at 0), which is exact at 0 and
poor at |x| = 3.5, where what matters is the RELATIVE error of Phi(-|x|) (GELU's, on the negative
side): Phi(-3.5) = 2.3e-4 leaves no room for an absolute error of 1e-4. Here they are the
weighted minimax fit ``fit_r2`` (Loeb's linearisation with Lawson reweighting, float64, 3000
points of x in (0, 3.5]): the error of g = (Phi(x) - 1/2)/x weighted by x/Phi(-x), i.e. the
relative error of Phi(-x) = 1/2 - x g, which bounds the relative error on the positive side too.
Maximum on the grid 1.33e-5 (float32 coefficients). In float32, 1/2 + x P/Q cancels near -3.5
(an absolute rounding of 2^-25 against Phi = 2.3e-4 is 1.3e-4 relative), so the evaluated core
is within 3e-4 relative (0.07 bfloat16 ulps): exact in bfloat16 but for a few roundings,
and the worst inputs are the tail LUT's (87 ulps at -7.66).

R2 Rational (the seed's): the [3/3] Pade at 0 (``seed_pade_r2``, SEED_R2_P/Q), the shared tail
LUT below -3.5 and x -> x from 3, the seed's fast exp in the LUT's deep tail. R2 Rational
(improved): the minimax fit above.

Measured (every input; bfloat16 max / mean, core_neg max; float16 max):
    R2 Rational             430 / 0.1878, 52, 3435   seed 1139 / 1.19, core_neg 775
    R2 Rational (improved)   87 / 0.0717, 1, 190
Not reproduced: the Pade is what the seed's text describes; its history says the coefficients
were later "optimized for [-4, 4]", and those are not published. What the improvement buys: the
weighted minimax fit takes core_neg 52 -> 1 and the max 430 (at -3.5) -> 87 (the LUT's).
"""

from __future__ import annotations

import numpy as np

from ulplab.kit import fma
from ulplab.kit.ops import f32hex
from ulplab.methods.gelu.framing import (
    frame_params,
    make_kernel,
    measured,
    phi64,
    rational_fit,
)
from ulplab.methods.gelu.seed_table import seed_figures
from ulplab.methods.params import Params, coeffs, evaluate_poly
from ulplab.methods.registry import built, register

f32 = np.float32


_h = f32hex  # exact hex literal -> float32


# fit_r2(limit=3.5, n=3, m=3, points=3000), each coefficient rounded to float32
R2_P = (_h("0x1.98893ap-2"), _h("0x1.b10f54p-6"), _h("0x1.fe8a22p-9"), _h("0x1.2ad8dap-15"))
R2_Q = (f32(1.0), _h("0x1.dd498cp-3"), _h("0x1.80b340p-6"), _h("0x1.3ec522p-10"))


def fit_r2(limit: float = 3.5, n: int = 3, m: int = 3,
           points: int = 3000) -> tuple[np.ndarray, np.ndarray, float]:
    """Fit time: P (degree n) / Q (degree m, Q(0) = 1) in u = x^2 for (Phi(x) - 1/2)/x on
    x in [1e-3, limit], minimax in the relative error of Phi(-x). Returns float32 p, q (without
    Q's leading 1) and the float64 weighted maximum error."""
    x = np.linspace(1e-3, limit, points)
    u = x * x
    g = (phi64(x) - 0.5) / x
    w = x / phi64(-x)
    num = np.stack([u**k for k in range(n + 1)], 1)
    den = np.stack([u**k for k in range(1, m + 1)], 1)
    p, q = rational_fit(num, den, g, w)
    err = float(np.max(np.abs(w * (num @ p / (1 + den @ q) - g))))
    return p.astype(f32), q.astype(f32), err


def r2_core(x: np.ndarray, p: Params) -> np.ndarray:
    """x (1/2 + x P(x^2)/Q(x^2))."""
    u = x * x
    r = evaluate_poly(p.SCHEME, u, p.R2_P) / evaluate_poly(p.SCHEME, u, p.R2_Q)
    return x * fma(x, r, np.full_like(x, 0.5))


def seed_pade_r2(n: int = 3, m: int = 3) -> tuple[tuple[np.float32, ...], tuple[np.float32, ...]]:
    """The seed's R2 coefficients: the [n/m] Pade approximant at u = 0 of
    (Phi(x) - 1/2)/x = sum_k (-1)^k u^k / (sqrt(2 pi) 2^k k! (2k + 1)), u = x^2 ("coefficients from
    matching Taylor"), from mpmath at 40 digits, each rounded to float32 (Q(0) = 1)."""
    import mpmath

    with mpmath.workdps(40):
        c = [(-1) ** k / (mpmath.sqrt(2 * mpmath.pi) * 2**k * mpmath.factorial(k) * (2 * k + 1))
             for k in range(n + m + 1)]
        pp, qq = mpmath.pade(c, n, m)
        return tuple(f32(float(v)) for v in pp), tuple(f32(float(v / qq[0])) for v in qq)


SEED_R2_P, SEED_R2_Q = seed_pade_r2()

register(built(
    "gelu", "R2 Rational", "rational",
    "the seed's: (Phi-1/2)/x ~ P3(x^2)/Q3(x^2), the [3/3] Pade at 0; tail LUT below -3.5, "
    "x>=3 -> x",
    make_kernel(r2_core, "lut"),
    Params({"R2_P": coeffs(SEED_R2_P), "R2_Q": coeffs(SEED_R2_Q),
            **frame_params("lut", seed_exp=True)}),
    claims=measured((430, 0.1878), (3435, 8.009)),
    note="seed 1139, measured 430 (at -3.5, core_neg 52 against the seed's 775): the Pade is "
    "the text's construction; the seed's session 3 'optimized' its coefficients unpublished",
    seed=seed_figures("R2 Rational"),
))
register(built(
    "gelu", "R2 Rational (improved)", "rational",
    "(Phi-1/2)/x ~ P3(x^2)/Q3(x^2), minimax in relative error of Phi(-|x|); tail LUT below -3.5",
    make_kernel(r2_core, "lut"),
    Params({"R2_P": coeffs(R2_P), "R2_Q": coeffs(R2_Q), **frame_params("lut")}),
    claims=measured((87, 0.0717), (190, 0.572)),
    seed=seed_figures("R2 Rational (improved)"),
    note="the seed's R2 with a minimax fit in the relative error of Phi(-|x|) instead of the "
    "Pade: bfloat16 max 430 -> 87 (the LUT's), core_neg 52 -> 1",
))
