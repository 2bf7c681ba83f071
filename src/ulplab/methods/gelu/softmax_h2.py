"""The seed's combined unit: H2 GELU-Softmax (GELU through the softmax unit's exp).

Idea (seed): a softmax unit already has an exp; GELU in tanh form needs only that exp, so both
activations share one piecewise-linear (PWL) exp datapath.

The shared exp here is the usual softmax-hardware one: e^w = 2^(w log2 e) = 2^n 2^f with
n = floor(w log2 e), f in [0, 1), and 2^f by linear interpolation on 8 uniform segments
(``EXP2_TABLE``: 2^(i/8), i = 0..8, built at import time from mpmath, each rounded once to
float32; 36 bytes), then ldexp. Interpolation error h^2/8 (ln 2)^2 <= 9.4e-4 relative (h = 1/8):
the same everywhere, since the range reduction makes every octave alike. The seed's unit had
8 PWL segments on [-4, 4] for e^x itself, whose relative error grows without bound away from
the knots' scale; that, plus the unreduced range, gave its 822-ulp core_neg.

GELU: x sigma(2u) = x / (1 + e^(-2u)), u = sqrt(2/pi)(x + 0.044715 x^3) (``softex_h3``'s
tanh-form core, with this exp). Tails: the seed's shared tail LUT below -3.5 and x -> x from 3.
Worst inputs are then the tail LUT's (87 ulps at x = -7.66); on [-3.5, 3) the error is the tanh
form's (up to 10% relative near -3) plus the PWL exp's 0.1%.

That is H2 GELU-Softmax (improved). H2 GELU-Softmax (the seed's, ``core_seed``): e^w by the
chords of e^x between the integers -4..4 (``seed_pwl_exp``; w clamped to [-4, 4], our reading),
tanh z = (e^2z - 1)/(e^2z + 1), GELU = 0.5 x (1 + tanh z), the shared tail LUT below -3.5,
x -> x from 3.

Measured (every input; bfloat16 max / mean, near_zero / core_pos / core_neg max; float16 max):
    H2 GELU-Softmax             812 / 0.7734, 18 / 4 / 472, 6491  seed 1130 / 1.31, 18 / 4 / 822
    H2 GELU-Softmax (improved)   87 / 0.0983, 1 / 1 / 23, 462
near_zero and core_pos are the seed's; the negative side is not (extending the end chords
instead of clamping gives 15550), and the seed does not say what it did below -4. What the
improvement buys: range reduction before the PWL (0.1% everywhere) takes core_neg 472 -> 23
(the tanh form's own error at -3) and the max to the LUT's 87.
"""

from __future__ import annotations

import mpmath
import numpy as np

from ulplab.kit import fma, ldexp, lookup
from ulplab.methods.gelu.framing import frame_params, make_kernel, measured
from ulplab.methods.gelu.seed_table import seed_figures
from ulplab.methods.gelu.softex_h3 import EXP_CLAMP, TANH_FORM_PARAMS, tanh_form_core
from ulplab.methods.gelu.tail import LOG2E, where32
from ulplab.methods.params import Params
from ulplab.methods.params import knots as knots_param
from ulplab.methods.params import table as table_param
from ulplab.methods.registry import built, register

f32 = np.float32

EXP2_SEGMENTS = 8


def exp2_table(segments: int = EXP2_SEGMENTS) -> np.ndarray:
    """2^(i/segments), i = 0..segments, each rounded once to float32 (mpmath at 40 digits)."""
    with mpmath.workdps(40):
        return np.array([float(mpmath.mpf(2) ** (mpmath.mpf(i) / segments))
                         for i in range(segments + 1)], dtype=np.float32)


EXP2_TABLE = exp2_table()


def pwl_exp(w: np.ndarray, p: Params | None = None) -> np.ndarray:
    """e^w = 2^n * PWL(2^f), n = floor(w log2 e), f = w log2 e - n, 8 segments on f in [0, 1)."""
    with np.errstate(all="ignore"):
        wc = np.minimum(np.maximum(w, -EXP_CLAMP), EXP_CLAMP)
        v = wc * LOG2E
        n = np.floor(v)
        n = where32(np.isnan(n), 0.0, n)
        s = (v - n) * float(EXP2_SEGMENTS)           # exact: v - n in [0, 1), times 8
        s = where32(np.isnan(s), 0.0, s)
        i = np.minimum(np.floor(s), float(EXP2_SEGMENTS - 1))
        t = s - i
        ii = i.astype(np.int32)
        table = EXP2_TABLE if p is None else p.EXP2_TABLE
        y0 = lookup(table, ii)
        y1 = lookup(table, ii + 1)
        return ldexp(fma(t, y1 - y0, y0), n.astype(np.int32))


# ---------------------------------------------------------------------------------------------
# The seed's H2: e^w by 8 chords on [-4, 4] (knots at the integers), the tanh quotient
# ---------------------------------------------------------------------------------------------

SEED_EXP_KNOTS = tuple(float(k) for k in range(-4, 5))  # the seed's 8 segments on [-4, 4]
SEED_EXP_VALUES = np.array([float(mpmath.exp(k)) for k in SEED_EXP_KNOTS], dtype=np.float32)


def seed_pwl_exp(w: np.ndarray, p: Params) -> np.ndarray:
    """The seed's PWL exp: e^w ~ m_i w + b_i on the segment of w among EXP_KNOTS (chords through
    e^(x_i), each value rounded once to float32); w clamped to [-4, 4] (our reading: the seed's
    table covers [-4, 4] and says nothing beyond)."""
    with np.errstate(all="ignore"):
        wc = np.minimum(np.maximum(w, p.EXP_KNOTS[0]), p.EXP_KNOTS[-1])
        idx = np.zeros(w.shape, dtype=np.int32)
        for k in p.EXP_KNOTS[1:-1]:
            idx += wc >= k
        x0, x1 = lookup(p.EXP_KNOTS, idx), lookup(p.EXP_KNOTS, idx + 1)
        y0, y1 = lookup(p.EXP_VALUES, idx), lookup(p.EXP_VALUES, idx + 1)
        m = (y1 - y0) / (x1 - x0)
        return m * wc + (y0 - m * x0)  # m_i w + b_i


def core_seed(x: np.ndarray, p: Params) -> np.ndarray:
    """The seed's H2 GELU: e = PWL e^(2z), z = A (x + B x^3), tanh z = (e - 1)/(e + 1),
    GELU = 0.5 x (1 + tanh z)."""
    with np.errstate(all="ignore"):
        z = p.SQRT_2_OVER_PI * (x + p.TANH_CUBIC * (x * x * x))
        e = seed_pwl_exp(2.0 * z, p)
        return (0.5 * x) * (1.0 + (e - 1.0) / (e + 1.0))


register(built(
    "gelu", "H2 GELU-Softmax", "softmax",
    "the seed's: tanh form with e^w by 8 chords on [-4, 4] and the tanh quotient; tail LUT below "
    "-3.5, x>=3 -> x",
    make_kernel(core_seed, "lut"),
    Params({**TANH_FORM_PARAMS, "EXP_KNOTS": knots_param(SEED_EXP_KNOTS),
            "EXP_VALUES": table_param(SEED_EXP_VALUES, of="e^x", at=SEED_EXP_KNOTS),
            **frame_params("lut", seed_exp=True)}),
    table_bytes=SEED_EXP_VALUES.nbytes * 2,
    claims=measured((812, 0.7734), (6491, 46.3886)),
    note="seed 1130, measured 812 (at -3.5; near_zero 18 and core_pos 4 as the seed's): the "
    "seed does not say what its exp does outside [-4, 4]; clamped here",
    seed=seed_figures("H2 GELU-Softmax"),
))
register(built(
    "gelu", "H2 GELU-Softmax (improved)", "softmax",
    "tanh form x sigma(2u) with the softmax unit's exp: 2^n times 8-segment PWL 2^f; tail LUT",
    make_kernel(tanh_form_core(pwl_exp), "lut"),
    Params({**TANH_FORM_PARAMS,
            "EXP2_TABLE": table_param(EXP2_TABLE, of="2^x",
                                      at=[i / EXP2_SEGMENTS for i in range(EXP2_TABLE.size)]),
            **frame_params("lut")}),
    table_bytes=EXP2_TABLE.nbytes,
    claims=measured((87, 0.0983), (462, 2.2927)),
    seed=seed_figures("H2 GELU-Softmax (improved)"),
    note="the seed's H2 with a range-reduced PWL 2^f and x sigma(2u): bfloat16 max 812 -> 87 "
    "(the LUT's), core_neg 472 -> 23",
))
