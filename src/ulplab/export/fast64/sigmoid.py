"""det sigmoid's float64 first pass (and the quotient of silu's).

sigmoid(x) = 1 / (1 + E), E = exp(-x) from exp's float64 split (``ulplab.export.fast64.exp``:
E = s + s q, one FMA, relative error < 2^-51.9), -x clamped to [-104, 104] (the range of exp's
core; sigmoid(x) rounds to 1 for x > 17.33 and lies below 2^-126 for x < -87.34, so the clamp
changes no result that the pass keeps):
* 1 + E: E's error e contributes e E/(1 + E) < e relative, the rounding 2^-53;
* the quotient rounds once more, 2^-53.
Relative error below 2^-51.9 + 2^-53 + 2^-53 < 2^-50.9, i.e. below 4.3 units in the last place
of the float64 result; the rounding test takes ERR = 32 (a margin above 7). Exact results: 0.5
at x = +-0 (E = 1 exactly: s = 1, q = 0) and 1 for large x, whose float64 values lie far from
every float32 midpoint. No branch and one quotient.
Flagged: NaN (a test on x's bits); results below 2^-126 (x < -87.34 and -inf; the second pass
rounds subnormals and returns 0) by the rounding test. sigmoid(+inf) = 1 is kept.
"""

from __future__ import annotations

from ulplab.export.fast64.exp import CORE as EXP_CORE
from ulplab.export.fast64.tables import exp_table

ERR = 32
"""The rounding test's bound, in units in the last place of the float64 result."""

CLAMP = """
/* exp(-x) for float32 bits u, -x clamped to [-104, 104] (0x42D00000 = 104; NaN too, which the
   caller flags): exp's core on |v| <= 104 only */
static inline double ul_exp_neg_clamped(uint32_t u) {
    const uint32_t au = u & 0x7FFFFFFFu;
    const uint32_t c = ul_sel32(au > 0x42D00000u, (u & 0x80000000u) | 0x42D00000u, u);
    const struct ul_exp_parts e = ul_exp_split(-(double)ul_float(c));
    return UL_FMA(e.s, e.q, e.s);
}
"""

SOURCE = EXP_CORE + CLAMP + f"""
void ulplab_sigmoid_fast64(const float *restrict x, float *restrict y, long n) {{
    for (long i = 0; i < n; i++) {{
        uint32_t u;
        memcpy(&u, x + i, 4);
        const uint32_t nan = (u & 0x7FFFFFFFu) > 0x7F800000u;
        const double t = 1.0 / (1.0 + ul_exp_neg_clamped(u));
        const uint32_t b = ul_round_or_flag(t, nan, {ERR});
        memcpy(y + i, &b, 4);
    }}
}}
"""


def tables() -> str:
    return exp_table()
