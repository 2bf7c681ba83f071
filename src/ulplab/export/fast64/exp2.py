"""det exp2's float64 first pass.

x = k/64 + r with k an integer and |r| <= 1/128, so 2^x = 2^(k >> 6) * 2^(j/64) * 2^r, j = k mod
64 (exp's table and exponent addition, ``ulplab.export.fast64.exp``, without its Cody-Waite
reduction: here the reduced argument is exact):
* k = nearest(64 x) by adding and subtracting 0x1.8p52 after one FMA (64 x is exact, |k| <=
  9600 for |x| <= 150); r = x - k/64 is exact (k/64 is exact, and r is a multiple of x's last
  place below 2^-7 in magnitude, or x itself where k = 0), with or without an FMA instruction;
* q = 2^r - 1 = r (c1 + c2 r + ... + c5 r^4), c_i = ln2^i/i! rounded to nearest (``TAYLOR``,
  checked against mpmath by the tests): |r ln2| <= 2^-7.53, so the truncation,
  (r ln2)^6/6! e^(r ln2) over |q| >= |r ln2| (1 - 2^-8.5), is below 2^-47.1 relative to q;
  c1's rounding 2^-53 and Horner's roundings (each step relative 2^-53 of a sum dominated by
  c1) below 2^-51.5: q within 2^-47.05 of itself, and |q| < 2^-7.52, so within 2^-54.5 of the
  result;
* s = 2^(j/64) from ``tables.exp_table`` (relative error <= 2^-53), 2^(k >> 6) added to its
  exponent field (|k >> 6| <= 150: s stays a normal float64); 2^x = s + s q (one FMA, or a
  product and a sum).
Relative error below 2^-53 (s) + 2^-54.5 (q) + 2^-53 (the FMA; 2^-52 with a product and a sum)
< 2^-51.2, i.e. below 4.4 units in the last place of the float64 result; the rounding test takes
ERR = 32 (a margin above 7). Exact results: 2^x for the integers x in [-126, 127] (r = 0, q =
0, s = 1 times its power of two), kept; for every other x, 2^x is irrational.
Flagged: |x| > 150 (0x43160000: NaN, the infinities, and every input whose result overflows
or is below 2^-150) by a test on x's bits; the results outside the normal float32 range (x <
-126: subnormal or 0; x >= 128 - 2^-17's neighbours near FLT_MAX and beyond) by the range test
of ``ROUND_RANGE32`` (the second pass rounds subnormals and returns 0 and infinity).

**Float32 lanes first**, as exp's pass (``ulplab.export.fast64.exp``: ``LANES32``, its AVX-512
and AVX2 forms and its driver, compiled where the target has an FMA instruction; the portable
build runs the float64 evaluation above alone): the same C with exp's reduction replaced
(``LANES32_SWAPS``, applied to exp's text and checked to match once each), so the rest of exp's
analysis holds unchanged once the reduced argument is bounded as there. For |x| <= 125
(0x42FA0000; else flagged, and the float64 evaluation decides):
* k = nearest(64 x) by adding 0x1.8p23 in one fmaf (64 x is exact, |k| <= 8000); r = x - k/64
  by one fmaf, exact (as in float64: a multiple of x's last place, or of 2^-6, below 2^-7);
* r ln2 = r1 + c: r1 = r L1 rounded (L1 = ln2 rounded to float32, ``tables.ln2_float32``),
  c = fmaf(r, L1, -r1) + r L2 (L2 the rest of ln2 rounded to float32; the fmaf is exact, the
  product and the sum round once each, |c| < 2^-31, so c's error is below 2^-55, and
  |ln2 - L1 - L2| < 2^-53 adds |r| 2^-53 < 2^-60): r1 + c is r ln2 within 2^-54.9, against exp's
  r* = r1 + c within 2^-45.4, and |r1 + c| <= ln2/128 < 2^-7.528 as in exp's analysis;
* from there exp's float32 lanes run unchanged (q, the table 2^(j/64) = th + tl, the exact
  products and sums, the rounding test |e| < H - B0 with B0 = 2^-35, and k >> 6 added to the
  result's exponent field: for |x| <= 125, k >> 6 lies in [-125, 125] and the result is normal).
Exact results: for an integer x, r = r1 = c = 0, q = 0, th = 1 and tl = 0, so s = 1 and e = 0:
2^x exactly, kept. About 5e-4 of the elements go on to the float64 evaluation (the rounding
test's share, as for exp).
"""

from __future__ import annotations

from ulplab.export.fast64 import ROUND_RANGE32, segment
from ulplab.export.fast64 import exp as exp_pass
from ulplab.export.fast64.tables import (
    exp_table,
    exp_table32,
    exp_table32_split,
    horner,
    ln2_float32,
)

ERR = 32
"""The rounding test's bound, in units in the last place of the float64 result."""

TAYLOR = [float.fromhex(v) for v in (
    "0x1.62e42fefa39efp-1", "0x1.ebfbdff82c58fp-3", "0x1.c6b08d704a0c0p-5",
    "0x1.3b2ab6fba4e77p-7", "0x1.5d87fe78a6731p-10")]
"""(2^r - 1)/r = sum c_i r^(i-1): c_i = ln2^i/i!, i = 1..5, each rounded to the nearest float64
(mpmath at 200 bits; ``tests/test_fast64.py`` recomputes them)."""

FLOAT64 = ROUND_RANGE32 + f"""
/* 2^x in float64 (the analysis above): the result's bits or FLAG_NAN */
static inline uint32_t ul_exp2_lanes64(float x) {{
    uint32_t u;
    memcpy(&u, &x, 4);
    /* |x| above 0x43160000 = 150 (NaN and the infinities too): the second pass */
    const uint32_t bad = (u & 0x7FFFFFFFu) > 0x43160000u;
    const double v = (double)x;
    /* k = nearest(64 v) in the low bits of `shifted` (bits 0x4338000000000000 plus k);
       r = v - k/64 exact */
    const double shifted = UL_FMA(v, 0x1p6, 0x1.8p52);
    const double kd = shifted - 0x1.8p52;
    const uint64_t kb = ul_bits64(shifted);
    const double r = UL_FMA(kd, -0x1p-6, v);
    /* s = 2^(j/64) 2^(k >> 6), j = k mod 64, as in exp's split (kb >> 6 << 52 is
       (k >> 6) << 52 mod 2^64) */
    const double s = ul_double(ul_bits64(ul_exp_tab[kb & 63]) + ((kb >> 6) << 52));
    const double q = r * {horner("r", TAYLOR)};
    return ul_round_or_flag32(UL_FMA(s, q, s), bad, {ERR});
}}
"""
"""The float64 evaluation, on the elements the float32 lanes flag (and on every element in the
portable build)."""

LANES32_SWAPS = [
    (segment(exp_pass.LANES32, "/* exp(v) in float32 lanes", "   result's bits"),
     """/* 2^v in float32 lanes (ulplab.export.fast64.exp2: exp's lanes with r ln2 for exp's
   reduced argument): the correctly rounded result's bits, or 0x7FC00001 where the rounding
   test cannot decide or |v| > 125 */
"""),
    (segment(exp_pass.LANES32, "    const uint32_t bad", "    const float c ="),
     """    const uint32_t bad = (int32_t)(u & 0x7FFFFFFFu) > 0x42FA0000;  /* 125.0 */
    const float kt = fmaf(v, 0x1p6f, 0x1.8p23f);
    const float k = kt - 0x1.8p23f;
    const uint32_t kb = ul_bits32(kt);
    const float r = fmaf(-k, 0x1p-6f, v);
    const float r1 = r * UL_LN2_F;
    const float c = fmaf(r, UL_LN2_F, -r1) + r * UL_LN2_F_LO;
"""),
    (segment(exp_pass.LANES32_AVX512, "    const __mmask16 bad", "    const __m512 c ="),
     """    const __mmask16 bad = _mm512_cmpgt_epu32_mask(              /* |v| > 125.0 */
        _mm512_and_si512(u, _mm512_set1_epi32(0x7FFFFFFF)), _mm512_set1_epi32(0x42FA0000));
    const __m512 kt = _mm512_fmadd_ps(v, _mm512_set1_ps(0x1p6f), _mm512_set1_ps(0x1.8p23f));
    const __m512 k = _mm512_sub_ps(kt, _mm512_set1_ps(0x1.8p23f));
    const __m512i kb = _mm512_castps_si512(kt);
    const __m512 red = _mm512_fnmadd_ps(k, _mm512_set1_ps(0x1p-6f), v);  /* r */
    const __m512 r1 = _mm512_mul_ps(red, _mm512_set1_ps(UL_LN2_F));
    const __m512 c = _mm512_add_ps(_mm512_fmsub_ps(red, _mm512_set1_ps(UL_LN2_F), r1),
                                   _mm512_mul_ps(red, _mm512_set1_ps(UL_LN2_F_LO)));
"""),
    (segment(exp_pass.LANES32_AVX2, "    const __m256i bad", "    const __m256 c ="),
     """    const __m256i bad = _mm256_cmpgt_epi32(                     /* |v| > 125.0 */
        _mm256_and_si256(u, _mm256_set1_epi32(0x7FFFFFFF)), _mm256_set1_epi32(0x42FA0000));
    const __m256 kt = _mm256_fmadd_ps(v, _mm256_set1_ps(0x1p6f), _mm256_set1_ps(0x1.8p23f));
    const __m256 k = _mm256_sub_ps(kt, _mm256_set1_ps(0x1.8p23f));
    const __m256i kb = _mm256_castps_si256(kt);
    const __m256 red = _mm256_fnmadd_ps(k, _mm256_set1_ps(0x1p-6f), v);  /* r */
    const __m256 r1 = _mm256_mul_ps(red, _mm256_set1_ps(UL_LN2_F));
    const __m256 c = _mm256_add_ps(_mm256_fmsub_ps(red, _mm256_set1_ps(UL_LN2_F), r1),
                                   _mm256_mul_ps(red, _mm256_set1_ps(UL_LN2_F_LO)));
"""),
]
"""exp's float32 lanes (generic, AVX-512 and AVX2) made exp2's: exp's header, input test and
reduction (each cut from exp's own text) and exp2's in their place; then the names
(``ul_exp_lanes32``, ``ul_exp_lanes64``, ``ul_exp_lanes_x16``, ``ulplab_exp_fast64``)."""


def _swapped(text: str, swaps: list[tuple[str, str]]) -> str:
    """``text`` with each of ``swaps`` applied (each found exactly once), then exp's names made
    exp2's."""
    for old, new in swaps:
        if text.count(old) != 1:
            raise AssertionError(f"exp's float32 lanes changed: {old[:60]!r}")
        text = text.replace(old, new)
    for old, new in (("ul_exp_lanes32", "ul_exp2_lanes32"), ("ul_exp_lanes64", "ul_exp2_lanes64"),
                     ("ul_exp_lanes_x16", "ul_exp2_lanes_x16"),
                     ("ulplab_exp_fast64", "ulplab_exp2_fast64")):
        text = text.replace(old, new)
    return text


LANES32 = _swapped(exp_pass.LANES32, LANES32_SWAPS[:2])
"""exp's ``LANES32`` as exp2's: ``ul_exp2_lanes32(v)``."""

LANES32_AVX512 = _swapped(exp_pass.LANES32_AVX512, LANES32_SWAPS[2:3])
"""exp's ``LANES32_AVX512`` as exp2's: ``ul_exp2_lanes32_x16``."""

LANES32_AVX2 = _swapped(exp_pass.LANES32_AVX2, LANES32_SWAPS[3:])
"""exp's ``LANES32_AVX2`` as exp2's: ``ul_exp2_lanes32_x8``."""


def _lanes_and_driver() -> str:
    """exp's ``#ifdef __FMA__`` part (its float32 lanes, their AVX-512 form and the driver, then
    the portable loop) with exp2's lanes and names."""
    text = exp_pass.SOURCE[exp_pass.SOURCE.index("\n#ifdef __FMA__\n"):]
    lanes = exp_pass.LANES32 + exp_pass.LANES32_AVX512 + exp_pass.LANES32_AVX2
    if text.count(lanes) != 1 or "ulplab_exp_fast64" not in text:
        raise AssertionError("exp's driver changed")
    return _swapped(text.replace(lanes, LANES32 + LANES32_AVX512 + LANES32_AVX2), [])


SOURCE = FLOAT64 + _lanes_and_driver()


def tables() -> str:
    return exp_table() + exp_table32() + exp_table32_split() + ln2_float32()
