"""det softplus's float64 first pass.

softplus(x) = max(x, 0) + log1p(E), E = exp(-|x|) in (0, 1], |x| clamped to 104 (exp's float64
split, ``ulplab.export.fast64.exp``: relative error < 2^-51.9; for |x| > 104 the true E is
below 2^-150, softplus(x) is x for x > 104 and below 2^-126 for x < -104, and the clamped
E = exp(-104) keeps both). log1p(E) with the float64 log tables of 128 subintervals
(``tables.log_tables``, ``tables.LOG_TABLE_BITS``; log's own pass uses 256):
* u = 1 + E rounded, c = E - (u - 1) exact (Fast2Sum: 1 >= E), so 1 + E = u + c exactly and
  log1p(E) = log(u) + log1p(c/u); |c| <= 2^-53 (half an ulp of u in [1, 2]), and c <= E.
  log1p(c/u) is taken as c: the difference is at most |c| (u - 1) + c^2 < 2^-52.4 E, and
  log1p(E) >= E ln2, so below 2^-51.9 relative;
* u = 2^k z with z in [0.6875, 1.375) (k = 0 or 1; the float64 bits of u minus those of 0.6875
  give k and log's subinterval i, ``tables.log_subinterval``), r = z invc[i] - 1: z has 53
  significant bits, so z is split into zh (its top 32 significant bits, by clearing the low 21
  bits of its encoding) and zl = z - zh (exact, at most 21 bits): zh invc (53 bits) and zl invc
  (42 bits) are exact products, zh invc - 1 is exact (Sterbenz's lemma), so r is their sum
  rounded once (relative error 2^-53), with or without an FMA instruction (the portable build);
  where invc = 1 (the two subintervals next to 1), r = z - 1 exactly. |r| <= 2^-7;
* log(u) = (k L1 + logc[i]) + (k L2 + p), p = log1p(r) by its degree-7 Taylor polynomial
  (``TAYLOR``; ln2 = L1 + L2, ``tables.ln2_split``): truncation below |r|^8/8 < 2^-52
  |log1p(r)|; below 2^-51 relative where k = 0 and invc = 1 (the polynomial alone); for k = 0
  elsewhere |logc| <= 1.6 |log u| and |p| <= |log u|/2, so the roundings of logc, p and the
  sums stay below 2^-50.5; for k = 1, log u >= 0.318 and k L1 + logc <= 2.2 log u, below
  2^-50.5 again: below 2^-49 relative in all; r's rounding adds 2^-53 |r| < 2^-53 |log u|
  (|log u| >= log(1 + 2^-7) > |r| wherever invc != 1);
* c is added to the low part: (k L2 + p) + c, one more rounding, below 2^-53 relative.
So log1p(E) within 2^-51.9 (E) + 2^-49 + 2^-53 + 2^-51.9 (c) + 2^-53 < 2^-48.5 relative; the
last sum max(x, 0) + log1p(E) adds 2^-53 (both terms are nonnegative: no cancellation).
Relative error below 2^-48.4, 24.3 units in the last place of the float64 result; the rounding
test takes ERR = 128 (a margin above 5).
Flagged: NaN (a test on x's bits); +inf (the sum is infinite) and results below 2^-126
(x < -87.34 and -inf) by the rounding test.
"""

from __future__ import annotations

from ulplab.export.fast64 import ROUND_RANGE32
from ulplab.export.fast64.exp import CORE as EXP_CORE
from ulplab.export.fast64.tables import (
    LOG_OFF,
    exp_table,
    horner,
    ln2_split,
    log1p_taylor,
    log_tables,
)

ERR = 128
"""The rounding test's bound, in units in the last place of the float64 result."""

TAYLOR = log1p_taylor(7)
"""log1p(r) = r + r^2 (c2 + c3 r + ... + c7 r^5): c_i = (-1)^(i+1)/i, i = 2..7 (degree 7: the
truncation below |r|^8/8 < 2^-52 |log1p(r)| for |r| <= 2^-7)."""

LOG_CORE = f"""
/* log(1 + e) for e in [0, 1], relative error < 2^-48.5 given e within 2^-51.9 (ulplab.export.
   fast64.softplus): u = 1 + e rounded, c = e - (u - 1) exact, log(u) from log's tables, + c */
static inline double ul_log1p_unit(double e) {{
    const double u = 1.0 + e;
    const double c = e - (u - 1.0);
    /* u = 2^k z, z in [0.6875, 1.375): tmp = bits(u) - bits(0.6875); k = tmp >> 52 (0 or 1
       here), the subinterval i = the next 7 bits */
    const uint64_t ub = ul_bits64(u);
    const uint64_t tmp = ub - 0x{LOG_OFF:016X}ull;
    const uint64_t idx = (tmp >> 45) & 127;
    const double kd = ul_double(ul_sel64(tmp >> 52, 0x3FF0000000000000ull, 0));  /* k */
    const uint64_t zb = ub - (tmp & 0xFFF0000000000000ull);
    const double z = ul_double(zb);
    const double zh = ul_double(zb & ~0x1FFFFFull);               /* 32 significant bits */
    const double invc = ul_log_invc[idx];
    const double r = UL_FMA(z - zh, invc, UL_FMA(zh, invc, -1.0));
    const double p = UL_FMA(r * r, {horner("r", TAYLOR)}, r);
    const double hi = UL_FMA(kd, UL_LN2_HI, ul_log_logc[idx]);
    return hi + (UL_FMA(kd, UL_LN2_LO, p) + c);
}}
"""

SOURCE = EXP_CORE + LOG_CORE + ROUND_RANGE32 + f"""
void ulplab_softplus_fast64(const float *restrict x, float *restrict y, long n) {{
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
    return exp_table() + log_tables() + ln2_split()
