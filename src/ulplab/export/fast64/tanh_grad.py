"""det tanh_grad's float64 first pass.

tanh'(x) = 1 - tanh(x)^2 = 4E/(1 + E)^2, E = exp(-2|x|) from exp's float64 split
(``ulplab.export.fast64.exp``: E = s + s q, relative error e < 2^-51.9 for |v| <= 104; here
v = -2|x| is exact and |x| <= 44):
* d = 1 + E: E's error contributes e E/(1 + E) <= e/2 relative (E <= 1), the rounding 2^-53;
* d^2 rounds once more: relative error below 2 (e/2 + 2^-53) + 2^-53 = e + 3 2^-53;
* 4E is exact; the quotient rounds once: in all below 2e + 4 2^-53 < 2^-49.95.
So below 8.3 units in the last place of the float64 result (one more rounding of 2^-53 in E
without an FMA instruction: 2^-49.8); the rounding test takes ERR = 64 (a margin above 7).
Exact result: tanh'(+-0) = 1 (E = 1 exactly: k = 0, r = 0; d = 2, 4/4 = 1), kept; for
subnormal and tiny x, E rounds to 1 and y = 1, tanh'(x) = 1 - x^2 (1 + ...) rounded to
float32 (the float32 midpoint below 1, 1 - 2^-25, is 2^27 units of y away); tanh' is
transcendental elsewhere, never a float32 midpoint.
Flagged by a test on x's bits: |x| > 44 (0x42300000; NaN and the infinities too): tanh'(44)
= 4 exp(-88)/(1 + exp(-88))^2 = 2^-124.7, and beyond 44.36 the results are subnormal or 0.
For every other input y lies in [2^-124.8, 1], the normal float32 range: no range part in the
rounding test (``ROUND_NORMAL``).
"""

from __future__ import annotations

from ulplab.export.fast64 import ROUND_NORMAL
from ulplab.export.fast64.exp import CORE as EXP_CORE
from ulplab.export.fast64.tables import exp_table

ERR = 64
"""The rounding test's bound, in units in the last place of the float64 result."""

SOURCE = EXP_CORE + ROUND_NORMAL + f"""
void ulplab_tanh_grad_fast64(const float *restrict x, float *restrict y, long n) {{
    for (long i = 0; i < n; i++) {{
        uint32_t u;
        memcpy(&u, x + i, 4);
        const uint32_t au = u & 0x7FFFFFFFu;
        /* |x| above 0x42300000 = 44 (NaN and the infinities too): the second pass */
        const uint32_t bad = au > 0x42300000u;
        /* E = exp(-2|x|) (for |x| <= 44 in exp's range) */
        const struct ul_exp_parts e = ul_exp_split(-2.0 * (double)ul_float(au));
        const double big = UL_FMA(e.s, e.q, e.s);
        const double d = 1.0 + big;
        const uint32_t b = ul_round_normal_or_flag((4.0 * big) / (d * d), bad, {ERR}, 0);
        memcpy(y + i, &b, 4);
    }}
}}
"""


def tables() -> str:
    return exp_table()
