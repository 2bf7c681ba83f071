"""The seed's LUT with polynomial correction: D3 LUT+Corr (the seed's) and D3 LUT+Corr (improved).

Idea (the seed): a coarse table, linear interpolation, and a small polynomial correcting the
interpolation error, base = lerp(LUT_i, LUT_i+1, t), result = base + correction.

D3 LUT+Corr is the seed's method, bit for bit (``seed_d3_core``; its C++ at c2bf7bb, every
bfloat16 output checked against its build by tests/test_gelu_seed_bits.py): a table of Phi at 32
knots -4 + 8i/31 (step 8/31, not 1/4) as its 7-digit decimals, two of them 0.5 where Phi(-4/31)
and Phi(4/31) belong; linear interpolation (one FMA) plus ONE correction for every x,
x (0.02 - 0.005 x^2)/(1 + 0.5 x^2); Phi clamped to [0, 1]; its tail LUT below -3.5 and x -> x
from 3. Measured (bfloat16 max / mean, near_zero / core_pos / core_neg / tail_neg max; float16
max / mean): 830 / 1.8175, 95 / 53 / 440 / 830; 6636 / 115.08 (seed 830 / 1.82, 94 / 53 / 440 /
830; its near_zero 94 is 95 against this project's oracle).

D3 LUT+Corr (improved): the table holds Phi and the correction is per interval and
vanishes at both knots (so the table values stay exact there):

    s = 4 (x + 4), i = floor(s) clamped to [0, 31], t = s - i,
    Phi = T_i + t (T_i+1 - T_i) + t (1 - t) (C2_i + C3_i (t - 1/2)),

two coefficients per interval, as the seed. The linear interpolation error is about
-(Phi''/2) h^2 t(1 - t), so C2 carries the curvature and C3 its change across the interval.
C2_i, C3_i are fitted at import time (``correction_coeffs``): least max RELATIVE error of Phi
on 64 interior points of each interval, by Lawson's iteratively reweighted least squares (50
rounds, float64 with math.erfc), then rounded once to float32. Largest error after rounding:
3.3e-4 relative, on the interval [-4, -3.75] (0.08 bfloat16 ulps); without C3 it would be 7.3e-3.
The knot values T_i are Phi(-4 + i/4) from mpmath (``tail.phi_cdf_exact``), rounded once.

Beyond the table: the seed's asymptotic tail (``tail.asymptotic_tail``) below -4 (series
error below 105/4^8 = 1.6e-3), and x + GELU(-x) by the same tail from 4 on
(``tail.mirror_positive``).

Measured: bfloat16 max 1, float16 max 3 (the 4-term series just below -4: 1.1e-3 relative,
about 1 float16 ulp, plus roundings); the claims below. What it buys against the seed's: exact
knots and a correction per interval that vanishes at them, near_zero 95 -> 1 and core_neg
440 -> 1; the asymptotic tail below -4 instead of the tail LUT below -3.5, tail_neg 830 -> 1.
"""

from __future__ import annotations

import math

import numpy as np

from ulplab.kit import fma, lookup
from ulplab.kit.ops import f32hex
from ulplab.methods.gelu import tail
from ulplab.methods.gelu.framing import frame_params, make_kernel, measured
from ulplab.methods.gelu.seed_table import seed_figures
from ulplab.methods.gelu.tail import where32
from ulplab.methods.params import Params, coeffs
from ulplab.methods.params import table as table_param
from ulplab.methods.registry import ArrayFn, Claim, built, register

f32 = np.float32

f32 = np.float32
_h = f32hex  # exact hex literal -> float32

D3_LO = -4.0
D3_STEP = 0.25
D3_INTERVALS = 32
D3_HI = D3_LO + D3_STEP * D3_INTERVALS  # 4.0
TABLE = tail.uniform_table(tail.phi_cdf_exact, D3_LO, D3_STEP, D3_INTERVALS + 1)


def correction_coeffs(n_points: int = 64, rounds: int = 50) -> tuple[np.ndarray, np.ndarray,
                                                                      float]:
    """Per-interval (C2, C3) for least max relative error of Phi, float32, and that error.

    Import time, float64: on each interval, points t_j = j/(n_points+1), residual r = Phi -
    lerp(T) (T the float32 table), basis u = t(1-t) and u (t - 1/2), weights 1/Phi; Lawson's
    reweighting by the error for rounds rounds; the error is measured after rounding.
    """
    phi = np.vectorize(lambda v: 0.5 * math.erfc(-v / math.sqrt(2.0)))
    t = np.arange(1, n_points + 1) / (n_points + 1)
    u = t * (1 - t)
    basis = np.stack([u, u * (t - 0.5)], axis=1)
    c2 = np.zeros(D3_INTERVALS, dtype=np.float32)
    c3 = np.zeros(D3_INTERVALS, dtype=np.float32)
    worst = 0.0
    for i in range(D3_INTERVALS):
        x = D3_LO + (i + t) * D3_STEP
        y = phi(x)
        t0, t1 = float(TABLE[i]), float(TABLE[i + 1])
        lerp = t0 + t * (t1 - t0)
        w = 1.0 / y
        lw = np.full(n_points, 1.0 / n_points)
        for _ in range(rounds):
            sw = w * np.sqrt(lw)
            c, *_ = np.linalg.lstsq(basis * sw[:, None], (y - lerp) * sw, rcond=None)
            err = np.abs((lerp + basis @ c) / y - 1)
            lw = lw * err
            lw /= lw.sum()
        c2[i], c3[i] = f32(c[0]), f32(c[1])
        c32 = np.array([float(c2[i]), float(c3[i])])
        worst = max(worst, float(np.max(np.abs((lerp + basis @ c32) / y - 1))))
    return c2, c3, worst


CORR_C2, CORR_C3, CORR_ERROR = correction_coeffs()
TABLE_BYTES = TABLE.nbytes + CORR_C2.nbytes + CORR_C3.nbytes


def lerp_d3(x: np.ndarray, table: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(lerp of the 33-knot table at x, t, interval index): s = 4 (x + 4) clamped to [0, 32]
    (NaN -> 0), i = floor(s) clamped to 31, t = s - i, lerp = T_i + t (T_i+1 - T_i) by FMA."""
    s = (x - D3_LO) * (1.0 / D3_STEP)
    s = np.minimum(np.maximum(s, 0.0), float(D3_INTERVALS))
    s = where32(np.isnan(s), 0.0, s)
    i = np.minimum(np.floor(s), float(D3_INTERVALS - 1))
    t = s - i
    ii = i.astype(np.int32)
    y0 = lookup(table, ii)
    return fma(t, lookup(table, ii + 1) - y0, y0), t, ii


def phi_d3(x: np.ndarray, p: Params) -> np.ndarray:
    """Phi on [-4, 4]: table, linear interpolation, per-interval correction (x clamped)."""
    with np.errstate(all="ignore"):
        base, t, ii = lerp_d3(x, p.TABLE)
        u = t * (1.0 - t)
        corr = u * fma(t - 0.5, lookup(p.CORR_C3, ii), lookup(p.CORR_C2, ii))
        return base + corr


def build_d3(p: Params) -> ArrayFn:
    def impl(x: np.ndarray) -> np.ndarray:
        with np.errstate(all="ignore"):
            core = x * phi_d3(x, p)
            core = where32(x >= D3_HI, tail.mirror_positive(x, tail.asymptotic_tail, p), core)
            y = tail.with_tail(x, core, D3_LO, tail.asymptotic_tail, p)
            return where32(np.isnan(x), x, y)  # NaN -> the input NaN itself

    return impl


# The seed's D3 (gelu_implementations.cpp:2034 at c2bf7bb), bit for bit: Phi at 32 knots
# -4 + 8i/31 as its 7-digit decimals (:2023-2031; entries 15 and 16 are both 0.5), each rounded
# to float32, interpolated, plus x (0.02 - 0.005 x^2)/(1 + 0.5 x^2)
SEED_PHI = np.array([float.fromhex(v) for v in (
    "0x1.09eb3cp-15", "0x1.7e19e2p-14", "0x1.0d2b62p-12", "0x1.727640p-11", "0x1.f2198ep-10",
    "0x1.4709aap-8", "0x1.a2f2dep-7", "0x1.050772p-5", "0x1.3bfc9ap-4", "0x1.73b5e8p-3",
    "0x1.18d5cep-2", "0x1.6a5fe2p-2", "0x1.aed68cp-2", "0x1.e79364p-2", "0x1.0b0e44p-1",
    "0x1.000000p-1", "0x1.000000p-1", "0x1.0c3068p-1", "0x1.2893b2p-1", "0x1.4ad00ep-1",
    "0x1.73951ap-1", "0x1.a31286p-1", "0x1.d8806cp-1", "0x1.efaf88p-1", "0x1.f97434p-1",
    "0x1.fd71ecp-1", "0x1.ff06f4p-1", "0x1.ffa362p-1", "0x1.ffde5ap-1", "0x1.fff410p-1",
    "0x1.fffbd8p-1", "0x1.000000p+0",
)], dtype=np.float32)
SEED_STEP = f32(8.0) / f32(31.0)  # :2020 STEP = (MAX - MIN)/(SIZE - 1) in float32
SEED_CORR = (_h("0x1.47ae14p-6"), _h("0x1.47ae14p-8"))  # :2058 0.02, 0.005


def seed_d3_core(x: np.ndarray, p: Params) -> np.ndarray:
    """The seed's D3 core as its README build evaluates it: xc = x limited to [-4, 4] (4 for a
    NaN, as std::min(4, NaN) gives); s = (xc + 4)/STEP, i = trunc(s) limited to [0, 30],
    t = s - i; Phi = fma(t, T[i+1] - T[i], T[i]) + (x fma(-0.005, x^2, 0.02))/fma(0.5, x^2, 1),
    clamped to [0, 1] (NaN -> 1); GELU = x Phi."""
    with np.errstate(all="ignore"):
        xc = where32(np.isnan(x), 4.0, np.clip(x, -4.0, 4.0))
        s = (xc - f32(-4.0)) / SEED_STEP
        i = np.clip(np.trunc(s), 0.0, float(p.SEED_PHI.size - 2))
        t = s - np.trunc(s)
        ii = i.astype(np.int32)
        y0 = lookup(p.SEED_PHI, ii)
        phi = fma(t, lookup(p.SEED_PHI, ii + 1) - y0, y0)
        x2 = x * x
        c1, c2 = p.SEED_CORR
        corr = (x * fma(np.full_like(x, -c2), x2, np.full_like(x, c1))) / fma(
            np.full_like(x, 0.5), x2, np.full_like(x, 1.0))
        phi = phi + corr
        return x * where32(np.isnan(phi), 1.0, np.clip(phi, 0.0, 1.0))


register(built(
    "gelu", "D3 LUT+Corr", "lut",
    "the seed's: Phi from its 32 decimal knots on [-4, 4] by linear interpolation plus "
    "x (0.02 - 0.005 x^2)/(1 + 0.5 x^2); its tail LUT below -3.5, x>=3 -> x",
    make_kernel(seed_d3_core, "seed-lut"),
    Params({"SEED_PHI": table_param(SEED_PHI), "SEED_CORR": coeffs(SEED_CORR),
            **frame_params("seed-lut")}),
    table_bytes=SEED_PHI.nbytes + 4 * (tail.SEED_TAIL_MAIN.size + tail.SEED_TAIL_FINE.size),
    claims=measured((830, 1.8175), (6636, 115.0782)),
    seed=seed_figures("D3 LUT+Corr"),
    note="bit for bit the seed's gelu_d3_lut_correction (gelu_implementations.cpp:2034 at "
    "c2bf7bb)",
))

register(built(
    "gelu", "D3 LUT+Corr (improved)", "lut",
    "Phi from 33 knots at step 1/4 on [-4, 4], linear interpolation plus a per-interval "
    "correction t(1-t)(C2 + C3(t-1/2)) fitted for relative error; asymptotic tail beyond 4",
    build_d3,
    Params({"TABLE": table_param(TABLE, of="Phi",
                                 at=[D3_LO + D3_STEP * i for i in range(D3_INTERVALS + 1)]),
            "CORR_C2": table_param(CORR_C2),
            "CORR_C3": table_param(CORR_C3), **tail.PURE_PARAMS}),
    table_bytes=TABLE_BYTES,
    claims={"bfloat16": Claim(1, 0.0021), "float16": Claim(3, 0.0042)},
    seed=seed_figures("D3 LUT+Corr (improved)"),
    note="Phi table, correction per interval vanishing at the knots, asymptotic tail",
))
