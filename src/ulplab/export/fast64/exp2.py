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
"""

from __future__ import annotations

from ulplab.export.fast64 import ROUND_RANGE32
from ulplab.export.fast64.tables import exp_table, horner

ERR = 32
"""The rounding test's bound, in units in the last place of the float64 result."""

TAYLOR = [float.fromhex(v) for v in (
    "0x1.62e42fefa39efp-1", "0x1.ebfbdff82c58fp-3", "0x1.c6b08d704a0c0p-5",
    "0x1.3b2ab6fba4e77p-7", "0x1.5d87fe78a6731p-10")]
"""(2^r - 1)/r = sum c_i r^(i-1): c_i = ln2^i/i!, i = 1..5, each rounded to the nearest float64
(mpmath at 200 bits; ``tests/test_fast64.py`` recomputes them)."""

SOURCE = ROUND_RANGE32 + f"""
void ulplab_exp2_fast64(const float *restrict x, float *restrict y, long n) {{
    for (long i = 0; i < n; i++) {{
        uint32_t u;
        memcpy(&u, x + i, 4);
        /* |x| above 0x43160000 = 150 (NaN and the infinities too): the second pass */
        const uint32_t bad = (u & 0x7FFFFFFFu) > 0x43160000u;
        const double v = (double)ul_float(u);
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
        const uint32_t b = ul_round_or_flag32(UL_FMA(s, q, s), bad, {ERR});
        memcpy(y + i, &b, 4);
    }}
}}
"""


def tables() -> str:
    return exp_table()
