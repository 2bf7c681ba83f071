"""The seed's quadrature method: F2 Quadrature.

Idea: compute Phi (hence GELU = x Phi(x)) by Gaussian quadrature of the integral that defines it,
with the integrand's exponentials from ``tail.exp_neg`` (no library exp).

The seed mapped Phi(x) = int_0^1 phi(x - s/(1-s)) ds/(1-s)^2 to 8 Gauss-Legendre nodes and,
because that is inaccurate in the tail, fell back to the B3 erf for x < -2 and to the shared
tail LUT for x < -3.5 (seed, bfloat16: max 87, mean 0.11; the LUT's 87 at about -7.65). Here
two quadratures, each on an integral that suits it, cover every x, so there is no fallback:

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

That is F2 Quadrature (improved). F2 Quadrature (the seed's, ``build_f2_seed``): the seed's map
with 8 Gauss-Legendre nodes (``seed_gl_tables``: D_i = s_i/(1-s_i), V_i = w_i/(1-s_i)^2),
Phi = sum V_i phi(x - D_i) with phi by the seed's fast exp, the seed's B3 erf (its constants)
below -2, the shared tail LUT below -3.5, x -> x from 3.

Measured (every input; bfloat16 max / mean, near_zero / core_pos / core_neg max; float16 max):
    F2 Quadrature             87 / 0.1312, 3 / 45 / 1, 363   seed 87 / 0.11, 0 / 1 / 23
    F2 Quadrature (improved)   1 / 0.0020, 1 / 0 / 0, 1
The max (the LUT's 87 at -7.65) is reproduced, the regions are not: 8 nodes on the infinite
interval mapped to [0, 1) leave Phi 45 ulps off on core_pos here (the seed's 1 says it did
something else there, unpublished), and the seed's core_neg 23 is its B3's, which gives 1 here.
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
# The seed's F2: 8 Gauss-Legendre nodes on Phi(x) = int_0^1 phi(x - s/(1-s)) ds/(1-s)^2
# ---------------------------------------------------------------------------------------------

SEED_N_GL = 8
SEED_B3_BELOW = -2.0  # the seed's "B3-style erf fallback for x < -2"


def seed_gl_tables(n: int = SEED_N_GL) -> tuple[np.ndarray, np.ndarray]:
    """D_i = s_i/(1 - s_i) and V_i = w_i/(1 - s_i)^2 for the n Gauss-Legendre nodes s_i and
    weights w_i on [0, 1] (numpy's leggauss, float64), each rounded once to float32."""
    u, w = np.polynomial.legendre.leggauss(n)
    s, ws = (u + 1.0) / 2.0, w / 2.0
    return (s / (1.0 - s)).astype(np.float32), (ws / (1.0 - s) ** 2).astype(np.float32)


SEED_GL_D, SEED_GL_V = seed_gl_tables()


def build_f2_seed(p: Params) -> ArrayFn:
    """The seed's F2: Phi(x) = sum_i V_i phi(x - D_i) (phi by the seed's fast exp), the seed's
    B3 erf below B3_BELOW, the shared tail LUT below -3.5, x from 3."""
    def impl(x: np.ndarray) -> np.ndarray:
        with np.errstate(all="ignore"):
            acc = np.zeros_like(x)
            for d, v in zip(p.SEED_GL_D, p.SEED_GL_V, strict=True):
                acc = acc + v * tail.gauss_pdf(x - d, p)
            y = where32(x < p.B3_BELOW, x * erf_b3.phi_b3(x, p), x * acc)
            y = tail.with_tail(x, y, p.TAIL_START, tail.tail_lut, p)
            y = where32(x >= p.SATURATION, x, y)
            return where32(np.isnan(x), x, y)  # NaN -> the input NaN itself

    return impl


register(built(
    "gelu", "F2 Quadrature", "quadrature",
    "the seed's: Phi by 8-node Gauss-Legendre on int_0^1 phi(x - s/(1-s)) ds/(1-s)^2, the seed's "
    "B3 erf below -2, tail LUT below -3.5, x>=3 -> x",
    build_f2_seed,
    Params({**erf_b3.PHI_DECL, **tail.tail_params("lut", seed_exp=True),
            "SEED_GL_D": table_param(SEED_GL_D), "SEED_GL_V": table_param(SEED_GL_V),
            "B3_BELOW": threshold(SEED_B3_BELOW), "TAIL_START": threshold(tail.TAIL_LUT_START),
            "SATURATION": threshold(3.0)}).replace(
        ERF_TAYLOR=erf_b3.ERF_TAYLOR[:erf_b3.SEED_ERF_TERMS], AS_COEFFS=erf_b3.AS_COEFFS_SEED),
    table_bytes=SEED_GL_D.nbytes + SEED_GL_V.nbytes + tail.TAIL_LUT_BYTES,
    claims={"bfloat16": Claim(87, 0.1312), "float16": Claim(363, 4.7173)},
    seed=seed_figures("F2 Quadrature"),
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
