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
Flagged by a test on x's bits: NaN and x < -87 (0xC2AE0000: every larger bit pattern is a
negative number beyond it, -inf or a NaN; the results below 2^-126, from x < -87.34, are among
them, and the second pass rounds subnormals and returns 0). sigmoid(+inf) = 1 is kept. The
rounding test has no range part (``fast64.ROUND_NORMAL``): for every other input y lies in
[2^-125.5, 1] (sigmoid(-87) = 1.65e-38 = 2^-125.51, within 2^-50.9 relative), which saved the
range test's subtraction, comparison and mask a lane: the pass alone, 2^16 inputs in [-8, 8] in
cache, one thread, this project's 2-core Xeon VM, old and new timed alternately, 1.08 -> 0.94
ns per element (AVX-512 build), 1.89 -> 1.44 (AVX2).
"""

from __future__ import annotations

from ulplab.export.fast64 import ROUND_NORMAL
from ulplab.export.fast64.exp import CORE as EXP_CORE
from ulplab.export.fast64.tables import exp_table

ERR = 32
"""The rounding test's bound, in units in the last place of the float64 result."""

CLAMP = """
/* exp(-x) for float32 bits u, -x clamped to [-104, 104] (0x42D00000 = 104; NaN too, which the
   caller flags): exp's core on |v| <= 104 only */
static inline double ul_exp_neg_clamped(uint32_t u) {
    const uint32_t au = u & 0x7FFFFFFFu;
    const uint32_t c = (au < 0x42D00000u ? au : 0x42D00000u) | (u & 0x80000000u);
    const struct ul_exp_parts e = ul_exp_split(-(double)ul_float(c));
    return UL_FMA(e.s, e.q, e.s);
}
"""

SOURCE = EXP_CORE + CLAMP + ROUND_NORMAL + f"""
void ulplab_sigmoid_fast64(const float *restrict x, float *restrict y, long n) {{
    for (long i = 0; i < n; i++) {{
        uint32_t u;
        memcpy(&u, x + i, 4);
        /* NaN, and x below 0xC2AE0000 = -87 (-inf and the negative NaNs too) */
        const uint32_t bad = ((u & 0x7FFFFFFFu) > 0x7F800000u) | (u > 0xC2AE0000u);
        const double t = 1.0 / (1.0 + ul_exp_neg_clamped(u));
        const uint32_t b = ul_round_normal_or_flag(t, bad, {ERR}, 0);
        memcpy(y + i, &b, 4);
    }}
}}
"""


def tables() -> str:
    return exp_table()
