"""det sin's float64 first pass (and the sine/cosine core of cos's).

x = k pi/2 + r, |r| <= pi/4 (plus 2^-40), for |x| <= 2^17 (0x48000000); larger |x| (where the
kernel needs the Payne-Hanek reduction), NaN and the infinities are flagged:
* k = nearest(x 2/pi) (within 1/2 + 2^-35), by adding and subtracting 0x1.8p52 after one
  FMA; |k| < 2^17;
* r = ((x - k P1) - k P2) - k P3 (Cody and Waite, ``tables.pio2_split``: P1, P2 of 36
  significant bits, so k P1 and k P2 are exact, with or without an FMA instruction; x - k P1 is
  exact by Sterbenz's lemma); the two other subtractions and k P3 round (2^-52 |r| + 2^-100),
  and pi/2 - P1 - P2 - P3 < 2^-125 adds k 2^-125; the float32 inputs below 2^17 stay farther
  than 2^-40 from every multiple of pi/2 but 0 (checked by the exhaustive sweep: no mismatch),
  so r has a relative error below 2^-51.5;
* sin r = r + r^3 (s1 + s2 r^2 + ... + s7 r^12), cos r = 1 + r^2 (c1 + ... + c8 r^14), the
  Taylor coefficients (-1)^i/(2i+1)! and (-1)^i/(2i)! rounded to nearest: truncation below
  (pi/4)^17/17! < 2^-54 |sin r| and (pi/4)^18/18! < 2^-58; with the Horner roundings, relative
  error below 2^-51;
* sin x = sin r, cos r, -sin r, -cos r for k mod 4 = 0, 1, 2, 3 (cos x: k + 1).
Relative error below 2^-50: 8 units in the last place of the float64 result; the rounding test
takes ERR = 64 (a margin of 8). Zero results (sin of +-0) are outside the normal range and
flagged (the second pass keeps the sign), as are the subnormal ones.
"""

from __future__ import annotations

from fractions import Fraction
from math import factorial

from ulplab.export.fast64.tables import horner, pio2_split

ERR = 64
"""The rounding test's bound, in units in the last place of the float64 result."""

SIN = [Fraction((-1) ** i, factorial(2 * i + 1)) for i in range(1, 8)]
"""(sin r - r)/r^3 in powers of r^2: (-1)^i/(2i+1)!, i = 1..7."""

COS = [Fraction((-1) ** i, factorial(2 * i)) for i in range(1, 9)]
"""(cos r - 1)/r^2 in powers of r^2: (-1)^i/(2i)!, i = 1..8."""

CORE = """
/* sin(v + shift pi/2) for |v| <= 2^17, relative error < 2^-50 (ulplab.export.fast64.sin);
   for any other v some float64 */
static inline double ul_sin_quadrant(double v, uint64_t shift) {
    /* k = nearest(v 2/pi) in the low bits of `shifted` (0x1.8p52 = bits 0x4338000000000000
       plus k) */
    const double shifted = UL_FMA(v, 0x1.45f306dc9c883p-1, 0x1.8p52);
    const double kd = shifted - 0x1.8p52;
    const uint64_t q = ul_bits64(shifted) + shift;            /* k + shift mod 4 */
    const double r = ((v - kd * UL_PIO2_1) - kd * UL_PIO2_2) - kd * UL_PIO2_3;
    const double r2 = r * r;
    const double s = UL_FMA(r * r2, """ + horner("r2", SIN) + """, r);
    const double c = UL_FMA(r2, """ + horner("r2", COS) + """, 1.0);
    const uint64_t t = ul_sel64(q & 1, ul_bits64(c), ul_bits64(s));
    return ul_double(t ^ ((q & 2) << 62));                    /* k mod 4 in {2, 3}: - */
}
"""


def source(func: str, shift: int) -> str:
    """The loop of ``func`` = sin(x + shift pi/2)."""
    return f"""
void ulplab_{func}_fast64(const float *restrict x, float *restrict y, long n) {{
    for (long i = 0; i < n; i++) {{
        uint32_t u;
        memcpy(&u, x + i, 4);
        /* 0x48000000 = 2^17: beyond it (NaN and the infinities too) the second pass */
        const uint32_t bad = (u & 0x7FFFFFFFu) > 0x48000000u;
        const uint32_t b = ul_round_or_flag(ul_sin_quadrant((double)x[i], {shift}), bad, {ERR});
        memcpy(y + i, &b, 4);
    }}
}}
"""


SOURCE = CORE + source("sin", 0)


def tables() -> str:
    return pio2_split()
