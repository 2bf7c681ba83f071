"""det gelu_tanh's float64 first pass.

gelu_tanh(x) = x/2 (1 + tanh(u)), u = sqrt(2/pi) (x + 0.044715 x^3) (0.044715 exact), and
(1 + tanh u)/2 = 1/(1 + exp(-2u)), so gelu_tanh(x) = x / (1 + E), E = exp(-v), v = 2u =
x (A + B x^2), as silu's pass computes x/(1 + exp(-x)) (``ulplab.export.fast64.silu``):
* A = 2 sqrt(2/pi) and B = 2 sqrt(2/pi) 0.044715, each rounded to the nearest float64 (mpmath
  at 200 bits; the tests recompute them): relative errors below 2^-53;
* x^2 is exact (x has 24 significant bits); A + B x^2 in one FMA (two roundings without an FMA
  instruction), times x one more rounding: |v - 2u| < 4 2^-53 |v| (5 without an FMA);
* E from exp's float64 split on -v (relative error < 2^-51.9 for |v| <= 104; |v| <= 87.32 here,
  x being clamped to [-10, 10] in v): E's relative error below 2^-51.9 + |v - 2u|;
* the sum 1 + E and the quotient round once each; E's error contributes E/(1 + E) < 1 of it.
Relative error below 87.32 (5 2^-53) + 2^-51.9 + 2 2^-53 < 2^-44.2 (for x < 0, where |v| is
largest and E/(1 + E) near 1; smaller for x > 0, where E/(1 + E) <= 1/2): 440 units in the last
place of the float64 result; the rounding test takes ERR = 2048 (a margin of 4.6) and flags
about 2 ERR / 2^29 = 7.6e-6 of ordinary inputs.
x > 10: the clamp gives E = exp(-87.32) < 2^-125, 1 + E = 1 and y = x, gelu_tanh's correctly
rounded value there (x - gelu_tanh(x) = x E/(1 + E) is far below half an ulp of x); +inf is
flagged all the same.
Flagged by a test on x's bits: NaN and +inf, |x| < 2^-123 (+-0, whose sign the second pass
keeps, and the inputs whose results are subnormal or near it) in one unsigned comparison, and
x < -10 (0xC1200000; -inf and the negative NaNs too): gelu_tanh(-10) = -1.19e-37, and below
-10.1 the results are subnormal. For every other input |y| lies in [2^-124.1, 3.4e38] (x >=
2^-123: y >= x/2; x in [-10, -2^-123]: |y| = |x|/(1 + E) is smallest at the ends, 2^-124 and
1.19e-37 = 2^-122.7), the normal float32 range: no range part in the rounding test
(``ROUND_NORMAL``).
"""

from __future__ import annotations

from ulplab.export.fast64 import ROUND_NORMAL
from ulplab.export.fast64.exp import CORE as EXP_CORE
from ulplab.export.fast64.tables import exp_table

ERR = 2048
"""The rounding test's bound, in units in the last place of the float64 result."""

A = float.fromhex("0x1.9884533d43651p+0")
"""2 sqrt(2/pi) rounded to the nearest float64."""

B = float.fromhex("0x1.2444f2a4d8b4bp-4")
"""2 sqrt(2/pi) 0.044715 rounded to the nearest float64."""

SOURCE = EXP_CORE + ROUND_NORMAL + f"""
void ulplab_gelu_tanh_fast64(const float *restrict x, float *restrict y, long n) {{
    for (long i = 0; i < n; i++) {{
        uint32_t u;
        memcpy(&u, x + i, 4);
        const uint32_t au = u & 0x7FFFFFFFu;
        /* |x| below 0x02000000 = 2^-123 or from 0x7F800000 on (+inf, NaN) in one unsigned
           comparison; x below 0xC1200000 = -10 (-inf and the negative NaNs too) */
        const uint32_t bad = (au - 0x02000000u >= 0x7F800000u - 0x02000000u)
                             | (u > 0xC1200000u);
        /* v = 2 sqrt(2/pi) (c + 0.044715 c^3), c = x clamped to [-10, 10] (0x41200000) */
        const double c = (double)ul_float((au < 0x41200000u ? au : 0x41200000u)
                                          | (u & 0x80000000u));
        const double v = c * UL_FMA(c * c, {B.hex()}, {A.hex()});
        const struct ul_exp_parts e = ul_exp_split(-v);
        const double t = (double)ul_float(u) / (1.0 + UL_FMA(e.s, e.q, e.s));
        const uint32_t b = ul_round_normal_or_flag(t, bad, {ERR}, 0);
        memcpy(y + i, &b, 4);
    }}
}}
"""


def tables() -> str:
    return exp_table()
