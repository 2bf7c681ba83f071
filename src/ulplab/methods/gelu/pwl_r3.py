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

R3 PWL is the seed's method, bit for bit (``build_r3_seed``; its C++ at c2bf7bb, every bfloat16
output checked against its build by tests/test_gelu_seed_bits.py): 8 lines with its 6-digit decimal
slopes and intercepts on the breakpoints {0, +-0.5, +-1, +-2}, y = slope x + intercept (one FMA),
its tail LUT from -3.5 down (x <= -3.5) and x -> x from 3. R3 PWL (improved): the knots above.

Measured (every input; bfloat16 max / mean, near_zero / core_pos / core_neg max; float16 max):
    R3 PWL            832 / 36.82, 98 / 6 / 518, 6744   seed 832 / 36.82, 98 / 6 / 518
    R3 PWL (improved)  87 / 0.0742, 1 / 1 / 3, 190
What the improvement buys: 16 segments an octave take near_zero 98 -> 1 and core_neg 518 -> 3.
"""

from __future__ import annotations

import numpy as np

from ulplab.kit import bits_of, fma, from_bits, ldexp, lookup
from ulplab.kit.ops import f32hex
from ulplab.methods.gelu import tail
from ulplab.methods.gelu.framing import frame_params, make_kernel, measured
from ulplab.methods.gelu.seed_table import seed_figures
from ulplab.methods.gelu.tail import where32
from ulplab.methods.params import Params, threshold
from ulplab.methods.params import knots as knots_param
from ulplab.methods.params import table as table_param
from ulplab.methods.registry import ArrayFn, built, register

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



_h = f32hex  # exact hex literal -> float32

# The seed's R3 (gelu_implementations.cpp:661 at c2bf7bb), bit for bit: y = slope x + intercept
# on 8 segments, its 6-digit decimals (:678-701) rounded to float32. Segments: x in [0, 0.5),
# [0.5, 1), [1, 2), [2, 3); (-0.5, 0), (-1, -0.5], (-2, -1], (-3.5, -2]
SEED_R3_SLOPES = (_h("0x1.6202dap-1"), _h("0x1.fb86b2p-1"), _h("0x1.1cfe16p+0"),
                  _h("0x1.05cb9ap+0"),  # 0.691428, 0.991262, 1.113252, 1.022638
                  _h("0x1.3bfa4cp-2"), _h("0x1.1e53a8p-7"), _h("0x1.cfe154p-4"),
                  _h("0x1.72e6a8p-6"))  # 0.308572, 0.008738, 0.113252, 0.022638
SEED_R3_INTERCEPTS = (0.0, _h("-0x1.3307b0p-3"), _h("-0x1.166ecap-2"),
                      _h("-0x1.7226c4p-4"),  # 0, -0.149917, -0.271907, -0.090369
                      0.0, _h("-0x1.3307b0p-3"), _h("-0x1.73f0fep-5"),
                      _h("0x1.0a569cp-13"))  # 0, -0.149917, -0.045403, 0.000127
SEED_R3_BREAKS = (0.5, 1.0, 2.0)  # the positive breakpoints; the negative ones are their negatives
SEED_R3_TAIL = -3.5  # :702 x <= -3.5 (not <): the seed's tail LUT
SEED_R3_SATURATION = 3.0  # :665 x >= 3 -> x


def build_r3_seed(p: Params) -> ArrayFn:
    """The seed's R3 kernel: the segment by the comparisons its code makes (x >= 0, then x < 0.5,
    < 1, < 2; x < 0, then x > -0.5, > -1, > -2, > -3.5), y = slope x for the two segments at 0
    and fma(slope, x, intercept) for the others (one FMA, as its build contracts it); its tail
    LUT for x <= -3.5; x from 3."""
    def impl(x: np.ndarray) -> np.ndarray:
        with np.errstate(all="ignore"):
            pos = np.zeros(x.shape, dtype=np.int32)
            neg = np.full(x.shape, 4, dtype=np.int32)
            for b in p.SEED_R3_BREAKS:
                pos += x >= b
                neg += x <= -b
            idx = np.where(x >= 0.0, pos, neg)
            slope = lookup(p.SEED_R3_SLOPES, idx)
            y = fma(slope, x, lookup(p.SEED_R3_INTERCEPTS, idx))
            y = where32((idx == 0) | (idx == 4), slope * x, y)
            y = where32(x <= p.TAIL_START, tail.seed_tail_lut(x, p), y)
            y = where32(x >= p.SATURATION, x, y)
            return where32(np.isnan(x), x, y)  # NaN -> the input NaN itself

    return impl


register(built(
    "gelu", "R3 PWL", "pwl",
    "the seed's: GELU by 8 lines with its decimal slopes and intercepts, breakpoints "
    "{0, +-0.5, +-1, +-2}; its tail LUT from -3.5 down, x>=3 -> x",
    build_r3_seed,
    Params({"SEED_R3_SLOPES": table_param(np.array(SEED_R3_SLOPES, dtype=np.float32)),
            "SEED_R3_INTERCEPTS": table_param(np.array(SEED_R3_INTERCEPTS, dtype=np.float32)),
            "SEED_R3_BREAKS": knots_param(SEED_R3_BREAKS),
            "TAIL_START": threshold(SEED_R3_TAIL), "SATURATION": threshold(SEED_R3_SATURATION),
            **tail.tail_params("seed-lut")}),
    table_bytes=4 * (len(SEED_R3_SLOPES) + len(SEED_R3_INTERCEPTS) + tail.SEED_TAIL_MAIN.size
                     + tail.SEED_TAIL_FINE.size),
    claims=measured((832, 36.8205), (6744, 271.1947)),
    note="bit for bit the seed's gelu_r3_pwl (gelu_implementations.cpp:661 at c2bf7bb)",
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
    note="the seed's R3 with 16 exponent-indexed segments per octave: bfloat16 max 832 -> 87 "
    "(the LUT's), near_zero 98 -> 1",
))
