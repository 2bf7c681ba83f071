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

**The AMD loop** (``RATIONAL``; the avx512 and avx2 builds hold it beside the generic loop and
run it on AMD processors, ``fast64.AVX512_PATHS`` and ``fast64.AVX2_PATHS``: their gathers are
slow, their division is not) reads no table: tanh(a) = a P(z) / Q(z), z = a^2, a = |x| clamped
to 9.25 as above, P of degree 5 and Q of degree 6 (``RATIONAL_P``, ``RATIONAL_Q``: the minimax
rational function of relative error for tanh(sqrt z)/sqrt z on [0, 9.25^2], every coefficient
positive), each by Horner's scheme in FMAs, then a product and one division:
* the fit: within 2^-39.07 of tanh(a) relative, the coefficients rounded to float64
  (``rational_fit_error``, at 4,001 points; the degrees: (5, 5) reaches 2^-34.2, (6, 6) 2^-44.1
  for two FMAs more, (4, 7) 2^-37.9, (6, 5) 2^-38.7);
* the roundings (first order in u = 2^-53): z = a^2 rounds once, and as P's and Q's
  coefficients and z are positive, z P'(z)/P(z) <= 5 and z Q'(z)/Q(z) <= 6, so z's rounding
  moves P by at most 5u and Q by 6u relative; Horner's 5 and 6 roundings add at most 5u and 6u
  (every partial sum positive); the product by a and the division one each: 24u in all;
* so |t - tanh a| <= (2^-39.07 * 1.01 + 24u) tanh a < 2^-39.06 tanh a
  (``rational_error_bound``): 15,800 units in the last place of t; the rounding test takes
  ERR_RATIONAL = 65536 (a margin of 4.1), a power of two (the test is an addition and a bit
  test), and flags about 2 ERR / 2^29 = 2.4e-4 of ordinary inputs, which the loop evaluates
  again at once by the table (``ul_tanh_table64``: the generic loop's evaluation, ERR 8192);
  what both flag, and NaN, zero, the subnormals and 2^-126 (whose t may fall below 2^-126,
  where the midpoint test does not apply and MXCSR's FTZ would flush the conversion), it
  returns counted (``fast64.COUNTED``).
The avx512 loop: 16 inputs a block as two halves of eight float64 lanes, the low halves of t by
one ``vpermt2d``, two blocks an iteration under ``UL_SCHEDULE``; the avx2 loop: 8 inputs a block
as two halves of four lanes, four blocks an iteration. Measured, the pass alone in cache (2^14
inputs in [-8, 8], one thread, C harness with the runner's flags, best of 3,000, the 2-core AMD
EPYC VM): avx512 **0.39 -> 0.313-0.317 ns an element** (against the loop it replaced: a 16-entry
table of tanh(5k/8) read by a permute, tanh(h) = h + h^3 P(h^2) of degree 5 and the addition
formula with a division, |h| <= 5/16, ERR 8192, which had replaced the gathers' 0.586 the day
before); avx2 **0.975-0.987 -> 0.646-0.653** (against the gather loop; prototypes in the same
harness: degrees (6, 6) 0.71-0.79, (5, 6) with P and Q each split into even and odd parts
evaluated in z^2 0.71-0.77, gcc's vectorization of the same rational function as a plain loop
0.79-0.83; avx512 (6, 6) 0.34-0.35). Where the time goes in the avx2 loop: without its division 0.73
against 0.83 (the plain loop), so the division's share is a tenth; the loop issues about 60
vector operations for 8 inputs at about 2 a cycle, and this VM runs FMAs and additions on the
same two pipes (independent ymm FMAs 0.57 cycle each, ymm additions 0.51, FMAs and additions
mixed 0.60; integer logic 0.26; ymm vdivpd one per 4.1 cycles).
Why the avx512 loop keeps one rational function over the whole range (measured 2026-11-27 on
the same VM; not built): the marginal cost of eight independent zmm operations added to a loop
of sixteen independent FMAs (``benchmarks/op_costs.c``; 2.0 ns alone, two FMAs a cycle), in FMA
slots each: vpermpd with
a varying index 0.63, vpermt2pd 1.27, vblendmpd 0.25, vpaddq 0.23, vcvtps2pd 0.3, vmulpd 0.9,
vaddpd 0.5; vdivpd runs one per 3.9 cycles beside the FMAs (a division in place of a product
cost about two slots more). A split of [0, 9.25] into pieces with their own coefficients has
to cost less than the FMAs it saves: minimax rational functions of relative error in z
(``ulplab.fit.rational.rational_remez``) reach 2^-36.4 to 2^-50 on eight pieces (a in [0, 1],
[1, 1.5], [1.5, 2], [2, 3], [3, 4], [4, 6], [6, 8], [8, 9.25]; the piece from a's bits by a
shift and a maximum) with degrees (3, 4) on the hardest, [4, 6]: 7 FMAs and 8 coefficient
permutes a lane (about 12 slots) against 11 FMAs. Two pieces by blends fail on accuracy: no
rational function of degrees up to (4, 4) reaches 2^-31 on an upper piece (a in [4, 9.25]: in
z 2^-30.6; [2, 9.25]: in z 2^-26.6, in a 2^-21.6, (5, 4) in a 2^-23.7), because tanh nears 1
exponentially there, while on [0, 2] (3, 4) in z reaches 2^-46.5.
"""

from __future__ import annotations

from fractions import Fraction
from functools import cache

import mpmath
import numpy as np

from ulplab.export.fast64 import (
    ROUND_NORMAL,
    SCHEDULE,
    low_halves512,
    rerun_flagged,
    vendor_choice,
)
from ulplab.export.fast64.tables import c_array, horner, simd_horner

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


RATIONAL_DEGREES = (5, 6)
"""The degrees (n, m) of the AMD loop's P and Q."""

RATIONAL_REACH = 9.25
"""The AMD loop's rational function is fitted on a in [0, RATIONAL_REACH] (the clamp)."""

RATIONAL_P = ["0x1.fffffffffc310p-1", "0x1.25bf5e5f82c92p-3", "0x1.3805d35a28ec0p-8",
              "0x1.b374c544de76fp-15", "0x1.8df261db1b091p-23", "0x1.4c5af10aea3a7p-33"]
"""P(z), z = a^2, low to high: the AMD loop's tanh(a) = a P(a^2) / Q(a^2). Fitted by
``ulplab.fit.rational.rational_remez(f, 0, 9.25^2, 5, 6)`` (relative error, 128 bits),
f(z) = tanh(sqrt z) / sqrt z (1 at 0), each coefficient rounded to the nearest float64
(tests/test_fast64.py fits it again): with Q below, within 2^-39.07 of f relative
(``rational_fit_error``). Every coefficient is positive."""

RATIONAL_Q = ["0x1.0000000000000p+0", "0x1.e8350484bb770p-2", "0x1.f13e59c7e4703p-6",
              "0x1.29c8a93d00908p-11", "0x1.e3df7b90939efp-19", "0x1.caf508cd6d2a6p-28",
              "0x1.c7a355cf3331ep-40"]
"""Q(z), low to high (Q(0) = 1): the same fit. Every coefficient is positive."""

ERR_RATIONAL = 65536
"""The AMD loop's rounding test bound, in units in the last place of the float64 result
(``rational_error_bound``: below 2^-39.06 relative, 15,800 units; a margin of 4.1), a power of
two: the loop flags the t whose 29 bits below float32's last place lie in [2^28 - ERR, 2^28 +
ERR) by one addition and one bit test. It flags about 2 ERR / 2^29 = 2.4e-4 of ordinary
inputs; the loop evaluates those again at once by the table (``ul_tanh_table64``)."""


def _rational_target(z: mpmath.mpf) -> mpmath.mpf:
    """tanh(sqrt z) / sqrt z (1 at 0): what a P(z)/Q(z) approximates."""
    if z == 0:
        return mpmath.mpf(1)
    a = mpmath.sqrt(z)
    return mpmath.tanh(a) / a


@cache
def rational_fit_error(points: int = 4001) -> float:
    """max |P(z) / (Q(z) f(z)) - 1| over ``points`` Chebyshev points of [0, 9.25^2] (P and Q
    with the float64 coefficients of ``RATIONAL_P`` and ``RATIONAL_Q``, evaluated exactly;
    f as there), at 160 bits."""
    p = [mpmath.mpf(float.fromhex(c)) for c in RATIONAL_P]
    q = [mpmath.mpf(float.fromhex(c)) for c in RATIONAL_Q]
    with mpmath.workprec(160):
        top = mpmath.mpf(RATIONAL_REACH) ** 2
        worst = mpmath.mpf(0)
        for i in range(points):
            z = top * (1 - mpmath.cos(mpmath.pi * i / (points - 1))) / 2
            got = mpmath.polyval(p[::-1], z) / mpmath.polyval(q[::-1], z)
            worst = max(worst, abs(got / _rational_target(z) - 1))
    return float(worst)


def rational_error_bound() -> float:
    """The AMD loop's bound on |t - tanh a| / tanh a (first order in u; the module docstring):
    the fit's error (``rational_fit_error``, 1% added for the grid) and 24 roundings of u."""
    n, m = RATIONAL_DEGREES
    roundings = 2 * n + 2 * m + 2
    return rational_fit_error() * 1.01 + roundings * U * (1 + 2.0**-40)


def _rational(width: int) -> str:
    """The C of tanh(a) = a P(a^2) / Q(a^2) on the float64 lanes of a ``width``-bit register
    (256: four lanes from four float32, AVX2; 512: eight, AVX-512), Horner's scheme for both."""
    mm, vd, vs = {256: ("_mm256", "__m256d", "__m128"), 512: ("_mm512", "__m512d", "__m256")}[width]
    lanes = width // 64
    return f"""
static inline {vd} ul_tanh_rational{lanes}(const {vs} af) {{
    const {vd} a = {mm}_cvtps_pd(af);
    const {vd} z = {mm}_mul_pd(a, a);
    const {vd} p = {simd_horner("z", [float.fromhex(c) for c in RATIONAL_P], width)};
    const {vd} q = {simd_horner("z", [float.fromhex(c) for c in RATIONAL_Q], width)};
    return {mm}_div_pd({mm}_mul_pd(a, p), q);
}}
"""


_CHOICE = vendor_choice("tanh", """\
/* which loop runs (ulplab.export.fast64: AVX512_PATHS, AVX2_PATHS): the rational function's on
   AMD processors, gcc's loop with the table elsewhere; ulplab_tanh_fast64_tables(1 or 0) sets
   it (the proofs sweep both), -1 the processor's choice again; it returns the choice now in
   effect */""", "ul_tanh_by_rational", "rational", "ul_tanh_rational", "r")
"""The choice of tanh's loop by the processor's vendor (``fast64.vendor_choice``)."""

_rerun = rerun_flagged("ul_tanh_table64")


def _rationals_loop(blocks: str, width: int, iteration: str, tail: str) -> str:
    """The C of ``ul_tanh_rationals``: ``iteration`` (C setting ``left`` and the bit mask ``m``
    of the midpoint test's flags) on 32 inputs at a time, then ``tail`` (the same, m from one
    block of at most ``width``) on the rest, each flag evaluated again by the table."""
    return (f"/* {blocks} blocks of {width} an iteration, scheduled together (UL_SCHEDULE), "
            f"then the rest {width} at a time,\n" + f"""\
   the last under a mask; the midpoint test's flags evaluated again at once by the table;
   returns how many results it left flagged (fast64.COUNTED) */
UL_SCHEDULE static long ul_tanh_rationals(const float *restrict x, float *restrict y, long n) {{
    long i = 0, left = 0;
    for (; i + 32 <= n; i += 32) {{
{iteration}{_rerun}\
    }}
    for (; i < n; i += {width}) {{
{tail}{_rerun}\
    }}
    return left;
}}
""")


_ITERATION_AVX512 = """\
        const uint32_t f0 = ul_tanh_rational16(x + i, y + i, 0xFFFF);
        const uint32_t f1 = ul_tanh_rational16(x + i + 16, y + i + 16, 0xFFFF);
        left += __builtin_popcount((f0 >> 16) | (f1 & 0xFFFF0000u));
        uint32_t m = (f0 & 0xFFFFu) | (f1 << 16);
"""
_TAIL_AVX512 = """\
        const long rest = n - i;
        const __mmask16 keep = rest >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << rest) - 1u);
        const uint32_t f = ul_tanh_rational16(x + i, y + i, keep);
        left += __builtin_popcount(f >> 16);
        uint32_t m = f & 0xFFFFu;
"""
_ITERATION_AVX2 = """\
        const uint32_t f0 = ul_tanh_rational8x(x + i, y + i, 8);
        const uint32_t f1 = ul_tanh_rational8x(x + i + 8, y + i + 8, 8);
        const uint32_t f2 = ul_tanh_rational8x(x + i + 16, y + i + 16, 8);
        const uint32_t f3 = ul_tanh_rational8x(x + i + 24, y + i + 24, 8);
        left += __builtin_popcount((f0 >> 16) | (f1 >> 8 & 0xFF00u) | (f2 & 0xFF0000u)
                                   | (f3 << 8 & 0xFF000000u));
        uint32_t m = (f0 & 0xFFu) | (f1 & 0xFFu) << 8 | (f2 & 0xFFu) << 16 | (f3 & 0xFFu) << 24;
"""
_TAIL_AVX2 = """\
        const uint32_t f = ul_tanh_rational8x(x + i, y + i, n - i);
        left += __builtin_popcount(f >> 16);
        uint32_t m = f & 0xFFu;
"""


RATIONAL = f"""
/* tanh(x) by the table (the generic loop's evaluation, ERR {ERR}): the float32 result's bits,
   or FLAG_NAN */
static inline uint32_t ul_tanh_table64(float xf) {{
    uint32_t u;
    memcpy(&u, &xf, 4);
    const uint32_t au = u & 0x7FFFFFFFu;
    /* flagged: |x| below 0x00800000 = 2^-126 (zero, subnormals: subnormal results) and NaN
       (above 0x7F800000) */
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
    /* the midpoint test on t >= 0 (in the normal range here), x's sign put on the float32
       result */
    return ul_round_normal_or_flag(t, bad, {ERR}, u & 0x80000000u);
}}

#if defined(__AVX512F__) || (defined(__AVX2__) && defined(__FMA__))
#define UL_TANH_RATIONAL 1
#include <immintrin.h>
{_CHOICE}#endif

#ifdef __AVX512F__
{_rational(512)}
/* 16 inputs from x (those not in `keep` read as 0 and not stored): the table's `bad` and clamp
   on 16 lanes, two halves of eight float64 lanes, the midpoint test on the low 32 bits of
   each t, x's sign or-ed into the float32 result; returns the bit mask of the results stored
   as FLAG_NAN by the midpoint test (bits 0-15) and of those stored so by `bad` (bits 16-31) */
UL_SCHEDULE static inline uint32_t ul_tanh_rational16(const float *x, float *y, __mmask16 keep) {{
    const __m512i u = keep == (__mmask16)0xFFFF ? _mm512_loadu_si512(x)
                                                : _mm512_maskz_loadu_epi32(keep, x);
    const __m512i au = _mm512_and_si512(u, _mm512_set1_epi32(0x7FFFFFFF));
    /* NaN, zero, the subnormals and 2^-126 (whose t may lie below 2^-126, where the
       midpoint test does not apply and MXCSR's FTZ would flush the conversion) */
    const __mmask16 bad = _mm512_cmpgt_epu32_mask(
        _mm512_sub_epi32(au, _mm512_set1_epi32(0x00800001)),
        _mm512_set1_epi32(0x7F800000 - 0x00800001));
    const __m512 a = _mm512_castsi512_ps(_mm512_min_epu32(au, _mm512_set1_epi32(0x{CLAMP:08X})));
    const __m512d t0 = ul_tanh_rational8(_mm512_castps512_ps256(a));
    const __m512d t1 = ul_tanh_rational8(
        _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(a), 1)));
{low_halves512("t0", "t1")}\
    /* the midpoint test: the 29 bits of t below float32's last place, plus ERR - 2^28, lie
       below 2 ERR (bits 0x1FFFFFFF & -(2 ERR) all 0) exactly where they lie in
       [2^28 - ERR, 2^28 + ERR) (ERR a power of two) */
    const __m512i near = _mm512_add_epi32(low,
                                          _mm512_set1_epi32((int)({ERR_RATIONAL}u - 0x10000000u)));
    const __mmask16 ok = _mm512_mask_test_epi32_mask(
        (__mmask16)~bad, near, _mm512_set1_epi32((int)(0x1FFFFFFFu & -(2u * {ERR_RATIONAL}u))));
    /* f | (u & 0x80000000) */
    const __m512i b = _mm512_ternarylogic_epi32(_mm512_castps_si512(f), u,
                                                _mm512_set1_epi32((int)0x80000000u), 0xF8);
    const __m512i r = _mm512_mask_blend_epi32(ok, _mm512_set1_epi32(0x7FC00001), b);
    if (keep == (__mmask16)0xFFFF) _mm512_storeu_si512(y, r);
    else _mm512_mask_storeu_epi32(y, keep, r);
    return (uint32_t)(keep & (__mmask16)~ok & (__mmask16)~bad)
           | (uint32_t)(keep & bad) << 16;
}}
{_rationals_loop("two", 16, _ITERATION_AVX512, _TAIL_AVX512)}#elif defined(UL_TANH_RATIONAL)
{_rational(256)}
/* the first `left` inputs from x, at most 8 (all 8 by plain loads and stores where left >= 8,
   else by masked ones, the others read as 0): ul_tanh_rational16's steps on 8 lanes, two
   halves of four float64 lanes; returns the bit mask of the results stored as FLAG_NAN by the
   midpoint test (bits 0-7) and of those stored so by `bad` (bits 16-23) */
UL_SCHEDULE static inline uint32_t ul_tanh_rational8x(const float *x, float *y, long left) {{
    const __m256i keep = _mm256_cmpgt_epi32(_mm256_set1_epi32((int)(left < 8 ? left : 8)),
                                            _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    const __m256i u = left >= 8 ? _mm256_loadu_si256((const __m256i *)x)
                                : _mm256_castps_si256(_mm256_maskload_ps(x, keep));
    const __m256i au = _mm256_and_si256(u, _mm256_set1_epi32(0x7FFFFFFF));
    /* NaN (above 0x7F800000), zero, the subnormals and 2^-126 (at most 0x00800000: as in
       ul_tanh_rational16); au <= 0x7FFFFFFF, so signed comparisons */
    const __m256i bad = _mm256_or_si256(_mm256_cmpgt_epi32(_mm256_set1_epi32(0x00800001), au),
                                        _mm256_cmpgt_epi32(au, _mm256_set1_epi32(0x7F800000)));
    const __m256i a = _mm256_min_epu32(au, _mm256_set1_epi32(0x{CLAMP:08X}));
    const __m256d t0 = ul_tanh_rational4(_mm256_castps256_ps128(_mm256_castsi256_ps(a)));
    const __m256d t1 = ul_tanh_rational4(_mm_castsi128_ps(_mm256_extracti128_si256(a, 1)));
    /* the low 32 bits of t0's and t1's lanes, in order */
    const __m256i low = _mm256_permute4x64_epi64(
        _mm256_castps_si256(_mm256_shuffle_ps(_mm256_castpd_ps(t0), _mm256_castpd_ps(t1),
                                              0x88)), 0xD8);
    const __m256 f = _mm256_set_m128(_mm256_cvtpd_ps(t1), _mm256_cvtpd_ps(t0));
    /* the midpoint test as in ul_tanh_rational16: flagged where the bits are all 0 */
    const __m256i near = _mm256_and_si256(
        _mm256_add_epi32(low, _mm256_set1_epi32((int)({ERR_RATIONAL}u - 0x10000000u))),
        _mm256_set1_epi32((int)(0x1FFFFFFFu & -(2u * {ERR_RATIONAL}u))));
    const __m256i flagged = _mm256_or_si256(
        bad, _mm256_cmpeq_epi32(near, _mm256_setzero_si256()));
    const __m256i b = _mm256_or_si256(_mm256_castps_si256(f),
                                      _mm256_and_si256(u, _mm256_set1_epi32((int)0x80000000u)));
    const __m256 r = _mm256_castsi256_ps(
        _mm256_blendv_epi8(b, _mm256_set1_epi32(0x7FC00001), flagged));
    if (left >= 8) _mm256_storeu_ps(y, r);
    else _mm256_maskstore_ps(y, keep, r);
    const uint32_t k = (uint32_t)_mm256_movemask_ps(_mm256_castsi256_ps(keep));
    const uint32_t fb = (uint32_t)_mm256_movemask_ps(_mm256_castsi256_ps(bad)) & k;
    const uint32_t fm = (uint32_t)_mm256_movemask_ps(_mm256_castsi256_ps(flagged)) & k;
    return (fm & ~fb) | fb << 16;
}}
{_rationals_loop("four", 8, _ITERATION_AVX2, _TAIL_AVX2)}#endif
"""
"""The table's evaluation of one input (``ul_tanh_table64``, the generic loop's body), the
choice of loop by vendor, and the AMD loop (the rational function) of the avx512 and avx2
builds, with its rerun of the midpoint test's flags by the table."""


SOURCE = ROUND_NORMAL + SCHEDULE + RATIONAL + """
long ulplab_tanh_fast64(const float *restrict x, float *restrict y, long n) {
#ifdef UL_TANH_RATIONAL
    if (ul_tanh_rational()) return ul_tanh_rationals(x, y, n);
#endif
    for (long i = 0; i < n; i++) {
        const uint32_t b = ul_tanh_table64(x[i]);
        memcpy(y + i, &b, 4);
    }
    return -1;
}
"""


def tables() -> str:
    return _tables()
