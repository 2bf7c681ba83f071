"""The seed's cubic Hermite spline family: C1 Pure and C1 Spline.

Idea: Phi on the negative half-line by a piecewise cubic Hermite interpolant through exact values
y_i = Phi(x_i) and exact slopes m_i = phi(x_i) at non-uniform knots; GELU = x Phi(x), and
Phi(x) = 1 - Phi(-x) for x > 0, so one set of knots serves both signs.

Knots (``place_knots``): the seed hand-picked 10 knots {-4, -3, -2, -1, -0.5, 0, 0.5, 1, 2, 4}
(spacing 1 to 2: the Hermite error h^4 |Phi''''|/384 is then up to 1e-3, and relative to the small
Phi(x) of the negative side much more, hence its core_neg max 12). Here they are placed by a
greedy rule: from 0 leftwards, each segment takes the largest step h in {1, 1/2, ..., 1/64}
whose interpolant keeps the RELATIVE error of Phi below 2^-14 (checked at 63 interior points in
float64 with math.erfc), until the tail threshold. Steps are powers of two, so every knot is an
exact binary fraction and t = (x - x_i) * (1/h_i) is computed with an exact reciprocal. This gives
21 knots on [-3.5, 0] and 33 on [-4.25, 0], denser where Phi is small (relative error of a
cubic grows like x^4 there). The Fritsch-Carlson condition alpha^2 + beta^2 <= 9 holds on every
segment (exact slopes of a monotone function on short segments), so no slope is clamped; tests
check it.

Evaluation order: s = -|x|; the segment index is the count of interior knots <= s (branch-free
comparisons; the seed searched in a loop); t = (s - x_i) / h_i; the Hermite cubic in power form
c0 + t (c1 + t (c2 + t c3)) by Horner with FMA, with
    c0 = y0, c1 = h m0, c2 = 3 (y1 - y0) - 2 h m0 - h m1, c3 = 2 (y0 - y1) + h m0 + h m1
computed at 40 digits from mpmath and each rounded once to float32 (4 floats per segment; the
equivalent of the seed's h00/h10/h01/h11 basis). Phi = S for x < 0, 1 - S for x >= 0. The
seed's near-zero Taylor patch is not needed: the knot at 0 gives Phi(0) = 1/2 exactly.

Variants. The seed's names are the seed's methods, bit for bit (``build_c1_seed``; its C++ at
c2bf7bb, every bfloat16 output checked against its build by tests/test_gelu_seed_bits.py): a
Hermite spline of GELU itself through the seed's 8-digit values and slopes at its knots
SEED_KNOTS, each segment's cubic made by the seed's hermite_cubic in float32 (Fritsch-Carlson
clamp; it fires on [-1, -0.5] and [-0.5, 0], where GELU turns), Horner with FMA in t = x - x_i,
fma(0.5, x, 0.39894228 x^2) for |x| < 0.125, x >= 3 -> x, and the seed's own tails:
    C1 Pure    its asymptotic tail below -3.5;
    C1 Spline  its tail LUT below -3.5.
"(improved)", the spline of Phi on the greedy dyadic knots above:
    C1 Pure (improved)    spline on [-4.25, 4.25], asymptotic tail below -4.25 (the threshold
                          R5 Pure chose by measurement), x + GELU(-x) by the same tail above 4.25.
    C1 Spline (improved)  spline on [-3.5, 3.5], the shared tail LUT below -3.5, the mirror above.

Measured (every input; bfloat16 max / mean, float16 max / mean):
    C1 Pure     35 / 0.0307, 281 / 1.83   seed 35 / 0.03 (reproduced, core_neg 12 as the seed's)
    C1 Spline   87 / 0.1001, 281 / 2.39   seed 87 / 0.10 (reproduced)
    C1 Pure (improved)    1 / 0.0021, 1 / 0.0019
    C1 Spline (improved) 87 / 0.0717, 190 / 0.567
The seed's 35 is at -3.45: the 4-term series starts at -3.5, where it is 1% off; its core_neg 12
is the coarse spline (and the clamp near GELU's minimum). What the improvement buys: the fine
spline of Phi takes core_neg 12 -> 1, the tail from -4.25 the tail's 35 -> 1.
"""

from __future__ import annotations

import itertools
import math

import mpmath
import numpy as np

from ulplab.kit import fma, lookup
from ulplab.kit.ops import f32hex
from ulplab.methods.gelu import tail
from ulplab.methods.gelu.seed_table import seed_figures
from ulplab.methods.gelu.tail import where32
from ulplab.methods.params import Param, Params, threshold
from ulplab.methods.params import knots as knots_param
from ulplab.methods.params import table as table_param
from ulplab.methods.registry import ArrayFn, Claim, built, register

f32 = np.float32

_h = f32hex  # exact hex literal -> float32

SPLINE_TOL = 2.0**-14   # max relative error of Phi per segment (float64 check)
H_MAX = 1.0
H_MIN = 2.0**-6
C1_PURE_TAIL = -4.25
C1_SPLINE_TAIL = tail.TAIL_LUT_START  # -3.5


def _phi64(x: float) -> float:
    return 0.5 * math.erfc(-x / math.sqrt(2.0))


def _pdf64(x: float) -> float:
    return math.exp(-0.5 * x * x) / math.sqrt(2.0 * math.pi)


def hermite_rel_error(a: float, b: float, n: int = 64) -> float:
    """Max relative error of the exact-slope Hermite cubic of Phi on [a, b] (float64)."""
    h = b - a
    y0, y1, m0, m1 = _phi64(a), _phi64(b), h * _pdf64(a), h * _pdf64(b)
    worst = 0.0
    for j in range(1, n):
        t = j / n
        hp = ((2 * t - 3) * t * t + 1) * y0 + ((t - 2) * t + 1) * t * m0 \
            + (3 - 2 * t) * t * t * y1 + (t - 1) * t * t * m1
        worst = max(worst, abs(hp / _phi64(a + t * h) - 1.0))
    return worst


def place_knots(lo: float, tol: float = SPLINE_TOL, h_max: float = H_MAX,
                h_min: float = H_MIN) -> tuple[float, ...]:
    """Greedy knots from 0 down to lo: each step the largest power of two (h_min..h_max) whose
    Hermite interpolant of Phi has relative error below tol (h_min is taken regardless)."""
    knots = [0.0]
    x = 0.0
    while x > lo:
        h = h_max
        while h > h_min and hermite_rel_error(max(x - h, lo), x) > tol:
            h /= 2
        x = max(x - h, lo)
        knots.append(x)
    return tuple(knots[::-1])


def hermite_coeffs(knots: tuple[float, ...]) -> np.ndarray:
    """(n-1, 4) float32 power-form coefficients of each segment in t, from mpmath at 40 digits."""
    rows = []
    with mpmath.workdps(40):
        for a, b in itertools.pairwise(knots):
            h = mpmath.mpf(b) - mpmath.mpf(a)
            y0, y1 = tail.phi_cdf_exact(a), tail.phi_cdf_exact(b)
            m0 = h * mpmath.npdf(mpmath.mpf(a))
            m1 = h * mpmath.npdf(mpmath.mpf(b))
            rows.append([y0, m0, 3 * (y1 - y0) - 2 * m0 - m1, 2 * (y0 - y1) + m0 + m1])
    return np.array([[float(c) for c in r] for r in rows], dtype=np.float32)


class Spline:
    """Knots, segment reciprocals and Hermite coefficients of Phi on [lo, 0] (built at import)."""

    def __init__(self, lo: float) -> None:
        self.lo = lo
        self.knots = place_knots(lo)
        self.knot_array = np.array(self.knots, dtype=np.float32)
        self.inv_h = np.array([1.0 / (b - a) for a, b in itertools.pairwise(self.knots)],
                              dtype=np.float32)
        self.coeffs = hermite_coeffs(self.knots)
        self.columns = tuple(np.ascontiguousarray(self.coeffs[:, j]) for j in range(4))
        self.table_bytes = self.knot_array.nbytes + self.inv_h.nbytes + self.coeffs.nbytes


def spline_params(spline: Spline) -> dict[str, Param]:
    """A spline's declared parameters: SPLINE_KNOTS, the segment reciprocals SPLINE_INV_H and
    the Hermite coefficient columns SPLINE_C0..C3 (C0: Phi at the left knots, C1: h phi there)."""
    left = spline.knots[:-1]
    cols = {f"SPLINE_C{j}": table_param(c, of=of, at=left if of else None)
            for j, (c, of) in enumerate(zip(spline.columns, ("Phi", "h phi", "", ""),
                                            strict=True))}
    return {"SPLINE_KNOTS": knots_param(spline.knots), "SPLINE_INV_H": table_param(spline.inv_h),
            **cols}


def phi_spline(x: np.ndarray, p: Params) -> np.ndarray:
    """Phi(x) on [SPLINE_KNOTS[0], -SPLINE_KNOTS[0]] from the declared spline: S(-|x|) by
    Horner with FMA in the segment's t, and 1 - S(-x) for x >= 0."""
    with np.errstate(all="ignore"):
        s = -np.abs(x)
        idx = np.zeros(s.shape, dtype=np.int32)
        for k in p.SPLINE_KNOTS[1:-1]:
            idx += s >= k
        t = (s - lookup(p.SPLINE_KNOTS, idx)) * lookup(p.SPLINE_INV_H, idx)
        c0, c1, c2, c3 = (lookup(p[f"SPLINE_C{j}"], idx) for j in range(4))
        y = fma(t, fma(t, fma(t, c3, c2), c1), c0)  # Horner with FMA
        return where32(x < 0.0, y, 1.0 - y)


def build_c1(p: Params) -> ArrayFn:
    """A C1 kernel: x Phi_spline(x) on [lo, -lo), lo = SPLINE_KNOTS[0], the tail below lo
    (asymptotic, or the LUT where declared), x + GELU(-x) above -lo."""
    lo = p.SPLINE_KNOTS[0]
    tail_fn = tail.tail_lut if "TAIL_COARSE" in p else tail.asymptotic_tail

    def impl(x: np.ndarray) -> np.ndarray:
        with np.errstate(all="ignore"):
            core = x * phi_spline(x, p)
            core = where32(x >= -lo, tail.mirror_positive(x, tail.asymptotic_tail, p), core)
            y = tail.with_tail(x, core, lo, tail_fn, p)
            return where32(np.isnan(x), x, y)  # NaN -> the input NaN itself

    return impl


PURE_SPLINE = Spline(C1_PURE_TAIL)
LUT_SPLINE = Spline(C1_SPLINE_TAIL)


# ---------------------------------------------------------------------------------------------
# The seed's C1: a Hermite spline of GELU itself on its 10 hand-picked knots
# ---------------------------------------------------------------------------------------------

# The seed's C1 (gelu_implementations.cpp at c2bf7bb), bit for bit: knots (:1166-1168), GELU and
# GELU' at the knots as its 8-digit decimals (:1174-1201), each rounded to float32
SEED_KNOTS = (-4.0, -3.0, -2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0, 4.0)
SEED_GELU_AT_KNOTS = tuple(_h(v) for v in (
    "-0x1.09aacep-13", "-0x1.0966b2p-8", "-0x1.74bcf6p-5", "-0x1.44ed0cp-3", "-0x1.3bf144p-3",
    "0x0p+0", "0x1.62075ep-2", "0x1.aec4bep-1", "0x1.f45a18p+0", "0x1.fffbdap+1"))
SEED_DERIV_AT_KNOTS = tuple(_h(v) for v in (
    "-0x1.080ec2p-11", "-0x1.876f60p-7", "-0x1.5d1c06p-4", "-0x1.55429ap-4", "0x1.0f5eb8p-3",
    "0x1.000000p-1", "0x1.bc2852p-1", "0x1.15542ap+0", "0x1.15d1c0p+0", "0x1.002102p+0"))
SEED_TAYLOR = _h("0x1.988454p-2")  # :1257 0.39894228f, 1/sqrt(2 pi) to 8 digits
SEED_TAYLOR_BELOW = 0.125  # :1253 |x| < 0.125: GELU ~ 0.5 x + 0.39894228 x^2
SEED_SATURATION = 3.0      # :1243 x >= 3 -> x


def _f32_fma(a: np.float32, b: np.float32, c: np.float32) -> np.float32:
    return fma(np.array([a], dtype=f32), np.array([b], dtype=f32), np.array([c], dtype=f32))[0]


def seed_hermite_cubic(y0: np.float32, y1: np.float32, m0: np.float32, m1: np.float32,
                       h: np.float32) -> tuple[np.float32, ...]:
    """The seed's hermite_cubic (:1211-1232) in float32, as its README build evaluates it (a*b + c
    contracted to one FMA): delta = (y1 - y0)/h; if |delta| > 1e-10, alpha = m0/delta,
    beta = m1/delta, r2 = fma(alpha, alpha, beta beta), and if r2 > 9 (Fritsch-Carlson)
    tau = 3/sqrt(r2), m0 = (tau alpha) delta, m1 = (tau beta) delta; then (a, b, c, d) =
    (y0, m0, (fma(-2, m0, 3 (y1 - y0)/h) - m1)/h, ((2 (y0 - y1)/h + m0) + m1)/(h h))."""
    with np.errstate(all="ignore"):
        delta = (y1 - y0) / h
        if abs(delta) > f32(1e-10):
            alpha = m0 / delta
            beta = m1 / delta
            r2 = _f32_fma(alpha, alpha, beta * beta)
            if r2 > f32(9.0):
                tau = f32(3.0) / np.sqrt(r2)
                m0 = tau * alpha * delta
                m1 = tau * beta * delta
        c = (_f32_fma(f32(-2.0), m0, f32(3.0) * (y1 - y0) / h) - m1) / h
        d = (f32(2.0) * (y0 - y1) / h + m0 + m1) / (h * h)
        return y0, m0, c, d


SEED_KNOT_ARRAY = np.array(SEED_KNOTS, dtype=np.float32)
SEED_ROWS = np.array([seed_hermite_cubic(SEED_GELU_AT_KNOTS[i], SEED_GELU_AT_KNOTS[i + 1],
                                         SEED_DERIV_AT_KNOTS[i], SEED_DERIV_AT_KNOTS[i + 1],
                                         f32(SEED_KNOTS[i + 1] - SEED_KNOTS[i]))
                      for i in range(len(SEED_KNOTS) - 1)], dtype=np.float32)
"""(9, 4): the seed's cubic a + b t + c t^2 + d t^3 per segment, as its hermite_cubic makes it
(the seed recomputes it on every call; the same float32 operations, done once here)."""
SEED_COLUMNS = tuple(np.ascontiguousarray(SEED_ROWS[:, j]) for j in range(4))
SEED_TABLE_BYTES = SEED_KNOT_ARRAY.nbytes + 4 * (len(SEED_GELU_AT_KNOTS)
                                                 + len(SEED_DERIV_AT_KNOTS))


def gelu_seed_spline(x: np.ndarray) -> np.ndarray:
    """The seed's spline of GELU (:1260-1284): segment i = count of interior knots <= x (the
    first below -3, the last from 2), t = x - x_i, a + t (b + t (c + t d)) (Horner, each step
    one FMA as its build contracts it)."""
    with np.errstate(all="ignore"):
        idx = np.zeros(x.shape, dtype=np.int32)
        for k in SEED_KNOTS[1:-1]:
            idx += x >= k
        t = x - lookup(SEED_KNOT_ARRAY, idx)
        a, b, c, d = (lookup(col, idx) for col in SEED_COLUMNS)
        return fma(t, fma(t, fma(t, d, c), b), a)


def build_c1_seed(p: Params) -> ArrayFn:
    """The seed's C1 kernel: fma(0.5, x, 0.39894228 x^2) for |x| < TAYLOR_BELOW, the spline of
    GELU, the seed's tail (asymptotic, or its LUT where declared) below TAIL_START, x from
    SATURATION."""
    tail_fn = tail.seed_tail_lut if "SEED_TAIL_MAIN" in p else tail.seed_asymptotic_tail

    def impl(x: np.ndarray) -> np.ndarray:
        with np.errstate(all="ignore"):
            y = gelu_seed_spline(x)
            near = fma(np.full_like(x, 0.5), x, SEED_TAYLOR * (x * x))
            y = where32(np.abs(x) < p.TAYLOR_BELOW, near, y)
            return tail.seed_finish(x, y, p, tail_fn, p.SATURATION)

    return impl


def _seed_params(tail_kind: str) -> Params:
    return Params({"TAYLOR_BELOW": threshold(SEED_TAYLOR_BELOW),
                   "SATURATION": threshold(SEED_SATURATION),
                   "TAIL_START": threshold(tail.TAIL_LUT_START),
                   **tail.tail_params(tail_kind)})


register(built(
    "gelu", "C1 Pure", "spline",
    "the seed's cubic Hermite spline of GELU on its 10 knots (Fritsch-Carlson clamp), Taylor "
    "for |x|<0.125; asymptotic tail below -3.5, x>=3 -> x",
    build_c1_seed, _seed_params("seed-pure"), table_bytes=SEED_TABLE_BYTES,
    claims={"bfloat16": Claim(35, 0.0307), "float16": Claim(281, 1.8333)},
    seed=seed_figures("C1 Pure"),
    note="bit for bit the seed's gelu_c1_pure (gelu_implementations.cpp:1305 at c2bf7bb)",
))
register(built(
    "gelu", "C1 Spline", "spline",
    "the seed's cubic Hermite spline of GELU on its 10 knots (Fritsch-Carlson clamp), Taylor "
    "for |x|<0.125; the seed's tail LUT below -3.5, x>=3 -> x",
    build_c1_seed, _seed_params("seed-lut"),
    table_bytes=SEED_TABLE_BYTES + 4 * (tail.SEED_TAIL_MAIN.size + tail.SEED_TAIL_FINE.size),
    claims={"bfloat16": Claim(87, 0.1001), "float16": Claim(281, 2.3852)},
    seed=seed_figures("C1 Spline"),
    note="bit for bit the seed's gelu_c1_cubic_spline (gelu_implementations.cpp:1237 at "
    "c2bf7bb)",
))
register(built(
    "gelu", "C1 Pure (improved)", "spline",
    "cubic Hermite spline of Phi, 33 greedy dyadic knots on [-4.25, 0] (rel. error 2^-14), "
    "mirrored for x>0; asymptotic tail beyond 4.25",
    build_c1, Params({**spline_params(PURE_SPLINE), **tail.PURE_PARAMS}),
    table_bytes=PURE_SPLINE.table_bytes,
    claims={"bfloat16": Claim(1, 0.0021), "float16": Claim(1, 0.0019)},
    seed=seed_figures("C1 Pure (improved)"),
    note="the seed's C1 Pure with a spline of Phi on 33 dyadic knots and the tail from -4.25: "
    "bfloat16 max 35 -> 1",
))
register(built(
    "gelu", "C1 Spline (improved)", "spline",
    "cubic Hermite spline of Phi, 21 greedy dyadic knots on [-3.5, 0]; the seed's tail LUT "
    "below -3.5",
    build_c1, Params({**spline_params(LUT_SPLINE), **tail.LUT_PARAMS}),
    table_bytes=LUT_SPLINE.table_bytes + tail.TAIL_LUT_BYTES,
    claims={"bfloat16": Claim(87, 0.0717), "float16": Claim(190, 0.5671)},
    seed=seed_figures("C1 Spline (improved)"),
    note="the seed's C1 Spline with a spline of Phi on 21 dyadic knots: the LUT's 87 stays, "
    "core_neg 12 -> 1",
))
