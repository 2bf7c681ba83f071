"""The seed's piecewise-linear method: R3 PWL.

Idea (seed): GELU by straight lines between knots at powers of two, so that the segment is found
from the exponent bits (the ISPA style); the seed had knots {0, +-0.5, +-1, +-2, +-4} only.

Its knots made two errors unavoidable. The segment [0, 0.5] through GELU(0) = 0 and GELU(0.5)
has slope 0.69 where GELU's is 1/2, so every small input was 38% off (the seed's near_zero mean
of 72.6 ulps over half of all bfloat16 values). And one segment per octave is 2.5% off near x = 1.
Here the knots are still found from the bits, but continue down the octaves and split each one:
    knots +-2^e (1 + j/16), e = E_MIN..1, j = 0..15, and +-4   (``KNOT_BITS`` = 4 mantissa bits),
so the index is (exponent - E_MIN) * 16 + the top 4 mantissa bits, and t = (|x| - knot) 2^(4-e)
(exact). y = T[i] + t (T[i+1] - T[i]) (one FMA), with separate tables for x > 0 and x < 0
(GELU(+-knot) from mpmath at 40 digits, each rounded once to float32; ``build_tables``).
Below 2^E_MIN = 2^-24 the single segment y = x/2 is used: its error x^2/sqrt(2 pi) is below
2^-24 relative. Interpolation error is h^2/8 |GELU''| with h = |x|/16 at most: about 0.1% of GELU
near x = 1, but relative to the fast-decaying negative side it reaches 2.5% at x = -3.5
(GELU'' / GELU ~ x^2 there); 16 segments per octave keep core_neg within 3 bfloat16 ulps (8 would
quadruple the error). Tails: the seed's shared tail LUT below -3.5, x -> x from 3.

R3 PWL (the seed's, ``seed_r3_core``): knots {0, 0.5, 1, 2, 4} on |x| (the seed's breakpoints
{0, +-0.5, +-1, +-2, +-4}), GELU at +-knots, the line from the knot nearer 0,
y = y_i + slope (|x| - k_i), slope = (y_i+1 - y_i)/(k_i+1 - k_i) (one division), the shared tail
LUT below -3.5 and x -> x from 3 (its exps the seed's fast one). R3 PWL (improved): the knots
above.

Measured (every input; bfloat16 max / mean, near_zero / core_pos / core_neg max; float16 max):
    R3 PWL            487 / 36.33, 98 / 6 / 310, 3891   seed 832 / 36.82, 98 / 6 / 518
    R3 PWL (improved)  87 / 0.0742, 1 / 1 / 3, 190
The seed's near_zero (98, mean 72.6 there against 72.59) and core_pos are reproduced; its
core_neg 518 and tail 832 are not: the seed "optimized R3 PWL segments" (its session 3) without
publishing them (adding a knot at 3 gives 180, so no knot set of the published kind gives 832).
What the improvement buys: 16 segments an octave take near_zero 98 -> 1 and core_neg 310 -> 3.
"""

from __future__ import annotations

import numpy as np

from ulplab.kit import bits_of, fma, from_bits, ldexp, lookup
from ulplab.methods.gelu import tail
from ulplab.methods.gelu.framing import frame_params, make_kernel, measured
from ulplab.methods.gelu.seed_table import seed_figures
from ulplab.methods.gelu.tail import where32
from ulplab.methods.params import Param, Params
from ulplab.methods.params import knots as knots_param
from ulplab.methods.params import table as table_param
from ulplab.methods.registry import built, register

f32 = np.float32

KNOT_BITS = 4          # mantissa bits in the segment index: 16 segments per octave
E_MIN = -24            # lowest octave in the tables; y = x/2 below 2^E_MIN
E_MAX = 1              # highest octave [2, 4); the last knot is 4


def knots(bits: int = KNOT_BITS, e_min: int = E_MIN, e_max: int = E_MAX) -> list[float]:
    """2^e (1 + j/2^bits) for e = e_min..e_max, j < 2^bits, then 2^(e_max+1) (exact floats)."""
    n = 1 << bits
    out = [2.0**e * (1 + j / n) for e in range(e_min, e_max + 1) for j in range(n)]
    return [*out, 2.0 ** (e_max + 1)]


def build_tables() -> tuple[np.ndarray, np.ndarray]:
    """GELU at +knots and at -knots, each rounded once to float32."""
    ks = knots()
    pos = np.array([float(tail.gelu_exact(k)) for k in ks], dtype=np.float32)
    neg = np.array([float(tail.gelu_exact(-k)) for k in ks], dtype=np.float32)
    return pos, neg


POS_TABLE, NEG_TABLE = build_tables()


def pwl_core(x: np.ndarray, p: Params) -> np.ndarray:
    """GELU by linear interpolation between exponent-indexed knots (|x| < 4), x/2 below 2^-24."""
    with np.errstate(all="ignore"):
        a = np.abs(x)
        a = where32(a < 4.0, a, 1.0)  # keep the index in range; those inputs are overridden
        a = where32(a >= 2.0**E_MIN, a, 1.0)
        b = bits_of(a)
        shift = np.uint32(23 - KNOT_BITS)
        top = b >> shift
        idx = (top - np.uint32((127 + E_MIN) << KNOT_BITS)).astype(np.int32)
        knot = from_bits(top << shift)
        e = (b >> np.uint32(23)).astype(np.int32) - 127
        t = ldexp(a - knot, KNOT_BITS - e)
        table_y0 = where32(x < 0.0, lookup(p.NEG_TABLE, idx), lookup(p.POS_TABLE, idx))
        table_y1 = where32(x < 0.0, lookup(p.NEG_TABLE, idx + 1), lookup(p.POS_TABLE, idx + 1))
        y = fma(t, table_y1 - table_y0, table_y0)
        return where32(np.abs(x) < 2.0**E_MIN, 0.5 * x, y)


# ---------------------------------------------------------------------------------------------
# The seed's piecewise-linear GELU on hand-picked knots (R3 PWL; D4 Non-uniform uses it too)
# ---------------------------------------------------------------------------------------------

SEED_R3_KNOTS = (0.0, 0.5, 1.0, 2.0, 4.0)  # the seed's breakpoints {0, +-0.5, +-1, +-2, +-4}


def seed_pwl_params(knot_xs: tuple[float, ...]) -> dict[str, Param]:
    """KNOTS (ascending x) and GELU at them (mpmath, each rounded once to float32)."""
    ys = np.array([float(tail.gelu_exact(k)) for k in knot_xs], dtype=np.float32)
    return {"KNOTS": knots_param(knot_xs),
            "KNOT_GELU": table_param(ys, of="GELU", at=knot_xs)}


def seed_pwl_core(x: np.ndarray, p: Params) -> np.ndarray:
    """A PWL of GELU on signed KNOTS: segment i = count of interior knots <= x (the end segments
    extended), slope = (GELU(x_i+1) - GELU(x_i))/(x_i+1 - x_i), GELU ~ GELU(x_i) + slope (x - x_i)
    (D4's form)."""
    with np.errstate(all="ignore"):
        idx = np.zeros(x.shape, dtype=np.int32)
        for k in p.KNOTS[1:-1]:
            idx += x >= k
        x0, x1 = lookup(p.KNOTS, idx), lookup(p.KNOTS, idx + 1)
        y0, y1 = lookup(p.KNOT_GELU, idx), lookup(p.KNOT_GELU, idx + 1)
        return y0 + (y1 - y0) / (x1 - x0) * (x - x0)


def seed_r3_params() -> dict[str, Param]:
    """The seed's R3: knots on |x| (SEED_R3_KNOTS) and GELU at +knots and at -knots."""
    pos = np.array([float(tail.gelu_exact(k)) for k in SEED_R3_KNOTS], dtype=np.float32)
    # GELU(-0) = -0: the entry at the knot -0 keeps the sign (mpmath has no -0)
    neg = np.array([float(tail.gelu_exact(-k)) if k else -0.0 for k in SEED_R3_KNOTS],
                   dtype=np.float32)
    return {"KNOTS": knots_param(SEED_R3_KNOTS),
            "KNOT_GELU_POS": table_param(pos, of="GELU", at=SEED_R3_KNOTS),
            "KNOT_GELU_NEG": table_param(neg, of="GELU", at=[-k for k in SEED_R3_KNOTS])}


def seed_r3_core(x: np.ndarray, p: Params) -> np.ndarray:
    """The seed's R3: the segment of |x| among KNOTS (power-of-two breakpoints, the end segment
    extended), the line from the knot nearer 0: y = y_i + slope (|x| - k_i) with
    slope = (y_i+1 - y_i)/(k_i+1 - k_i), y = GELU(+-k) by the sign of x."""
    with np.errstate(all="ignore"):
        a = np.abs(x)
        idx = np.zeros(x.shape, dtype=np.int32)
        for k in p.KNOTS[1:-1]:
            idx += a >= k
        k0, k1 = lookup(p.KNOTS, idx), lookup(p.KNOTS, idx + 1)
        neg = x < 0.0
        y0 = where32(neg, lookup(p.KNOT_GELU_NEG, idx), lookup(p.KNOT_GELU_POS, idx))
        y1 = where32(neg, lookup(p.KNOT_GELU_NEG, idx + 1), lookup(p.KNOT_GELU_POS, idx + 1))
        y = y0 + (y1 - y0) / (k1 - k0) * (a - k0)
        return where32(x == 0.0, x, y)  # +-0 -> +-0 (the line through 0 gives +0 for both)


register(built(
    "gelu", "R3 PWL", "pwl",
    "the seed's: GELU linear between its 9 knots {0, +-0.5, +-1, +-2, +-4}; tail LUT below -3.5, "
    "x>=3 -> x",
    make_kernel(seed_r3_core, "lut"),
    Params({**seed_r3_params(), **frame_params("lut", seed_exp=True)}),
    table_bytes=12 * len(SEED_R3_KNOTS),
    claims=measured((487, 36.3286), (3891, 237.6474)),
    note="seed 832, measured 487 (near_zero 98 and core_pos 6 as the seed's): the seed's "
    "session 3 'optimized' its segments, and does not publish them",
    seed=seed_figures("R3 PWL"),
))
register(built(
    "gelu", "R3 PWL (improved)", "pwl",
    "GELU linear between knots 2^e(1+j/16) indexed by exponent and 4 mantissa bits; tail LUT",
    make_kernel(pwl_core, "lut"),
    Params({"POS_TABLE": table_param(POS_TABLE, of="GELU", at=knots()),
            "NEG_TABLE": table_param(NEG_TABLE, of="GELU", at=[-k for k in knots()]),
            **frame_params("lut")}),
    table_bytes=POS_TABLE.nbytes + NEG_TABLE.nbytes,
    claims=measured((87, 0.0742), (190, 0.7401)),
    seed=seed_figures("R3 PWL (improved)"),
    note="the seed's R3 with 16 exponent-indexed segments per octave: bfloat16 max 487 -> 87 "
    "(the LUT's), near_zero 98 -> 1",
))
