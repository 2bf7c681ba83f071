"""det tanh's float64 first pass.

tanh(a) = m / (m + 2), m = exp(2a) - 1, a = |x| (tanh is odd; the sign is put back at the end),
a clamped to 10 (tanh(a) rounds to 1 for a > 9.011: 1 - tanh(a) < 2^-25; so does the float64
value at 10, far from the midpoint 1 - 2^-25). m from exp's float64 split
(``ulplab.export.fast64.exp``): exp(2a) = s + s q, so m = (s - 1) + s q (one FMA):
* s - 1 is exact where s in [1/2, 2] (Sterbenz's lemma), so m keeps its relative accuracy as a
  goes to 0: for k = 0, s = 1 and m = q (relative error < 2^-52); otherwise m > 2^-7.5 and s's
  error (2^-53 s) is below 2^-45 m;
* the sum m + 2 and the quotient add 2^-52: relative error < 2^-44.9, 270 units in the last
  place of the float64 result; the rounding test takes ERR = 1024 (a margin of almost 4).
No branch: there is no separate small-argument formula, and one quotient.
Flagged: NaN; zero and |tanh x| below 2^-126 (outside the normal range: the second pass keeps
the sign of zero and rounds subnormals).
"""

from __future__ import annotations

from ulplab.export.fast64.exp import CORE as EXP_CORE
from ulplab.export.fast64.tables import exp_table

ERR = 1024
"""The rounding test's bound, in units in the last place of the float64 result."""

SOURCE = EXP_CORE + f"""
void ulplab_tanh_fast64(const float *restrict x, float *restrict y, long n) {{
    for (long i = 0; i < n; i++) {{
        uint32_t u;
        memcpy(&u, x + i, 4);
        const uint32_t au = u & 0x7FFFFFFFu;
        const uint32_t nan = au > 0x7F800000u;
        /* |x| clamped to 10 (0x41200000) */
        const double a = (double)ul_float(ul_sel32(au > 0x41200000u, 0x41200000u, au));
        const struct ul_exp_parts e = ul_exp_split(2.0 * a);
        const double m = UL_FMA(e.s, e.q, e.s - 1.0);
        const double t = m / (m + 2.0);
        const uint64_t sign = (uint64_t)(u >> 31) << 63;
        const uint32_t b = ul_round_or_flag(ul_double(ul_bits64(t) | sign), nan, {ERR});
        memcpy(y + i, &b, 4);
    }}
}}
"""


def tables() -> str:
    return exp_table()
