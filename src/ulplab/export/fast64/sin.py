"""det sin's and cos's float64 first passes (``ul_sin_half``), and the reduction of tan's
(``REDUCE``).

**sin and cos (since 2026-11-26, night): one polynomial.** v = m pi/2 + r for |v| <= 2^17
(0x48000000); larger |x| (where the kernel needs the Payne-Hanek reduction), NaN and the
infinities are flagged:
* m = 2k, k = nearest(v/pi) for sin (one FMA with 1/pi rounded to nearest, adding 0x1.8p52);
  m = 2k + 1, k = nearest(v/pi - 1/2) for cos (an FMA giving v/pi - 1/2, then the same
  shift); k is within 1/2 + 2^-36 of v/pi (- 1/2) (1/pi's rounding times 2^17 and the FMA's
  own below 2^-37), so |r| <= pi/2 + 2^-34; |m| < 2^17;
* r = (v - m P1) - m R (since 2026-11-27; ``pio2_parts``): P1 = pi/2 rounded to 36 significant
  bits (``tables.pio2_split``'s first part), so m P1 is exact, and R = pi/2 - P1 rounded to
  nearest, pi/2 - P1 - R = 2^-92.83; each product subtracted in one FMA (for sin, m = 2k, the
  products are taken as k (2 P1) and k (2 R): the same values). v - m P1 is exact by Sterbenz's
  lemma except for cos's m = +-1 on |v| < pi/2, where it rounds once but |r| > pi/4 - 2^-34;
  the second FMA rounds once (2^-53 |r|), |m| (pi/2 - P1 - R) < 2^-75.83, and without an FMA
  instruction m R rounds too (|m R| < 2^-21.5: below 2^-75); the float32 inputs in
  [pi/4, 2^17] lie at least 2^-27.83 from every nonzero multiple of pi/2 (the closest:
  0x437CE5F1 = 252.898..., by a float64 scan of all of them, confirmed in mpmath), so r has a
  relative error below 2^-46.4 (2^-47.9 where the build has an FMA instruction). Until then r
  was ((v - m P1) - m P2) - m P3 with three parts of 36, 36 and 53 bits (tan's, below: 2^-51.4)
  and one FMA a lane more;
* sin r = r + r^3 P(r^2), P of degree 5 (``SIN_HALF``: a Remez fit on [0, (pi/2 + 2^-30)^2],
  within 2^-43.478 of (sin r - r)/r^3, ``half_fit_error``), so within r^2 2^-43.478 (r/sin r)
  <= 2^-41.52 of sin r relative (at |r| = pi/2: r^2 = 2.47, r/sin r = 1.571); Horner's
  roundings (relative 2^-52 of a term below r^2/6 of the result), r r^2 and the last FMA add
  below 2^-52.5, and r's relative error carries over times r cot r <= 1: 2^-41.47 in all;
* sin v = (-1)^k sin r, cos v = (-1)^(k+1) sin r (the sign bit from k's low bit).
Relative error below 2^-41.4: 3,100 units in the last place of the float64 result; the
rounding test takes ERR_HALF = 16384 (a margin of 5.3) and flags about 2 ERR / 2^29 = 6e-5 of
ordinary inputs. Until then sin and cos ran tan's reduction below (k pi/2, |r| <= pi/4) and
both polynomials, sin r and cos r, choosing by k mod 4: five FMAs and a select more a lane.
The pass alone, 2^14 inputs in [-100, 100] in cache, one thread, one C harness with the
runner's flags, best of 3,000, the 2-core AMD EPYC VM: sin 1.057 -> 0.833 ns an element (AVX2
build) and 0.476 -> 0.371 (AVX-512), cos 0.888 and 0.403 after.
**The avx2 build's step** (``fast64.avx2``, since 2026-11-27): the same operations in AVX2
intrinsics, 8 inputs a block (two halves of four float64 lanes, the midpoint test on the eight
low halves at once), four blocks an iteration scheduled together (``fast64.SCHEDULE``); the
generic loop takes the last n mod 8. It gives the loop's bits, flags included (a test compares
them). gcc's loop ran one block of 8 at a time, and a block's chain (a conversion, 13 FMAs and
products in a row, the conversion back: about 60 cycles) left it waiting: in the same harness
sin 0.86 -> 0.59-0.60 ns an element, cos 0.93 -> 0.64-0.65 (one block an iteration in
intrinsics 0.79 and 0.84, two 0.64 and 0.70, eight 0.58 and 0.64); 0.54 and 0.60 with the
two-part reduction above. The step counts what it flags (a comparison and a bit count a
block), so the avx2 build returns how many results it left flagged (``fast64.COUNTED``) and
the runner does not read the chunk back where none is: into a reused output at 2^24 (the
benchmark), sin 0.699 -> 0.641-0.650 ns an element, cos 0.735 -> 0.684-0.706 (runs
``epyc-as-avx2-h`` before, ``-i`` and ``-j`` after).
**The avx512 build's step** (``AVX512_GUARD``, the same day): the same blocks on 16 inputs
(two halves of eight float64 lanes, the low halves gathered by one ``vpermt2d``), four an
iteration, counting too: gcc's 512-bit loop took sin 0.318 and cos 0.367 ns an element in the
harness above, the step 0.259 and 0.311 (one block an iteration 0.317 and 0.365, two 0.27 and
0.32). The portable build (gcc's loop alone) returns -1.
Zero and subnormal inputs are flagged by the test on x's bits (sin of +-0 keeps its sign in the
second pass; sin of a subnormal is subnormal; cos, which shares the loop, leaves its 1 there to
the second pass too: 2^24 patterns more flagged of 2^32). The rounding test has no range part
(``ROUND_NORMAL``): for every other input y lies in [2^-126, 1]. For sin with k = 0, r = v and
y = r + r^3 P(r^2) is v itself where |r^3 P| < |v|^3/6 is below half an ulp of v in float64
(|v| < 2^-25), and |y| > 0.63 |v| > 2^-26 elsewhere (sin v / v >= 2/pi on |v| <= pi/2); for
m != 0 (every cos), |y| >= |sin r| (1 - 2^-41) with |r| >= 2^-27.83.

**tan's reduction (``REDUCE``; sin's and cos's until 2026-11-26, night).** x = k pi/2 + r,
|r| <= pi/4 (plus 2^-40):
* k = nearest(x 2/pi) (within 1/2 + 2^-35), by adding and subtracting 0x1.8p52 after one
  FMA; |k| < 2^17;
* r = ((x - k P1) - k P2) - k P3 as above (x - k P1 exact by Sterbenz's lemma); r has a
  relative error below 2^-51.5;
* sin r = r + r^3 P(r^2), P of degree 4, cos r = 1 + r^2 Q(r^2), Q of degree 5 (``SIN``,
  ``COS``: ``python benchmarks/fit_fast64.py sincos --check-points 20000``, the interpolants
  at the Chebyshev nodes of s = r^2 in [0, R^2], R = pi/4 + 2^-40, coefficients rounded to the
  nearest float64): relative approximation error below 2^-45.58 (sin) and 2^-51.61 (cos) at
  20,000 points of (0, R]; with Horner's roundings and r's own error below 2^-45.5 for sin r,
  2^-50 for cos r (``ulplab.export.fast64.tan`` divides them; ERR = 1024 there).
"""

from __future__ import annotations

from ulplab.export.fast64 import ROUND_NORMAL, SCHEDULE, avx2, low_halves512
from ulplab.export.fast64.tables import (
    c_constant,
    horner,
    odd_fit_error,
    pio2_parts,
    simd_horner,
)

ERR = 1024
"""The rounding test's bound of tan's pass (``REDUCE``'s values; sin's and cos's until
2026-11-26, night), in units in the last place of the float64 result."""

SIN = [float.fromhex(v) for v in (
    "-0x1.555555555516bp-3", "0x1.1111110fd3d43p-7", "-0x1.a019fd9b35ee5p-13",
    "0x1.71d9a9f41c5a8p-19", "-0x1.aa285788aa996p-26")]
"""P: (sin r - r)/r^3 in powers of r^2, low to high (``fit_fast64.py sincos``)."""

COS = [float.fromhex(v) for v in (
    "-0x1.ffffffffffffap-2", "0x1.5555555554137p-5", "-0x1.6c16c1691d8abp-10",
    "0x1.a019fc7b4b9f6p-16", "-0x1.27e0f5789db49p-22", "0x1.1c064801aa0f3p-29")]
"""Q: (cos r - 1)/r^2 in powers of r^2, low to high (``fit_fast64.py sincos``)."""

REDUCE = """\
    /* k = nearest(v 2/pi) in the low bits of `shifted` (0x1.8p52 = bits 0x4338000000000000
       plus k) */
    const double shifted = UL_FMA(v, 0x1.45f306dc9c883p-1, 0x1.8p52);
    const double kd = shifted - 0x1.8p52;
    const uint64_t q = ul_bits64(shifted) + shift;            /* k + shift mod 4 */
    /* the three products subtracted in FMAs: the first two exact, as k P1 and k P2 are */
    const double r = UL_FMA(-kd, UL_PIO2_3, UL_FMA(-kd, UL_PIO2_2, UL_FMA(-kd, UL_PIO2_1, v)));
    const double r2 = r * r;
    const double s = UL_FMA(r * r2, """ + horner("r2", SIN) + """, r);
    const double c = UL_FMA(r2, """ + horner("r2", COS) + """, 1.0);
"""
"""The body of the reduction and both polynomials, on float64 ``v`` and the quadrant ``shift``:
k = nearest(v 2/pi), q = k + shift, r = v - k pi/2, s = sin r and c = cos r (the analysis above;
tan's pass divides them)."""

SIN_HALF = ["-0x1.55555555549d9p-3", "0x1.1111110fc1588p-7", "-0x1.a01a0012990c6p-13",
            "0x1.71dd8e21523c7p-19", "-0x1.ae20d34f631e9p-26", "0x1.54e8899b9b7e5p-33"]
"""P of sin and cos's passes since 2026-11-26 (night): sin r = r + r^3 P(r^2) for |r| <= pi/2
+ 2^-30, low to high. Fitted by ``ulplab.fit.remez.remez(f, 0, (pi/2 + 2^-30)^2, range(6))``
(absolute error, 128 bits), f(y) = (sin sqrt y - sqrt y) / y^(3/2) (-1/6 at 0), each
coefficient rounded to the nearest float64 (tests/test_fast64.py fits it again): within
2^-43.478 of f (``half_fit_error``)."""

ERR_HALF = 16384
"""The rounding test's bound of sin's and cos's passes, in units in the last place of the
float64 result (the module docstring: below 2^-41.4, 3,100 units; a margin of 5.3)."""


def half_fit_error(points: int = 2001) -> float:
    """max |P(y) - f(y)| over ``points`` Chebyshev points of [0, (pi/2 + 2^-30)^2] (P with the
    float64 coefficients of ``SIN_HALF``, evaluated exactly; f as there), at 160 bits."""
    import mpmath

    with mpmath.workprec(160):
        top = (mpmath.pi / 2 + mpmath.mpf(2) ** -30) ** 2
        return odd_fit_error(SIN_HALF, "sin", top, points)


_HALF = [float.fromhex(c) for c in SIN_HALF]
_HALF_P = horner("r2", _HALF)

CORE = """
/* sin(v) (cosine 0) or cos(v) (cosine 1) for |v| <= 2^17, relative error < 2^-41.4
   (ulplab.export.fast64.sin); for any other v some float64. v = m pi/2 + r, m = 2k (sine:
   k = nearest(v/pi)) or 2k + 1 (cosine: k = nearest(v/pi - 1/2)), |r| <= pi/2 + 2^-34;
   sin v = (-1)^k sin r, cos v = (-1)^(k+1) sin r: one polynomial, no choice between two */
static inline double ul_sin_half(double v, int cosine) {
    /* k in the low bits of `shifted` (0x1.8p52 = bits 0x4338000000000000 plus k); 1/pi
       rounded to nearest */
    const double shifted = cosine ? UL_FMA(v, 0x1.45f306dc9c883p-2, -0.5) + 0x1.8p52
                                  : UL_FMA(v, 0x1.45f306dc9c883p-2, 0x1.8p52);
    const double kd = shifted - 0x1.8p52;
    /* r = (v - m P1) - m R, m = 2k + 1 (cosine) or 2k (sine: the products as k (2 P1) and
       k (2 R), the same values); m P1 exact (|m| < 2^17, P1 of 36 bits) */
    const double m = cosine ? UL_FMA(kd, 2.0, 1.0) : kd;
    const double r = UL_FMA(-m, cosine ? UL_PIO2_R : 2.0 * UL_PIO2_R,
                            UL_FMA(-m, cosine ? UL_PIO2_1 : 2.0 * UL_PIO2_1, v));
    const double r2 = r * r;
    const double s = UL_FMA(r * r2, """ + _HALF_P + """, r);
    /* (-1)^k, or (-1)^(k+1): the low bit of k (two's complement in shifted's bits) */
    return ul_double(ul_bits64(s) ^ ((ul_bits64(shifted) + (uint64_t)cosine) << 63));
}
"""


def _half(cosine: int, v: str, out: str, width: int = 256) -> str:
    """``ul_sin_half`` on the float64 lanes ``v`` of a ``width``-bit register (256: four lanes,
    AVX2; 512: eight, AVX-512; intrinsics, the same operations in the same order), the result
    ``out``; its other names end in ``out``'s last character."""
    k = out[-1]
    mm, vd, vi, si = {256: ("_mm256", "__m256d", "si256", "_mm256_set1_epi64x"),
                      512: ("_mm512", "__m512d", "si512", "_mm512_set1_epi64")}[width]
    shifted = (f"{mm}_add_pd(q{k}, {mm}_set1_pd(0x1.8p52))" if cosine else
               f"{mm}_fmadd_pd({v}, {mm}_set1_pd(0x1.45f306dc9c883p-2),\n"
               f"                                         {mm}_set1_pd(0x1.8p52))")
    q = (f"    const {vd} q{k} = {mm}_fmadd_pd({v}, {mm}_set1_pd(0x1.45f306dc9c883p-2),\n"
         f"                                      {mm}_set1_pd(-0.5));\n" if cosine else "")
    m = (f"{mm}_fmadd_pd(kd{k}, {mm}_set1_pd(2.0), {mm}_set1_pd(1.0))" if cosine else
         f"kd{k}")
    p1, pr = ("UL_PIO2_1", "UL_PIO2_R") if cosine else ("2.0 * UL_PIO2_1", "2.0 * UL_PIO2_R")
    sign = (f"{mm}_add_epi64({mm}_castpd_{vi}(shifted{k}), {si}(1))"
            if cosine else f"{mm}_castpd_{vi}(shifted{k})")
    return q + f"""\
    const {vd} shifted{k} = {shifted};
    const {vd} kd{k} = {mm}_sub_pd(shifted{k}, {mm}_set1_pd(0x1.8p52));
    const {vd} m{k} = {m};
    const {vd} r{k} = {mm}_fnmadd_pd(m{k}, {mm}_set1_pd({pr}),
                                         {mm}_fnmadd_pd(m{k}, {mm}_set1_pd({p1}), {v}));
    const {vd} rr{k} = {mm}_mul_pd(r{k}, r{k});
    const {vd} s{k} = {mm}_fmadd_pd(
        {mm}_mul_pd(r{k}, rr{k}),
        {simd_horner(f"rr{k}", _HALF, width)},
        r{k});
    const {vd} {out} = {mm}_castsi{width}_pd({mm}_xor_{vi}(
        {mm}_castpd_{vi}(s{k}), {mm}_slli_epi64({sign}, 63)));
"""


def _step_loop(func: str, block: str, width: int) -> str:
    """The C of ``ul_FUNC_step``: four blocks (``ul_FUNC_BLOCK``, ``width`` inputs each) an
    iteration, then one at a time while ``width`` inputs are left, the flags counted."""
    calls = "".join(f"        c += ul_{func}_{block}(x + i{f' + {width * j}' if j else ''}, "
                    f"y + i{f' + {width * j}' if j else ''});\n" for j in range(4))
    return f"""\
UL_SCHEDULE static long ul_{func}_step(const float *restrict x, float *restrict y, long n,
                                      long *left) {{
    long i = 0, c = 0;
    for (; i + {4 * width} <= n; i += {4 * width}) {{
{calls}    }}
    for (; i + {width} <= n; i += {width}) c += ul_{func}_{block}(x + i, y + i);
    *left += c;
    return i;
}}
"""


def _avx2_step(func: str, cosine: int) -> str:
    """``func``'s AVX2 step (``ulplab.export.fast64.avx2``): its loop on 8 inputs a block in
    intrinsics, the same operations on two halves of four float64 lanes, the midpoint test on
    the eight low halves at once (``ul_round_normal_x8``); four blocks an iteration, scheduled
    together (``fast64.SCHEDULE``)."""
    return f"""
#ifdef UL_AVX2_ROWS
UL_SCHEDULE static inline uint32_t ul_{func}_avx2_x8(const float *x, float *y) {{
    const __m256i u = _mm256_loadu_si256((const __m256i *)x);
    const __m256i au = _mm256_and_si256(u, _mm256_set1_epi32(0x7FFFFFFF));
    /* as the loop's: 2^17 <= |x| (NaN and the infinities too) and |x| < 2^-126 */
    const __m256i bad = ul_gt_u32x8(_mm256_sub_epi32(au, _mm256_set1_epi32(0x00800000)),
                                    _mm256_set1_epi32(0x48000000 - 0x00800000));
    const __m256d v0 = _mm256_cvtps_pd(_mm_loadu_ps(x));
    const __m256d v1 = _mm256_cvtps_pd(_mm_loadu_ps(x + 4));
{_half(cosine, "v0", "y0")}{_half(cosine, "v1", "y1")}\
    const __m256i b = ul_round_normal_x8(y0, y1, bad, {ERR_HALF}, _mm256_setzero_si256());
    _mm256_storeu_si256((__m256i *)y, b);
    /* how many it flagged */
    return (uint32_t)__builtin_popcount((unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(
        _mm256_cmpeq_epi32(b, _mm256_set1_epi32(0x7FC00001)))));
}}
/* four blocks of 8 an iteration: one block's chain of about 60 cycles left the loop waiting
   on latency, the scheduler full; returns how many inputs it took (n - n mod 8) and adds to
   *left how many of their results it flagged */
{_step_loop(func, "avx2_x8", 8)}#endif
"""


AVX512_GUARD = "defined(__AVX512F__) && !defined(UL_GENERIC_ONLY)"
"""The preprocessor condition under which sin's and cos's avx512 builds compile their AVX-512
step (``UL_AVX512_STEP``); ``UL_GENERIC_ONLY`` leaves it out, as it does the AVX2 step."""


def _avx512_step(func: str, cosine: int) -> str:
    """``func``'s AVX-512 step: the AVX2 step's blocks on 16 inputs (two halves of eight
    float64 lanes, the midpoint test on the sixteen low halves at once, gathered by one
    ``vpermt2d``), four blocks an iteration, scheduled together."""
    return f"""
#if {AVX512_GUARD}
#define UL_AVX512_STEP 1
#include <immintrin.h>
UL_SCHEDULE static inline uint32_t ul_{func}_avx512_x16(const float *x, float *y) {{
    const __m512i u = _mm512_loadu_si512(x);
    const __m512i au = _mm512_and_si512(u, _mm512_set1_epi32(0x7FFFFFFF));
    /* as the loop's: 2^17 <= |x| (NaN and the infinities too) and |x| < 2^-126 */
    const __mmask16 bad = _mm512_cmpgt_epu32_mask(
        _mm512_sub_epi32(au, _mm512_set1_epi32(0x00800000)),
        _mm512_set1_epi32(0x48000000 - 0x00800000));
    const __m512d v0 = _mm512_cvtps_pd(_mm256_loadu_ps(x));
    const __m512d v1 = _mm512_cvtps_pd(_mm256_loadu_ps(x + 8));
{_half(cosine, "v0", "y0", 512)}{_half(cosine, "v1", "y1", 512)}\
{low_halves512("y0", "y1")}\
    /* ul_round_normal_or_flag's test on 16 lanes: near > 2 ERR, unsigned */
    const __m512i near = _mm512_add_epi32(
        _mm512_and_si512(low, _mm512_set1_epi32(0x1FFFFFFF)),
        _mm512_set1_epi32((int)({ERR_HALF}u - 0x10000000u)));
    const __mmask16 ok = _mm512_mask_cmpgt_epu32_mask(
        (__mmask16)~bad, near, _mm512_set1_epi32(2 * {ERR_HALF}));
    _mm512_storeu_si512(y, _mm512_mask_blend_epi32(ok, _mm512_set1_epi32(0x7FC00001),
                                                   _mm512_castps_si512(f)));
    return (uint32_t)__builtin_popcount((unsigned)(__mmask16)~ok);  /* how many it flagged */
}}
/* four blocks of 16 an iteration (as the AVX2 step's); returns how many inputs it took
   (n - n mod 16) and adds to *left how many of their results it flagged */
{_step_loop(func, "avx512_x16", 16)}#endif
"""


def source(func: str, cosine: int) -> str:
    """The loop of ``func`` = sin (``cosine`` 0) or cos (1) (and the midpoint test it
    calls), with its AVX2 and AVX-512 steps; it returns how many results it left flagged in
    the avx2 and avx512 builds (``fast64.COUNTED``: the step counts its blocks', the last
    n mod 8 or 16 are looked at again), -1 in the portable build (gcc's loop does not
    count)."""
    return (ROUND_NORMAL + avx2.HELPERS + SCHEDULE + _avx2_step(func, cosine)
            + _avx512_step(func, cosine)) + f"""
long ulplab_{func}_fast64(const float *restrict x, float *restrict y, long n) {{
#if defined(UL_AVX2_ROWS) || defined(UL_AVX512_STEP)
    long left = 0;
    const long done = ul_{func}_step(x, y, n, &left);
    x += done;
    y += done;
    n -= done;
#endif
    for (long i = 0; i < n; i++) {{
        uint32_t u;
        memcpy(&u, x + i, 4);
        /* 0x48000000 = 2^17: beyond it (NaN and the infinities too) the second pass; below
           0x00800000 (zero and the subnormals) too */
        const uint32_t bad = (u & 0x7FFFFFFFu) - 0x00800000u > 0x48000000u - 0x00800000u;
        const uint32_t b = ul_round_normal_or_flag(ul_sin_half((double)x[i], {cosine}), bad,
                                                   {ERR_HALF}, 0);
        memcpy(y + i, &b, 4);
    }}
#if defined(UL_AVX2_ROWS) || defined(UL_AVX512_STEP)
    for (long j = 0; j < n; j++) {{  /* the last n mod 8 or 16: counted here */
        uint32_t b;
        memcpy(&b, y + j, 4);
        left += b == 0x7FC00001u;
    }}
    return left;
#else
    return -1;  /* not counted */
#endif
}}
"""


SOURCE = CORE + source("sin", 0)


def tables() -> str:
    p1, rest = pio2_parts()
    return c_constant("UL_PIO2_1", p1) + c_constant("UL_PIO2_R", rest)
