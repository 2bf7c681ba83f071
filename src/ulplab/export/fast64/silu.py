"""det silu's float64 first pass.

silu(x) = x / (1 + E), E = exp(-x) as in sigmoid's float64 pass (``ulplab.export.fast64.sigmoid``:
-x clamped to [-104, 104], relative error < 2^-51.9); x is exact in float64, so the relative
error is sigmoid's, below 2^-50.9 (4.3 units in the last place of the float64 result); the
rounding test takes ERR = 32. For x > 104, E = exp(-104) < 2^-149 and 1 + E = 1: the pass
returns x, silu's correctly rounded value there (x - silu(x) = x exp(-x) / (1 + exp(-x)) is far
below half an ulp of x). Near 0, x / (1 + E) keeps its relative accuracy (E is near 1, no
cancellation): silu(x) ~ x/2.
Flagged by a test on x's bits: NaN and +inf, |x| < 2^-123 (+-0, whose silu is +-0, and the
inputs whose results are subnormal or near it) in one unsigned comparison, and x < -90
(0xC2B40000: every larger bit pattern is a negative number beyond it, -inf or a NaN; the clamp
at -104 and the results below 2^-126, from x < -91.8, are among them). The rounding test has no
range part (``fast64.ROUND_NORMAL``): for every other input |y| lies in [2^-124.9, 3.4e38]
(x >= 2^-123: y >= x/2; x in [-1, -2^-123]: |y| >= |x| sigmoid(-1) > 2^-123 0.268; x in [-90,
-1]: |x| sigmoid(x) decreases with |x| down to 90 sigmoid(-90) = 7.4e-38 = 2^-123.3; y within
2^-50.9 relative; finite x gives y <= x), which saved the range test's subtraction, comparison
and mask a lane: the pass alone, 2^16 inputs in [-8, 8] in cache, one thread, this project's
2-core Xeon VM, old and new timed alternately, 1.06 -> 1.00 ns per element (AVX-512 build),
1.84 -> 1.55 (AVX2).
"""

from __future__ import annotations

from ulplab.export.fast64 import ROUND_NORMAL
from ulplab.export.fast64.exp import CORE as EXP_CORE
from ulplab.export.fast64.sigmoid import CLAMP
from ulplab.export.fast64.tables import exp_table

ERR = 32
"""The rounding test's bound, in units in the last place of the float64 result."""

SOURCE = EXP_CORE + CLAMP + ROUND_NORMAL + f"""
void ulplab_silu_fast64(const float *restrict x, float *restrict y, long n) {{
    for (long i = 0; i < n; i++) {{
        uint32_t u;
        memcpy(&u, x + i, 4);
        /* |x| below 0x02000000 = 2^-123 or from 0x7F800000 on (+inf, NaN) in one unsigned
           comparison; x below 0xC2B40000 = -90 (-inf and the negative NaNs too) */
        const uint32_t bad = ((u & 0x7FFFFFFFu) - 0x02000000u >= 0x7F800000u - 0x02000000u)
                             | (u > 0xC2B40000u);
        const double t = (double)ul_float(u) / (1.0 + ul_exp_neg_clamped(u));
        const uint32_t b = ul_round_normal_or_flag(t, bad, {ERR}, 0);
        memcpy(y + i, &b, 4);
    }}
}}
"""


def tables() -> str:
    return exp_table()
