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

That is H2 GELU-Softmax (improved). H2 GELU-Softmax is the seed's method, bit for bit
(``core_seed``; its C++ at c2bf7bb, every bfloat16 output checked against its build by
tests/test_gelu_seed_bits.py): e^w by the chords between its 4-digit values of e^k at k = -4..4
(``seed_pwl_exp``: 0 below -4, 54.598 above 4), z limited to [-4, 4], tanh z = (e^2z - 1)/
(e^2z + 1), GELU = 0.5 x (1 + tanh z); below -2 A&S 7.1.26's sum without its e^(-z^2)
(``erf_b3.seed_as_phi_negative``, as E3's negative side); its tail LUT below -3.5, x -> x from 3.

Measured (every input; bfloat16 max / mean, near_zero / core_pos / core_neg max; float16 max):
    H2 GELU-Softmax            1130 / 1.3066, 18 / 4 / 822, 9033  seed 1130 / 1.31, 18 / 4 / 822
    H2 GELU-Softmax (improved)   87 / 0.0983, 1 / 1 / 23, 462
What the improvement buys: range reduction before the PWL (0.1% everywhere) and no A&S piece
take core_neg 822 -> 23 (the tanh form's own error at -3) and the max to the LUT's 87.
"""

from __future__ import annotations

import mpmath
import numpy as np

from ulplab.kit import fma, ldexp, lookup
from ulplab.methods.gelu import erf_b3, tail
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

# The seed's H2 (gelu_implementations.cpp:4843 at c2bf7bb), bit for bit. Its PWL exp (:4815-4838):
# e^w at w = -4, ..., 4 as its 3-5 digit decimals, each rounded to float32, linear between
SEED_EXP_KNOTS = tuple(float(k) for k in range(-4, 5))
SEED_EXP_VALUES = np.array([float.fromhex(v) for v in (
    "0x1.2bd3c4p-6", "0x1.97f62cp-5", "0x1.15182ap-3", "0x1.78bac8p-2", "0x1.000000p+0",
    "0x1.5bf142p+1", "0x1.d8e704p+2", "0x1.416042p+4", "0x1.b4c8b4p+5",
)], dtype=np.float32)  # 0.0183, 0.0498, 0.1353, 0.3679, 1, 2.7183, 7.3891, 20.086, 54.598
SEED_H2_A = f32(float.fromhex("0x1.988454p-1"))  # :4865 sqrt_2_over_pi = 0.7978845608f
SEED_H2_B = f32(float.fromhex("0x1.6e4e26p-5"))  # :4866 c = 0.044715f
SEED_H2_AS_BELOW = -2.0  # :4852 x < -2: A&S 7.1.26's sum without e^(-z^2)


def seed_pwl_exp(w: np.ndarray, p: Params) -> np.ndarray:
    """The seed's pwl_exp: 0 below -4, 54.598 above 4, else the segment i = floor(w) + 4 (7 at
    w = 4), t = w - w_i (its division by the knot spacing 1 is exact), fma(t, v_i+1 - v_i, v_i)."""
    with np.errstate(all="ignore"):
        k = p.EXP_KNOTS
        v = p.EXP_VALUES
        idx = np.zeros(w.shape, dtype=np.int32)
        for b in k[1:-1]:
            idx += w >= b
        y0 = lookup(v, idx)
        y = fma(w - lookup(k, idx), lookup(v, idx + 1) - y0, y0)
        y = where32(w < k[0], 0.0, y)
        return where32(w > k[-1], v[-1], y)


def core_seed(x: np.ndarray, p: Params) -> np.ndarray:
    """The seed's H2 core: x < -2: ``erf_b3.seed_as_phi_negative(-x)`` times x; else
    z = A fma((B x) x, x, x) limited to [-4, 4], e = pwl_exp(2z), tanh = (e - 1)/(e + 1),
    GELU = (0.5 x)(1 + tanh)."""
    with np.errstate(all="ignore"):
        z = SEED_H2_A * fma((SEED_H2_B * x) * x, x, x)
        z = np.clip(z, -4.0, 4.0)
        e = seed_pwl_exp(f32(2.0) * z, p)
        y = (f32(0.5) * x) * (f32(1.0) + (e - f32(1.0)) / (e + f32(1.0)))
        return where32(x < SEED_H2_AS_BELOW, x * erf_b3.seed_as_phi_negative(-x), y)


register(built(
    "gelu", "H2 GELU-Softmax", "softmax",
    "the seed's: tanh form with e^w by 8 chords on [-4, 4] (its 4-digit values) and the tanh "
    "quotient; A&S 7.1.26's sum without e^(-z^2) below -2; its tail LUT below -3.5, x>=3 -> x",
    make_kernel(core_seed, "seed-lut"),
    Params({"EXP_KNOTS": knots_param(SEED_EXP_KNOTS),
            "EXP_VALUES": table_param(SEED_EXP_VALUES, of="e^x", at=SEED_EXP_KNOTS),
            **frame_params("seed-lut")}),
    table_bytes=SEED_EXP_VALUES.nbytes * 2 + 4 * (tail.SEED_TAIL_MAIN.size
                                                  + tail.SEED_TAIL_FINE.size),
    claims=measured((1130, 1.3066), (9033, 81.4843)),
    note="bit for bit the seed's gelu_h2_softmax_unit (gelu_implementations.cpp:4843 at c2bf7bb)",
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
    note="the seed's H2 with a range-reduced PWL 2^f and x sigma(2u): bfloat16 max 1130 -> 87 "
    "(the LUT's), core_neg 822 -> 23",
))
