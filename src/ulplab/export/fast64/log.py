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

**The avx512 build holds a second loop** (``AVX512``, since 2026-11-26, night) that reads no
table by a gather, run on AMD processors, whose gathers are slow (``fast64.AVX512_PATHS``: on
the 16-core Intel Xeon it was no faster, and gcc's loop with gathers runs there). It
computes the same way with 2^5 = 32 subintervals (``AVX512_BITS``: width 2^-6 below 1, 2^-5
above; ``tables.log_tables(5)``, the same construction) whose two tables of 32 float64s lie
in four AVX-512 registers each and are read by two permutes and a blend, and so with the
Taylor polynomial of degree 8 (``AVX512_TAYLOR``) in place of 5:
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

from ulplab.export.fast64 import ROUND_NORMAL, avx512_choice, avx512_entry
from ulplab.export.fast64.tables import (
    LOG_TABLE_BITS,
    horner,
    horner512,
    ln2_nearest,
    log1p_taylor,
    log_tables,
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
"""The C that ends the permute loops (log's family and softplus's): the results ``b`` stored,
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
"""The avx512 build's permute loop (compiled where the target has AVX-512F, beside the generic
loop, and run where ``fast64.avx512_choice`` chooses it)."""

SOURCE = (ROUND_NORMAL + "\n#ifdef __AVX512F__\n#include <immintrin.h>\n"
          + avx512_choice("log") + AVX512 + "#endif\n"
          + avx512_entry("log")) + f"""\
    for (long i = 0; i < n; i++) {{
        uint32_t ux;
        memcpy(&ux, x + i, 4);
        /* positive normal inputs only: +0 and subnormals (below 0x00800000), +inf, NaN and
           every negative input (sign bit set) are flagged (the subnormals' logs are ordinary
           numbers, but rare; the second pass takes them) */
        const uint32_t bad = ux - 0x00800000u >= 0x7F800000u - 0x00800000u;
{REDUCE}\
        const double kd = (double)k;
        const double r = UL_FMA(z, ul_log_invc[idx], -1.0);
        const double p = UL_FMA(r * r, {horner("r", TAYLOR)}, r);
        const double hi = UL_FMA(kd, UL_LN2, ul_log_logc[idx]);
        const uint32_t b = ul_round_normal_or_flag(hi + p, bad, {ERR}, 0);
        memcpy(y + i, &b, 4);
    }}
}}
"""


def tables() -> str:
    return (log_tables(BITS) + ln2_nearest() + "#ifdef __AVX512F__\n"
            + log_tables(AVX512_BITS, "ul_log5") + "#endif\n")
