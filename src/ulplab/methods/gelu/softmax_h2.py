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

Seed (bfloat16 max/mean): 1130/1.31. Measured here: 87/0.0983 (float16 462/2.29).
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


register(built(
    "gelu", "H2 GELU-Softmax", "softmax",
    "tanh form x sigma(2u) with the softmax unit's exp: 2^n times 8-segment PWL 2^f; tail LUT",
    make_kernel(tanh_form_core(pwl_exp), "lut"),
    Params({**TANH_FORM_PARAMS, "EXP2_TABLE": table_param(EXP2_TABLE), **frame_params("lut")}),
    table_bytes=EXP2_TABLE.nbytes,
    claims=measured((87, 0.0983), (462, 2.2927)),
    seed=seed_figures("H2 GELU-Softmax"),
))
