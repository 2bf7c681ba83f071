"""det tanh's float64 first pass.

tanh is odd: a = |x| is evaluated and x's sign put on the float32 result. a is clamped to 9.25
(tanh(a) rounds to 1 for a > 9.011, where 1 - tanh(a) < 2^-25; the float64 value at 9.25,
1 - 2^-25.7, lies 2^-26.4 from the midpoint 1 - 2^-25, far beyond the bound below, so it
rounds to 1 and passes the rounding test). Then, with no division and one table read:
* k = nearest(128 a) (0 <= k <= 1184) by adding and subtracting 0x1.8p52 (128 a is exact);
  h = a - k/128 is exact (k/128 is exact, and for k >= 1, a >= 2^-8 has its last bit at
  2^-31 or above, so |h| <= 2^-8 fits in 24 bits; for k = 0, h = a), with or without an FMA
  instruction;
* s = tanh(k/128) from ``tables()`` (rounded to nearest: relative error <= 2^-53; s = 0 for
  k = 0) and tanh(a) = s + c R/(1 + s R), c = 1 - s^2, R = tanh(h) (the addition formula);
* rho = h + h^3 (c3 + c5 h^2), the Taylor coefficients -1/3 and 2/15 rounded to nearest:
  truncation below 17/315 h^7 (the series alternates with decreasing terms for |h| < 1), so
  rho = R (1 + e) with |e| < 2^-52.21 (truncation) + 2^-53 (the last rounding) < 2^-51.55;
* c = 1 - s^2 (one FMA; or a product and a sum), within 2^-53 (3 s^2 + c);
* 1/(1 + z), z = s rho (|z| < 2^-8), by 1 - z + z^2 - z^3 = (1 - z^4)/(1 + z): relative
  truncation |z|^4 < 2^-32, but it multiplies c R/(1 + s R), so its share of the result,
  about (1 - s^2) s^4 h^5 / tanh(a), is below 2^-42.5;
* t = (rho c) p + s (one FMA; or a product and a sum).
Bound (first order in the unit roundoff u = 2^-53, each FMA counted as a product and a sum, so
it covers the portable build too): |t - tanh a| <= u s + |R|/(1 + s R) (c (e + f + 2u) +
u (3 s^2 + c)) + u tanh(a), f = |z|^4 + 1.017 u + |s R| (2u + e) the error of p; its largest
value relative to tanh(a) over k = 1..1184 and a grid of 257 h in [-2^-8, 2^-8] each
(``relative_error_bound()``) is 2^-42.42, at k = 132, h = -2^-8 (the reciprocal's
truncation). For k = 0, t = rho exactly (s = 0, c = 1, p = 1): 2^-51.55. So below 2^-42.4,
1533 units in the last place of the float64 result; the rounding test takes ERR = 8192 (a
margin above 5) and flags about 2 ERR / 2^29 = 3e-5 of ordinary inputs.
Why this budget: until 2026-11-26 the reciprocal had degree 4 (below 2^-49.7, at k = 1,
h = -2^-8, ERR = 32); a flag costs the second pass only where a chunk of the runner has one,
and the looser bound buys one FMA a lane: the pass alone, 2^16 inputs in [-8, 8] in cache, one
thread, this project's 2-core AVX-512 VM, old and new timed alternately, 0.652 -> 0.622 ns an
element (AVX-512 build), 1.096 -> 1.063 (AVX2).
The rounding test is ``ROUND_NORMAL``'s on t >= 0 (x's sign or-ed into the float32 result), the
range part moved to x's bits:
flagged are NaN, zero and the subnormal inputs (|x| < 2^-126: their results are subnormal,
and the second pass keeps the sign of zero). For every other input t lies in [2^-126, 1)
(for a < 2^-27, h^3/3 is below a quarter of an ulp of h, so t = rho = a), the normal float32
range. The infinities are kept (+-1).

**The avx512 build's second loop**, run on AMD processors (``fast64.AVX512_PATHS``; their
gathers are slow: the 1185-entry table's gather was a third of the loop's time), reads a table
of 16 entries by one permute of a register pair (``AVX512``, ``ul_tanh_permutes``), with a
division instead of the series for 1/(1 + z):
* k = nearest(1.6 a) (0 <= k <= 15, as 1.6 * 9.25 = 14.8) by the same shift, h = a - 5k/8
  exact (5k/8 has its last bit at 2^-3 or above; for k >= 1, a >= 5/16 has its last bit at
  2^-25 or above, so h fits in 53 bits; for k = 0, h = a), |h| <= 5/16 + 2^-49 (1.6 rounded);
* s = tanh(5k/8) from ``permute_table()`` (nearest, s = 0 for k = 0);
* r = h + h^3 P(h^2), P the degree-5 fit of ``PERMUTE_P`` (within 2^-40.76 of
  (tanh(h) - h)/h^3, so 2^-44.1 of tanh(h) at |h| = 5/16), by Estrin's pairs (the loop is
  short of instructions, not of latency, once four blocks of 16 run together);
* t = (s + r)/(1 + s r) (the addition formula; s + r >= tanh(5/8) - tanh(5/16) > 0.25 for
  k >= 1, so no cancellation; for k = 0, t = r exactly).
Bound (first order in u, each rounding counted, ``permute_error_bound()``): 2^-43.49 of
tanh(a) at k = 1, h = -5/16 (the fit's error, where s + r is smallest), 2^-43.99 for
k = 0; so below 728 units in the last place of t; the rounding test takes
ERR_PERMUTES = 8192 (a margin of 11; it flags about 3.1e-5 of ordinary inputs). The same
input test (NaN, zero and subnormals flagged), clamp and signs as the generic loop, on 16
lanes; two halves of eight float64 lanes; four blocks of 16 an iteration, scheduled together
(``fast64.SCHEDULE``); it returns how many results it left flagged (``fast64.COUNTED``).
Measured, the pass alone in cache (2^14 inputs in [-8, 8], one thread, C harness, the runner's
flags, best of 3,000, the 2-core AMD EPYC VM): 0.586 ns an element with the gather loop,
0.384 with this one (two blocks an iteration 0.400, unscheduled 0.397; the low halves of t
by vpmovqd twice and an insert 0.397; a reciprocal estimate refined by FMAs instead of the
division 0.48; with a product in place of the division, which gives wrong results, 0.367:
the division is not what limits it).
"""

from __future__ import annotations

from fractions import Fraction
from functools import cache

import mpmath
import numpy as np

from ulplab.export.fast64 import (
    ROUND_NORMAL,
    SCHEDULE,
    avx512_choice,
    avx512_entry,
)
from ulplab.export.fast64.tables import c_array, horner, odd_fit_error

ERR = 8192
"""The rounding test's bound, in units in the last place of the float64 result."""

STEPS = 128
"""The table's grid: ``ul_tanh_tab[k]`` = tanh(k/STEPS)."""

CLAMP = 0x41140000
"""9.25 as float32 bits: |x| is clamped to it (tanh rounds to 1 beyond 9.011)."""

LAST = 1184
"""9.25 * STEPS: the largest k = nearest(STEPS a), the table's last index."""

RHO = [Fraction(-1, 3), Fraction(2, 15)]
"""(tanh(h) - h)/h^3 in powers of h^2, Taylor coefficients (low to high)."""

RECIPROCAL = [Fraction((-1) ** i) for i in range(4)]
"""1/(1 + z) = 1 - z + z^2 - z^3 + ..., truncated after z^3 (low to high)."""

U = 2.0**-53
"""The unit roundoff of float64."""


@cache
def _tables() -> str:
    """``ul_tanh_tab[k]`` = tanh(k/128), k = 0..1184, rounded to nearest (mpmath at 200 bits,
    rounded once to 53)."""
    values = []
    with mpmath.workprec(200):
        for k in range(LAST + 1):
            exact = mpmath.tanh(mpmath.mpf(k) / STEPS)
            with mpmath.workprec(53):
                values.append(float(+exact))
    return c_array("ul_tanh_tab", values)


def relative_error_bound(samples: int = 257) -> tuple[float, int, float]:
    """The module docstring's bound on |t - tanh a| / tanh a, its largest value over k =
    1..LAST and ``samples`` h evenly spaced in [-1/256, 1/256] per k (a <= 9.25), as (bound,
    k, h) where it is reached."""
    k = np.arange(1, LAST + 1, dtype=np.float64)[:, None]
    h = np.linspace(-0.5 / STEPS, 0.5 / STEPS, samples)[None, :]
    s, r, c = np.tanh(k / STEPS), np.tanh(h), 1 - np.tanh(k / STEPS) ** 2
    e = U * 1.0001 + 17 / 315 * h**6 / (1 - h * h / 3)
    z = np.abs(s * r) * (1 + 4 * U)
    f = z ** (len(RECIPROCAL)) + 1.017 * U + np.abs(s * r) * (2 * U + e) * 1.005
    exact = np.tanh(k / STEPS + h)
    err = U * s + np.abs(r) / (1 + s * r) * (c * (e + f + 2 * U) + U * (3 * s * s + c) * 1.0001)
    rel = np.where(k / STEPS + h <= 9.25, (err + U * exact) / exact, 0.0) * (1 + 1e-6)
    i, j = np.unravel_index(int(np.argmax(rel)), rel.shape)
    return float(rel[i, j]), int(k[i, 0]), float(h[0, j])


PERMUTE_STEP = Fraction(5, 8)
"""The grid of the avx512 build's permute loop: ``ul_tanh_s16[k]`` = tanh(5k/8), k = 0..15
(9.25 / (5/8) = 14.8, so nearest(1.6 a) <= 15 for every clamped a: one register pair)."""

PERMUTE_H = 5 / 16 + 2.0**-40
"""|h| <= 5/16 in the permute loop, plus a margin for 1.6's rounding in nearest(1.6 a) (the
product's error is below 2^-49)."""

PERMUTE_P = ["-0x1.5555555552f79p-2", "0x1.1111110359255p-3", "-0x1.ba1b87efee83ep-5",
             "0x1.6646667e13962p-6", "-0x1.210a86535f330p-7", "0x1.a2ea3bbcaa33fp-9"]
"""P(y), y = h^2, low to high: the permute loop's tanh(h) = h + h^3 P(h^2). Fitted by
``ulplab.fit.remez.remez(f, 0, (5/16 + 2^-20)^2, range(6))`` (absolute error, 128 bits), f(y)
= (tanh(sqrt y) - sqrt y) / y^(3/2) (-1/3 at 0), each coefficient rounded to the nearest
float64 (tests/test_fast64.py fits it again); the rounded polynomial is within 2^-40.757 of f
on [0, PERMUTE_H^2] (``permute_fit_error``), which is 2^-44.1 of tanh(h) at |h| = 5/16."""

ERR_PERMUTES = 8192
"""The permute loop's rounding test bound, in units in the last place of the float64 result
(``permute_error_bound``: 2^-43.49 relative, 728 units; a margin of 11), a power of two: the
loop flags the t whose 29 bits below float32's last place lie in [2^28 - ERR, 2^28 + ERR) by
one addition and one bit test (a comparison and a mask saved: 0.397 -> 0.384 ns an element in
the measurement of the module docstring). It flags about 2 ERR / 2^29 = 3.1e-5 of ordinary
inputs."""


@cache
def permute_table() -> str:
    """``ul_tanh_s16[k]`` = tanh(5k/8), k = 0..15, rounded to nearest (mpmath at 200 bits,
    rounded once to 53)."""
    values = []
    with mpmath.workprec(200):
        for k in range(16):
            exact = mpmath.tanh(mpmath.mpf(k) * PERMUTE_STEP.numerator / PERMUTE_STEP.denominator)
            with mpmath.workprec(53):
                values.append(float(+exact))
    return c_array("ul_tanh_s16", values)


@cache
def permute_fit_error(points: int = 2001) -> float:
    """max |P(y) - f(y)| over ``points`` Chebyshev points of [0, PERMUTE_H^2] (P with the
    float64 coefficients of ``PERMUTE_P``, evaluated exactly; f as there), at 160 bits."""
    with mpmath.workprec(160):
        return odd_fit_error(PERMUTE_P, "tanh", mpmath.mpf(PERMUTE_H) ** 2, points)


def permute_error_bound(samples: int = 2049) -> tuple[float, int, float]:
    """The bound on |t - tanh a| / tanh a of the permute loop (the module docstring), its
    largest value over k = 0..15 and ``samples`` h evenly spaced in [-PERMUTE_H, PERMUTE_H]
    per k (a = 5k/8 + h in [0, 9.25]), as (bound, k, h) where it is reached."""
    coefficients = [abs(float.fromhex(c)) for c in PERMUTE_P]
    k = np.arange(16, dtype=np.float64)[:, None]
    h = np.linspace(-PERMUTE_H, PERMUTE_H, samples)[None, :]
    s, t = np.tanh(k * 0.625), np.tanh(h)
    y = h * h
    fit = permute_fit_error() * 1.05
    # each term c_j y^j of P within n_j roundings of exact (_estrin512: y = h^2 is one, y2 =
    # y^2 three, then the FMAs on its way): n = 2, 3, 6, 7, 9, 10
    rounds = (2, 3, 6, 7, 9, 10)
    dp = fit + U * sum(n * c * y**j for n, (j, c) in zip(rounds, enumerate(coefficients),
                                                         strict=True)) * 1.001
    p = np.abs(np.where(y > 0, (t - h) / np.where(y > 0, y * h, 1.0), 1 / 3))
    h3 = np.abs(h) ** 3
    er = h3 * (dp + 2.0001 * U * (p + dp)) + U * (np.abs(t) + h3 * (p + dp))
    en = U * s + er + U * (np.abs(s + t) + U * s + er)
    ed = U * s * (np.abs(t) + er) + s * er + U * (1 + s * np.abs(t) + U * s + s * er)
    with np.errstate(divide="ignore", invalid="ignore"):
        rel = np.where(k == 0, er / np.abs(t),
                       (en / np.abs(s + t) + ed / (1 + s * t)) * (1 + 1e-6) + U)
    a = k * 0.625 + h
    rel = np.where((a > 0) & (a <= 9.25), rel, 0.0)
    i, j = np.unravel_index(int(np.argmax(rel)), rel.shape)
    return float(rel[i, j]), int(k[i, 0]), float(h[0, j])


def _estrin512() -> str:
    """P(y) of ``PERMUTE_P`` on eight float64 lanes, y2 = y^2: (c0 + c1 y) + y2 ((c2 + c3 y) +
    y2 (c4 + c5 y)), Estrin's pairs in Horner's scheme on y2."""
    c = [f"_mm512_set1_pd({v})" for v in PERMUTE_P]
    inner, outer = " " * 51, " " * 28
    return (f"_mm512_fmadd_pd(y2, _mm512_fmadd_pd(y2, _mm512_fmadd_pd(y, {c[5]}, {c[4]}),\n"
            f"{inner}_mm512_fmadd_pd(y, {c[3]}, {c[2]})),\n"
            f"{outer}_mm512_fmadd_pd(y, {c[1]}, {c[0]}))")


AVX512 = f"""
/* the avx512 build's permute loop, where ul_avx512_permutes() chooses it
   (ulplab.export.fast64.tanh: PERMUTE_STEP, PERMUTE_P and the analysis): tanh(a), a = |x|
   clamped to 9.25, on eight float64 lanes, s = tanh(5k/8) read by one permute of a register
   pair, h = a - 5k/8 exact, r = tanh(h) = h + h^3 P(h^2), t = (s + r) / (1 + s r) */
static inline __m512d ul_tanh_permute8(const __m256 af, const __m512d s0, const __m512d s1) {{
    const __m512d a = _mm512_cvtps_pd(af);
    /* k = nearest(1.6 a) <= 15 in the low bits of kt (bits 0x4338000000000000 plus k) */
    const __m512d kt = _mm512_fmadd_pd(a, _mm512_set1_pd(0x1.999999999999ap+0),
                                       _mm512_set1_pd(0x1.8p52));
    const __m512d kd = _mm512_sub_pd(kt, _mm512_set1_pd(0x1.8p52));
    const __m512d h = _mm512_fmadd_pd(kd, _mm512_set1_pd(-0x1.4p-1), a);
    const __m512d s = _mm512_permutex2var_pd(s0, _mm512_castpd_si512(kt), s1);
    const __m512d y = _mm512_mul_pd(h, h);
    const __m512d y2 = _mm512_mul_pd(y, y);
    const __m512d p = {_estrin512()};
    const __m512d r = _mm512_fmadd_pd(_mm512_mul_pd(y, h), p, h);
    return _mm512_div_pd(_mm512_add_pd(s, r), _mm512_fmadd_pd(s, r, _mm512_set1_pd(1.0)));
}}

/* 16 inputs from x (those not in `keep` read as 0 and not stored): the generic loop's `bad`
   and clamp on 16 lanes, two halves of eight float64 lanes, the midpoint test on the low 32
   bits of each t, x's sign or-ed into the float32 result; returns the bit mask of the
   results stored as FLAG_NAN */
UL_SCHEDULE static inline uint32_t ul_tanh_permute16(const float *x, float *y, __mmask16 keep,
                                                     const __m512d s0, const __m512d s1) {{
    const __m512i u = _mm512_maskz_loadu_epi32(keep, x);
    const __m512i au = _mm512_and_si512(u, _mm512_set1_epi32(0x7FFFFFFF));
    /* NaN, zero and the subnormals */
    const __mmask16 bad = _mm512_cmpgt_epu32_mask(
        _mm512_sub_epi32(au, _mm512_set1_epi32(0x00800000)),
        _mm512_set1_epi32(0x7F800000 - 0x00800000));
    const __m512 a = _mm512_castsi512_ps(_mm512_min_epu32(au, _mm512_set1_epi32(0x{CLAMP:08X})));
    const __m512d t0 = ul_tanh_permute8(_mm512_castps512_ps256(a), s0, s1);
    const __m512d t1 = ul_tanh_permute8(
        _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(a), 1)), s0, s1);
    /* the low 32 bits of t0's and t1's lanes, in order: one permute of the pair */
    const __m512i low = _mm512_permutex2var_epi32(
        _mm512_castpd_si512(t0),
        _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30),
        _mm512_castpd_si512(t1));
    const __m512 f = _mm512_insertf32x8(_mm512_castps256_ps512(_mm512_cvtpd_ps(t0)),
                                        _mm512_cvtpd_ps(t1), 1);
    /* the midpoint test: the 29 bits of t below float32's last place, plus ERR - 2^28, lie
       below 2 ERR (bits 0x1FFFFFFF & -(2 ERR) all 0) exactly where they lie in
       [2^28 - ERR, 2^28 + ERR) (ERR a power of two) */
    const __m512i near = _mm512_add_epi32(low,
                                          _mm512_set1_epi32((int)({ERR_PERMUTES}u - 0x10000000u)));
    const __mmask16 ok = _mm512_mask_test_epi32_mask(
        (__mmask16)~bad, near, _mm512_set1_epi32((int)(0x1FFFFFFFu & -(2u * {ERR_PERMUTES}u))));
    /* f | (u & 0x80000000) */
    const __m512i b = _mm512_ternarylogic_epi32(_mm512_castps_si512(f), u,
                                                _mm512_set1_epi32((int)0x80000000u), 0xF8);
    _mm512_mask_storeu_epi32(y, keep, _mm512_mask_blend_epi32(ok, _mm512_set1_epi32(0x7FC00001),
                                                              b));
    return (uint32_t)(keep & (__mmask16)~ok);
}}

/* four blocks of 16 an iteration, scheduled together (UL_SCHEDULE), then the rest 16 at a time,
   the last under a mask; returns how many results it left flagged (fast64.COUNTED) */
UL_SCHEDULE static long ul_tanh_permutes(const float *restrict x, float *restrict y, long n) {{
    const __m512d s0 = _mm512_loadu_pd(ul_tanh_s16), s1 = _mm512_loadu_pd(ul_tanh_s16 + 8);
    long i = 0, left = 0;
    for (; i + 64 <= n; i += 64) {{
        uint64_t m = ul_tanh_permute16(x + i, y + i, 0xFFFF, s0, s1);
        m |= (uint64_t)ul_tanh_permute16(x + i + 16, y + i + 16, 0xFFFF, s0, s1) << 16;
        m |= (uint64_t)ul_tanh_permute16(x + i + 32, y + i + 32, 0xFFFF, s0, s1) << 32;
        m |= (uint64_t)ul_tanh_permute16(x + i + 48, y + i + 48, 0xFFFF, s0, s1) << 48;
        left += __builtin_popcountll(m);
    }}
    for (; i < n; i += 16) {{
        const long rest = n - i;
        const __mmask16 keep = rest >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << rest) - 1u);
        left += __builtin_popcount(ul_tanh_permute16(x + i, y + i, keep, s0, s1));
    }}
    return left;
}}
"""
"""The permute loop of the avx512 build, run on AMD processors (``fast64.AVX512_PATHS``)."""


SOURCE = (ROUND_NORMAL + "\n#ifdef __AVX512F__\n#include <immintrin.h>\n" + SCHEDULE
          + avx512_choice("tanh") + AVX512 + "#endif\n" + avx512_entry("tanh")) + f"""\
    for (long i = 0; i < n; i++) {{
        uint32_t u;
        memcpy(&u, x + i, 4);
        const uint32_t au = u & 0x7FFFFFFFu;
        /* flagged: |x| below 0x00800000 = 2^-126 (zero, subnormals: subnormal results) and
           NaN (above 0x7F800000) */
        const uint32_t bad = au - 0x00800000u > 0x7F800000u - 0x00800000u;
        /* a = |x| clamped to 0x{CLAMP:08X} = 9.25 (NaN too: flagged above) */
        const double a = (double)ul_float(au < 0x{CLAMP:08X}u ? au : 0x{CLAMP:08X}u);
        /* k = nearest(128 a) in the low bits of `shifted` (bits 0x4338000000000000 plus k,
           k <= {LAST}); h = a - k/128 exact */
        const double shifted = UL_FMA(a, 0x1p7, 0x1.8p52);
        const double kd = shifted - 0x1.8p52;
        const double h = UL_FMA(kd, -0x1p-7, a);
        const double s = ul_tanh_tab[ul_bits64(shifted) & 0x7FF];
        const double h2 = h * h;
        const double rho = UL_FMA(h2 * h, {horner("h2", RHO)}, h);     /* tanh(h) */
        const double c = UL_FMA(-s, s, 1.0);
        const double z = s * rho;
        const double p = {horner("z", RECIPROCAL)};  /* 1/(1 + z) */
        const double t = UL_FMA(rho * c, p, s);
        /* the midpoint test on t >= 0 (in the normal range here), x's sign put on the
           float32 result */
        const uint32_t b = ul_round_normal_or_flag(t, bad, {ERR}, u & 0x80000000u);
        memcpy(y + i, &b, 4);
    }}
    return -1;
}}
"""

def tables() -> str:
    return _tables() + "#ifdef __AVX512F__\n" + permute_table() + "#endif\n"
