"""det tan's float64 first pass: the reduction by pi/2 and the two polynomials of
``ulplab.export.fast64.sin`` (``REDUCE``, which sin's and cos's passes ran until 2026-11-26,
night) and one quotient.

x = k pi/2 + r, |r| <= pi/4 (plus 2^-40), for |x| <= 2^17, s = sin r and c = cos r
(``sin.REDUCE``: relative errors below 2^-45.5 and 2^-50); tan is periodic in pi, so
tan x = s/c for even k and -c/s for odd k (one quotient of two selects: no branch).
Relative error below 2^-45.5 + 2^-50 + 2^-53 (the quotient's rounding) < 2^-45.4: 194 units in
the last place of the float64 result; the rounding test takes ERR = 1024 (a margin of 5.3) and
flags about 2 ERR / 2^29 = 3.8e-6 of ordinary inputs. tan x is rational only at
x = 0, so no result is exactly a float32 midpoint.
Flagged by sin's test on x's bits: |x| > 2^17 (the Payne-Hanek range), NaN and the infinities,
zero and the subnormals (tan of +-0 keeps its sign in the second pass; tan of a subnormal is
subnormal). The rounding test has no range part (``ROUND_NORMAL``): for every other input y
lies in the normal float32 range. Where k = 0, r = x and y = s/c is x itself where |x| < 2^-25
(c = 1, s = x in float64: sin's analysis) and |y| > |x| > 2^-126 elsewhere; for even k != 0,
|y| >= |sin r| (1 - 2^-45) with |r| >= 2^-27.83 (sin's distance from the multiples of pi/2);
for odd k, |y| = |c/s| lies in [0.99, 2^27.9].
"""

from __future__ import annotations

from ulplab.export.fast64 import ROUND_NORMAL
from ulplab.export.fast64.sin import ERR, REDUCE
from ulplab.export.fast64.tables import pio2_split

SOURCE = """
/* tan(v) for |v| <= 2^17, relative error < 2^-45.4 (ulplab.export.fast64.tan); for any other v
   some float64 */
static inline double ul_tan_reduced(double v) {
    const uint64_t shift = 0;
""" + REDUCE + """    /* k odd: -c/s; k even: s/c */
    const uint64_t odd = q & 1;
    const double num = ul_double(ul_sel64(odd, ul_bits64(c) ^ 0x8000000000000000ull,
                                          ul_bits64(s)));
    const double den = ul_double(ul_sel64(odd, ul_bits64(s), ul_bits64(c)));
    return num / den;
}
""" + ROUND_NORMAL + f"""
void ulplab_tan_fast64(const float *restrict x, float *restrict y, long n) {{
    for (long i = 0; i < n; i++) {{
        uint32_t u;
        memcpy(&u, x + i, 4);
        /* 0x48000000 = 2^17: beyond it (NaN and the infinities too) the second pass; below
           0x00800000 (zero and the subnormals) too */
        const uint32_t bad = (u & 0x7FFFFFFFu) - 0x00800000u > 0x48000000u - 0x00800000u;
        const uint32_t b = ul_round_normal_or_flag(ul_tan_reduced((double)x[i]), bad, {ERR}, 0);
        memcpy(y + i, &b, 4);
    }}
}}
"""



def tables() -> str:
    """pi/2 in three parts (``tables.pio2_split``: REDUCE's P1, P2, P3)."""
    return pio2_split()


__all__ = ["ERR", "SOURCE", "tables"]
