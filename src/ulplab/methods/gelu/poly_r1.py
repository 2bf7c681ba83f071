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

Coefficients: the seed's ("minimax over [-4, 4]", close to the Taylor series) leave Phi near
-3.5 (2.3e-4) with no correct digit. ``fit_r1`` is the weighted minimax (Lawson, float64,
3000 points of x in (0, 3.5]) of g = (Phi(x) - 1/2)/x = P(x^2) weighted by x/Phi(-x), i.e. the
relative error of Phi(-x) = 1/2 - x P, which bounds the relative error on the positive side too.
With five coefficients that is 5.1e-2 (after rounding to float32): an odd polynomial of degree 9
cannot follow the Gaussian decay of Phi(-x) over [0, 3.5] better (degree 11: 1.1e-2, 13:
2.0e-3; on (0, 3] degree 9 would reach 8.8e-3, but the LUT frame starts at -3.5). The
cancellation in 1/2 + x P near -3.5 (2^-25 absolute against 2.3e-4) adds only 1.3e-4. Phi(0)
is 1/2 exactly, so tiny inputs give x/2.

Seed (bfloat16 max/mean): 1312/1.40 (core_neg 926). Measured for R1 Poly-9 (improved): 87/0.1307
(core_neg 12 ulps, core_pos 3, near_zero 4; the 87 is the tail LUT's at -7.66); float16
190/4.4193.

R1 Poly-9 is the seed's method, bit for bit (``r1_seed_core``; its C++ at c2bf7bb, every
bfloat16 output checked against its build by tests/test_gelu_seed_bits.py): the same form with
the seed's decimal coefficients (a1 = 0.398942280 = 1/sqrt(2 pi) and the next ones close to the
Taylor series' at 0), summed by powers of x^2 with the FMAs its build contracts, Phi clamped to
[0, 1], x >= 3 -> x and the seed's own tail LUT below -3.5. Measured (bfloat16 max / mean;
float16 max / mean): 1312 / 1.3999, 10489 / 87.38 (seed 1312 / 1.40); R1 Poly-9 (improved)
87 / 0.1307, 190 / 4.4193. What the improvement buys: the relative-error fit.
"""

from __future__ import annotations

import numpy as np

from ulplab.kit import fma
from ulplab.kit.ops import f32hex
from ulplab.methods.gelu import tail
from ulplab.methods.gelu.framing import frame_params, lawson, make_kernel, measured, phi64
from ulplab.methods.gelu.seed_table import seed_figures
from ulplab.methods.gelu.tail import where32
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


# The seed's R1 (gelu_implementations.cpp:530 at c2bf7bb), bit for bit: (Phi - 1/2)/x ~ a1 + a3 x^2
# + ... + a9 x^8 with its decimals (:556-560 0.398942280, -0.066490380, 0.005223040,
# -0.000203370, 0.000003130), each rounded to float32
SEED_R1_COEFFS = (_h("0x1.988454p-2"), _h("-0x1.105838p-4"), _h("0x1.564c12p-8"),
                  _h("-0x1.aa7f70p-13"), _h("0x1.a419fcp-19"))


def r1_seed_core(x: np.ndarray, p: Params) -> np.ndarray:
    """The seed's R1 core: x2 = x x, x4 = x2 x2, x6 = x4 x2, x8 = x4 x4; P = a1 + a3 x2 + ...
    + a9 x8 summed by powers, phi = fma(x, P, 0.5) (the FMAs its build contracts), clamped to
    [0, 1] (NaN -> 1); GELU = x phi."""
    with np.errstate(all="ignore"):
        x2 = x * x
        x4 = x2 * x2
        c = p.SEED_R1_COEFFS
        q = np.full_like(x, c[0])
        for ck, xk in zip(c[1:], (x2, x4, x4 * x2, x4 * x4), strict=True):
            q = fma(np.full_like(x, ck), xk, q)
        phi = fma(x, q, np.full_like(x, 0.5))
        return x * where32(np.isnan(phi), 1.0, np.clip(phi, 0.0, 1.0))


register(built(
    "gelu", "R1 Poly-9", "polynomial",
    "the seed's: saturation x>=3 -> x, (Phi - 1/2)/x by an even degree-8 polynomial (its "
    "decimals); its tail LUT below -3.5",
    make_kernel(r1_seed_core, "seed-lut"),
    Params({"SEED_R1_COEFFS": coeffs(SEED_R1_COEFFS), **frame_params("seed-lut")}),
    table_bytes=4 * (tail.SEED_TAIL_MAIN.size + tail.SEED_TAIL_FINE.size),
    claims=measured((1312, 1.3999), (10489, 87.3812)),
    note="bit for bit the seed's gelu_r1_saturation_poly (gelu_implementations.cpp:530 at "
    "c2bf7bb)",
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
    "1312 -> 87 (the LUT's)",
))
