"""det sin's float64 first pass (and the sine/cosine core of cos's).

x = k pi/2 + r, |r| <= pi/4 (plus 2^-40), for |x| <= 2^17 (0x48000000); larger |x| (where the
kernel needs the Payne-Hanek reduction), NaN and the infinities are flagged:
* k = nearest(x 2/pi) (within 1/2 + 2^-35), by adding and subtracting 0x1.8p52 after one
  FMA; |k| < 2^17;
* r = ((x - k P1) - k P2) - k P3 (Cody and Waite, ``tables.pio2_split``: P1, P2 of 36
  significant bits, so k P1 and k P2 are exact; x - k P1 is exact by Sterbenz's lemma), each
  product subtracted in one FMA (a product and a difference without an FMA instruction: the
  same values for the first two, k P3 rounded once more); the two later differences round
  (2^-52 |r| + 2^-100), and pi/2 - P1 - P2 - P3 < 2^-125 adds k 2^-125; the float32 inputs in
  [pi/4, 2^17] lie at least 2^-27.83 from every nonzero multiple of pi/2 (the closest:
  0x437CE5F1 = 252.898..., by a float64 scan of all of them, confirmed in mpmath), so r has a
  relative error below 2^-51.5;
* sin r = r + r^3 P(r^2), P of degree 4, cos r = 1 + r^2 Q(r^2), Q of degree 5 (``SIN``,
  ``COS``: ``python benchmarks/fit_fast64.py sincos --check-points 20000``, the interpolants
  at the Chebyshev nodes of s = r^2 in [0, R^2], R = pi/4 + 2^-40, coefficients rounded to the
  nearest float64): relative approximation error below 2^-45.58 (sin) and 2^-51.61 (cos) at
  20,000 points of (0, R]; Horner's roundings in P and Q (relative 2^-52 of a term below
  r^2/6 of the result), r r^2 and the last FMA add below 2^-52.5, r's own relative error
  2^-51.5 carries over to sin r and, times r tan r <= 0.79, to cos r: below 2^-45.5 for sin
  r, 2^-50 for cos r;
* sin x = sin r, cos r, -sin r, -cos r for k mod 4 = 0, 1, 2, 3 (cos x: k + 1).
Relative error below 2^-45.5: 181 units in the last place of the float64 result; the rounding
test takes ERR = 1024 (a margin of 5.6) and flags about 2 ERR / 2^29 = 3.8e-6 of ordinary
inputs. Until 2026-11-26 the polynomials were the Taylor ones of degrees 15 and 16 (below
2^-50, ERR = 64, 7 and 8 coefficients): the looser bound, which leaves a chunk of the runner
flagged as rarely as before in practice, saves four FMAs a lane: the pass alone on 2^16
inputs in [-100, 100] in cache, one thread, this project's 2-core Xeon VM, old and new timed
alternately: sin 1.72 -> 1.54 ns per element (AVX2 build) and 0.99-1.02 -> 0.91 (AVX-512),
cos 1.72 -> 1.56 and 1.01-1.03 -> 0.91-0.94.
Zero and subnormal inputs are flagged by the test on x's bits (sin of +-0 keeps its sign in the
second pass; sin of a subnormal is subnormal; cos, which shares the loop, leaves its 1 there to
the second pass too: 2^24 patterns more flagged of 2^32). The rounding test has no range part
(``ROUND_NORMAL``): for every other input y lies in [2^-126, 1]. Where k = 0, r = x and
y = r + r^3 P(r^2) is x itself where |r^3 P| < |x|^3/6 is below half an ulp of x in float64
(|x| < 2^-25), and |y| > 0.89 |x| > 2^-26 elsewhere; where k != 0, |y| >= |sin r| (1 - 2^-45)
with |r| >= 2^-27.83, or y is a cosine of |r| <= pi/4 + 2^-40, at least 0.7. That saved the
range test's subtraction, comparison and mask, and the FMAs of the reduction three operations,
a lane: the pass alone, 2^16 inputs in [-100, 100] in cache, one thread, sin 1.56 -> 1.31 ns
per element (AVX2 build) and 0.90 -> 0.80 (AVX-512), cos 1.56 -> 1.29 and 0.92 -> 0.75.
"""

from __future__ import annotations

from ulplab.export.fast64 import ROUND_NORMAL
from ulplab.export.fast64.tables import horner, pio2_split

ERR = 1024
"""The rounding test's bound, in units in the last place of the float64 result."""

SIN = [float.fromhex(v) for v in (
    "-0x1.555555555516bp-3", "0x1.1111110fd3d43p-7", "-0x1.a019fd9b35ee5p-13",
    "0x1.71d9a9f41c5a8p-19", "-0x1.aa285788aa996p-26")]
"""P: (sin r - r)/r^3 in powers of r^2, low to high (``fit_fast64.py sincos``)."""

COS = [float.fromhex(v) for v in (
    "-0x1.ffffffffffffap-2", "0x1.5555555554137p-5", "-0x1.6c16c1691d8abp-10",
    "0x1.a019fc7b4b9f6p-16", "-0x1.27e0f5789db49p-22", "0x1.1c064801aa0f3p-29")]
"""Q: (cos r - 1)/r^2 in powers of r^2, low to high (``fit_fast64.py sincos``)."""

REDUCE = """\
    /* k = nearest(v 2/pi) in the low bits of `shifted` (0x1.8p52 = bits 0x4338000000000000
       plus k) */
    const double shifted = UL_FMA(v, 0x1.45f306dc9c883p-1, 0x1.8p52);
    const double kd = shifted - 0x1.8p52;
    const uint64_t q = ul_bits64(shifted) + shift;            /* k + shift mod 4 */
    /* the three products subtracted in FMAs: the first two exact, as k P1 and k P2 are */
    const double r = UL_FMA(-kd, UL_PIO2_3, UL_FMA(-kd, UL_PIO2_2, UL_FMA(-kd, UL_PIO2_1, v)));
    const double r2 = r * r;
    const double s = UL_FMA(r * r2, """ + horner("r2", SIN) + """, r);
    const double c = UL_FMA(r2, """ + horner("r2", COS) + """, 1.0);
"""
"""The body of the reduction and both polynomials, on float64 ``v`` and the quadrant ``shift``:
k = nearest(v 2/pi), q = k + shift, r = v - k pi/2, s = sin r and c = cos r (the analysis above;
tan's pass divides them)."""

CORE = """
/* sin(v + shift pi/2) for |v| <= 2^17, relative error < 2^-45.5 (ulplab.export.fast64.sin);
   for any other v some float64 */
static inline double ul_sin_quadrant(double v, uint64_t shift) {
""" + REDUCE + """    const uint64_t t = ul_sel64(q & 1, ul_bits64(c), ul_bits64(s));
    return ul_double(t ^ ((q & 2) << 62));                    /* k mod 4 in {2, 3}: - */
}
"""


def source(func: str, shift: int) -> str:
    """The loop of ``func`` = sin(x + shift pi/2) (and the midpoint test it calls)."""
    return ROUND_NORMAL + f"""
void ulplab_{func}_fast64(const float *restrict x, float *restrict y, long n) {{
    for (long i = 0; i < n; i++) {{
        uint32_t u;
        memcpy(&u, x + i, 4);
        /* 0x48000000 = 2^17: beyond it (NaN and the infinities too) the second pass; below
           0x00800000 (zero and the subnormals) too */
        const uint32_t bad = (u & 0x7FFFFFFFu) - 0x00800000u > 0x48000000u - 0x00800000u;
        const uint32_t b = ul_round_normal_or_flag(ul_sin_quadrant((double)x[i], {shift}), bad,
                                                   {ERR}, 0);
        memcpy(y + i, &b, 4);
    }}
}}
"""


SOURCE = CORE + source("sin", 0)


def tables() -> str:
    return pio2_split()
