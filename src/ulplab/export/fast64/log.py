"""det log's float64 first pass.

x = 2^k z with z in [0.6875, 1.375) (the float32 bits of x minus those of 0.6875 give k in the
exponent field and the subinterval i in the next 8 bits: the 256 subintervals of
``tables.log_subinterval`` with ``BITS`` = 8, of width 2^-9 below 1 and 2^-8 above; 32-bit
integer work, the float64 arithmetic starts at z), and log(x) = k ln2 + logc[i] + log1p(r),
r = z invc[i] - 1 (``tables.log_tables(8)``):
* r is exact: z has at most 24 significant bits and invc 21, so z invc is exact, and
  z invc - 1 is exact by Sterbenz's lemma; |r| < 2^-8 in the two subintervals next to 1
  ([1 - 2^-9, 1) and [1, 1 + 2^-8), where invc = 1 and logc = 0, r = z - 1), below
  2^-9 + 2^-21 elsewhere (half a subinterval over its midpoint, and invc's rounding);
* log1p(r) by its Taylor polynomial of degree 5 (``TAYLOR``, coefficients (-1)^(i+1)/i
  rounded to nearest): truncation below |r|^6/6 / (1 - |r|) < 2^-42.57 |log1p(r)| for
  |r| < 2^-8; the Horner roundings (r^2, the inner polynomial, the last FMA) add below
  2^-52.9 |log1p(r)|;
* k ln2 + logc in one FMA with ln2 rounded to the nearest float64 (``tables.ln2_nearest``):
  |k| |UL_LN2 - ln2| < 2^-54 |k ln2|, and one rounding (two without an FMA instruction);
  the result is that plus p, one more rounding.
Relative error: where k = 0 and invc = 1 the result is p alone: below 2^-42.57 + 2^-52.9 <
2^-42.56. For k = 0 elsewhere |log x| >= 2^-9 (z is at least 2^-9 from 1) and |logc| <= 2
|log x|, so the truncation, below |r|^6/6 < 2^-56.5, is below 2^-47.5 relative, the roundings
below 2^-50; for k != 0, |log x| >= log(1.375) = 0.318 and |k ln2 + logc| <= 1.02 |log x|:
below 2^-50 again. So below 2^-42.56 everywhere, 2^10.44 units in the last place of the
float64 result (whose ulp exceeds 2^-53 times it); the rounding test takes ERR = 4096 = 2^12
(a margin of 2.9), and flags about 2 ERR / 2^29 = 1.5e-5 of ordinary inputs.
Why this budget: until 2026-11-26 the pass had 128 subintervals, a degree-7 polynomial and
ln2 in two parts (below 2^-49, ERR = 64, flags 1.2e-7); a flag costs the second pass only
where a chunk of the runner has one, and at 1.5e-5 that is 3% of the chunks, so the looser
bound buys two FMAs and a product per lane: the pass alone on 2^16 inputs in cache (reused
output), one thread, this project's 2-core Xeon VM, took 0.96-1.04 -> 0.78-0.80 ns per
element (AVX-512 build) and 1.51-1.62 -> 1.36-1.40 (avx2), old and new timed alternately.
Flagged: NaN, zero, subnormal and negative inputs, +inf (the second pass returns their NaN,
-inf or inf, and the subnormals' logs), by a test on x's bits. The rounding test has no range
part (``ROUND_NORMAL``): for every other input y is 0 (x = 1: z = 1 lies in [1, 1 + 2^-8),
invc = 1, logc = 0, r = 0, so hi = p = 0, and +0, which the test keeps, is log(1)) or |y| lies
in [5.9e-8, 89] (|log x| >= -log(1 - 2^-24) for x != 1, below 88.73 for x < 2^128, within
2^-42.56 relative), the normal float32 range: the range test's subtraction, comparison and
mask fewer a lane, 0.77 -> 0.68 ns per element (AVX-512 build) and 1.33 -> 1.18 (avx2), the
pass alone as above.

**The avx512 build holds a second loop**, run on AMD processors, whose gathers are slow
(``fast64.AVX512_PATHS``: on the 16-core Intel Xeon the loop of 2026-11-26 below was no
faster than gcc's loop with gathers, which runs there). Since 2026-11-26 (late evening) it
evaluates **in float32 lanes first** (``LANES32_AVX512``: 16 inputs a register, twice the
float64 loop's), with a rounding test of its own, and runs the float64 evaluation above
(``ul_log_lanes64``, the generic loop's body) on the lanes it flags. For x a positive normal
float32 (every other input is flagged), x = 2^k z with log's reduction, 2^5 = 32
subintervals (``tables.LOG32_BITS``: width 2^-6 below 1, 2^-5 above), and each operation
below a float32 one rounded to nearest (fmaf one rounding); u = 2^-24:
* invc (``tables.log_invc32``) is 1/c rounded to 7 significant bits where every z of the
  subinterval then has |z invc - 1| < 2^-6, else to 6 (|r| < 2^-5); 1 on the two subintervals
  next to 1. So r = fmaf(z, invc, -1) is exact: z invc is a multiple of 2^-(23+m) and |r| <
  2^(1-m), 24 bits (checked on every z by the tests). |r| < 2^-5.6 away from 1, <= 2^-6 on
  [1 - 2^-6, 1) and < 2^-5 on [1, 1 + 2^-5);
* logc = -log(invc) = lh + ll (``tables.log_pairs32``): lh a multiple of 2^-16, ll the rest
  rounded (|ll| <= 2^-17, error <= 2^-42); ln2 = L1 + L2, L1 a multiple of 2^-16: hi =
  fmaf(k, L1, lh) is exact (a multiple of 2^-16 below 2^7); k L2 is added among the small
  terms;
* log x = hi + r - r^2/2 + r^3 P(r) + ll + k L2 (+ L2's and ll's errors), P(r) = 1/3 - r/4 +
  r^2/5 - ... : hi + r = s1 + e1 and s1 - sq/2 = s2 + e2 by Fast2Sum (sq + sql = r^2 exactly:
  sq rounded, sql = fmaf(r, r, -sq); sq/2 exact), p = the degree-4 truncation of P by
  Estrin's scheme ((c3 + c4 r) + sq ((c5 + c6 r) + c7 sq), coefficients rounded to float32;
  truncation below |r|^5/8/(1 - |r|)), lo = ((k L2 + ll) - sql/2 + (sq r) p) + (e1 + e2),
  and s2 + lo = s + e by Fast2Sum. The conditions of the Fast2Sums hold over the table
  (|hi| >= |r| or hi = 0; |s2| >= 4 |lo|: checked by ``lanes32_bound``);
* the error of s + e, every rounding bounded by u times a bound on its result (none where the
  operation is exact: e1 where hi = 0, k L2 + ll where k = 0, the Horner-free Estrin steps
  counted one rounding each), relative to |log x| (``lanes32_bound``): 2^-32.79 next to 1
  (k = 0, invc = 1: relative to |log1p(r)| >= |r| (1 - |r|/2), the roundings of r^3 p and lo,
  u r^2/3 each), 2^-33.34 elsewhere for k = 0 (|log x| >= 2^-6 there, and ll's rounding
  2^-41 absolute), 2^-37.08 for k = +-1 (|log x| >= 0.318), 2^-37.99 for the other k;
* s is the correctly rounded result where |e| < H - B (H = 2^(E-24), E the exponent of the
  float32 below |s| in magnitude, so half the smaller gap beside s; B = 2^(E+1) beta, beta =
  ``LANES32_BETA_K0`` = 2^-32 for k = 0 (margin 1.7) and ``LANES32_BETA`` = 2^-36 elsewhere
  (2.1)), one integer add and compare on the bits (``lanes32_threshold``); s = 0 (x = 1,
  where every term is 0) passes with e = 0, and log(1) = +0. The lanes flag (measured on
  2^24 inputs) 5.3e-4 of log-uniform [1e-30, 1e30], 1.0e-3 of uniform (0, 10], 3.9e-3 of
  [0.5, 2] (half of it k = 0), 5.2e-4 of all positive normal float32.
A flagged lane is evaluated again at once (``fast64.rerun_flagged``), and the loop returns how
many results that left flagged (``fast64.COUNTED``: the runner does not look again where it
returns 0). Measured, the whole pass on 2^14 inputs log-uniform in [1e-30, 1e30] in cache, one
thread, one C harness with the runner's avx512 flags, best of 2,000 calls, on the 2-core AMD
EPYC VM (family 26, gcc 12): 0.447 ns per element (the float64 permute loop below) -> 0.227;
inputs uniform in [0.9, 1.1] (4e-3 flagged) 0.460 -> 0.276. Steps: the float32 lanes with
Horner's scheme and the small terms summed in order 0.264, Estrin's scheme 0.250, lo's sum as
above (a shorter chain: the loop is bound by its latency) 0.227; the flags of a block of 256
counted and looked for again instead of handled at once cost 0.242 (0.321 on [0.9, 1.1]).

Until then the AMD loop was a float64 one (``AVX512``: log2's avx512 build still runs
it, made from its text, and log1p's shares its parts): the same computation as
the generic loop with 2^5 = 32 subintervals (``AVX512_BITS``; ``tables.log_tables(5)``) whose
two tables of 32 float64s lie in four AVX-512 registers each and are read by two permutes and
a blend, and so with the Taylor polynomial of degree 8 (``AVX512_TAYLOR``) in place of 5:
* r is exact as above (invc still has 21 significant bits); |r| < 2^-6.06 away from the two
  subintervals next to 1 (measured over the table), |r| <= 2^-6 on [1 - 2^-6, 1) and |r| <
  2^-5 on [1, 1 + 2^-5), where invc = 1 and logc = 0;
* truncation below |r|^8/9 / ((1 - |r|)(1 - |r|/2)) < 2^-43.10 |log1p(r)| for |r| < 2^-5;
  the Horner roundings below 2^-52.9 |log1p(r)| as above (the terms past r are below
  |r|/2 < 2^-6 of it);
* for k = 0 away from 1, |log x| >= 2^-6 (z is at least 2^-6 from 1) and |logc| <= 1.51
  |log x| (over the table): the truncation, below 2^-57.7 absolute, is below 2^-51.7
  relative, the roundings about 2^-50; for k != 0 as above.
So below 2^-43.09 everywhere, 2^9.91 units in the last place of the float64 result: the same
ERR = 4096 (a margin of 4.2) and the same share flagged. The loop runs 8 inputs at a time as
written for AVX-512 registers (the last n mod 8 under a mask), with the generic loop's
reduction, bad-input test and midpoint test. The whole pass, 2^16 inputs log-uniform in
[1e-30, 1e30] in cache, one thread, in one C harness with the runner's avx512 flags, the
gather build (gcc's vectorization of the generic loop) against this one, timed alternately:
0.69 -> 0.46 ns per element on a 2-core AMD EPYC VM (family 26, gcc 12), where gathers are
slow; unrolled twice it took the same 0.46.
"""

from __future__ import annotations

from fractions import Fraction
from functools import cache

import numpy as np

from ulplab.export.fast64 import (
    ROUND_NORMAL,
    SCHEDULE,
    avx512_choice,
    avx512_entry,
    lanes_loop_x16,
)
from ulplab.export.fast64.tables import (
    LOG32_BITS,
    LOG_TABLE_BITS,
    horner,
    horner512,
    ln2_nearest,
    log1p_taylor,
    log_invc32,
    log_pairs32,
    log_subinterval,
    log_tables,
    log_tables32,
    nearest32,
)

LOG_OFF32 = 0x3F300000
"""0.6875 as float32 bits (``tables.LOG_OFF`` as float64 bits): z's subintervals are the same."""

BITS = LOG_TABLE_BITS
"""log's tables: 2^BITS = 256 subintervals of [0.6875, 1.375) (``tables.log_tables(BITS)``;
softplus's too)."""

ERR = 4096
"""The rounding test's bound, in units in the last place of the float64 result."""

TAYLOR = log1p_taylor(5)
"""log1p(r) = r + r^2 (c2 + c3 r + c4 r^2 + c5 r^3): c_i = (-1)^(i+1)/i, i = 2..5."""

REDUCE = f"""\
        /* x = 2^k z, z in [0.6875, 1.375): tmp = bits(x) - bits(0.6875f); k = tmp >> 23
           (arithmetic), the subinterval i = the next {BITS} bits */
        const uint32_t tmp = ux - 0x{LOG_OFF32:08X}u;
        const int32_t k = (int32_t)tmp >> 23;
        const uint64_t idx = (tmp >> {23 - BITS}) & {(1 << BITS) - 1};
        const double z = (double)ul_float(ux - (tmp & 0xFF800000u));
"""
"""The C lines (in the loop, on x's bits ``ux``) of the reduction x = 2^k z and the subinterval
index (log's and log2's passes)."""

def _dedent4(text: str) -> str:
    """C lines written for a loop body (8 spaces) moved out to a function body (4)."""
    return "".join(line[4:] if line.startswith("    ") else line
                   for line in text.splitlines(keepends=True))


AVX512_BITS = 5  # the C below writes 32 entries, 5 index bits (shift 18, mask 31), degree 8
"""The avx512 build's tables: 2^AVX512_BITS = 32 subintervals of [0.6875, 1.375) (width 2^-6
below 1, 2^-5 above), four AVX-512 registers a table."""

AVX512_TAYLOR = log1p_taylor(8)
"""The avx512 build's polynomial: log1p(r) = r + r^2 (c2 + c3 r + ... + c8 r^6), c_i =
(-1)^(i+1)/i, i = 2..8."""


AVX512_HEAD = """\
    const __m512d invc[4] = {_mm512_loadu_pd(ul_log5_invc), _mm512_loadu_pd(ul_log5_invc + 8),
                             _mm512_loadu_pd(ul_log5_invc + 16),
                             _mm512_loadu_pd(ul_log5_invc + 24)};
    const __m512d logc[4] = {_mm512_loadu_pd(ul_log5_logc), _mm512_loadu_pd(ul_log5_logc + 8),
                             _mm512_loadu_pd(ul_log5_logc + 16),
                             _mm512_loadu_pd(ul_log5_logc + 24)};
    for (long i = 0; i < n; i += 8) {
        const long left = n - i;
        const __mmask8 keep = left >= 8 ? (__mmask8)0xFF : (__mmask8)((1u << left) - 1u);
        const __m256i ux = left >= 8 ? _mm256_loadu_si256((const __m256i *)(x + i))
                                     : _mm256_maskz_loadu_epi32(keep, x + i);
"""
"""The C of the permute loops of log's family (log, log2, log1p) up to x's bits ``ux``: the
32-entry tables in four registers each, then the loop head, 8 inputs at a time and the last
n mod 8 under a mask (``keep``)."""

AVX512_LOOKUP = """\
        const __m512d ic = _mm512_mask_blend_pd(upper,
                                                _mm512_permutex2var_pd(invc[0], idx, invc[1]),
                                                _mm512_permutex2var_pd(invc[2], idx, invc[3]));
        const __m512d lc = _mm512_mask_blend_pd(upper,
                                                _mm512_permutex2var_pd(logc[0], idx, logc[1]),
                                                _mm512_permutex2var_pd(logc[2], idx, logc[3]));
"""
"""The C of the table reads of those loops: invc and logc of subinterval ``idx`` (64-bit lanes,
its low 4 bits by the permutes, bit 4 in the mask ``upper``)."""


def avx512_midpoint(err: int) -> str:
    """The C of ``ul_round_normal_or_flag``'s midpoint test on the float64 lanes ``v`` within
    ``err`` units (``ok``: neither ``bad`` nor near a midpoint)."""
    return f"""\
        const __m256i near = _mm256_add_epi32(
            _mm256_and_si256(_mm512_cvtepi64_epi32(_mm512_castpd_si512(v)),
                             _mm256_set1_epi32(0x1FFFFFFF)),
            _mm256_set1_epi32((int)({err}u - 0x10000000u)));
        const __mmask8 ok = _mm256_mask_cmpgt_epu32_mask((__mmask8)~bad, near,
                                                          _mm256_set1_epi32(2 * {err}));
"""


AVX512_STORE = """\
        if (left >= 8) _mm256_storeu_si256((__m256i *)(y + i), b);
        else _mm256_mask_storeu_epi32(y + i, keep, b);
    }
}
"""
"""The C that ends the float64 permute loops (log2's and log1p's): the results ``b`` stored,
the last n mod 8 under the mask ``keep``."""


AVX512 = f"""
/* the avx512 build's permute loop, where ul_avx512_permutes() chooses it
   (ulplab.export.fast64.log: AVX512_BITS, AVX512_TAYLOR and the analysis): 8 inputs at a
   time (the last n mod 8 under a mask: the lanes past n read as 0 and not stored); tables of
   32 subintervals, not 256, read by permutes of registers (vpermt2pd: 16 entries of two
   registers, then a blend on bit 4 of the index) instead of gathers, and so a polynomial of
   degree 8, not 5; otherwise the generic loop's steps: the same reduction (5 index bits),
   r = z invc - 1, Horner's scheme, k ln2 + logc, and ul_round_normal_or_flag's midpoint test
   on the low 32 bits */
static void ul_log_permutes(const float *restrict x, float *restrict y, long n) {{
{AVX512_HEAD}\
        /* the generic loop's `bad`: ux - 0x00800000 >= 0x7F000000, unsigned */
        const __mmask8 bad = _mm256_cmpge_epu32_mask(
            _mm256_sub_epi32(ux, _mm256_set1_epi32(0x00800000)), _mm256_set1_epi32(0x7F000000));
        const __m256i tmp = _mm256_sub_epi32(ux, _mm256_set1_epi32(0x{LOG_OFF32:08X}));
        const __m256i k = _mm256_srai_epi32(tmp, 23);
        const __m512i idx = _mm512_cvtepu32_epi64(
            _mm256_and_si256(_mm256_srli_epi32(tmp, 18), _mm256_set1_epi32(31)));
        const __m512d z = _mm512_cvtps_pd(_mm256_castsi256_ps(_mm256_sub_epi32(
            ux, _mm256_and_si256(tmp, _mm256_set1_epi32((int)0xFF800000u)))));
        const __m512d kd = _mm512_cvtepi32_pd(k);
        const __mmask8 upper = _mm512_test_epi64_mask(idx, _mm512_set1_epi64(16));
{AVX512_LOOKUP}\
        const __m512d r = _mm512_fmadd_pd(z, ic, _mm512_set1_pd(-1.0));
        const __m512d p = _mm512_fmadd_pd(_mm512_mul_pd(r, r), {horner512("r", AVX512_TAYLOR)}, r);
        const __m512d v = _mm512_add_pd(_mm512_fmadd_pd(kd, _mm512_set1_pd(UL_LN2), lc), p);
        /* the midpoint test: the low 32 bits of v (vpmovqd) */
{avx512_midpoint(ERR)}\
        const __m256i b = _mm256_mask_blend_epi32(ok, _mm256_set1_epi32(0x7FC00001),
                                                  _mm256_castps_si256(_mm512_cvtpd_ps(v)));
{AVX512_STORE}\
"""
"""The float64 permute loop that log's avx512 build ran on AMD processors until 2026-11-26
(late evening; ``LANES32_AVX512`` runs there now); log2's avx512 build runs it, made from this text
(``ulplab.export.fast64.log2``: ``AVX512_SWAPS``), and log1p's shares its parts
(``AVX512_HEAD``, ``AVX512_LOOKUP``, ``avx512_midpoint``, ``AVX512_STORE``)."""

LANES32_BETA = 2.0**-36
"""The float32 lanes' rounding test: B = 2^-36 |log x| for k != 0 (``lanes32_bound``:
2^-37.08, a margin of 2.1)."""

LANES32_BETA_K0 = 2.0**-32
"""The float32 lanes' rounding test: B = 2^-32 |log x| for k = 0, x in [0.6875, 1.375)
(``lanes32_bound``: 2^-32.79, a margin of 1.7)."""


def lanes32_threshold(beta: float) -> int:
    """The 32-bit constant C of the float32 lanes' rounding test for B = beta |log x|: the
    float32 whose bits are (bits(s - 1 ulp) & 0x7F800000) + C is 2^(E-24) (1 - 2^25 beta), E
    the exponent of the largest float32 below |s| in magnitude (``LANES32_AVX512``)."""
    import struct

    factor = 1.0 - 2.0**25 * beta
    bits = struct.unpack("<I", struct.pack("<f", factor))[0]
    if struct.unpack("<f", struct.pack("<I", bits))[0] != factor:
        raise AssertionError("beta must make 1 - 2^25 beta a float32")
    return bits - 0x3F800000 - (24 << 23)


_LANES32_COEFFICIENTS = [Fraction((-1) ** (i + 1), i) for i in range(3, 8)]
"""The float32 lanes' log1p(r) = r - r^2/2 + r^3 (c3 + c4 r + ... + c7 r^4), c_i = (-1)^(i+1)/i
rounded to the nearest float32 in the C."""


def _c32(i: int) -> str:
    """c_i of ``_LANES32_COEFFICIENTS`` as a C float literal."""
    return nearest32(_LANES32_COEFFICIENTS[i - 3]).hex() + "f"


@cache
def _lanes32_constants() -> tuple:
    """(invc, lh, ll, L1, L2, |ln2 - L1 - L2|, |lh + ll + log(invc)| per subinterval, the
    coefficients c3..c7 as float64, the same rounded to float32, their rounding errors)."""
    import mpmath

    invc, lh, ll, l1, l2 = log_pairs32()
    with mpmath.workprec(200):
        ln2 = mpmath.log(2)
        dl2 = float(abs(ln2 - mpmath.mpf(l1) - mpmath.mpf(l2)))
        dll = [float(abs(-mpmath.log(mpmath.mpf(c)) - mpmath.mpf(h) - mpmath.mpf(lo)))
               for c, h, lo in zip(invc, lh, ll, strict=True)]
        chat = [float(mpmath.mpf(c.numerator) / c.denominator) for c in _LANES32_COEFFICIENTS]
    chat32 = [nearest32(c) for c in _LANES32_COEFFICIENTS]
    dcoef = [abs(float(c) - h) for c, h in zip(_LANES32_COEFFICIENTS, chat32, strict=True)]
    return invc, lh, ll, l1, l2, dl2, dll, chat, chat32, dcoef


def lanes32_error(t: float, h: float, i: int, k: int, rl: float = 0.0) -> tuple[float, float]:
    """(a bound on the absolute error of the float32 lanes' s + e, a bound on |lo|), for |r| <=
    t, |hi| = h, subinterval i and k (``lanes32_bound`` says how); with ``rl`` > 0 (softplus's
    lanes) r has a low part rl' (|rl'| <= rl, exact), summed as lo = a + ((e1 + e2) + rl' (1 -
    r + r^2 - r^3)) against log1p(r + rl'), the terms dropped included. Checks the conditions
    of the Fast2Sums (|hi| >= |r| or hi = 0; |s2| >= 4 |lo|)."""
    u = 2.0**-24
    _, _, ll, _, l2, dl2, dll, chat, chat32, dcoef = _lanes32_constants()
    s1 = h + t
    e1 = 0.0 if h == 0 else u * s1
    sq = t * t * (1 + u)
    s2 = s1 + sq / 2
    e2 = u * s2
    sql = u * sq
    c3, c4, c5, c6, c7 = (abs(c) for c in chat32)
    # Estrin: pa = c3 + c4 r, pb = c5 + c6 r, pc = pb + c7 sq, p = pa + sq pc (each one
    # rounding; sq = r^2 (1 + e), |e| <= u)
    pa = (c3 + c4 * t) * (1 + u)
    pb = (c5 + c6 * t) * (1 + u)
    pc = (pb + c7 * sq) * (1 + u)
    pm = (pa + sq * pc) * (1 + u)
    pc_err = u * pb + c7 * u * t * t + u * pc
    estrin_err = u * pa + u * t * t * pc + sq * pc_err + u * pm
    truncation = t**5 / 8 / (1 - t)
    coefficient_err = sum(dcoef[j] * t**j for j in range(5))
    big_p = sum(abs(c) * t**j for j, c in enumerate(chat)) + truncation
    dp = estrin_err + truncation + coefficient_err
    cube_err = t**3 * ((2 * u + u * u) * big_p + (1 + u) ** 2 * dp)
    # a = k L2 + ll (exact where k = 0); a2 = a - sql/2; a3 = r^3 p + a2; lo = a3 + (e1 + e2)
    a = (abs(k * l2) + abs(ll[i])) * (1 + u)
    a2 = (a + sql / 2) * (1 + u)
    a3 = (a2 + t**3 * (1 + u) ** 2 * (big_p + dp)) * (1 + u)
    e12 = (e1 + e2) * (1 + u)
    extra = 0.0
    if rl:
        # gr = r (r - r^2) - r (two roundings), rlc = rl gr + rl (one); dropped: rl r^4 / (1 -
        # |r|) and the terms in rl^2
        inner = (t + t * t) * (1 + u)
        gr = (t * inner + t) * (1 + u)
        gr_err = u * inner * t + u * gr
        rlc = rl * (1 + gr) * (1 + u)
        extra = rl * gr_err + u * rlc + rl * t**4 / (1 - t) + rl * rl / (1 - t) ** 2
        e12 = (e12 + rlc) * (1 + u)
    lo = (a3 + e12) * (1 + u)
    if not (s2 >= 4 * lo and (h == 0 or h >= t)):
        raise AssertionError(f"a Fast2Sum's condition fails at i = {i}, k = {k}")
    return ((0.0 if k == 0 else u * a) + (0.0 if a == 0 else u * a2) + cube_err + u * a3
            + u * e12 + u * lo + dll[i] + abs(k) * dl2 + extra), lo


def lanes32_bound() -> dict[str, tuple[float, int, int]]:
    """The float32 lanes' error bound: per class of inputs, log2 of the largest
    |s + e - log x| / |log x| the analysis (the module docstring) allows, and the subinterval
    i and k where it is reached: "near" (k = 0 and invc = 1: z within 2^-6 below and 2^-5
    above 1; relative to |log1p(r)| >= |r| (1 - |r|/2), on a grid of 64 |r| up to the largest),
    "k0" (k = 0 elsewhere: relative to the smallest |log z| of the subinterval), "k1" (k = +-1)
    and "k" (the other k, -126..128: relative to the smallest |k ln2 + log z|). Each rounding
    is bounded by 2^-24 times a bound on the magnitude of its result (0 where the operation is
    exact: e1 where hi = 0, + ll where ll = 0, k L2 where k = 0; ``lanes32_error``); the
    magnitudes grow with |r|, so are taken at the largest |r| of the subinterval
    (``tables.log_invc32``). Checks on the way the conditions of the three Fast2Sums."""
    import math

    invc, lh, _, l1, *_ = _lanes32_constants()
    worst: dict[str, tuple[float, int, int]] = {}
    for i in range(1 << LOG32_BITS):
        lo, hi = log_subinterval(i, LOG32_BITS)
        zlo, zhi = math.log(lo), math.log(np.nextafter(np.float32(hi), np.float32(0)))
        rmax = log_invc32(i)[2]
        near = invc[i] == 1.0
        for k in range(-126, 129):
            h = abs(k * l1 + lh[i])
            if k == 0 and near:
                rel = max(lanes32_error(rmax * q / 64, h, i, k)[0]
                          / (rmax * q / 64 * (1 - rmax / 2)) for q in range(1, 65))
                key = "near"
            else:
                a, b = k * math.log(2) + zlo, k * math.log(2) + zhi
                rel = lanes32_error(rmax, h, i, k)[0] / (min(abs(a), abs(b)) * (1 - 1e-12))
                key = "k0" if k == 0 else "k1" if abs(k) == 1 else "k"
            if rel > worst.get(key, (0.0, 0, 0))[0]:
                worst[key] = (rel, i, k)
    return {key: (math.log2(v[0]), v[1], v[2]) for key, v in worst.items()}


LANES32_P = f"""_mm512_fmadd_ps(
        sq, _mm512_fmadd_ps(sq, _mm512_set1_ps({_c32(7)}),
                            _mm512_fmadd_ps(r, _mm512_set1_ps({_c32(6)}),
                                            _mm512_set1_ps({_c32(5)}))),
        _mm512_fmadd_ps(r, _mm512_set1_ps({_c32(4)}), _mm512_set1_ps({_c32(3)})))"""
"""The float32 lanes' p = (c3 + c4 r) + sq ((c5 + c6 r) + c7 sq) on the AVX-512 registers ``r``
and ``sq`` (Estrin's scheme; softplus's lanes use it too)."""


def lanes32_core(k: str) -> str:
    """The C of the float32 lanes' middle on AVX-512 registers, given r (exact), lh, ll and the
    float k (named ``k``): hi = k L1 + lh (exact), hi + r = s1 + e1 and s1 - r^2/2 = s2 + e2
    (Fast2Sums; sq + sql = r^2), p (``LANES32_P``) and a = (k L2 + ll) - sql/2 + r^3 p; the
    caller adds e1 + e2 (log's lanes; softplus's also its r's low part) to a for lo."""
    return f"""\
    const __m512 hi = _mm512_fmadd_ps({k}, _mm512_set1_ps(UL_LN2_F1), lh);   /* exact */
    /* hi + r = s1 + e1 (Fast2Sum); s1 - r^2/2 = s2 + e2 (Fast2Sum; sq + sql = r^2) */
    const __m512 s1 = _mm512_add_ps(hi, r);
    const __m512 e1 = _mm512_sub_ps(r, _mm512_sub_ps(s1, hi));
    const __m512 sq = _mm512_mul_ps(r, r);
    const __m512 sql = _mm512_fmsub_ps(r, r, sq);
    const __m512 s2 = _mm512_fnmadd_ps(sq, _mm512_set1_ps(0.5f), s1);
    const __m512 e2 = _mm512_fnmadd_ps(sq, _mm512_set1_ps(0.5f), _mm512_sub_ps(s1, s2));
    /* p = (c3 + c4 r) + sq ((c5 + c6 r) + c7 sq) (Estrin's scheme: the loop is bound by
       its latency, and Horner's took 0.264 ns an element against 0.250) */
    const __m512 p = {LANES32_P};
    /* lo = ((k L2 + ll) - sql/2 + r^3 p) + (e1 + e2): e1 + e2 last, the end of the longest
       chain (a chain of the small terms first, then ll, then k L2, took 0.250 -> 0.227) */
    __m512 a = _mm512_fmadd_ps({k}, _mm512_set1_ps(UL_LN2_F2), ll);
    a = _mm512_fmadd_ps(sql, _mm512_set1_ps(-0.5f), a);
    a = _mm512_fmadd_ps(_mm512_mul_ps(sq, r), p, a);
"""


LANES32_AVX512 = f"""
/* log(x) in the 16 float32 lanes of an AVX-512 register (ulplab.export.fast64.log: the
   analysis): each operation rounded to nearest (an fmadd, fmsub or fnmadd is fmaf with its
   operands' signs, a single rounding); the tables of 32 subintervals in two registers each,
   read by one permute (vpermt2ps reads the index's low 5 bits). The lanes under `keep` are
   read (the others as 0) and stored, by plain loads and stores where all 16 are; a lane
   gets the correctly rounded result's bits, or 0x7FC00001 where the rounding test cannot
   decide or x is not a positive normal number; returns the bit mask of the lanes flagged. */
UL_SCHEDULE static inline uint32_t ul_log_lanes32_x16(const float *x, float *y, __mmask16 keep,
                                                      const __m512 *t) {{
    const __m512i ux = keep == (__mmask16)0xFFFF ? _mm512_loadu_si512(x)
                                                 : _mm512_maskz_loadu_epi32(keep, x);
    /* the generic loop's `bad`: ux - 0x00800000 >= 0x7F000000, unsigned */
    const __mmask16 bad = _mm512_cmpge_epu32_mask(
        _mm512_sub_epi32(ux, _mm512_set1_epi32(0x00800000)), _mm512_set1_epi32(0x7F000000));
    /* x = 2^k z, z in [0.6875, 1.375): tmp = bits(x) - bits(0.6875f), k = tmp >> 23
       (arithmetic), the subinterval the next {LOG32_BITS} bits */
    const __m512i tmp = _mm512_sub_epi32(ux, _mm512_set1_epi32(0x{LOG_OFF32:08X}));
    const __m512 kf = _mm512_cvtepi32_ps(_mm512_srai_epi32(tmp, 23));
    const __m512i idx = _mm512_srli_epi32(tmp, {23 - LOG32_BITS});
    const __m512 z = _mm512_castsi512_ps(_mm512_sub_epi32(
        ux, _mm512_and_si512(tmp, _mm512_set1_epi32((int)0xFF800000u))));
    const __m512 invc = _mm512_permutex2var_ps(t[0], idx, t[1]);
    const __m512 lh = _mm512_permutex2var_ps(t[2], idx, t[3]);
    const __m512 ll = _mm512_permutex2var_ps(t[4], idx, t[5]);
    const __m512 r = _mm512_fmadd_ps(z, invc, _mm512_set1_ps(-1.0f));       /* exact */
{lanes32_core("kf")}    const __m512 lo = _mm512_add_ps(a, _mm512_add_ps(e1, e2));
    /* s2 + lo = s + e (Fast2Sum) */
    const __m512 s = _mm512_add_ps(s2, lo);
    const __m512 e = _mm512_sub_ps(lo, _mm512_sub_ps(s, s2));
    const __m512i sb = _mm512_castps_si512(s);
    /* s is the correctly rounded result where |e| < 2^(E-24) - B, E the exponent of the
       float32 below |s| (bits(s) - 1: one less at a power of two, whose lower gap is half),
       B = 2^(E+1) beta: the float32 whose bits are (that exponent field) + C, C for beta =
       2^-32 where k = 0 and 2^-36 elsewhere, compared as signed integers with |e|'s bits
       (s = 0, at x = 1, gives a large threshold: e = 0 there) */
    const __mmask16 k0 = _mm512_cmpeq_epi32_mask(_mm512_castps_si512(kf), _mm512_setzero_si512());
    const __m512i thr = _mm512_add_epi32(
        _mm512_and_si512(_mm512_sub_epi32(sb, _mm512_set1_epi32(1)),
                         _mm512_set1_epi32(0x7F800000)),
        _mm512_mask_blend_epi32(k0, _mm512_set1_epi32({lanes32_threshold(LANES32_BETA)}),
                                _mm512_set1_epi32({lanes32_threshold(LANES32_BETA_K0)})));
    const __m512i m = _mm512_and_si512(_mm512_castps_si512(e), _mm512_set1_epi32(0x7FFFFFFF));
    const __mmask16 ok = _mm512_mask_cmplt_epi32_mask((__mmask16)~bad, m, thr);
    const __m512i res = _mm512_mask_blend_epi32(ok, _mm512_set1_epi32(0x7FC00001), sb);
    if (keep == (__mmask16)0xFFFF) _mm512_storeu_si512(y, res);
    else _mm512_mask_storeu_epi32(y, keep, res);
    return (uint32_t)(keep & (__mmask16)~ok);
}}
"""
"""The avx512 build's float32 lanes: ``ul_log_lanes32_x16(x, y, keep, t)``, the tables in ``t``
(invc, lh, ll: two registers each)."""

LANES32_LOOP = f"""
/* the avx512 build's loop on AMD processors (ul_avx512_permutes()): the float32 lanes, 16
   inputs at a time (the last n mod 16 under a mask), then the float64 evaluation on what they
   flagged; returns how many of its results that left flagged */
UL_SCHEDULE static long ul_log_permutes(const float *restrict x, float *restrict y, long n) {{
    long left = 0;
    const __m512 t[6] = {{_mm512_loadu_ps(ul_log32_invc), _mm512_loadu_ps(ul_log32_invc + 16),
                         _mm512_loadu_ps(ul_log32_lh), _mm512_loadu_ps(ul_log32_lh + 16),
                         _mm512_loadu_ps(ul_log32_ll), _mm512_loadu_ps(ul_log32_ll + 16)}};
{lanes_loop_x16("ul_log_lanes32_x16", "t", "ul_log_lanes64", registers=4)}\
    return left;
}}
"""
"""The avx512 build's loop of float32 lanes (compiled where the target has AVX-512F, beside the
generic loop, and run where ``fast64.avx512_choice`` chooses it: every processor,
``fast64.amd_everywhere``)."""

LANES64 = f"""
/* log(x) in float64 (the analysis above): the result's bits or FLAG_NAN */
static inline uint32_t ul_log_lanes64(float xf) {{
    uint32_t ux;
    memcpy(&ux, &xf, 4);
    /* positive normal inputs only: +0 and subnormals (below 0x00800000), +inf, NaN and
       every negative input (sign bit set) are flagged (the subnormals' logs are ordinary
       numbers, but rare; the second pass takes them) */
    const uint32_t bad = ux - 0x00800000u >= 0x7F800000u - 0x00800000u;
{_dedent4(REDUCE)}\
    const double kd = (double)k;
    const double r = UL_FMA(z, ul_log_invc[idx], -1.0);
    const double p = UL_FMA(r * r, {horner("r", TAYLOR)}, r);
    const double hi = UL_FMA(kd, UL_LN2, ul_log_logc[idx]);
    return ul_round_normal_or_flag(hi + p, bad, {ERR}, 0);
}}
"""
"""The float64 evaluation of one input: the generic loop's body, and the float32 lanes'
fallback."""

SOURCE = (ROUND_NORMAL + LANES64 + "\n#ifdef __AVX512F__\n#include <immintrin.h>\n"
          + SCHEDULE + avx512_choice("log") + LANES32_AVX512 + LANES32_LOOP + "#endif\n"
          + avx512_entry("log")) + """\
    for (long i = 0; i < n; i++) {
        const uint32_t b = ul_log_lanes64(x[i]);
        memcpy(y + i, &b, 4);
    }
    return -1;
}
"""


def tables() -> str:
    return (log_tables(BITS) + ln2_nearest() + "#ifdef __AVX512F__\n" + log_tables32()
            + "#endif\n")
