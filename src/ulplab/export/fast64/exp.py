"""det exp's float64 first pass (and the exp core of tanh's).

x = (64 k + j) ln2/64 + r with k, j integers (j = k mod 64 after folding: k below is the
whole quotient) and |r| <= ln2/128, so exp(x) = 2^(k >> 6) * 2^(j/64) * exp(r):
* k = nearest(x * 64/ln2) (within 1/2 + 2^-40) by adding and subtracting 0x1.8p52;
  |k| < 2^13 for |x| <= 88.73;
* r = (x - k L1) - k L2 (two FMAs): L1 = ln2/64 rounded to 37 bits (k L1 exact, and x - k L1
  exact by Sterbenz's lemma), L2 = ln2/64 - L1 rounded to nearest; |error of r| < 2^-60 |r| +
  2^-90;
* q = exp(r) - 1 = r (1 + r/2 + ... + r^5/720), the Taylor coefficients rounded to nearest:
  truncation error < (ln2/128)^6/5040 < 2^-57 relative; with the roundings of the Horner steps
  and the product by r, relative error < 2^-52;
* s = 2^(j/64) from ``tables.exp_table`` (relative error <= 2^-53), 2^(k >> 6) added to its
  exponent field; exp(x) = s + s q (one FMA).
Relative error: below 2^-53 (s) + 2^-52 * 2^-7.5 (q, |q| < 2^-7.5) + 2^-53 (the FMA) + 2^-60
(r) < 2^-51.9, i.e. below 8 units in the last place of the float64 result; the rounding test
takes ERR = 32 (a margin of 4). Flagged: |x| > 88.72283 (overflow, and underflow to 0),
NaN and the infinities, by a test on x's bits; results below 2^-126 by the rounding test (the
second pass returns 0, subnormals and infinity).

**Float32 lanes first** (``LANES32``, compiled where the target has an FMA instruction: the
avx512 and avx2 builds; the portable build runs the float64 loop alone). A float32 lane holds
twice the elements of a float64 one, so the pass first evaluates every element in float32
arithmetic (each operation rounded to nearest; ``fmaf`` a single rounding) with a rounding test
of its own, then the float64 evaluation above runs on the elements it flagged (about 5e-4 of
ordinary inputs: a vectorized count per block of 256; in a block that has any, a bit mask per
32 elements and the flagged ones alone). Measured on 4,096 inputs in cache, one thread, this
project's AVX-512 Xeon VM (gcc 12), ns per element, this pass against the float64 loop alone:
inputs in [-4, 4] 0.46 against 0.59, in [-80, 80] 0.50 against 0.62 (the float32 lanes alone:
0.44); avx2 build, [-80, 80]: 0.83 against 1.19. The avx512 build runs the float32 lanes as
written for AVX-512 registers (``LANES32_AVX512``: the same operations, the table read by
permutes of registers instead of gathers): 0.446 -> 0.407 ns per element. For
|x| <= 87 (else flagged: NaN, the infinities and the range near overflow and underflow go to
the float64 evaluation):
* k = nearest(x C), C = 64/ln2 rounded to float32, by adding 0x1.8p23 in one fmaf
  (|x C| < 2^13); |x 64/ln2 - k| <= 1/2 + 87 |C - 64/ln2| < 1/2 + 2^-11.5, so the reduced
  argument r* = x - k ln2/64 has |r*| < 0.0054178 < 2^-7.528; j = k mod 64, k >> 6 = the
  power of two, from kt's bits as in the float64 pass;
* r1 = fmaf(-k, L1, x) is exact: L1 = ln2/64 rounded to float32 (0x1.62e43p-7, 21 significant
  bits) is a multiple of 2^-27, so x - k L1 is a multiple of min(ulp(x), 2^-27) below 2^-7.5
  in magnitude: below 2^24 such units, as k != 0 only for |x| > 2^-8 (ulp(x) >= 2^-31);
  c = k D (D = L1 - ln2/64 rounded to float32: |k D| < 2^-22, error of c below 2^-45.4 with
  D's), so r* = r1 + c within 2^-45.4;
* rr = r1 + c rounded (error < 2^-32); q = rr^2 (1/2 + rr (1/6 + rr/24)), the coefficients
  rounded to float32: |q - (exp(r*) - 1 - r*)| < 2^-37.9 (three roundings of 2^-24 relative
  on |q| < 2^-16.05, the truncation 2^-44.5, rr's error times |Q'| < 2^-39.5);
* 2^(j/64) = th + tl (float32 table, |error| <= 2^-49); w = fmaf(th, c + q, fmaf(tl, r1, tl))
  (|w| < 2^-15.04; its rounding 2^-40, c + q's 2^-40 times th);
* th r1 = ph + pl exactly (ph its rounding, pl = fmaf(th, r1, -ph)); th + ph = s1 + e1 exactly
  (Fast2Sum: |th| >= |ph|); lo = e1 + (pl + w) (two roundings of at most 2^-40 each: both
  sums are below 2^-15); s1 + lo = s + e exactly (Fast2Sum). So the scaled-down result
  2^(j/64) exp(r*) = s + e + delta, |delta| < 2^-36.22 (th (error of c + error of q) <
  2^-36.88, four roundings of 2^-40, tl (c + q) < 2^-40, the table 2^-49), s in
  [0.9945, 1.99);
* s is the correctly rounded result when |e| + B0 < H (B0 = 2^-35, 2.4 times the bound; H =
  half the smaller of the gaps beside s: 2^-24 for s in (1, 2), 2^-25 for s <= 1), tested on
  the bits as |e| < H - B0 (a float32); about 2^-11 = 5e-4 of the elements fail it (measured:
  5.0e-4 on uniform inputs in [-10, 10] and [-87, 87], 7.6e-4 in [-1e-3, 1e-3]). The result
  is s with k >> 6 added to its exponent field: for |x| <= 87, k >> 6 is in [-126, 125] and s
  >= 1.39 when it is -126, so the result is normal and the addition exact.
The lanes compare as signed 32-bit integers (every operand is non-negative wherever the result
is kept): AVX2 has no unsigned comparison and gcc made each one a minimum and an equality test;
the lanes alone in the avx2 build, 2^16 inputs in [-80, 80] in cache, one thread, the same VM,
unsigned and signed timed alternately in one C harness: 0.699 -> 0.635 ns per element, as fast
as the same lanes written with AVX2 intrinsics.
**The avx2 build's table** (``LANES32_AVX2``, since 2026-11-26): an AVX2 register holds 8
floats, so the 64-entry pairs need gathers there; instead 2^(j/64) = 2^(a/8) 2^(b/64), j = 8a +
b, from two tables of 8 float32 pairs (ah + al, bh + bl: each hi the nearest float32, each lo
the rest rounded to nearest, ``tables.exp_pairs32_split``), one permute of a register each, and
th = ah bh rounded, tl = fmaf(ah, bl, fmaf(al, bh, fmaf(ah, bh, -th))). Over the 64 j, computed
exactly (``tables.exp_split_bounds``): |th + tl - 2^(j/64)| <= 2^-47.30 2^(j/64) (against 2^-49
for the 64-entry pairs) and |tl| <= 2^-22.89 th (against 2^-24: th is ah bh's rounding, not
2^(j/64)'s); th = 1, tl = 0 at j = 0. In the analysis above only two terms change: the table's
2^-49 becomes 2^-47.30 times th < 1.98, 2^-46.32, and tl (c + q) < 2^-21.91 2^-16.03 = 2^-37.93
(|w| stays below 2^-15.02, so its rounding stays 2^-40): |delta| < 2^-35.92, and the rounding
test's B0 = 2^-35 still covers it (a margin of 1.89). The share flagged is the 64-entry lanes'
(measured on 2^24 uniform inputs: 5.0e-4 of [-10, 10] and of [-87, 87], the same to 2e-6).
The bound is a proof obligation that the exhaustive sweep checks (``benchmarks/verify_native.py
--fast64 exp``: the whole pass, both evaluations, against the float32 entry point on all 2^32
inputs per build variant).
"""

from __future__ import annotations

from fractions import Fraction
from math import factorial

from ulplab.export.fast64 import ROUND_RANGE32, SCHEDULE, lanes_loop_x16, rerun_flagged
from ulplab.export.fast64.tables import exp_table, exp_table32, exp_table32_split, horner

ERR = 32
"""The rounding test's bound, in units in the last place of the float64 result."""

TAYLOR = [Fraction(1, factorial(i)) for i in range(1, 7)]
"""(exp(r) - 1)/r's Taylor coefficients 1/(i + 1)!, i = 0..5 (low to high)."""

CORE = """
/* exp(v) = s + s q for |v| <= 104 (ulplab.export.fast64.exp): s = 2^(k/64) (from the table,
   relative error <= 2^-53) and q = exp(r) - 1 (relative error < 2^-52), v = k ln2/64 + r; for
   any other v (NaN and infinities included) some float64s, the table index in bounds */
struct ul_exp_parts { double s, q; };
static inline struct ul_exp_parts ul_exp_split(double v) {
    /* k = nearest(v 64/ln2) in the low bits of `shifted` (0x1.8p52 = bits 0x4338000000000000
       plus k; |k| < 2^14) */
    const double shifted = UL_FMA(v, 0x1.71547652b82fep+6, 0x1.8p52);
    const double kd = shifted - 0x1.8p52;
    const uint64_t kb = ul_bits64(shifted);
    const double r = UL_FMA(kd, -UL_LN2_64_LO, UL_FMA(kd, -UL_LN2_64_HI, v));
    /* 2^(k >> 6) into 2^(j/64)'s exponent field, j = k mod 64 = kb mod 64: kb >> 6 << 52 is
       (k >> 6) << 52 mod 2^64, as 0x4338000000000000 >> 6 << 52 = 0 mod 2^64 */
    const struct ul_exp_parts e = {
        ul_double(ul_bits64(ul_exp_tab[kb & 63]) + ((kb >> 6) << 52)),
        r * """ + horner("r", TAYLOR) + """};
    return e;
}
"""

LANES32 = """
/* exp(v) in float32 lanes (ulplab.export.fast64.exp: the analysis): the correctly rounded
   result's bits, or 0x7FC00001 where the rounding test cannot decide or |v| > 87 */
static inline uint32_t ul_exp_lanes32(float v) {
    uint32_t u;
    memcpy(&u, &v, 4);
    /* the comparisons below are signed: every operand is non-negative where the result is
       kept (|v|'s bits; s in [0.9945, 1.99) and |e| where v is not flagged), and AVX2 has no
       unsigned 32-bit comparison (gcc makes each of a minimum and an equality test) */
    const uint32_t bad = (int32_t)(u & 0x7FFFFFFFu) > 0x42AE0000;  /* 87.0 */
    const float kt = fmaf(v, UL_64_LN2_F, 0x1.8p23f);
    const float k = kt - 0x1.8p23f;
    const uint32_t kb = ul_bits32(kt);
    const float r1 = fmaf(-k, UL_LN2_64_F, v);
    const float c = k * UL_LN2_64_F_OVER;
    const float rr = r1 + c;
    const float q = (rr * rr) * fmaf(fmaf(rr, 0x1.555556p-5f, 0x1.555556p-3f), rr, 0.5f);
    const int j = (int)(kb & 63u);  /* a signed index: gcc gathers with it */
    const float th = ul_exp32_hi[j], tl = ul_exp32_lo[j];
    const float w = fmaf(th, c + q, fmaf(tl, r1, tl));
    /* th + th r1 + w = s + e + (error of lo): th r1 = ph + pl exactly (fmaf), th + ph = s1 + e1
       exactly (Fast2Sum), lo = e1 + (pl + w), s1 + lo = s + e exactly (Fast2Sum) */
    const float ph = th * r1;
    const float pl = fmaf(th, r1, -ph);
    const float s1 = th + ph;
    const float e1 = ph - (s1 - th);
    const float lo = e1 + (pl + w);
    const float s = s1 + lo;
    const float e = lo - (s - s1);
    const uint32_t sb = ul_bits32(s);
    /* fabsf(e) < H - B0, B0 = 2^-35: 0x1p-24f - 0x1p-35f and 0x1p-25f - 0x1p-35f */
    const int32_t limit = (int32_t)sb > 0x3F800000 ? 0x337FE000 : 0x32FFC000;
    const float m = fabsf(e);
    const uint32_t ok = !bad & ((int32_t)ul_bits32(m) < limit);
    return ul_sel32(ok, sb + ((kb >> 6) << 23), 0x7FC00001u);
}
"""

LANES32_AVX512 = r"""
#ifdef __AVX512F__
#include <immintrin.h>
/* ul_exp_lanes32 on the 16 lanes of an AVX-512 register: the same float32 operations in the
   same order, each rounded to nearest (an fmadd, fnmadd or fmsub is fmaf with its operands'
   signs, a single rounding), with the table's 64 entries (hi and lo, four registers each)
   read by two permutes of two registers and a blend on bit 5 of the index instead of two
   16-lane gathers. The lanes under `keep` are read (the others as 0) and stored, by plain
   loads and stores where all 16 are (masked ones on every block made the pass three times
   slower when its data came from memory on an AMD EPYC); returns the bit mask of those
   flagged. */
UL_SCHEDULE static inline uint32_t ul_exp_lanes32_x16(const float *x, float *y,
                                                      __mmask16 keep, const __m512 *hi,
                                                      const __m512 *lo) {
    const __m512 v = keep == (__mmask16)0xFFFF ? _mm512_loadu_ps(x)
                                               : _mm512_maskz_loadu_ps(keep, x);
    const __m512i u = _mm512_castps_si512(v);
    const __mmask16 bad = _mm512_cmpgt_epu32_mask(              /* |v| > 87.0 */
        _mm512_and_si512(u, _mm512_set1_epi32(0x7FFFFFFF)), _mm512_set1_epi32(0x42AE0000));
    const __m512 kt = _mm512_fmadd_ps(v, _mm512_set1_ps(UL_64_LN2_F),
                                      _mm512_set1_ps(0x1.8p23f));
    const __m512 k = _mm512_sub_ps(kt, _mm512_set1_ps(0x1.8p23f));
    const __m512i kb = _mm512_castps_si512(kt);
    const __m512 r1 = _mm512_fnmadd_ps(k, _mm512_set1_ps(UL_LN2_64_F), v);
    const __m512 c = _mm512_mul_ps(k, _mm512_set1_ps(UL_LN2_64_F_OVER));
    const __m512 rr = _mm512_add_ps(r1, c);
    const __m512 q = _mm512_mul_ps(
        _mm512_mul_ps(rr, rr),
        _mm512_fmadd_ps(_mm512_fmadd_ps(rr, _mm512_set1_ps(0x1.555556p-5f),
                                        _mm512_set1_ps(0x1.555556p-3f)),
                        rr, _mm512_set1_ps(0.5f)));
    /* j = kb mod 64: the permutes read the index's low 5 bits, bit 5 picks the pair */
    const __mmask16 upper = _mm512_test_epi32_mask(kb, _mm512_set1_epi32(32));
    const __m512 th = _mm512_mask_blend_ps(upper, _mm512_permutex2var_ps(hi[0], kb, hi[1]),
                                           _mm512_permutex2var_ps(hi[2], kb, hi[3]));
    const __m512 tl = _mm512_mask_blend_ps(upper, _mm512_permutex2var_ps(lo[0], kb, lo[1]),
                                           _mm512_permutex2var_ps(lo[2], kb, lo[3]));
    const __m512 w = _mm512_fmadd_ps(th, _mm512_add_ps(c, q), _mm512_fmadd_ps(tl, r1, tl));
    const __m512 ph = _mm512_mul_ps(th, r1);
    const __m512 pl = _mm512_fmsub_ps(th, r1, ph);
    const __m512 s1 = _mm512_add_ps(th, ph);
    const __m512 e1 = _mm512_sub_ps(ph, _mm512_sub_ps(s1, th));
    const __m512 lo1 = _mm512_add_ps(e1, _mm512_add_ps(pl, w));
    const __m512 s = _mm512_add_ps(s1, lo1);
    const __m512 e = _mm512_sub_ps(lo1, _mm512_sub_ps(s, s1));
    const __m512i sb = _mm512_castps_si512(s);
    const __m512i limit = _mm512_mask_blend_epi32(
        _mm512_cmpgt_epu32_mask(sb, _mm512_set1_epi32(0x3F800000)),
        _mm512_set1_epi32(0x32FFC000), _mm512_set1_epi32(0x337FE000));
    const __m512i m = _mm512_and_si512(_mm512_castps_si512(e), _mm512_set1_epi32(0x7FFFFFFF));
    const __mmask16 ok = _mm512_mask_cmplt_epu32_mask((__mmask16)~bad, m, limit);
    const __m512i r = _mm512_mask_blend_epi32(
        ok, _mm512_set1_epi32(0x7FC00001),
        _mm512_add_epi32(sb, _mm512_slli_epi32(_mm512_srli_epi32(kb, 6), 23)));
    if (keep == (__mmask16)0xFFFF) _mm512_storeu_si512(y, r);
    else _mm512_mask_storeu_epi32(y, keep, r);
    return (uint32_t)(keep & (__mmask16)~ok);
}
#endif
"""
"""``LANES32`` for 16 lanes at a time in AVX-512 registers, compiled where the target has
AVX-512F (the avx512 build; the avx2 build has ``LANES32_AVX2``): gcc reads the
64-entry float32 tables with two 16-lane gathers, 32 loads per 16 elements, which held the
loop at about 29 cycles per 16 elements; here they are permutes of registers. The pass alone,
4,096 inputs in cache, one thread, this project's 2-core AVX-512 VM (gcc 12), ns per element,
gathers against permutes, timed alternately: inputs in [-80, 80] 0.446 against 0.407, in
[-4, 4] 0.464 against 0.413."""


LANES32_AVX2 = r"""
#if defined(__AVX2__) && !defined(__AVX512F__)
#include <immintrin.h>
/* ul_exp_lanes32 on the 8 lanes of an AVX2 register: the same float32 operations in the same
   order, each rounded to nearest (an fmadd, fnmadd or fmsub is fmaf with its operands' signs,
   a single rounding), except th and tl: 2^(j/64) = 2^(a/8) 2^(b/64), j = 8a + b, from two
   tables of 8 float32 pairs (four registers, t[0..3] = a_hi, a_lo, b_hi, b_lo) read by one
   permute each (vpermps reads the index's low 3 bits) instead of two 8-lane gathers:
   th = ah bh rounded, tl = fmaf(ah, bl, fmaf(al, bh, fmaf(ah, bh, -th))). The first `left`
   lanes (at most 8; all 8 by plain loads and stores where left >= 8, else by masked ones,
   the others read as 0) are read and stored; returns the bit mask of those flagged. */
static inline uint32_t ul_exp_lanes32_x8(const float *x, float *y, long left,
                                         const __m256 *t) {
    const __m256i keep = _mm256_cmpgt_epi32(_mm256_set1_epi32((int)(left < 8 ? left : 8)),
                                            _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    const __m256 v = left >= 8 ? _mm256_loadu_ps(x) : _mm256_maskload_ps(x, keep);
    const __m256i u = _mm256_castps_si256(v);
    const __m256i bad = _mm256_cmpgt_epi32(                     /* |v| > 87.0 */
        _mm256_and_si256(u, _mm256_set1_epi32(0x7FFFFFFF)), _mm256_set1_epi32(0x42AE0000));
    const __m256 kt = _mm256_fmadd_ps(v, _mm256_set1_ps(UL_64_LN2_F),
                                      _mm256_set1_ps(0x1.8p23f));
    const __m256 k = _mm256_sub_ps(kt, _mm256_set1_ps(0x1.8p23f));
    const __m256i kb = _mm256_castps_si256(kt);
    const __m256 r1 = _mm256_fnmadd_ps(k, _mm256_set1_ps(UL_LN2_64_F), v);
    const __m256 c = _mm256_mul_ps(k, _mm256_set1_ps(UL_LN2_64_F_OVER));
    const __m256 rr = _mm256_add_ps(r1, c);
    const __m256 q = _mm256_mul_ps(
        _mm256_mul_ps(rr, rr),
        _mm256_fmadd_ps(_mm256_fmadd_ps(rr, _mm256_set1_ps(0x1.555556p-5f),
                                        _mm256_set1_ps(0x1.555556p-3f)),
                        rr, _mm256_set1_ps(0.5f)));
    /* j = kb mod 64: a = (kb >> 3) mod 8, b = kb mod 8 */
    const __m256i a = _mm256_srli_epi32(kb, 3);
    const __m256 ah = _mm256_permutevar8x32_ps(t[0], a);
    const __m256 al = _mm256_permutevar8x32_ps(t[1], a);
    const __m256 bh = _mm256_permutevar8x32_ps(t[2], kb);
    const __m256 bl = _mm256_permutevar8x32_ps(t[3], kb);
    const __m256 th = _mm256_mul_ps(ah, bh);
    const __m256 tl = _mm256_fmadd_ps(ah, bl, _mm256_fmadd_ps(al, bh, _mm256_fmsub_ps(ah, bh, th)));
    const __m256 w = _mm256_fmadd_ps(th, _mm256_add_ps(c, q), _mm256_fmadd_ps(tl, r1, tl));
    const __m256 ph = _mm256_mul_ps(th, r1);
    const __m256 pl = _mm256_fmsub_ps(th, r1, ph);
    const __m256 s1 = _mm256_add_ps(th, ph);
    const __m256 e1 = _mm256_sub_ps(ph, _mm256_sub_ps(s1, th));
    const __m256 lo1 = _mm256_add_ps(e1, _mm256_add_ps(pl, w));
    const __m256 s = _mm256_add_ps(s1, lo1);
    const __m256 e = _mm256_sub_ps(lo1, _mm256_sub_ps(s, s1));
    const __m256i sb = _mm256_castps_si256(s);
    const __m256i limit = _mm256_blendv_epi8(
        _mm256_set1_epi32(0x32FFC000), _mm256_set1_epi32(0x337FE000),
        _mm256_cmpgt_epi32(sb, _mm256_set1_epi32(0x3F800000)));
    const __m256i m = _mm256_and_si256(_mm256_castps_si256(e), _mm256_set1_epi32(0x7FFFFFFF));
    const __m256i ok = _mm256_andnot_si256(bad, _mm256_cmpgt_epi32(limit, m));
    const __m256i r = _mm256_blendv_epi8(
        _mm256_set1_epi32(0x7FC00001),
        _mm256_add_epi32(sb, _mm256_slli_epi32(_mm256_srli_epi32(kb, 6), 23)), ok);
    if (left >= 8) _mm256_storeu_ps(y, _mm256_castsi256_ps(r));
    else _mm256_maskstore_ps(y, keep, _mm256_castsi256_ps(r));
    return (uint32_t)_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_andnot_si256(ok, keep)));
}
#endif
"""
"""``LANES32`` for 8 lanes at a time in AVX2 registers, compiled where the target has AVX2 and
not AVX-512F (the avx2 build): gcc vectorized ``LANES32`` with two 8-lane gathers of the
64-entry tables; here 2^(j/64) is the product of two 8-entry pairs read by permutes of
registers (``tables.exp_pairs32_split``; the analysis above). The whole pass (both
evaluations), 2^16 inputs in cache through a Python call, one thread, a 2-core AMD EPYC VM
(family 26, AVX-512; gcc 12), gathers against permutes, timed alternately: exp 0.84-0.85 ->
0.58-0.59 ns per element (inputs in [-80, 80]), exp2 0.95-0.96 -> 0.64-0.66 ([-100, 100]);
the same lanes with masked loads and stores for every block, not only the last, took 0.68."""


SOURCE = CORE + ROUND_RANGE32 + f"""
/* exp(x) in float64 (the analysis above): the result's bits or FLAG_NAN */
static inline uint32_t ul_exp_lanes64(float x) {{
    uint32_t u;
    memcpy(&u, &x, 4);
    /* 0x42B17217 = 88.72283: the largest float32 whose exp is below FLT_MAX (the next,
       88.72284, rounds to infinity); every input of larger magnitude, NaN and the
       infinities are flagged; below -87.34 the result is subnormal and the rounding test
       flags it */
    const uint32_t bad = (u & 0x7FFFFFFFu) > 0x42B17217u;
    const struct ul_exp_parts e = ul_exp_split((double)x);
    return ul_round_or_flag32(UL_FMA(e.s, e.q, e.s), bad, {ERR});
}}

#ifdef __FMA__
""" + SCHEDULE + LANES32 + LANES32_AVX512 + LANES32_AVX2 + """
#ifdef __AVX512F__
/* the AVX-512 float32 lanes over n inputs, then the float64 evaluation on what they flagged;
   returns how many results that left flagged */
UL_SCHEDULE static long ul_exp_lanes_x16(const float *restrict x, float *restrict y, long n) {
    long left = 0;
    __m512 hi[4], lo[4];  /* the float32 table in eight registers */
    for (int t = 0; t < 4; t++) {
        hi[t] = _mm512_loadu_ps(ul_exp32_hi + 16 * t);
        lo[t] = _mm512_loadu_ps(ul_exp32_lo + 16 * t);
    }
""" + lanes_loop_x16("ul_exp_lanes32_x16", "hi, lo", "ul_exp_lanes64") + """    return left;
}
#endif

/* the float32 lanes (16 or 8 inputs at a time, the last under a mask), then the float64
   evaluation on what they flagged; returns how many results that left flagged */
long ulplab_exp_fast64(const float *restrict x, float *restrict y, long n) {
#ifdef __AVX512F__
    return ul_exp_lanes_x16(x, y, n);
#elif defined(__AVX2__)
    long left = 0;
    const __m256 t[4] = {_mm256_loadu_ps(ul_exp32_a_hi), _mm256_loadu_ps(ul_exp32_a_lo),
                         _mm256_loadu_ps(ul_exp32_b_hi), _mm256_loadu_ps(ul_exp32_b_lo)};
    for (long i = 0; i < n; i += 8) {
        uint32_t m = ul_exp_lanes32_x8(x + i, y + i, n - i, t);
""" + rerun_flagged("ul_exp_lanes64") + """\
    }
    return left;
#else
    long left = 0;
    for (long i = 0; i < n; i++) {
        uint32_t b = ul_exp_lanes32(x[i]);
        if (b == 0x7FC00001u) {
            b = ul_exp_lanes64(x[i]);
            left += b == 0x7FC00001u;
        }
        memcpy(y + i, &b, 4);
    }
    return left;
#endif
}
#else
long ulplab_exp_fast64(const float *restrict x, float *restrict y, long n) {
    for (long i = 0; i < n; i++) {
        const uint32_t b = ul_exp_lanes64(x[i]);
        memcpy(y + i, &b, 4);
    }
    return -1;  /* not counted */
}
#endif
"""


def tables() -> str:
    return exp_table() + exp_table32() + exp_table32_split()
