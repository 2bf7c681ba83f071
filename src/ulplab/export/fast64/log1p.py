"""det log1p's float64 first pass.

log's reduction (``ulplab.export.fast64.log``: 256 subintervals of [0.6875, 1.375),
``tables.log_tables(8)``, invc of 21 significant bits, logc = -log(invc) rounded to nearest, the
degree-5 Taylor polynomial ``TAYLOR``, ``tables.ln2_nearest``) applied to 1 + x, with r taken
from x itself rather than from 1 + x:
* u = 1 + x in float64 (x converted exactly): exact for 2^-25 <= |x| < 2^52 (x a float32 > -1:
  its lowest bit is at least 2^-48 there, 1 + x is below 2^53 and a multiple of it), rounded
  once above; u only chooses k and the subinterval: u = 2^k z, z in [0.6875, 1.375), from u's
  bits minus 0.6875's (``tables.LOG_OFF``: k in the top 12 bits, the subinterval i in the
  next 8), as softplus does; k (-24..128 here) as a double from k + 2048 by a logical shift
  (0x1.8p52 + 2048 + k from its bits, minus 0x1.8p52 + 2048: exact), no 64-bit arithmetic
  shift, which AVX2 and SSE2 lack;
* a = invc[i] 2^-k (its bits minus k << 52: exact, normal) and r = a (1 + x) - 1 = a x +
  (a - 1) in one FMA (a product and a sum without one): a x is exact (21 x 24 significant bits,
  normal), a - 1 is exact for k <= 31 (for k <= 0, a < 2^26 and a multiple of 2^-21; for
  0 < k <= 31, a in (0, 1) and a multiple of 2^-53) and rounds once above (|a - 1| < 1: within
  2^-54), so r = a (1 + x) - 1 within 2^-53 |r| (+ 2^-54 where k > 31), the FMA build and the
  portable one alike (the product is exact either way). This replaces log's z invc - 1, which
  is not exact for a 53-bit z (z invc has up to 74 bits): the true z = (1 + x) 2^-k is within
  2^-53 relative of u 2^-k, which lies in subinterval i, so |r| < 2^-8 next to 1 (u exact
  there) and below 2^-9 + 2^-21 + 2^-52.4 elsewhere (log's bounds, ``tables.log_tables``' test);
* log1p(x) = k ln2 + logc[i] + log1p(r): p = r + r^2 P(r) (log's degree-5 polynomial),
  hi = fma(k, UL_LN2, logc[i]), y = hi + p.
Error, in three cases:
* A, k = 0 and invc = 1 (x in [-2^-9, 2^-8)): a = 1, r = x exactly, hi = 0, y = p: log's case
  next to 1, the truncation below |r|^6/6 / (1 - |r|) < 2^-42.57 |log1p(r)| and the Horner
  roundings below 2^-52.9: below 2^-42.56 relative (measured against mpmath: 2^-42.59 near
  x = 2^-8, 2^-51.8 for |x| < 2^-10);
* B, k = 0 elsewhere (x in [-0.3125, -2^-9) or [2^-8, 0.375): u exact, |log1p(x)| >= 2^-9):
  r's rounding 2^-53 |r| <= 2^-52.9 |log1p(x)|, truncation below 2^-56.5 (2^-47.5 relative),
  Horner 2^-52.9, logc's rounding 2^-53 |logc| <= 2^-52 |log1p(x)| (|logc| <= 2 |log u|, log's
  test), the sum 2^-53: below 2^-47.3 (measured: 2^-48.5 at worst);
* C, k != 0 (x < -0.3125 or x >= 0.375: |log1p(x)| >= log(1.375) = 0.318): r within 2^-54 +
  2^-62 (2^-52.3 relative), truncation 2^-56.5 (2^-54.8), ln2's error 2^-54 |k ln2| with
  |k ln2| <= 2.18 |log1p(x)| (2^-52.9), hi's rounding (two without an FMA instruction: 2^-53
  |hi| + 2^-53 |k ln2|, |hi| <= 1.02 |log1p(x)|), the sum's, Horner's (|p| < 2^-7.3 |log1p(x)|):
  below 2^-50.1 (measured: 2^-50.9 at worst). For x >= 2^52, where u rounds, r still comes
  from x: nothing changes.
So below 2^-42.56 relative everywhere (case A, as log's pass), 2^10.44 units in the last
place of the float64 result; the rounding test (``fast64.ROUND_NORMAL``) takes log's ERR = 4096
= 2^12 (a margin of 2.9) and flags about 2 ERR / 2^29 = 1.5e-5 of ordinary inputs.

Special inputs, by tests on x's bits (the entry point's thresholds, ``ulplab.kernels.log1p``'s
specification, step 1):
* x <= -1 (-1, -inf and every pattern from 0xBF800000 up, the negative NaNs included), +inf
  and the positive NaNs: flagged (the second pass returns -inf, NaN and +inf);
* |x| < 2^-25 (0x33000000, ``TINY``: the entry point's ``TINY_BITS``; zero and the subnormals
  included): x itself, kept (x^2/2 < 2^-26 |x|, below half the spacing beside x);
every other input has |log1p(x)| in [2^-25 (1 - 2^-25), 88.73] (x > -1 + 2^-24 up to FLT_MAX),
the normal float32 range: no range test.
Flagged on ordinary inputs (2^24 each, every variant the same lanes): 10^uniform(-30, 30)
1.0e-5, uniform(-0.99, 10) 1.4e-5.

Speed: 4,096 inputs in cache, one thread, best of 200 rounds of 200 calls, this project's
2-core AVX-512 Xeon VM (gcc 12), ns per element, beside exp's and log's passes in the same
script: avx512 build 0.69-0.70 (both input sets; log 0.53), avx2 build 1.33 (log 0.93-0.95);
the runner's float32 first pass took about 3.1. The loop vectorizes with 64-byte vectors
(avx512 build), 32-byte (avx2) and 16-byte (portable).

**The avx512 build's second loop** (``AVX512``, since 2026-11-26, night; run on AMD
processors, ``fast64.AVX512_PATHS``) is written for AVX-512 registers:
the steps above with log's avx512 tables of 32 subintervals (read by permutes of registers,
not gathers; invc still of 21 significant bits, so a x and a - 1 stay as above) and its
degree-8 polynomial (``ulplab.export.fast64.log``: ``AVX512_BITS``, ``AVX512_TAYLOR``). Case A
is then x in [-2^-6, 2^-5) (r = x, |r| < 2^-5): truncation below 2^-43.10 |log1p(r)|, with
Horner's roundings below 2^-43.09; case B (|log1p(x)| >= 2^-6, |logc| <= 1.51 |log u|):
truncation below 2^-57.7 absolute, 2^-51.7 relative, the roundings as above; case C as
above. So below 2^-43.09 everywhere: the same ERR = 4096 (a margin of 4.2). The whole pass,
2^16 inputs log-uniform in [1e-30, 1e30] in cache, one thread, one C harness with the
runner's avx512 flags, the gather build against this one, timed alternately: 0.85 -> 0.61 ns
per element on a 2-core AMD EPYC VM (family 26, gcc 12; a proof ran beside it on the other
core).
"""

from __future__ import annotations

from ulplab.export.fast64 import ROUND_NORMAL, avx512_choice, avx512_entry, log
from ulplab.export.fast64.log import BITS, TAYLOR
from ulplab.export.fast64.tables import LOG_OFF, horner, horner512, ln2_nearest, log_tables

ERR = 4096
"""The rounding test's bound, in units in the last place of the float64 result."""

TINY = 0x33000000
"""2^-25 as float32 bits: below it (zero and the subnormals included) the result is x."""

K_BIAS = 2048
"""Added to k before a logical shift (k = -24..128 here): no 64-bit arithmetic shift."""

AVX512 = f"""
/* the avx512 build's permute loop, where ul_avx512_permutes() chooses it
   (ulplab.export.fast64.log1p: the analysis): 8 inputs at a time (the last n
   mod 8 under a mask: the lanes past n read as 0 and not stored); log's tables of 32
   subintervals, not 256, read by permutes of registers (vpermt2pd: 16 entries of two
   registers, then a blend on bit 4 of the index) instead of gathers, and log's avx512
   polynomial of degree 8, not 5 (ulplab.export.fast64.log: AVX512_BITS, AVX512_TAYLOR);
   otherwise the generic loop's steps: the input tests, u = 1 + x, k and the index from u's
   bits, a = invc 2^-k, r = a x + (a - 1), Horner's scheme, k ln2 + logc + p, the midpoint
   test on the low 32 bits, x itself where |x| < 2^-25 */
static void ul_log1p_permutes(const float *restrict x, float *restrict y, long n) {{
{log.AVX512_HEAD}\
        /* the generic loop's `bad` and `tiny`, unsigned */
        const __mmask8 bad =
            _mm256_cmpge_epu32_mask(ux, _mm256_set1_epi32((int)0xBF800000u)) |
            _mm256_cmplt_epu32_mask(_mm256_sub_epi32(ux, _mm256_set1_epi32(0x7F800000)),
                                    _mm256_set1_epi32(0x00800000));
        const __mmask8 tiny = _mm256_cmplt_epu32_mask(
            _mm256_and_si256(ux, _mm256_set1_epi32(0x7FFFFFFF)), _mm256_set1_epi32(0x{TINY:08X}));
        const __m512d xd = _mm512_cvtps_pd(_mm256_castsi256_ps(ux));
        const __m512i ub = _mm512_castpd_si512(_mm512_add_pd(_mm512_set1_pd(1.0), xd));
        const __m512i tmp = _mm512_sub_epi64(ub, _mm512_set1_epi64(0x{LOG_OFF:016X}ll));
        const __m512i idx = _mm512_srli_epi64(tmp, {52 - log.AVX512_BITS});
        const __mmask8 upper = _mm512_test_epi64_mask(idx, _mm512_set1_epi64(16));
        const __m512d kd = _mm512_sub_pd(
            _mm512_castsi512_pd(_mm512_add_epi64(
                _mm512_set1_epi64(0x4338000000000000ll),
                _mm512_srli_epi64(_mm512_add_epi64(tmp, _mm512_set1_epi64({K_BIAS}ll << 52)),
                                  52))),
            _mm512_set1_pd({float(3 * 2**51 + K_BIAS).hex()}));
{log.AVX512_LOOKUP}\
        const __m512d a = _mm512_castsi512_pd(_mm512_sub_epi64(
            _mm512_castpd_si512(ic),
            _mm512_and_si512(tmp, _mm512_set1_epi64((long long)0xFFF0000000000000ull))));
        const __m512d r = _mm512_fmadd_pd(a, xd, _mm512_sub_pd(a, _mm512_set1_pd(1.0)));
        const __m512d p = _mm512_fmadd_pd(_mm512_mul_pd(r, r),
                                          {horner512("r", log.AVX512_TAYLOR)}, r);
        const __m512d v = _mm512_add_pd(_mm512_fmadd_pd(kd, _mm512_set1_pd(UL_LN2), lc), p);
{log.avx512_midpoint(ERR)}\
        const __m256i b = _mm256_mask_blend_epi32(
            tiny, _mm256_mask_blend_epi32(ok, _mm256_set1_epi32(0x7FC00001),
                                          _mm256_castps_si256(_mm512_cvtpd_ps(v))), ux);
{log.AVX512_STORE}\
"""
"""The avx512 build's permute loop (compiled where the target has AVX-512F, beside the generic
loop, and run where ``fast64.avx512_choice`` chooses it)."""


SOURCE = (ROUND_NORMAL + "\n#ifdef __AVX512F__\n#include <immintrin.h>\n"
          + avx512_choice("log1p") + AVX512 + "#endif\n"
          + avx512_entry("log1p")) + f"""\
    for (long i = 0; i < n; i++) {{
        uint32_t ux;
        memcpy(&ux, x + i, 4);
        const uint32_t au = ux & 0x7FFFFFFFu;
        /* x <= -1 (-inf and the negative NaNs too: every pattern from 0xBF800000 up), +inf and
           the positive NaNs */
        const uint32_t bad = (ux >= 0xBF800000u) | (ux - 0x7F800000u < 0x00800000u);
        /* |x| < 2^-25: x itself */
        const uint32_t tiny = au < 0x{TINY:08X}u;
        const double xd = (double)ul_float(ux);
        /* u = 1 + x rounded (exact below 2^52): u = 2^k z, z in [0.6875, 1.375); it picks k and
           the subinterval only, r comes from x itself */
        const uint64_t ub = ul_bits64(1.0 + xd);
        const uint64_t tmp = ub - 0x{LOG_OFF:016X}ull;
        const uint64_t idx = (tmp >> {52 - BITS}) & {(1 << BITS) - 1};
        /* k + 0x1.8p52 + {K_BIAS} from its bits, minus that: k as a double */
        const double kd = ul_double(0x4338000000000000ull + ((tmp + ({K_BIAS}ull << 52)) >> 52))
                          - {float(3 * 2**51 + K_BIAS).hex()};
        /* a = invc 2^-k (exact); r = a (1 + x) - 1 = a x + (a - 1): a x exact (21 x 24 bits) */
        const double a = ul_double(ul_bits64(ul_log_invc[idx]) - (tmp & 0xFFF0000000000000ull));
        const double r = UL_FMA(a, xd, a - 1.0);
        const double p = UL_FMA(r * r, {horner("r", TAYLOR)}, r);
        const double hi = UL_FMA(kd, UL_LN2, ul_log_logc[idx]);
        const uint32_t b = ul_round_normal_or_flag(hi + p, bad, {ERR}, 0);
        const uint32_t res = ul_sel32(tiny, ux, b);
        memcpy(y + i, &res, 4);
    }}
}}
"""


def tables() -> str:
    return (log_tables(BITS) + ln2_nearest() + "#ifdef __AVX512F__\n"
            + log_tables(log.AVX512_BITS, "ul_log5") + "#endif\n")
