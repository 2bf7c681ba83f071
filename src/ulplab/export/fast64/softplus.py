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
"""

from __future__ import annotations

from ulplab.export.fast64 import ROUND_RANGE32
from ulplab.export.fast64.exp import CORE as EXP_CORE
from ulplab.export.fast64.log import BITS, TAYLOR
from ulplab.export.fast64.tables import LOG_OFF, exp_table, horner, ln2_nearest, log_tables

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
    return exp_table() + log_tables(BITS) + ln2_nearest()
