"""The seed's piecewise rational method: C2 Piecewise.

Idea (the seed's text): a [2/2] rational for Phi on each of four segments,
    Phi(x) ~ (p0 + p1 x + p2 x^2) / (1 + q1 x + q2 x^2),
fitted per segment; GELU = x Phi. The "(improved)" variant evaluates it in the equivalent form
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

Seed (bfloat16 max/mean): 881/1.15 (core_neg 881). Measured for C2 Piecewise (improved):
87/0.0772 (the tail LUT's 87 at -7.66); float16 190/0.9482.

C2 Piecewise is the seed's method, bit for bit (``c2_seed_core``; its C++ at c2bf7bb, every
bfloat16 output checked against its build by tests/test_gelu_seed_bits.py). Its code has two
segments, not four: Phi = 1/2 + x (p0 + p1 x^2)/(1 + q1 x^2 + q2 x^4) with one row of 3-4 digit
decimals for x >= 0 and one for x < 0, and on [-3.5, -3) a linear blend of a shorter rational with
the tail LUT's first knot; Phi clamped to [0, 1], the FMAs its build contracts, its tail LUT below
-3.5, x -> x from 3. Measured (bfloat16 max / mean; float16 max / mean): 881 / 1.1537, 7053 /
71.87 (seed 881 / 1.15); C2 Piecewise (improved) 87 / 0.0772, 190 / 0.9482. What the improvement
buys: segments fitted for the relative error of Phi, 881 -> 87 (the LUT's).
"""

from __future__ import annotations

import itertools

import numpy as np

from ulplab.kit import fma, lookup
from ulplab.kit.ops import f32hex
from ulplab.methods.gelu import tail
from ulplab.methods.gelu.framing import (
    frame_params,
    make_kernel,
    measured,
    phi64,
    rational_fit,
)
from ulplab.methods.gelu.seed_table import seed_figures
from ulplab.methods.gelu.tail import where32
from ulplab.methods.params import Params, coeffs
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


# The seed's C2 (gelu_implementations.cpp:1695 at c2bf7bb), bit for bit: Phi = 0.5 + x (p0 +
# p1 x^2) / (1 + x^2 (q1 + q2 x^2)) on [0, 3) and on [-3, 0) with its decimals (:1710-1725), each
# rounded to float32, rows (p0, p1, q1, q2)
SEED_C2_POS = (_h("0x1.988454p-2"), _h("0x1.e00d1cp-6"), _h("0x1.916872p-3"),
               _h("0x1.1d14e4p-5"))  # 0.3989423, 0.0293, 0.196, 0.0348
SEED_C2_NEG = (_h("0x1.988454p-2"), _h("0x1.5182aap-5"), _h("0x1.df3b64p-3"),
               _h("0x1.758e22p-5"))  # 0.3989423, 0.0412, 0.234, 0.0456
SEED_C2_BLEND = (-3.5, -3.0)  # :1731-1732: on [-3.5, -3) a blend with the tail LUT's first knot


def c2_seed_core(x: np.ndarray, p: Params) -> np.ndarray:
    """The seed's C2 core as its README build evaluates it (a*b + c contracted to one FMA):
    x2 = x x; num = fma(p1, x2, p0), den = fma(x2, fma(q2, x2, q1), 1), Phi = 0.5 + (x num)/den
    with the row of x >= 0 or of x < 0; on [-3.5, -3) Phi = fma(t, Phi_r, (1 - t) Phi_t) with
    t = (x + 3.5)/0.5, Phi_r = 0.5 + (x p0)/fma(q1, x2, 1) (the negative row's p0, q1) and
    Phi_t = T_0/x, T_0 = GELU(-3.5) of the seed's tail LUT; Phi clamped to [0, 1] (NaN -> 1);
    GELU = x Phi."""
    with np.errstate(all="ignore"):
        one = np.full_like(x, 1.0)
        x2 = x * x
        neg = x < 0.0
        p0, p1, q1, q2 = (where32(neg, np.full_like(x, n), np.full_like(x, q))
                          for n, q in zip(p.SEED_C2_NEG, p.SEED_C2_POS, strict=True))
        num = fma(p1, x2, p0)
        den = fma(x2, fma(q2, x2, q1), one)
        phi = f32(0.5) + (x * num) / den
        lo, hi = p.SEED_C2_BLEND
        t = (x - f32(lo)) / f32(hi - lo)
        phi_r = f32(0.5) + (x * p0) / fma(q1, x2, one)
        phi_t = p.SEED_TAIL_MAIN[0] / x
        blend = fma(t, phi_r, (f32(1.0) - t) * phi_t)
        phi = where32((x >= lo) & (x < hi), blend, phi)
        return x * where32(np.isnan(phi), 1.0, np.clip(phi, 0.0, 1.0))


register(built(
    "gelu", "C2 Piecewise", "rational",
    "the seed's: Phi = 1/2 + x (p0 + p1 x^2)/(1 + q1 x^2 + q2 x^4), one row for x >= 0 and one "
    "for x < 0, blended into its tail LUT on [-3.5, -3); its tail LUT below -3.5, x>=3 -> x",
    make_kernel(c2_seed_core, "seed-lut"),
    Params({"SEED_C2_POS": coeffs(SEED_C2_POS), "SEED_C2_NEG": coeffs(SEED_C2_NEG),
            "SEED_C2_BLEND": knots_param(SEED_C2_BLEND), **frame_params("seed-lut")}),
    table_bytes=4 * (len(SEED_C2_POS) + len(SEED_C2_NEG) + tail.SEED_TAIL_MAIN.size
                     + tail.SEED_TAIL_FINE.size),
    claims=measured((881, 1.1537), (7053, 71.8681)),
    seed=seed_figures("C2 Piecewise"),
    note="bit for bit the seed's gelu_c2_piecewise_rational (gelu_implementations.cpp:1695 at "
    "c2bf7bb)",
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
    "bfloat16 max 881 -> 87 (the LUT's), float16 7053 -> 190",
))
