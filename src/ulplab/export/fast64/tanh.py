"""det tanh's float64 first pass.

tanh is odd: a = |x| is evaluated and x's sign put on the float32 result. a is clamped to 9.25
(tanh(a) rounds to 1 for a > 9.011, where 1 - tanh(a) < 2^-25; the float64 value at 9.25,
1 - 2^-25.7, lies 2^-26.4 from the midpoint 1 - 2^-25, far beyond the bound below, so it
rounds to 1 and passes the rounding test). Then, with no division and one table read:
* k = nearest(128 a) (0 <= k <= 1184) by adding and subtracting 0x1.8p52 (128 a is exact);
  h = a - k/128 is exact (k/128 is exact, and for k >= 1, a >= 2^-8 has its last bit at
  2^-31 or above, so |h| <= 2^-8 fits in 24 bits; for k = 0, h = a), with or without an FMA
  instruction;
* s = tanh(k/128) from ``tables()`` (rounded to nearest: relative error <= 2^-53; s = 0 for
  k = 0) and tanh(a) = s + c R/(1 + s R), c = 1 - s^2, R = tanh(h) (the addition formula);
* rho = h + h^3 (c3 + c5 h^2), the Taylor coefficients -1/3 and 2/15 rounded to nearest:
  truncation below 17/315 h^7 (the series alternates with decreasing terms for |h| < 1), so
  rho = R (1 + e) with |e| < 2^-52.21 (truncation) + 2^-53 (the last rounding) < 2^-51.55;
* c = 1 - s^2 (one FMA; or a product and a sum), within 2^-53 (3 s^2 + c);
* 1/(1 + z), z = s rho (|z| < 2^-8), by 1 - z + z^2 - z^3 = (1 - z^4)/(1 + z): relative
  truncation |z|^4 < 2^-32, but it multiplies c R/(1 + s R), so its share of the result,
  about (1 - s^2) s^4 h^5 / tanh(a), is below 2^-42.5;
* t = (rho c) p + s (one FMA; or a product and a sum).
Bound (first order in the unit roundoff u = 2^-53, each FMA counted as a product and a sum, so
it covers the portable build too): |t - tanh a| <= u s + |R|/(1 + s R) (c (e + f + 2u) +
u (3 s^2 + c)) + u tanh(a), f = |z|^4 + 1.017 u + |s R| (2u + e) the error of p; its largest
value relative to tanh(a) over k = 1..1184 and a grid of 257 h in [-2^-8, 2^-8] each
(``relative_error_bound()``) is 2^-42.42, at k = 132, h = -2^-8 (the reciprocal's
truncation). For k = 0, t = rho exactly (s = 0, c = 1, p = 1): 2^-51.55. So below 2^-42.4,
1533 units in the last place of the float64 result; the rounding test takes ERR = 8192 (a
margin above 5) and flags about 2 ERR / 2^29 = 3e-5 of ordinary inputs.
Why this budget: until 2026-11-26 the reciprocal had degree 4 (below 2^-49.7, at k = 1,
h = -2^-8, ERR = 32); a flag costs the second pass only where a chunk of the runner has one,
and the looser bound buys one FMA a lane: the pass alone, 2^16 inputs in [-8, 8] in cache, one
thread, this project's 2-core AVX-512 VM, old and new timed alternately, 0.652 -> 0.622 ns an
element (AVX-512 build), 1.096 -> 1.063 (AVX2).
The rounding test is ``ROUND_NORMAL``'s on t >= 0 (x's sign or-ed into the float32 result), the
range part moved to x's bits:
flagged are NaN, zero and the subnormal inputs (|x| < 2^-126: their results are subnormal,
and the second pass keeps the sign of zero). For every other input t lies in [2^-126, 1)
(for a < 2^-27, h^3/3 is below a quarter of an ulp of h, so t = rho = a), the normal float32
range. The infinities are kept (+-1).
"""

from __future__ import annotations

from fractions import Fraction
from functools import cache

import mpmath
import numpy as np

from ulplab.export.fast64 import ROUND_NORMAL
from ulplab.export.fast64.tables import c_array, horner

ERR = 8192
"""The rounding test's bound, in units in the last place of the float64 result."""

STEPS = 128
"""The table's grid: ``ul_tanh_tab[k]`` = tanh(k/STEPS)."""

CLAMP = 0x41140000
"""9.25 as float32 bits: |x| is clamped to it (tanh rounds to 1 beyond 9.011)."""

LAST = 1184
"""9.25 * STEPS: the largest k = nearest(STEPS a), the table's last index."""

RHO = [Fraction(-1, 3), Fraction(2, 15)]
"""(tanh(h) - h)/h^3 in powers of h^2, Taylor coefficients (low to high)."""

RECIPROCAL = [Fraction((-1) ** i) for i in range(4)]
"""1/(1 + z) = 1 - z + z^2 - z^3 + ..., truncated after z^3 (low to high)."""

U = 2.0**-53
"""The unit roundoff of float64."""


@cache
def tables() -> str:
    """``ul_tanh_tab[k]`` = tanh(k/128), k = 0..1184, rounded to nearest (mpmath at 200 bits,
    rounded once to 53)."""
    values = []
    with mpmath.workprec(200):
        for k in range(LAST + 1):
            exact = mpmath.tanh(mpmath.mpf(k) / STEPS)
            with mpmath.workprec(53):
                values.append(float(+exact))
    return c_array("ul_tanh_tab", values)


def relative_error_bound(samples: int = 257) -> tuple[float, int, float]:
    """The module docstring's bound on |t - tanh a| / tanh a, its largest value over k =
    1..LAST and ``samples`` h evenly spaced in [-1/256, 1/256] per k (a <= 9.25), as (bound,
    k, h) where it is reached."""
    k = np.arange(1, LAST + 1, dtype=np.float64)[:, None]
    h = np.linspace(-0.5 / STEPS, 0.5 / STEPS, samples)[None, :]
    s, r, c = np.tanh(k / STEPS), np.tanh(h), 1 - np.tanh(k / STEPS) ** 2
    e = U * 1.0001 + 17 / 315 * h**6 / (1 - h * h / 3)
    z = np.abs(s * r) * (1 + 4 * U)
    f = z ** (len(RECIPROCAL)) + 1.017 * U + np.abs(s * r) * (2 * U + e) * 1.005
    exact = np.tanh(k / STEPS + h)
    err = U * s + np.abs(r) / (1 + s * r) * (c * (e + f + 2 * U) + U * (3 * s * s + c) * 1.0001)
    rel = np.where(k / STEPS + h <= 9.25, (err + U * exact) / exact, 0.0) * (1 + 1e-6)
    i, j = np.unravel_index(int(np.argmax(rel)), rel.shape)
    return float(rel[i, j]), int(k[i, 0]), float(h[0, j])


SOURCE = ROUND_NORMAL + f"""
void ulplab_tanh_fast64(const float *restrict x, float *restrict y, long n) {{
    for (long i = 0; i < n; i++) {{
        uint32_t u;
        memcpy(&u, x + i, 4);
        const uint32_t au = u & 0x7FFFFFFFu;
        /* flagged: |x| below 0x00800000 = 2^-126 (zero, subnormals: subnormal results) and
           NaN (above 0x7F800000) */
        const uint32_t bad = au - 0x00800000u > 0x7F800000u - 0x00800000u;
        /* a = |x| clamped to 0x{CLAMP:08X} = 9.25 (NaN too: flagged above) */
        const double a = (double)ul_float(au < 0x{CLAMP:08X}u ? au : 0x{CLAMP:08X}u);
        /* k = nearest(128 a) in the low bits of `shifted` (bits 0x4338000000000000 plus k,
           k <= {LAST}); h = a - k/128 exact */
        const double shifted = UL_FMA(a, 0x1p7, 0x1.8p52);
        const double kd = shifted - 0x1.8p52;
        const double h = UL_FMA(kd, -0x1p-7, a);
        const double s = ul_tanh_tab[ul_bits64(shifted) & 0x7FF];
        const double h2 = h * h;
        const double rho = UL_FMA(h2 * h, {horner("h2", RHO)}, h);     /* tanh(h) */
        const double c = UL_FMA(-s, s, 1.0);
        const double z = s * rho;
        const double p = {horner("z", RECIPROCAL)};  /* 1/(1 + z) */
        const double t = UL_FMA(rho * c, p, s);
        /* the midpoint test on t >= 0 (in the normal range here), x's sign put on the
           float32 result */
        const uint32_t b = ul_round_normal_or_flag(t, bad, {ERR}, u & 0x80000000u);
        memcpy(y + i, &b, 4);
    }}
}}
"""
