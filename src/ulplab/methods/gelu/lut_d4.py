"""The seed's non-uniform LUT: D4 Non-uniform.

Idea (the seed): a table with breakpoints dense where the function needs them and sparse where it
does not, with linear interpolation. The seed interpolated GELU on 23 hand-placed breakpoints
(steps 1/4 to 2) with a Taylor patch for |x| < 0.125; linear interpolation with steps that coarse
is off by up to 62 ulps in core_neg and 88 near zero.

Here: a piecewise-uniform table of Phi on [-3.5, 0], GELU = x Phi(x) and Phi(x) = 1 - Phi(-x)
for x > 0 (one table for both signs):
    the seed's breakpoints on that side, {-3.5, -3, -2.5, -2, -1.5, -1, -0.75, -0.5, -0.25, 0},
    cut the range into 9 segments; each segment is split uniformly with its own power-of-two
    step, the largest for which linear interpolation keeps the RELATIVE error of Phi below
    2^-11 (``segment_steps``, checked at 31 points per interval in float64 with math.erfc).
    Steps come out 1/64 on [-3.5, -1.5), 1/32 on [-1.5, -0.75), 1/16 on [-0.75, -0.25), 1/8 on
    [-0.25, 0]:
    162 intervals, 163 knots Phi(x_k) from mpmath, each rounded once to float32.
Evaluation order: s = -|x| (clamped to [-3.5, 0]); segment j = number of interior breakpoints
<= s (8 comparisons); u = (s - B_j) * (1/h_j) (exact: h_j a power of two); i = min(floor(u),
n_j - 1), t = u - i; k = base_j + i; Phi = T_k + t (T_k+1 - T_k) (one FMA); then x * Phi, or
x * (1 - Phi) for x > 0. No Taylor patch: Phi(0) = 1/2 is a knot.
Beyond: the seed's shared tail LUT below -3.5 (``tail.tail_lut``, as the seed's D4 row shows:
tail_neg max 87), and x + GELU(-x) with the asymptotic tail above 3.5 (``tail.mirror_positive``).

D4 Non-uniform is the seed's method, bit for bit (``build_d4_seed``; its C++ at c2bf7bb, every
bfloat16 output checked against its build by tests/test_gelu_seed_bits.py): GELU linear between
its 23 breakpoints {-8, -6, -5, -4, -3.5, ..., 3, 4} with its 3-5 digit values there
(SEED_GELU_VALS), the segment found as its binary search finds it, t = (x - x0)/(x1 - x0), one
FMA; x fma(0.3989422804, x, 0.5) for |x| < 0.125; its tail LUT below -3.5, x -> x from 3.
D4 Non-uniform (improved): the table of Phi above.

Measured (every input; bfloat16 max / mean, near_zero / core_pos / core_neg max; float16 max):
    D4 Non-uniform              88 / 0.6039, 88 / 7 / 62, 704   seed 88 / 0.60, 88 / 7 / 62
    D4 Non-uniform (improved)   87 / 0.0722, 1 / 1 / 1, 190
What the improvement buys: the fine table of Phi takes near_zero 88 -> 1 and core_neg 62 -> 1.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from ulplab.kit import fma, lookup
from ulplab.methods.gelu import tail
from ulplab.methods.gelu.seed_table import seed_figures
from ulplab.methods.gelu.tail import where32
from ulplab.methods.params import Params, constant, threshold
from ulplab.methods.params import knots as knots_param
from ulplab.methods.params import table as table_param
from ulplab.methods.registry import ArrayFn, Claim, built, register

f32 = np.float32

BREAKPOINTS = (-3.5, -3.0, -2.5, -2.0, -1.5, -1.0, -0.75, -0.5, -0.25, 0.0)  # the seed's
LUT_TOL = 2.0**-11


def _phi64(x: float) -> float:
    return 0.5 * math.erfc(-x / math.sqrt(2.0))


def lerp_rel_error(a: float, b: float, n: int = 32) -> float:
    """Max relative error of linear interpolation of Phi on [a, b] (float64)."""
    ya, yb = _phi64(a), _phi64(b)
    return max(abs(((1 - j / n) * ya + j / n * yb) / _phi64(a + j / n * (b - a)) - 1)
               for j in range(1, n))


def segment_steps(bps: tuple[float, ...] = BREAKPOINTS, tol: float = LUT_TOL) -> tuple[float, ...]:
    """For each segment, the largest power-of-two step whose intervals all meet tol."""
    out = []
    for a, b in itertools.pairwise(bps):
        h = b - a
        while any(lerp_rel_error(a + i * h, a + (i + 1) * h) > tol
                  for i in range(round((b - a) / h))):
            h /= 2
        out.append(h)
    return tuple(out)


STEPS = segment_steps()
COUNTS = tuple(round((b - a) / h) for (a, b), h in zip(itertools.pairwise(BREAKPOINTS), STEPS,
                                                        strict=True))
KNOTS = (*itertools.chain.from_iterable(
    [a + i * h for i in range(n)] for (a, _), h, n in zip(itertools.pairwise(BREAKPOINTS), STEPS,
                                                          COUNTS, strict=True)), 0.0)
TABLE = np.array([float(tail.phi_cdf_exact(k)) for k in KNOTS], dtype=np.float32)
SEG_START = np.array(BREAKPOINTS[:-1], dtype=np.float32)
SEG_INV_H = np.array([1.0 / h for h in STEPS], dtype=np.float32)
SEG_LAST = np.array([n - 1 for n in COUNTS], dtype=np.float32)
SEG_BASE = np.array(np.cumsum((0, *COUNTS[:-1])), dtype=np.int32)
LO = BREAKPOINTS[0]
TABLE_BYTES = TABLE.nbytes + SEG_START.nbytes + SEG_INV_H.nbytes + SEG_LAST.nbytes \
    + SEG_BASE.nbytes


def phi_d4(x: np.ndarray, p: Params) -> np.ndarray:
    """Phi(x) on [-3.5, 3.5] from the piecewise-uniform table (clamped outside)."""
    with np.errstate(all="ignore"):
        s = np.maximum(-np.abs(x), LO)
        s = where32(np.isnan(s), 0.0, s)
        seg = np.zeros(s.shape, dtype=np.int32)
        for b in BREAKPOINTS[1:-1]:
            seg += s >= b
        u = (s - lookup(SEG_START, seg)) * lookup(SEG_INV_H, seg)
        i = np.minimum(np.floor(u), lookup(SEG_LAST, seg))
        t = u - i
        k = lookup(SEG_BASE, seg) + i.astype(np.int32)
        y0 = lookup(p.TABLE, k)
        q = fma(t, lookup(p.TABLE, k + 1) - y0, y0)
        return where32(x < 0.0, q, 1.0 - q)


def build_d4(p: Params) -> ArrayFn:
    def impl(x: np.ndarray) -> np.ndarray:
        with np.errstate(all="ignore"):
            core = x * phi_d4(x, p)
            core = where32(x >= -LO, tail.mirror_positive(x, tail.asymptotic_tail, p), core)
            y = tail.with_tail(x, core, LO, tail.tail_lut, p)
            return where32(np.isnan(x), x, y)  # NaN -> the input NaN itself

    return impl


# The seed's D4 (gelu_implementations.cpp:2095 at c2bf7bb), bit for bit: GELU linear between 23
# breakpoints (:2079-2083) with its 3-5 digit values there (:2087-2092), each rounded to float32
SEED_BREAKS = (-8.0, -6.0, -5.0, -4.0, -3.5, -3.0, -2.5, -2.0, -1.5, -1.0, -0.75, -0.5, -0.25,
               0.0, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 2.5, 3.0, 4.0)
SEED_GELU_VALS = np.array([float.fromhex(v) for v in (
    "-0x1.605c94p-48", "-0x1.96d1bep-28", "-0x1.7fdcdap-20", "-0x1.7a5384p-15", "-0x1.aac53cp-11",
    "-0x1.096bbap-8", "-0x1.ba5e36p-7", "-0x1.1c432cp-5", "-0x1.1f212ep-4", "-0x1.45a1cap-3",
    "-0x1.ba5e36p-3", "-0x1.3b645ap-3", "-0x1.3a29c8p-4", "0x0p+0", "0x1.88ce70p-4",
    "0x1.61ff2ep-2", "0x1.314e3cp-1", "0x1.aebee0p-1", "0x1.664c30p+0", "0x1.f460aap+0",
    "0x1.3e48e8p+1", "0x1.7f7ceep+1", "0x1.fffcbap+1",
)], dtype=np.float32)
SEED_TAYLOR_BELOW = 0.125  # :2107 |x| < 0.125: GELU = x fma(0.3989422804, x, 0.5)
SEED_TAYLOR = f32(float.fromhex("0x1.988454p-2"))  # :2110 c1 = 0.3989422804f


def build_d4_seed(p: Params) -> ArrayFn:
    """The seed's D4 kernel: x fma(c1, x, 0.5) for |x| < 0.125; else the segment its binary
    search finds (the last breakpoint <= x), t = (x - x0)/(x1 - x0), fma(t, y1 - y0, y0); its
    tail LUT below -3.5; x from 3."""
    def impl(x: np.ndarray) -> np.ndarray:
        with np.errstate(all="ignore"):
            b = p.SEED_BREAKS
            idx = np.zeros(x.shape, dtype=np.int32)
            for k in b[1:-1]:
                idx += x >= k
            x0, x1 = lookup(b, idx), lookup(b, idx + 1)
            y0, y1 = lookup(p.SEED_GELU_VALS, idx), lookup(p.SEED_GELU_VALS, idx + 1)
            y = fma((x - x0) / (x1 - x0), y1 - y0, y0)
            near = x * fma(np.full_like(x, p.TAYLOR_X), x, np.full_like(x, 0.5))
            y = where32(np.abs(x) < p.TAYLOR_BELOW, near, y)
            return tail.seed_finish(x, y, p, tail.seed_tail_lut, p.SATURATION)

    return impl


register(built(
    "gelu", "D4 Non-uniform", "lut",
    "the seed's: GELU linear between its 23 breakpoints (steps 1/4 to 2) with its 3-5 digit "
    "values, Taylor for |x|<0.125; its tail LUT below -3.5, x>=3 -> x",
    build_d4_seed,
    Params({"SEED_BREAKS": knots_param(SEED_BREAKS),
            "SEED_GELU_VALS": table_param(SEED_GELU_VALS), "TAYLOR_X": constant(SEED_TAYLOR),
            "TAYLOR_BELOW": threshold(SEED_TAYLOR_BELOW),
            "TAIL_START": threshold(tail.TAIL_LUT_START), "SATURATION": threshold(3.0),
            **tail.tail_params("seed-lut")}),
    table_bytes=8 * len(SEED_BREAKS) + 4 * (tail.SEED_TAIL_MAIN.size + tail.SEED_TAIL_FINE.size),
    claims={"bfloat16": Claim(88, 0.6039), "float16": Claim(704, 35.5169)},
    note="bit for bit the seed's gelu_d4_nonuniform_lut (gelu_implementations.cpp:2095 at "
    "c2bf7bb)",
    seed=seed_figures("D4 Non-uniform"),
))
register(built(
    "gelu", "D4 Non-uniform (improved)", "lut",
    "Phi from a piecewise-uniform table (seed's breakpoints, power-of-two steps 1/64..1/8 chosen "
    "for 2^-11 relative error, 163 knots), linear interpolation; the seed's tail LUT below -3.5",
    build_d4, Params({"TABLE": table_param(TABLE, of="Phi", at=KNOTS), **tail.LUT_PARAMS}),
    table_bytes=TABLE_BYTES + tail.TAIL_LUT_BYTES,
    claims={"bfloat16": Claim(87, 0.0722), "float16": Claim(190, 0.6017)},
    seed=seed_figures("D4 Non-uniform (improved)"),
    note="the seed's D4 as a piecewise-uniform table of Phi (162 intervals): near_zero 88 -> 1, "
    "core_neg 62 -> 1 (bfloat16 max 88 -> 87, the LUT's)",
))
