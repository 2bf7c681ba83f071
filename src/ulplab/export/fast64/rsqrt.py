"""det rsqrt's float64 first pass.

1/sqrt(x) from a float32 estimate and one correction in float64 (no table, no float64 square
root or division):
* y0 = 1.0f / sqrtf(x) in float32 (two correctly rounded operations: |y0 sqrt(x) - 1| <
  2^-23 + 2^-47);
* e = 1 - x y0^2: y0^2 is exact in float64 (y0 has 24 significant bits), so the FMA rounds e
  once, |e| < 2^-21.99 and its error below 2^-75 (without an FMA instruction x y0^2 rounds
  first: e within 2^-53);
* 1/sqrt(x) = y0 (1 - e)^(-1/2) = y0 (1 + e/2 + 3e^2/8 + 5e^3/16 + ...); y = y0 + (y0 e)
  (1/2 + 3e/8) (two FMAs and a product): truncation below (5/16) |e|^3 (1 + 2|e|) < 2^-67.6,
  the product's and the inner FMA's roundings 2 2^-53 of a term below 2^-22.9 y, e's below
  2^-75 (2^-54 without an FMA), the last FMA 2^-53.
Relative error below 2^-53 + 2^-54 + 2^-67 < 2^-52.4 (both builds), 1.6 units in the last place
of the float64 result; the rounding test takes ERR = 16 (a margin of 10). Exact results:
1/sqrt(4^k) = 2^-k (y0 exact, e = 0, y = y0), kept; 1/sqrt(x) is never a float32 midpoint (a
midpoint m has 25 significant bits, and 1/m^2 is a float32 only for a power of two m).
Flagged by a test on x's bits: +0, the subnormals, the negative inputs (-0 included), +inf and
NaN (the second pass returns +-inf, NaN and 0, and the subnormals' results). The subnormals'
results are ordinary numbers (up to 2^74.5), but sqrtf of a subnormal depends on the floating-
point environment: where denormals are read as zero (DAZ, as in JAX's CPU runtime) it is 0 and
y0 infinite; flagged, they go to the second pass, which gives the same bits in either
environment (until the day it was written the pass kept them, and ``det.apply`` on a JAX array
returned NaN for them: tests/test_det_api.py). Every other input lies in [2^-126, 2^128), so y
lies in (2^-64, 2^63], the normal float32 range: no range part in the rounding test
(``ROUND_NORMAL``).
"""

from __future__ import annotations

from ulplab.export.fast64 import ROUND_NORMAL

ERR = 16
"""The rounding test's bound, in units in the last place of the float64 result."""

SOURCE = ROUND_NORMAL + f"""
void ulplab_rsqrt_fast64(const float *restrict x, float *restrict y, long n) {{
    for (long i = 0; i < n; i++) {{
        uint32_t u;
        memcpy(&u, x + i, 4);
        /* +0 and the subnormals (below 0x00800000: u - 0x00800000 wraps), +inf and NaN (from
           0x7F800000) and every negative input (from 0x80000000) in one unsigned comparison:
           the second pass */
        const uint32_t bad = u - 0x00800000u >= 0x7F800000u - 0x00800000u;
        const float xf = ul_float(u);
        const double y0 = (double)(1.0f / sqrtf(xf));
        const double xd = (double)xf;
        const double e = UL_FMA(-xd, y0 * y0, 1.0);
        const double t = UL_FMA(y0 * e, UL_FMA(e, 0x1.8p-2, 0x1p-1), y0);
        const uint32_t b = ul_round_normal_or_flag(t, bad, {ERR}, 0);
        memcpy(y + i, &b, 4);
    }}
}}
"""


def tables() -> str:
    return ""
