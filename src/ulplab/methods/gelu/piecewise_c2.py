"""The seed's piecewise rational method: C2 Piecewise.

Idea (seed): a [2/2] rational for Phi on each of four segments,
    Phi(x) ~ (p0 + p1 x + p2 x^2) / (1 + q1 x + q2 x^2),
fitted per segment; GELU = x Phi. Evaluated here in the equivalent form
    Phi(x) = c + x (a1 + a2 x) / (1 + q1 x + q2 x^2),   c = p0, a1 = p1 - p0 q1, a2 = p2 - p0 q2,
whose c is exactly 1/2 on the two segments at 0 (so tiny inputs give x/2 exactly, the same
rational function otherwise). The segment is i = [x >= E1] + [x >= 0] + [x >= E3] and its five
coefficients are gathered from ``C2_COEFFS`` (80 bytes); then a1 + a2 x and the denominator by
FMA, one division, one FMA. Tails: the seed's shared tail LUT below -3.5, x -> x from 3.

Coefficients: ``fit_c2`` fits each segment minimax in the RELATIVE error of Phi (Loeb's
linearisation with Lawson reweighting, float64, 2000 points per segment; c = 1/2 fixed at 0),
since on the negative side GELU's relative error is Phi's. With the seed's segments
[-3.5, -1.5, 0, 1.5, 3.5] the errors are 1.9%, 1.4e-4, 3e-5, 8e-5: the outer negative segment,
where Phi falls from 0.067 to 2.3e-4, carries everything. Moving its inner edge balances the two
negative segments: -2, -2.25, -2.5 give (0.62%, 0.14%), (0.30%, 0.35%), (0.11%, 0.79%); E1 = -2.25
is used. The positive segment ends at 3 (saturation), E3 = 1.5 as the seed.
Errors on the grid (float32 coefficients): 2.95e-3, 3.46e-3, 3.0e-5, 3.0e-5 (about 1 bfloat16 ulp
at most).

Seed (bfloat16 max/mean): 881/1.15 (core_neg 881, its error at the segment edges: "continuity
enforced by matching values at knots" is not minimax). Measured here: 87/0.0772 (the tail
LUT's 87 at -7.66); float16 190/0.9482.

C2 Piecewise (the seed's): the seed's segments [-3.5, -1.5, 0, 1.5, 3.5] and [2/2] form, fitted per
segment for the least maximum ABSOLUTE error of Phi (``fit_c2(..., relative=False)``: 8.0e-5 on
the outer, 2.2e-5 on the inner segments; the seed's coefficients are not published), the shared
tail LUT below -3.5, x -> x from 3, the seed's fast exp. Measured (bfloat16 max / mean, core_neg
max; float16 max): 87 / 0.0811, 9, 465 (seed 881 / 1.15, core_neg 881); C2 Piecewise (improved)
87 / 0.0772, 1, 190. Not reproduced: the form is accurate enough that the seed's 881 must come
from its coefficients. What the improvement buys: the relative-error fit, core_neg 9 -> 1.
"""

from __future__ import annotations

import itertools

import numpy as np

from ulplab.kit import fma, lookup
from ulplab.kit.ops import f32hex
from ulplab.methods.gelu.framing import (
    frame_params,
    make_kernel,
    measured,
    phi64,
    rational_fit,
)
from ulplab.methods.gelu.seed_table import seed_figures
from ulplab.methods.params import Params
from ulplab.methods.params import knots as knots_param
from ulplab.methods.params import table as table_param
from ulplab.methods.registry import built, register

f32 = np.float32


_h = f32hex  # exact hex literal -> float32


C2_EDGES = (-3.5, -2.25, 0.0, 1.5, 3.0)
# fit_c2(C2_EDGES, points=2000): rows (c, a1, a2, q1, q2) per segment, rounded to float32
C2_COEFFS = np.array([
    (_h("0x1.756354p-7"), _h("-0x1.47feeep-8"), _h("-0x1.202090p-9"), _h("0x1.e9aa8ap-1"),
     _h("0x1.0ab3dep-2")),
    (_h("0x1.p-1"), _h("0x1.89988cp-2"), _h("-0x1.0bc1d4p-4"), _h("-0x1.a7073cp-5"),
     _h("0x1.0e227cp-2")),
    (_h("0x1.p-1"), _h("0x1.982e1ap-2"), _h("0x1.004920p-9"), _h("0x1.0db088p-14"),
     _h("0x1.635cccp-3")),
    (_h("0x1.a2e8b0p-1"), _h("-0x1.e93c0ep-5"), _h("0x1.506f0cp-4"), _h("-0x1.dca46ep-1"),
     _h("0x1.16925ep-1")),
], dtype=np.float32)


def fit_c2(edges: tuple[float, ...] = C2_EDGES, points: int = 2000,
           relative: bool = True) -> tuple[np.ndarray, list[float]]:
    """Fit time: per segment, c + x(a1 + a2 x)/(1 + q1 x + q2 x^2) ~ Phi, minimax relative
    (``relative=False``: absolute, c free everywhere: the seed's reading); c = 1/2 fixed on
    segments with an end at 0. Returns float32 rows and the errors."""
    rows, errs = [], []
    for lo, hi in itertools.pairwise(edges):
        x = np.linspace(lo, hi, points)
        at_zero = relative and (lo == 0.0 or hi == 0.0)
        if at_zero:
            x = x[x != 0.0]
        f = phi64(x)
        w = 1.0 / f if relative else np.ones_like(f)
        den = np.stack([x, x * x], 1)
        if at_zero:
            c = 0.5
            a, q = rational_fit(np.stack([x, x * x], 1), den, f - c, w)
        else:
            p, q = rational_fit(np.stack([np.ones_like(x), x, x * x], 1), den, f, w)
            c = p[0]
            a = np.array([p[1] - c * q[0], p[2] - c * q[1]])
        errs.append(float(np.max(np.abs(w * (c + x * (a[0] + a[1] * x) / (1 + den @ q) - f)))))
        rows.append([c, a[0], a[1], q[0], q[1]])
    return np.array(rows).astype(f32), errs


def c2_core(x: np.ndarray, p: Params) -> np.ndarray:
    """x Phi_C2(x): segment by three comparisons, coefficients gathered, one division."""
    e = p.C2_EDGES
    i = ((x >= e[1]).astype(np.int32) + (x >= e[2]).astype(np.int32)
         + (x >= e[3]).astype(np.int32))
    c, a1, a2, q1, q2 = (lookup(p.C2_COEFFS[:, k], i) for k in range(5))
    num = fma(a2, x, a1)
    den = fma(fma(q2, x, q1), x, np.full_like(x, 1.0))
    return x * fma(x, num / den, c)


SEED_C2_EDGES = (-3.5, -1.5, 0.0, 1.5, 3.5)  # the seed's segments
# fit_c2(SEED_C2_EDGES, points=2000, relative=False): the seed's "[2/2] Pade ... fitted
# separately per segment" read as the absolute minimax of Phi per segment (its coefficients are
# not published; errors 8.0e-5, 2.2e-5, 2.2e-5, 8.0e-5), rows (c, a1, a2, q1, q2), float32
SEED_C2_COEFFS = np.array([
    [_h("0x1.f28dbep-4"), _h("-0x1.f3bd2ap-5"), _h("-0x1.c4f6c6p-5"), _h("0x1.12ad74p+0"),
     _h("0x1.12d8d2p-1")],
    [_h("0x1.fffa50p-2"), _h("0x1.97dcd2p-2"), _h("-0x1.f09e12p-9"), _h("-0x1.3182dcp-9"),
     _h("0x1.68012cp-3")],
    [_h("0x1.0002d8p-1"), _h("0x1.97dcd2p-2"), _h("0x1.f09e12p-9"), _h("0x1.3182dcp-9"),
     _h("0x1.68012cp-3")],
    [_h("0x1.c1ae48p-1"), _h("-0x1.f3bd2ap-5"), _h("0x1.c4f6c6p-5"), _h("-0x1.12ad74p+0"),
     _h("0x1.12d8d2p-1")],
], dtype=np.float32)

register(built(
    "gelu", "C2 Piecewise", "rational",
    "the seed's: 4 segments [-3.5,-1.5,0,1.5,3.5] of [2/2] rational Phi, absolute minimax per "
    "segment; tail LUT below -3.5, x>=3 -> x",
    make_kernel(c2_core, "lut"),
    Params({"C2_COEFFS": table_param(SEED_C2_COEFFS), "C2_EDGES": knots_param(SEED_C2_EDGES),
            **frame_params("lut", seed_exp=True)}),
    table_bytes=SEED_C2_COEFFS.nbytes,
    claims=measured((87, 0.0811), (465, 1.298)),
    seed=seed_figures("C2 Piecewise"),
    note="seed 881, measured 87 (the LUT's; core_neg 9 against the seed's 881): the seed's "
    "coefficients are not published, and an absolute minimax per segment is accurate",
))
register(built(
    "gelu", "C2 Piecewise (improved)", "rational",
    "4 segments of [2/2] rational Phi, minimax relative per segment, edges -2.25/0/1.5; tail LUT",
    make_kernel(c2_core, "lut"),
    Params({"C2_COEFFS": table_param(C2_COEFFS), "C2_EDGES": knots_param(C2_EDGES),
            **frame_params("lut")}),
    table_bytes=C2_COEFFS.nbytes,
    claims=measured((87, 0.0772), (190, 0.9482)),
    seed=seed_figures("C2 Piecewise (improved)"),
    note="the seed's C2 on segments -3.5/-2.25/0/1.5/3, minimax in relative error, Phi(0) = 1/2: "
    "core_neg 9 -> 1, float16 465 -> 190",
))
