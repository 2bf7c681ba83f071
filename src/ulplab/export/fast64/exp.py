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
"""

from __future__ import annotations

from fractions import Fraction
from math import factorial

from ulplab.export.fast64.tables import exp_table, horner

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

SOURCE = CORE + f"""
void ulplab_exp_fast64(const float *restrict x, float *restrict y, long n) {{
    for (long i = 0; i < n; i++) {{
        uint32_t u;
        memcpy(&u, x + i, 4);
        /* 0x42B17217 = 88.72283: the largest float32 whose exp is below FLT_MAX (the next,
           88.72284, rounds to infinity); every input of larger magnitude, NaN and the
           infinities are flagged; below -87.34 the result is subnormal and the rounding test
           flags it */
        const uint32_t bad = (u & 0x7FFFFFFFu) > 0x42B17217u;
        const struct ul_exp_parts e = ul_exp_split((double)x[i]);
        const uint32_t b = ul_round_or_flag(UL_FMA(e.s, e.q, e.s), bad, {ERR});
        memcpy(y + i, &b, 4);
    }}
}}
"""


def tables() -> str:
    return exp_table()
