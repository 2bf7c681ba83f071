"""The seed's range-scaled approximation: E3 Range-Scale.

Idea (seed): scale the input by s = 2 (a power of two, "aligned with bfloat16 exponent
boundaries") so that the polynomial's coefficients have a smaller dynamic range:
    x >= 0:  Phi(x) ~ 1/2 + v P(v^2),  v = x/2,
    x <  0:  the B3 erf core (Phi = erfc(|x|/sqrt 2)/2, no cancellation),
and GELU = x Phi; the seed's shared tail LUT below -3.5 and x -> x from 3.
Evaluation (x >= 0): v = x/2 (exact), w = v v, Horner in w with FMA, Phi = 1/2 + v P(w) (one
FMA), y = x Phi. For x < 0: ``erf_b3.phi_b3`` (imported), y = x Phi.

Why the scaling does not matter in floating point: v = x/2 turns a coefficient c_k of x^k into
2^k c_k, which has the same significand, so no precision is gained or lost by it in float32 or
in bfloat16 (it would matter in fixed point, whose intuition the seed's argument borrows). It
is kept because it is the method's idea; the coefficients below are those of v.

Coefficients: ``fit_e3`` is the minimax (Lawson, float64, 3000 points of x in (0, 3]) of
(Phi(x) - 1/2)/v = P(v^2) weighted by v/Phi(x), i.e. the relative error of Phi on the positive
side, odd degree 9 (five coefficients): 2.9e-4 after rounding to float32 (0.07 bfloat16 ulps;
degree 7 would leave 1.7e-3). Phi(0) = 1/2 exactly, so tiny inputs give x/2. The negative side
is B3's, accurate to 2e-5 relative.

That is E3 Range-Scale (improved). E3 Range-Scale (the seed's): P fitted for the ABSOLUTE error
of Phi (``fit_e3(..., relative=False)``: 2.6e-4; the seed's P is not published), the seed's B3
for x < 0 (its constants), the shared tail LUT below -3.5, x -> x from 3, the seed's fast exp.

Measured (bfloat16 max / mean, core_neg max; float16 max / mean):
    E3 Range-Scale              87 / 0.0724, 1, 190 / 0.6197   seed 1130 / 1.72, core_neg 822
    E3 Range-Scale (improved)   87 / 0.0721, 0, 190 / 0.5999
Not reproduced: the seed's core_neg 822 and tail 1130 are H2's figures too, and its text gives
E3's negative side to B3, which is within 1 ulp here; what its code did there is not published.
The improvement (relative fit, improved B3) moves only the mean.
"""

from __future__ import annotations

import numpy as np

from ulplab.kit import fma
from ulplab.kit.ops import f32hex
from ulplab.methods.gelu import erf_b3
from ulplab.methods.gelu.erf_b3 import PHI_DECL, phi_b3
from ulplab.methods.gelu.framing import frame_params, lawson, make_kernel, measured, phi64
from ulplab.methods.gelu.seed_table import seed_figures
from ulplab.methods.gelu.tail import where32
from ulplab.methods.params import Params, coeffs, constant, evaluate_poly
from ulplab.methods.registry import built, register

f32 = np.float32


_h = f32hex  # exact hex literal -> float32


E3_SCALE = 0.5  # v = x/2: the seed's s = 2, exact
# fit_e3(3.0, 9, 2.0): p0..p4 of P(v^2), rounded to float32
E3_COEFFS = (_h("0x1.97b79cp-1"), _h("-0x1.072df6p-1"), _h("0x1.0e8106p-2"), _h("-0x1.46a130p-4"),
             _h("0x1.515a3cp-7"))


def fit_e3(limit: float = 3.0, degree: int = 9, scale: float = 2.0,
           points: int = 3000, relative: bool = True) -> tuple[tuple[np.float32, ...], float]:
    """Fit time: P with Phi(x) ~ 1/2 + v P(v^2), v = x/scale, odd degree ``degree`` in v,
    minimax in the relative error of Phi on x in [1e-3, limit] (``relative=False``: its
    absolute error, the seed's reading). Returns the float32 coefficients and the weighted
    error of the rounded polynomial on the grid."""
    x = np.linspace(1e-3, limit, points)
    v = x / scale
    g = (phi64(x) - 0.5) / v
    w = v / phi64(x) if relative else v
    basis = np.stack([(v * v) ** k for k in range((degree + 1) // 2)], 1)
    p = lawson(basis, g, w).astype(f32)
    return tuple(p), float(np.max(np.abs(w * (basis @ p.astype(np.float64) - g))))


def e3_core(x: np.ndarray, p: Params) -> np.ndarray:
    """x Phi: the scaled odd polynomial for x >= 0, B3's erf core for x < 0."""
    v = p.E3_SCALE * x
    phi_pos = fma(v, evaluate_poly(p.SCHEME, v * v, p.E3_COEFFS), np.full_like(x, 0.5))
    return x * where32(x < 0.0, phi_b3(x, p), phi_pos)


# fit_e3(3.0, 9, 2.0, relative=False): the seed's reading (its P is not published: the absolute
# minimax of Phi on [0, 3], degree 9 in v: 2.6e-4), p0..p4 rounded to float32
SEED_E3_COEFFS = (_h("0x1.977ea4p-1"), _h("-0x1.06115cp-1"), _h("0x1.0b468ep-2"),
                  _h("-0x1.3f7320p-4"), _h("0x1.468278p-7"))


def _seed_params() -> Params:
    """The seed's E3: its B3 (erf Taylor to z^9, A&S's own a_k) for x < 0 and its fast exp."""
    return Params({"E3_SCALE": constant(E3_SCALE), "E3_COEFFS": coeffs(SEED_E3_COEFFS),
                   **PHI_DECL, **frame_params("lut", seed_exp=True)}).replace(
        ERF_TAYLOR=erf_b3.ERF_TAYLOR[:erf_b3.SEED_ERF_TERMS], AS_COEFFS=erf_b3.AS_COEFFS_SEED)


register(built(
    "gelu", "E3 Range-Scale", "polynomial",
    "the seed's: x>=0: Phi = 1/2 + v P4(v^2), v = x/2, absolute minimax; x<0: the seed's B3 "
    "erf; tail LUT below -3.5, x>=3 -> x",
    make_kernel(e3_core, "lut"), _seed_params(),
    claims=measured((87, 0.0724), (190, 0.6197)),
    seed=seed_figures("E3 Range-Scale"),
    note="seed 1130, measured 87 (the LUT's; core_neg 1 against the seed's 822): the seed's "
    "text says its negative side is B3's, which is accurate; its P is not published",
))
register(built(
    "gelu", "E3 Range-Scale (improved)", "polynomial",
    "x>=0: Phi = 1/2 + v P4(v^2), v = x/2, minimax relative; x<0: B3 erf core; tail LUT",
    make_kernel(e3_core, "lut"),
    Params({"E3_SCALE": constant(E3_SCALE), "E3_COEFFS": coeffs(E3_COEFFS), **PHI_DECL,
            **frame_params("lut")}),
    claims=measured((87, 0.0721), (190, 0.5999)),
    seed=seed_figures("E3 Range-Scale (improved)"),
    note="the seed's E3 with P fitted for the relative error of Phi, the improved B3 core and "
    "an accurate exp",
))
