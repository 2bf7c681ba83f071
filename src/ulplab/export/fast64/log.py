"""det log's float64 first pass.

x = 2^k z with z in [0.6875, 1.375) (the float32 bits of x minus those of 0.6875 give k in the
exponent field and the subinterval i in the next 7 bits: the subintervals of
``tables.log_subinterval``; 32-bit integer work, the float64 arithmetic starts at z), and
log(x) = k ln2 + logc[i] + log1p(r), r = z invc[i] - 1 (``tables.log_tables``):
* r is exact: z has at most 24 significant bits and invc 21, so z invc is exact, and
  z invc - 1 is exact by Sterbenz's lemma; |r| < 2^-7 (2^-8.4 outside the two subintervals
  next to 1, where invc = 1 and logc = 0);
* log1p(r) by its Taylor polynomial of degree 7 (coefficients (-1)^(i+1)/i rounded to
  nearest): truncation error < |r|^8/8 < 2^-52 |log1p(r)|;
* k ln2 = k L1 + k L2, L1 of 40 bits (k L1 exact for |k| <= 150), L2 the rest
  (``tables.ln2_split``); the sum (k L1 + logc) + (p + k L2).
Relative error: below 2^-51 where k = 0 and invc = 1 (the polynomial alone: the result keeps
its relative accuracy next to 1); for k = 0 elsewhere, |log c| <= 1.6 |result| and
|p| <= |result| / 2, so the roundings of logc, p and the last sum stay below 2^-50.5; for
k != 0, |result| >= 0.318 and |k L1 + logc| <= 2.2 |result|, below 2^-50.5 again. So below
2^-49 everywhere, 16 units in the last place of the float64 result; the rounding test takes
ERR = 64 (a margin of 4). Flagged: NaN, zero, subnormal and negative inputs, +inf (the second
pass returns their NaN, -inf or inf, and the subnormals' logs); log(1) = 0 is outside the
normal range and flagged too.
"""

from __future__ import annotations

from fractions import Fraction

from ulplab.export.fast64.tables import horner, ln2_split, log_tables

LOG_OFF32 = 0x3F300000
"""0.6875 as float32 bits (``tables.LOG_OFF`` as float64 bits): z's subintervals are the same."""

ERR = 64
"""The rounding test's bound, in units in the last place of the float64 result."""

TAYLOR = [Fraction((-1) ** (i + 1), i) for i in range(2, 8)]
"""log1p(r) = r + r^2 (c2 + c3 r + ... + c7 r^5): c_i = (-1)^(i+1)/i, i = 2..7."""

SOURCE = f"""
void ulplab_log_fast64(const float *restrict x, float *restrict y, long n) {{
    for (long i = 0; i < n; i++) {{
        uint32_t ux;
        memcpy(&ux, x + i, 4);
        /* positive normal inputs only: +0 and subnormals (below 0x00800000), +inf, NaN and
           every negative input (sign bit set) are flagged (the subnormals' logs are ordinary
           numbers, but rare; the second pass takes them) */
        const uint32_t bad = ux - 0x00800000u >= 0x7F800000u - 0x00800000u;
        /* x = 2^k z, z in [0.6875, 1.375): tmp = bits(x) - bits(0.6875f); k = tmp >> 23
           (arithmetic), the subinterval i = the next 7 bits */
        const uint32_t tmp = ux - 0x{LOG_OFF32:08X}u;
        const int32_t k = (int32_t)tmp >> 23;
        const uint64_t idx = (tmp >> 16) & 127;
        const double z = (double)ul_float(ux - (tmp & 0xFF800000u));
        const double kd = (double)k;
        const double r = UL_FMA(z, ul_log_invc[idx], -1.0);
        const double p = UL_FMA(r * r, {horner("r", TAYLOR)}, r);
        const double hi = UL_FMA(kd, UL_LN2_HI, ul_log_logc[idx]);
        const uint32_t b = ul_round_or_flag(hi + UL_FMA(kd, UL_LN2_LO, p), bad, {ERR});
        memcpy(y + i, &b, 4);
    }}
}}
"""


def tables() -> str:
    return log_tables() + ln2_split()
