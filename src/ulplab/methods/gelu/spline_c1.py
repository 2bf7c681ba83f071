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

Variants (the seed's names):
    C1 Pure    spline on [-4.25, 4.25], asymptotic tail (``tail.asymptotic_tail``) below -4.25
               (the threshold R5 Pure chose by measurement: series error below 105/x^8 = 1e-3),
               x + GELU(-x) by the same tail above 4.25 (``tail.mirror_positive``).
    C1 Spline  spline on [-3.5, 3.5], the seed's shared tail LUT below -3.5, the mirror above.
The seed's x >= 3 -> x saturation is exact in bfloat16 but 2 float16 ulps off; the mirror is not.

Seed (bfloat16): C1 Pure max 35, mean 0.03 (core_neg max 12); C1 Spline max 87, mean 0.10.
Measured here: the claims below; the finer knots take core_neg to at most 1 ulp; C1 Spline keeps
the tail LUT's 87 at about -7.65.
"""

from __future__ import annotations

import itertools
import math

import mpmath
import numpy as np

from ulplab.kit import fma, lookup
from ulplab.methods.gelu import tail
from ulplab.methods.gelu.seed_table import seed_figures
from ulplab.methods.gelu.tail import where32
from ulplab.methods.params import Params, threshold
from ulplab.methods.registry import ArrayFn, Claim, built, register

f32 = np.float32

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

    def phi_neg(self, s: np.ndarray) -> np.ndarray:
        """Phi(s) for s <= 0 (s below lo extrapolates the first segment; callers replace it)."""
        with np.errstate(all="ignore"):
            idx = np.zeros(s.shape, dtype=np.int32)
            for k in self.knots[1:-1]:
                idx += s >= k
            t = (s - lookup(self.knot_array, idx)) * lookup(self.inv_h, idx)
            c0, c1, c2, c3 = (lookup(c, idx) for c in self.columns)
            return fma(t, fma(t, fma(t, c3, c2), c1), c0)  # Horner with FMA

    def phi(self, x: np.ndarray) -> np.ndarray:
        """Phi(x) on [lo, -lo]: S(-|x|), and 1 - S(-x) for x >= 0."""
        with np.errstate(all="ignore"):
            s = self.phi_neg(-np.abs(x))
            return where32(x < 0.0, s, 1.0 - s)


def build_c1(p: Params) -> ArrayFn:
    """A C1 kernel: x Phi_spline(x) on [lo, -lo), the tail below lo (asymptotic, or the LUT where
    declared), x + GELU(-x) above -lo. The spline is built from SPLINE_LO (knots placed for it)."""
    spline = _spline(float(p.SPLINE_LO))
    tail_fn = tail.tail_lut if "TAIL_COARSE" in p else tail.asymptotic_tail

    def impl(x: np.ndarray) -> np.ndarray:
        with np.errstate(all="ignore"):
            core = x * spline.phi(x)
            core = where32(x >= -spline.lo, tail.mirror_positive(x, tail.asymptotic_tail, p),
                           core)
            y = tail.with_tail(x, core, spline.lo, tail_fn, p)
            return where32(np.isnan(x), x, y)  # NaN -> the input NaN itself

    return impl


PURE_SPLINE = Spline(C1_PURE_TAIL)
LUT_SPLINE = Spline(C1_SPLINE_TAIL)


def _spline(lo: float) -> Spline:
    for s in (PURE_SPLINE, LUT_SPLINE):
        if s.lo == lo:
            return s
    return Spline(lo)


register(built(
    "gelu", "C1 Pure", "spline",
    "cubic Hermite spline of Phi, 33 greedy dyadic knots on [-4.25, 0] (rel. error 2^-14), "
    "mirrored for x>0; asymptotic tail beyond 4.25",
    build_c1, Params({"SPLINE_LO": threshold(C1_PURE_TAIL), **tail.PURE_PARAMS}),
    table_bytes=PURE_SPLINE.table_bytes,
    claims={"bfloat16": Claim(1, 0.0021), "float16": Claim(1, 0.0019)},
    seed=seed_figures("C1 Pure"),
))
register(built(
    "gelu", "C1 Spline", "spline",
    "cubic Hermite spline of Phi, 21 greedy dyadic knots on [-3.5, 0]; the seed's tail LUT "
    "below -3.5",
    build_c1, Params({"SPLINE_LO": threshold(C1_SPLINE_TAIL), **tail.LUT_PARAMS}),
    table_bytes=LUT_SPLINE.table_bytes + tail.TAIL_LUT_BYTES,
    claims={"bfloat16": Claim(87, 0.0717), "float16": Claim(190, 0.5671)},
    seed=seed_figures("C1 Spline"),
))
