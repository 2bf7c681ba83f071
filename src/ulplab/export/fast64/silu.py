"""det silu's float64 first pass.

silu(x) = x / (1 + E), E = exp(-x) as in sigmoid's float64 pass (``ulplab.export.fast64.sigmoid``:
-x clamped to [-104, 104], relative error < 2^-51.9); x is exact in float64, so the relative
error is sigmoid's, below 2^-50.9 (4.3 units in the last place of the float64 result); the
rounding test takes ERR = 32. For x > 104, E = exp(-104) < 2^-149 and 1 + E = 1: the pass
returns x, silu's correctly rounded value there (x - silu(x) = x exp(-x) / (1 + exp(-x)) is far
below half an ulp of x). Near 0, x / (1 + E) keeps its relative accuracy (E is near 1, no
cancellation): silu(x) ~ x/2.
Flagged: NaN, and x < -104 (where the clamp would change the quotient; silu(x) is below 2^-126
there anyway), by a test on x's bits (0xC2D00000 = -104: every larger bit pattern is a negative
number beyond it, -inf or a NaN); +-0 (silu is +-0), results below 2^-126 in magnitude and
+inf by the rounding test.
"""

from __future__ import annotations

from ulplab.export.fast64.exp import CORE as EXP_CORE
from ulplab.export.fast64.sigmoid import CLAMP
from ulplab.export.fast64.tables import exp_table

ERR = 32
"""The rounding test's bound, in units in the last place of the float64 result."""

SOURCE = EXP_CORE + CLAMP + f"""
void ulplab_silu_fast64(const float *restrict x, float *restrict y, long n) {{
    for (long i = 0; i < n; i++) {{
        uint32_t u;
        memcpy(&u, x + i, 4);
        const uint32_t bad = ((u & 0x7FFFFFFFu) > 0x7F800000u) | (u > 0xC2D00000u);
        const double t = (double)ul_float(u) / (1.0 + ul_exp_neg_clamped(u));
        const uint32_t b = ul_round_or_flag(t, bad, {ERR});
        memcpy(y + i, &b, 4);
    }}
}}
"""


def tables() -> str:
    return exp_table()
