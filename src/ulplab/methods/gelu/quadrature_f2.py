"""The seed's quadrature method: F2 Quadrature.

Idea: compute Phi (hence GELU = x Phi(x)) by Gaussian quadrature of the integral that defines it,
with the integrand's exponentials from ``tail.exp_neg`` (no library exp).

The seed integrated Phi by 8 Gauss-Legendre nodes and, because that is inaccurate in the tail, fell
back to a B3-style erf for x < -2 and to the shared tail LUT for x < -3.5 (seed, bfloat16: max 87,
mean 0.11; the LUT's 87 at about -7.65). In the "(improved)" variant two quadratures, each on an
integral that suits it, cover every x, so there is no fallback:

    |x| < 2: Phi(x) = 1/2 + x/sqrt(2 pi) int_0^1 e^(-x^2 u^2/2) du, by N_GL = 6 Gauss-Legendre
        nodes u_i on [0, 1]: Phi = 1/2 + x sum W_i e^(-x^2 A_i), A_i = u_i^2/2,
        W_i = w_i/(2 sqrt(2 pi)) (w_i the weights on [-1, 1]). Truncation error below 1.7e-7
        relative to Phi(-|x|) (the subtraction 1/2 - ... loses at most 4 bits: Phi(-2) = 0.023).
    |x| >= 2: with u = cot(theta) in Craig's formula, Phi(-|x|) = e^(-x^2/2)/(pi |x|)
        int_0^inf e^(-v^2/2)/(1 + v^2/x^2) dv, by N_GH = 16-node Gauss-Hermite quadrature for
        the weight e^(-v^2/2) (8 positive nodes, by symmetry): with y = 1/x^2,
            |x| Phi(-|x|) = e^(-x^2/2) sum C_i/(1 + B_i y),  B_i = v_i^2, C_i = w_i/pi.
        Then GELU = -e S for x <= -2 (the factor |x| cancels: no overflow, no 0 * inf at
        x = -inf) and GELU = x - e S for x >= 2. Truncation error below 3.3e-6 relative for
        |x| >= 2, and it falls fast with |x| (1e-8 at 3, 7e-11 at 4).
    Both errors were measured in float64 against mpmath (``truncation_errors``); the split at
    2 balances six exponentials in the first branch against eight divisions in the second.

Nodes and weights: ``gauss_tables`` at import time from numpy's ``leggauss``/``hermegauss``
(float64, Golub-Welsch), the derived A_i, W_i, B_i, C_i in float64, each rounded once to float32.

That is F2 Quadrature (improved). F2 Quadrature is the seed's method, bit for bit
(``build_f2_seed``; its C++ at c2bf7bb, every bfloat16 output checked against its build by
tests/test_gelu_seed_bits.py). Its code is not the map its text describes: it computes in
float64 (so it declares "float64 arithmetic" and is not float32-only) Phi(x) = 1/2 + sign(x)
|x|/sqrt(2 pi) sum w_i E(u_i), 8 Gauss-Legendre nodes t_i = node_i |x| on [0, 1] (10-digit
decimals), u = t^2/2, E a Taylor polynomial of e^(-u) of degree 6 (u < 2) or 1/(its degree-3
one) beyond, for x >= -2; the float32 B3-style erf on [-3.5, -2) (``erf_b3.seed_b3_fallback``);
its tail LUT below -3.5; x -> x from 3.

Measured (every input; bfloat16 max / mean, near_zero / core_pos / core_neg max; float16 max):
    F2 Quadrature             87 / 0.1093, 1 / 1 / 23, 690   seed 87 / 0.11, 0 / 1 / 23
    F2 Quadrature (improved)   1 / 0.0020, 1 / 0 / 0, 1
What the improvement buys: no LUT, no fallback: 87 -> 1.
"""

from __future__ import annotations

import math

import numpy as np

from ulplab.kit import fma
from ulplab.methods.gelu import erf_b3, tail
from ulplab.methods.gelu.seed_table import seed_figures
from ulplab.methods.gelu.tail import where32
from ulplab.methods.params import Params, threshold
from ulplab.methods.params import table as table_param
from ulplab.methods.registry import ArrayFn, Claim, built, register

f32 = np.float32

N_GL = 6
N_GH = 16
X_SPLIT = 2.0


def gauss_tables(n_gl: int = N_GL, n_gh: int = N_GH) -> dict[str, np.ndarray]:
    """A, W (Gauss-Legendre on [0, 1] for Phi - 1/2) and B, C (positive half of Gauss-Hermite
    for the weight e^(-v^2/2), weights doubled), float64 then rounded once to float32."""
    g, w = np.polynomial.legendre.leggauss(n_gl)
    u = (g + 1.0) / 2.0
    a = u * u / 2.0
    ww = w / (2.0 * math.sqrt(2.0 * math.pi))
    v, wh = np.polynomial.hermite_e.hermegauss(n_gh)
    pos = v > 0
    b = v[pos] ** 2
    c = 2.0 * wh[pos] / (2.0 * math.pi)
    return {"A": a.astype(f32), "W": ww.astype(f32), "B": b.astype(f32), "C": c.astype(f32)}


TABLES = gauss_tables()
GL_A, GL_W, GH_B, GH_C = (TABLES[k] for k in ("A", "W", "B", "C"))
TABLE_BYTES = sum(t.nbytes for t in TABLES.values())


def truncation_errors(n_gl: int = N_GL, n_gh: int = N_GH, split: float = X_SPLIT,
                      x_hi: float = 13.5) -> tuple[float, float]:
    """Max relative error of Phi(-|x|) of each quadrature in float64 (fit time, mpmath): the
    Legendre rule on (0, split), the Hermite rule on [split, x_hi], step 0.01."""
    import mpmath

    g, w = np.polynomial.legendre.leggauss(n_gl)
    u = (g + 1) / 2
    v, wh = np.polynomial.hermite_e.hermegauss(n_gh)
    e1 = e2 = 0.0
    for i in range(1, round(x_hi / 0.01) + 1):
        x = i * 0.01
        exact = float(mpmath.erfc(x / mpmath.sqrt(2)) / 2)
        if x < split:
            q = 0.5 - x * float(np.sum(w / 2 * np.exp(-x * x * u * u / 2))) / math.sqrt(2 * math.pi)
            e1 = max(e1, abs(q / exact - 1))
        else:
            s = float(np.sum(wh / (1 + v * v / (x * x))))
            q = math.exp(-x * x / 2) / (2 * math.pi * x) * s
            e2 = max(e2, abs(q / exact - 1))
    return e1, e2


def build_f2(p: Params) -> ArrayFn:
    """F2: Gauss-Legendre below X_SPLIT in |x|, Gauss-Hermite from there (nodes and weights
    GL_A, GL_W, GH_B, GH_C)."""

    def impl(x: np.ndarray) -> np.ndarray:
        with np.errstate(all="ignore"):
            x2 = x * x
            # |x| < 2: Gauss-Legendre
            acc = np.zeros_like(x)
            for a, w in zip(p.GL_A, p.GL_W, strict=True):
                acc = fma(np.full_like(x, w), tail.exp_neg(x2 * a, p), acc)
            small = x * fma(x, acc, np.full_like(x, 0.5))
            # |x| >= 2: Gauss-Hermite on Craig's integral
            y = 1.0 / x2
            s = np.zeros_like(x)
            for b, c in zip(p.GH_B, p.GH_C, strict=True):
                s = s + c / fma(np.full_like(x, b), y, np.full_like(x, 1.0))
            g = tail.exp_neg(0.5 * x2, p) * s  # |x| Phi(-|x|)
            big = where32(x < 0.0, -g, x - g)
            y = where32(np.abs(x) < p.X_SPLIT, small, big)
            return where32(np.isnan(x), x, y)  # NaN -> the input NaN itself

    return impl


# ---------------------------------------------------------------------------------------------
# The seed's F2 (gelu_implementations.cpp at c2bf7bb: phi_quadrature_f64 :2147, gelu_f2_quadrature
# :2197), bit for bit: Phi(x) = 1/2 + sign(x) (1/sqrt(2 pi)) |x| sum_i w_i E(u_i), in float64,
# with 8 Gauss-Legendre nodes and weights on [0, 1] as its 10-digit decimals (double literals)
# ---------------------------------------------------------------------------------------------

SEED_GL_NODES = (0.0198550718, 0.1016667613, 0.2372337950, 0.4082826788,
                 0.5917173212, 0.7627662050, 0.8983332387, 0.9801449282)  # :2158-2161
SEED_GL_WEIGHTS = (0.0506142681, 0.1111905172, 0.1568533229, 0.1813418917,
                   0.1813418917, 0.1568533229, 0.1111905172, 0.0506142681)  # :2162-2165
SEED_INV_SQRT_2PI_64 = 0.3989422804014327  # :2191
SEED_F2_DOUBLE_FROM = -2.0  # :2202: below -2 the float fallback and the float tail LUT


def phi_quadrature_seed64(x: np.ndarray) -> np.ndarray:
    """The seed's phi_quadrature_f64 in float64: u = (node |x|)^2/2; E(u) = 1 - u + u^2/2 - u^3/6
    + u^4/24 - u^5/120 + u^6/720 for u < 2, else 1/(1 + u + u^2/2 + u^3/6) (Taylor stand-ins for
    e^(-u)); the weighted sum times |x|, Phi = 0.5 + (sign/sqrt(2 pi)) sum, limited to [0, 1].
    Its build fuses the sum's w E + s and the last line into FMAs; unfused, as here, every
    bfloat16 output is the same (the -ffp-contract=off build has the same hash)."""
    with np.errstate(all="ignore"):
        ax = np.abs(x)
        integral = np.zeros_like(x)
        for node, w in zip(SEED_GL_NODES, SEED_GL_WEIGHTS, strict=True):
            t = node * ax
            u = (t * t) / 2.0
            u2 = u * u
            u3 = u2 * u
            u4 = u3 * u
            u5 = u4 * u
            u6 = u5 * u
            taylor = 1.0 - u + u2 / 2.0 - u3 / 6.0 + u4 / 24.0 - u5 / 120.0 + u6 / 720.0
            rational = 1.0 / (1.0 + u + u2 / 2.0 + u3 / 6.0)
            integral = integral + w * np.where(u < 2.0, taylor, rational)
        integral = integral * ax
        sign = np.where(x >= 0.0, 1.0, -1.0)
        phi = 0.5 + (sign * SEED_INV_SQRT_2PI_64) * integral
        phi = np.where(x > 6.0, 1.0, np.where(x < -6.0, 0.0, phi))
        return np.clip(phi, 0.0, 1.0)


def build_f2_seed(p: Params) -> ArrayFn:
    """The seed's F2 kernel: x from 3; for x >= -2, x Phi in float64 (``phi_quadrature_seed64``)
    rounded to float32; on [-3.5, -2) ``erf_b3.seed_b3_fallback``; its tail LUT below -3.5."""
    def impl(x: np.ndarray) -> np.ndarray:
        with np.errstate(all="ignore"):
            xd = x.astype(np.float64)
            core = (xd * phi_quadrature_seed64(xd)).astype(np.float32)
            low = where32(x < p.TAIL_START, tail.seed_tail_lut(x, p), erf_b3.seed_b3_fallback(x))
            y = where32(x < SEED_F2_DOUBLE_FROM, low, core)
            y = where32(x >= p.SATURATION, x, y)
            return where32(np.isnan(x), x, y)  # NaN -> the input NaN itself

    return impl


register(built(
    "gelu", "F2 Quadrature", "quadrature",
    "the seed's: Phi by 8-node Gauss-Legendre on [0, x] in float64 with Taylor stand-ins for "
    "e^(-t^2/2); its B3-style erf on [-3.5, -2), its tail LUT below -3.5, x>=3 -> x",
    build_f2_seed,
    Params({**tail.tail_params("seed-lut"), "TAIL_START": threshold(tail.TAIL_LUT_START),
            "SATURATION": threshold(3.0)}),
    table_bytes=8 * (len(SEED_GL_NODES) + len(SEED_GL_WEIGHTS))
    + 4 * (tail.SEED_TAIL_MAIN.size + tail.SEED_TAIL_FINE.size),
    library_calls=("float64 arithmetic",),
    claims={"bfloat16": Claim(87, 0.1093), "float16": Claim(690, 2.9997)},
    seed=seed_figures("F2 Quadrature"),
    note="bit for bit the seed's gelu_f2_quadrature (gelu_implementations.cpp:2197 at "
    "c2bf7bb); computes in float64, as the seed does",
))
register(built(
    "gelu", "F2 Quadrature (improved)", "quadrature",
    "Phi by 6-node Gauss-Legendre (|x|<2) and by 16-node Gauss-Hermite on Craig's integral "
    "(|x|>=2), exps from exp_neg; no fallback, no tail",
    build_f2,
    Params({**{k: table_param(v) for k, v in (("GL_A", GL_A), ("GL_W", GL_W), ("GH_B", GH_B),
                                              ("GH_C", GH_C))},
            "X_SPLIT": threshold(X_SPLIT), **tail.PURE_PARAMS}),
    table_bytes=TABLE_BYTES,
    claims={"bfloat16": Claim(1, 0.002), "float16": Claim(1, 0.0001)},
    seed=seed_figures("F2 Quadrature (improved)"),
    note="the seed's F2 with two quadratures that suit their integrals instead of the 8-node "
    "map, B3 fallback and LUT: bfloat16 max 87 -> 1",
))
