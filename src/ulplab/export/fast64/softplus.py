"""det softplus's float64 first pass.

softplus(x) = max(x, 0) + log1p(E), E = exp(-|x|) in (0, 1], |x| clamped to 104 (exp's float64
split, ``ulplab.export.fast64.exp``: relative error < 2^-51.9; for |x| > 104 the true E is
below 2^-150, softplus(x) is x for x > 104 and below 2^-126 for x < -104, and the clamped
E = exp(-104) keeps both). log1p(E) with log's float64 tables of 256 subintervals
(``tables.log_tables(8)``) and log's degree-5 polynomial (``ulplab.export.fast64.log``'s
``BITS`` and ``TAYLOR``, imported):
* u = 1 + E rounded, c = E - (u - 1) exact (Fast2Sum: 1 >= E), so 1 + E = u + c exactly and
  log1p(E) = log(u) + log1p(c/u); |c| <= 2^-53 (half an ulp of u in [1, 2]), and c <= E.
  log1p(c/u) is taken as c: the difference is at most |c| (u - 1) + c^2 < 2^-52.4 E, and
  log1p(E) >= E ln2, so below 2^-51.9 relative;
* u = 2^k z with z in [0.6875, 1.375) (k = 0 or 1; the float64 bits of u minus those of 0.6875
  give k and log's subinterval i, ``tables.log_subinterval``), r = z invc[i] - 1 in one FMA:
  rounded once (z has 53 significant bits, so z invc is not exact), relative error 2^-53;
  without an FMA instruction (the portable build) z invc rounds first, an absolute error below
  2^-53 (z invc - 1 is then exact by Sterbenz's lemma), which is below 2^-45 |log u| wherever
  invc != 1 (there |log u| >= 2^-8.01: u is at least 2^-8 above 1, or k = 1 and log u >=
  0.318); where invc = 1 (the two subintervals next to 1), r = z - 1 exactly. |r| < 2^-8 next
  to 1, below 2^-9 + 2^-21 elsewhere (``tables.log_tables``' test);
* log(u) = (k ln2 + logc[i]) + p, p = log1p(r) by log's degree-5 Taylor polynomial,
  k ln2 + logc in one FMA with ln2 rounded to the nearest float64 (``tables.ln2_nearest``):
  where k = 0 and invc = 1 log(u) is p alone, truncation below |r|^6/6 / (1 - |r|) < 2^-42.57
  |log1p(r)|, the Horner roundings below 2^-52.9; elsewhere for k = 0 |logc| <= 2 |log u| and
  the truncation, below 2^-56.5, is below 2^-48.5 relative, the roundings below 2^-50; for
  k = 1, log u >= 0.318 and k ln2 + logc <= 1.02 log u, below 2^-50 again (log's analysis,
  ``ulplab.export.fast64.log``: here z has 53 bits instead of 24, which only r's rounding
  above sees);
* c is added to p, one more rounding (below 2^-53 relative), then hi + (p + c) one more.
So log1p(E) within 2^-51.9 (E) + 2^-42.57 + 2^-45 + 2^-51.9 (c) + 3 2^-53 < 2^-42.35
relative; the last sum max(x, 0) + log1p(E) adds 2^-53 (both terms are nonnegative: no
cancellation). Relative error below 2^-42.3, 2^10.7 units in the last place of the float64
result; the rounding test takes ERR = 4096 = 2^12 (a margin of 2.5) and flags about
2 ERR / 2^29 = 1.5e-5 of ordinary inputs.
Why this budget: until 2026-11-26 the pass had log's 128-subinterval tables, a degree-7
polynomial, ln2 in two parts and r made exact by splitting z in two (below 2^-48.4, ERR = 128):
a flag costs the second pass only where a chunk of the runner has one (3% of the chunks at
1.5e-5), and the looser bound buys two FMAs, the split (a mask, a subtraction and an FMA) and
ln2's second part a lane; the r of an FMA build is the same as the split's (one rounding of
z invc - 1 either way). The pass alone, 2^16 inputs in cache, one thread, this project's 2-core
AVX-512 VM, old and new timed alternately: see ``docs/kernels/shipping.md`` (2026-11-26).
Flagged: NaN (a test on x's bits); +inf (the sum is infinite) and results below 2^-126
(x < -87.34 and -inf) by the rounding test.

**The avx512 build's second loop** (``AVX512``, since 2026-11-26, night; run on AMD
processors, ``fast64.AVX512_PATHS``: on the 16-core Intel Xeon it took 311 Melem/s into a
reused output against 433-460 for gcc's loop, which runs there) reads no table by a gather: exp's
table of 64 float64s lies in eight AVX-512 registers (four permutes and three blends; the
same values, so exp's split is unchanged), and log's part uses log's avx512 tables of 32
subintervals with its degree-8 polynomial (``ulplab.export.fast64.log``: ``AVX512_BITS``,
``AVX512_TAYLOR`` and their analysis). Here u = 1 + E lies in [1, 2], so the subintervals
are those above 1: |r| < 2^-5 on [1, 1 + 2^-5) (invc = 1, r = z - 1 exact), below 2^-6.06
elsewhere and rounded once (relative 2^-53, as above); the truncation is below 2^-43.10
|log1p(r)| where k = 0 and invc = 1, and elsewhere (log u >= 2^-5.05 for k = 0, |logc| <=
1.51 log u) far below that; so log1p(E) within 2^-51.9 + 2^-43.10 + 2^-51.9 + 3 2^-53 <
2^-43.0 relative, the result within 2^-42.9: the same ERR = 4096 (a margin above 4). The
whole pass, 2^16 inputs in [-8, 8] in cache, one thread, one C harness with the runner's
avx512 flags, the gather build against this one, timed alternately: 1.85 -> 1.45 ns per
element on a 2-core AMD EPYC VM (family 26, gcc 12).
"""

from __future__ import annotations

from ulplab.export.fast64 import ROUND_RANGE32, avx512_choice, avx512_entry, log
from ulplab.export.fast64.exp import CORE as EXP_CORE
from ulplab.export.fast64.exp import TAYLOR as EXP_TAYLOR
from ulplab.export.fast64.log import BITS, TAYLOR
from ulplab.export.fast64.tables import (
    LOG_OFF,
    exp_table,
    horner,
    horner512,
    ln2_nearest,
    log_tables,
)

ERR = 4096
"""The rounding test's bound, in units in the last place of the float64 result."""


LOG_CORE = f"""
/* log(1 + e) for e in [0, 1], relative error < 2^-42.35 given e within 2^-51.9 (ulplab.export.
   fast64.softplus): u = 1 + e rounded, c = e - (u - 1) exact, log(u) from log's tables, + c */
static inline double ul_log1p_unit(double e) {{
    const double u = 1.0 + e;
    const double c = e - (u - 1.0);
    /* u = 2^k z, z in [0.6875, 1.375): tmp = bits(u) - bits(0.6875); k = tmp >> 52 (0 or 1
       here), the subinterval i = the next {BITS} bits */
    const uint64_t ub = ul_bits64(u);
    const uint64_t tmp = ub - 0x{LOG_OFF:016X}ull;
    const uint64_t idx = (tmp >> {52 - BITS}) & {(1 << BITS) - 1};
    const double kd = ul_double(ul_sel64(tmp >> 52, 0x3FF0000000000000ull, 0));  /* k */
    const double z = ul_double(ub - (tmp & 0xFFF0000000000000ull));
    const double r = UL_FMA(z, ul_log_invc[idx], -1.0);
    const double p = UL_FMA(r * r, {horner("r", TAYLOR)}, r);
    const double hi = UL_FMA(kd, UL_LN2, ul_log_logc[idx]);
    return hi + (p + c);
}}
"""

AVX512 = f"""
/* the avx512 build's permute loop, where ul_avx512_permutes() chooses it
   (ulplab.export.fast64.softplus: the analysis): 8 inputs at a time (the last n mod 8 under a
   mask: the lanes past n read as 0 and not stored), the generic loop's steps with no gather:
   exp's 64-entry table (eight registers) read by four permutes (vpermt2pd: 16 entries of two
   registers) and blends on bits 4 and 5 of the index, then log's tables of 32 subintervals,
   not 256 (four registers each: two permutes and a blend on bit 4) and log's avx512
   polynomial of degree 8, not 5 (ulplab.export.fast64.log: AVX512_BITS, AVX512_TAYLOR); the
   range and midpoint tests of ul_round_or_flag32 on the high and low 32 bits */
static void ul_softplus_permutes(const float *restrict x, float *restrict y, long n) {{
    __m512d et[8], invc[4], logc[4];
    for (int t = 0; t < 8; t++) et[t] = _mm512_loadu_pd(ul_exp_tab + 8 * t);
    for (int t = 0; t < 4; t++) {{
        invc[t] = _mm512_loadu_pd(ul_log5_invc + 8 * t);
        logc[t] = _mm512_loadu_pd(ul_log5_logc + 8 * t);
    }}
    for (long i = 0; i < n; i += 8) {{
        const long left = n - i;
        const __mmask8 keep = left >= 8 ? (__mmask8)0xFF : (__mmask8)((1u << left) - 1u);
        const __m256i u = left >= 8 ? _mm256_loadu_si256((const __m256i *)(x + i))
                                    : _mm256_maskz_loadu_epi32(keep, x + i);
        const __m256i au = _mm256_and_si256(u, _mm256_set1_epi32(0x7FFFFFFF));
        const __mmask8 nan = _mm256_cmpgt_epu32_mask(au, _mm256_set1_epi32(0x7F800000));
        /* |x| clamped to 104 (an unsigned minimum); max(x, 0): a signed maximum of the bits
           with 0 (0 for a set sign bit, x's bits otherwise) */
        const __m512d a = _mm512_cvtps_pd(_mm256_castsi256_ps(
            _mm256_min_epu32(au, _mm256_set1_epi32(0x42D00000))));
        const __m512d xpos = _mm512_cvtps_pd(_mm256_castsi256_ps(
            _mm256_max_epi32(u, _mm256_setzero_si256())));
        /* ul_exp_split(-a) */
        const __m512d v = _mm512_xor_pd(a, _mm512_set1_pd(-0.0));
        const __m512d shifted = _mm512_fmadd_pd(v, _mm512_set1_pd(0x1.71547652b82fep+6),
                                                _mm512_set1_pd(0x1.8p52));
        const __m512d kd = _mm512_sub_pd(shifted, _mm512_set1_pd(0x1.8p52));
        const __m512i kb = _mm512_castpd_si512(shifted);
        const __m512d r = _mm512_fmadd_pd(kd, _mm512_set1_pd(-UL_LN2_64_LO),
                                          _mm512_fmadd_pd(kd, _mm512_set1_pd(-UL_LN2_64_HI), v));
        const __mmask8 b4 = _mm512_test_epi64_mask(kb, _mm512_set1_epi64(16));
        const __mmask8 b5 = _mm512_test_epi64_mask(kb, _mm512_set1_epi64(32));
        const __m512d t0 = _mm512_mask_blend_pd(b4, _mm512_permutex2var_pd(et[0], kb, et[1]),
                                                _mm512_permutex2var_pd(et[2], kb, et[3]));
        const __m512d t1 = _mm512_mask_blend_pd(b4, _mm512_permutex2var_pd(et[4], kb, et[5]),
                                                _mm512_permutex2var_pd(et[6], kb, et[7]));
        const __m512d s = _mm512_castsi512_pd(_mm512_add_epi64(
            _mm512_castpd_si512(_mm512_mask_blend_pd(b5, t0, t1)),
            _mm512_slli_epi64(_mm512_srli_epi64(kb, 6), 52)));
        const __m512d q = _mm512_mul_pd(r, {horner512("r", EXP_TAYLOR)});
        const __m512d e = _mm512_fmadd_pd(s, q, s);
        /* ul_log1p_unit(e) with 32 subintervals: u1 = 2^k z, k = 0 or 1 (bit 52 of tmp) */
        const __m512d u1 = _mm512_add_pd(_mm512_set1_pd(1.0), e);
        const __m512d c = _mm512_sub_pd(e, _mm512_sub_pd(u1, _mm512_set1_pd(1.0)));
        const __m512i tmp = _mm512_sub_epi64(_mm512_castpd_si512(u1),
                                             _mm512_set1_epi64(0x{LOG_OFF:016X}ll));
        const __m512i idx = _mm512_srli_epi64(tmp, {52 - log.AVX512_BITS});
        const __mmask8 upper = _mm512_test_epi64_mask(idx, _mm512_set1_epi64(16));
        const __mmask8 k1 = _mm512_test_epi64_mask(tmp, _mm512_set1_epi64(1ll << 52));
        const __m512d z = _mm512_castsi512_pd(_mm512_sub_epi64(
            _mm512_castpd_si512(u1),
            _mm512_and_si512(tmp, _mm512_set1_epi64((long long)0xFFF0000000000000ull))));
{log.AVX512_LOOKUP}\
        const __m512d rl = _mm512_fmadd_pd(z, ic, _mm512_set1_pd(-1.0));
        const __m512d p = _mm512_fmadd_pd(_mm512_mul_pd(rl, rl),
                                          {horner512("rl", log.AVX512_TAYLOR)}, rl);
        const __m512d hi = _mm512_fmadd_pd(_mm512_maskz_mov_pd(k1, _mm512_set1_pd(1.0)),
                                           _mm512_set1_pd(UL_LN2), lc);
        const __m512d t = _mm512_add_pd(xpos, _mm512_add_pd(hi, _mm512_add_pd(p, c)));
        /* ul_round_or_flag32(t, nan, {ERR}) */
        const __m512i tb = _mm512_castpd_si512(t);
        const __m256i high = _mm256_and_si256(_mm512_cvtepi64_epi32(_mm512_srli_epi64(tb, 32)),
                                              _mm256_set1_epi32(0x7FFFFFFF));
        const __m256i near = _mm256_add_epi32(
            _mm256_and_si256(_mm512_cvtepi64_epi32(tb), _mm256_set1_epi32(0x1FFFFFFF)),
            _mm256_set1_epi32((int)({ERR}u - 0x10000000u)));
        const __mmask8 ok = _mm256_mask_cmplt_epu32_mask(
            (__mmask8)~nan, _mm256_sub_epi32(high, _mm256_set1_epi32(0x38100000)),
            _mm256_set1_epi32(0x47EFFFFF - 0x38100000)) &
            _mm256_cmpgt_epu32_mask(near, _mm256_set1_epi32(2 * {ERR}));
        const __m256i b = _mm256_mask_blend_epi32(ok, _mm256_set1_epi32(0x7FC00001),
                                                  _mm256_castps_si256(_mm512_cvtpd_ps(t)));
{log.AVX512_STORE}\
"""
"""The avx512 build's permute loop (compiled where the target has AVX-512F, beside the generic
loop, and run where ``fast64.avx512_choice`` chooses it)."""

SOURCE = (EXP_CORE + LOG_CORE + ROUND_RANGE32 + "\n#ifdef __AVX512F__\n#include <immintrin.h>\n"
          + avx512_choice("softplus") + AVX512 + "#endif\n" + avx512_entry("softplus")) + f"""\
    for (long i = 0; i < n; i++) {{
        uint32_t u;
        memcpy(&u, x + i, 4);
        const uint32_t au = u & 0x7FFFFFFFu;
        const uint32_t nan = au > 0x7F800000u;
        /* |x| clamped to 104 (0x42D00000); max(x, 0): 0 for a set sign bit */
        const double a = (double)ul_float(au < 0x42D00000u ? au : 0x42D00000u);
        const double xpos = (double)ul_float(ul_sel32(u >> 31, 0u, u));
        const struct ul_exp_parts e = ul_exp_split(-a);
        const double t = xpos + ul_log1p_unit(UL_FMA(e.s, e.q, e.s));
        const uint32_t b = ul_round_or_flag32(t, nan, {ERR});
        memcpy(y + i, &b, 4);
    }}
}}
"""


def tables() -> str:
    return (exp_table() + log_tables(BITS) + ln2_nearest() + "#ifdef __AVX512F__\n"
            + log_tables(log.AVX512_BITS, "ul_log5") + "#endif\n")
