"""The seed's range-scaled approximation: E3 Range-Scale.

Idea (seed): scale the input by s = 2 (a power of two, "aligned with bfloat16 exponent
boundaries") so that the polynomial's coefficients have a smaller dynamic range:
    x >= 0:  Phi(x) ~ 1/2 + v P(v^2),  v = x/2,
    x <  0:  (improved) the B3 erf core (Phi = erfc(|x|/sqrt 2)/2, no cancellation),
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

That is E3 Range-Scale (improved). E3 Range-Scale is the seed's method, bit for bit
(``e3_seed_core``; its C++ at c2bf7bb, every bfloat16 output checked against its build by
tests/test_gelu_seed_bits.py): for x >= 0 its polynomial in v = x/2 (its decimals, close to the
Taylor series), Phi clamped to [0, 1]; for x < 0 not B3's erf but A&S 7.1.26's sum without its
factor e^(-z^2) (``erf_b3.seed_as_phi_negative``, shared with H2); its tail LUT below -3.5 and
x -> x from 3.

Measured (bfloat16 max / mean, core_neg max; float16 max / mean):
    E3 Range-Scale            1130 / 1.7252, 822, 9033 / 108.9   seed 1130 / 1.72, core_neg 822
    E3 Range-Scale (improved)   87 / 0.0721, 0, 190 / 0.5999
The seed's core_neg 822 is that missing e^(-z^2) (H2, which has the same piece below -2, shows
the same 822 and 1130). What the improvement buys: B3's erfc for x < 0, 1130 -> 87 (the LUT's).
"""

from __future__ import annotations

import numpy as np

from ulplab.kit import fma
from ulplab.kit.ops import f32hex
from ulplab.methods.gelu import erf_b3, tail
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


# The seed's E3 (gelu_implementations.cpp:4234 at c2bf7bb), bit for bit: for x >= 0,
# Phi = c0 + v (c1 + v^2 (c2 + v^2 c3)), v = x/2, its decimals times powers of 2 (exact):
SEED_E3_COEFFS = (f32(0.5), _h("0x1.988454p-1"), _h("-0x1.6dda64p-3"),
                  _h("0x1.6d9ebep-6"))  # :4266-4270 0.5, 0.3989422804*2, -0.0446598*4, 0.00278946*8


def e3_seed_core(x: np.ndarray, p: Params) -> np.ndarray:
    """The seed's E3 core: x >= 0: v = 0.5 x, Phi = fma(v, fma(v2, fma(v2, c3, c2), c1), c0),
    clamped to [0, 1] (NaN -> 1); x < 0: ``erf_b3.seed_as_phi_negative(-x)`` (A&S 7.1.26
    without its e^(-z^2)); GELU = x Phi."""
    with np.errstate(all="ignore"):
        v = f32(0.5) * x
        v2 = v * v
        c0, c1, c2, c3 = (np.full_like(x, c) for c in p.SEED_E3_COEFFS)
        phi = fma(v, fma(v2, fma(v2, c3, c2), c1), c0)
        phi = where32(np.isnan(phi), 1.0, np.clip(phi, 0.0, 1.0))
        return x * where32(x < 0.0, erf_b3.seed_as_phi_negative(-x), phi)


register(built(
    "gelu", "E3 Range-Scale", "polynomial",
    "the seed's: x>=0: Phi = 1/2 + v (c1 + c2 v^2 + c3 v^4), v = x/2, its decimals; x<0: A&S "
    "7.1.26's sum without e^(-z^2); its tail LUT below -3.5, x>=3 -> x",
    make_kernel(e3_seed_core, "seed-lut"),
    Params({"SEED_E3_COEFFS": coeffs(SEED_E3_COEFFS), **frame_params("seed-lut")}),
    table_bytes=4 * (tail.SEED_TAIL_MAIN.size + tail.SEED_TAIL_FINE.size),
    claims=measured((1130, 1.7252), (9033, 108.8721)),
    seed=seed_figures("E3 Range-Scale"),
    note="bit for bit the seed's gelu_e3_range_scaled (gelu_implementations.cpp:4234 at "
    "c2bf7bb)",
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
