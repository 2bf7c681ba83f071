"""The seed's saturation + polynomial core: R1 Poly-9.

Idea (seed): saturate where GELU is trivial, and approximate Phi by an odd polynomial around 1/2
in the core,
    Phi(x) ~ 1/2 + x (a1 + a3 x^2 + a5 x^4 + a7 x^6 + a9 x^8),
since Phi - 1/2 is odd. Evaluation: u = x x; Horner in u with FMA; Phi = 1/2 + x P(u) (one FMA);
y = x Phi. Saturation: x >= 3 -> x (exact in bfloat16 from 2.78125). The seed's other
saturation, x <= -9 -> 0, is wrong on the whole range: GELU(-9) = -1e-18 is a normal bfloat16
number, and GELU only underflows below about -13.6. The seed's shared tail LUT (with the
asymptotic series below -8.3125, which does reach -0) takes x < -3.5 instead, as for the seed's
other LUT methods.

Coefficients: the seed fitted "minimax over [-4, 4]" in absolute error, which leaves Phi near
-3.5 (2.3e-4) with no correct digit. ``fit_r1`` is the weighted minimax (Lawson, float64,
3000 points of x in (0, 3.5]) of g = (Phi(x) - 1/2)/x = P(x^2) weighted by x/Phi(-x), i.e. the
relative error of Phi(-x) = 1/2 - x P, which bounds the relative error on the positive side too.
With five coefficients that is 5.1e-2 (after rounding to float32): an odd polynomial of degree 9
cannot follow the Gaussian decay of Phi(-x) over [0, 3.5] better (degree 11: 1.1e-2, 13:
2.0e-3; on (0, 3] degree 9 would reach 8.8e-3, but the LUT frame starts at -3.5). The
cancellation in 1/2 + x P near -3.5 (2^-25 absolute against 2.3e-4) adds only 1.3e-4. Phi(0)
is 1/2 exactly, so tiny inputs give x/2.

Seed (bfloat16 max/mean): 1312/1.40 (core_neg 926). Measured here: 87/0.1307 (core_neg 12 ulps,
core_pos 3, near_zero 4; the 87 is the tail LUT's at -7.66); float16 190/4.4193.

R1 Poly-9 (the seed's): the same form with the seed's fit, "minimax optimization over [-4, 4]"
(``fit_seed_r1``: absolute error of Phi - 1/2), the shared tail LUT below -3.5, x -> x from 3,
the seed's fast exp; that is R1 Poly-9 (improved) above otherwise. Measured (bfloat16 max / mean,
core_neg max; float16 max): the seed's reading 30339 / 13.56, 133, 13335 (seed 1312 / 1.40,
core_neg 926); (improved) 87 / 0.1307, 12, 190. The absolute fit leaves Phi about 1e-4 off, so
it is negative on [-3.5, -3.2] (tail_neg, x > -3.5), tens of thousands of ulps where the seed
shows 1312; the seed's fit is not published. What the improvement buys: the relative-error fit.
"""

from __future__ import annotations

import numpy as np

from ulplab.kit import fma
from ulplab.kit.ops import f32hex
from ulplab.methods.gelu.framing import frame_params, lawson, make_kernel, measured, phi64
from ulplab.methods.gelu.seed_table import seed_figures
from ulplab.methods.params import Params, coeffs, evaluate_poly
from ulplab.methods.registry import built, register

f32 = np.float32


_h = f32hex  # exact hex literal -> float32


# fit_r1(3.5, 9): a1, a3, a5, a7, a9 rounded to float32
R1_COEFFS = (_h("0x1.84df6ep-2"), _h("-0x1.9f55f2p-5"), _h("0x1.378edcp-8"),
             _h("-0x1.f706f6p-13"), _h("0x1.4cb818p-18"))


def fit_r1(limit: float = 3.5, degree: int = 9,
           points: int = 3000) -> tuple[tuple[np.float32, ...], float]:
    """Fit time: odd-polynomial coefficients a1, a3, ..., a_degree of Phi - 1/2, minimax in the
    relative error of Phi(-x) on x in [1e-3, limit]. Returns them rounded to float32 and the
    weighted error of the rounded polynomial on the grid."""
    x = np.linspace(1e-3, limit, points)
    u = x * x
    g = (phi64(x) - 0.5) / x
    w = x / phi64(-x)
    basis = np.stack([u**k for k in range((degree + 1) // 2)], 1)
    a = lawson(basis, g, w).astype(f32)
    return tuple(a), float(np.max(np.abs(w * (basis @ a.astype(np.float64) - g))))


def r1_core(x: np.ndarray, p: Params) -> np.ndarray:
    """x (1/2 + x P(x^2))."""
    return x * fma(x, evaluate_poly(p.SCHEME, x * x, p.R1_COEFFS), np.full_like(x, 0.5))


# fit_seed_r1(): a1, a3, ..., a9 of Phi - 1/2 ~ x (a1 + a3 x^2 + ... + a9 x^8), least maximum
# ABSOLUTE error of Phi on [-4, 4] (the seed's "coefficients fitted via minimax optimization over
# [-4, 4]"), rounded to float32
SEED_R1_COEFFS = (_h("0x1.92ab06p-2"), _h("-0x1.d7e05ap-5"), _h("0x1.81e1fep-8"),
                  _h("-0x1.484a44p-12"), _h("0x1.b72eeep-18"))


def fit_seed_r1(lo: float = -4.0, hi: float = 4.0, degree: int = 9,
                points: int = 4000) -> tuple[np.float32, ...]:
    """Fit time: the seed's R1 coefficients (absolute minimax of Phi - 1/2 by an odd polynomial
    on [lo, hi], Lawson, float64), rounded to float32 (regenerates SEED_R1_COEFFS)."""
    x = np.linspace(lo, hi, points)
    basis = np.stack([x ** (2 * k + 1) for k in range((degree + 1) // 2)], 1)
    return tuple(lawson(basis, phi64(x) - 0.5, np.ones_like(x)).astype(f32))


register(built(
    "gelu", "R1 Poly-9", "polynomial",
    "the seed's: saturation x>=3 -> x, odd degree-9 polynomial for Phi - 1/2, absolute minimax "
    "on [-4, 4]; tail LUT below -3.5",
    make_kernel(r1_core, "lut"),
    Params({"R1_COEFFS": coeffs(SEED_R1_COEFFS), **frame_params("lut", seed_exp=True)}),
    claims=measured((30339, 13.5607), (13335, 49.4589)),
    note="seed 1312, measured 30339 (at -3.23: the absolute fit makes Phi negative there); the "
    "seed's coefficients are not published",
    seed=seed_figures("R1 Poly-9"),
))
register(built(
    "gelu", "R1 Poly-9 (improved)", "polynomial",
    "saturation x>=3 -> x, odd degree-9 polynomial for Phi - 1/2, minimax relative of "
    "Phi(-|x|) on [0, 3.5]; tail LUT below -3.5",
    make_kernel(r1_core, "lut"), Params({"R1_COEFFS": coeffs(R1_COEFFS), **frame_params("lut")}),
    claims=measured((87, 0.1307), (190, 4.4193)),
    seed=seed_figures("R1 Poly-9 (improved)"),
    note="the seed's R1 fitted for the relative error of Phi(-|x|) on [0, 3.5]: bfloat16 max "
    "30339 -> 87 (the LUT's), core_neg 133 -> 12",
))
