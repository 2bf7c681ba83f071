"""log1p: a deterministic float32 kernel for log(1 + x), correctly rounded on every bfloat16/
float16/fp8 input.

Specification (the evaluation order is part of it; every operation is IEEE float32 with
round-to-nearest-even, FMA only where written ``fma``):

1. Special values by encoding (on the bits): NaN -> 0x7FC00000; x < -1 (-inf included) ->
   0x7FC00000; x = -1 -> -inf; +inf -> +inf; |x| < 2^-25 (``TINY_BITS`` = 0x33000000,
   subnormals included): ±0 stay; else log(1 + x) = x - x^2/2 + ... lies strictly between x and
   its float32 neighbour toward -inf (x^2/2 < 2^-26 |x|, below the spacing 2^-24 |x|), so the
   round-to-odd is x when its encoding is odd, else encoding - 1 (x > 0) or + 1 (x < 0). In the
   nearest modes the result is x itself: x^2/2 < 2^-26 |x| is below half the spacing on either
   side of x (at least 2^-25 |x|, also below a positive power of two, where the spacing toward
   zero halves; a subnormal x is 2^-150 or more from a midpoint, x^2/2 < 2^-250).
2. 1 + x exactly as a double-float: (uh, ul) = two_sum(1, x); uh >= 2^-24 is normal. For
   x > 2^60 (0x5D800000) ul is set to 0: log(1 + x) - log(uh) < 2^-60 there, below 2^-65 of
   the result (and ul/uh would otherwise leave the normal range).
3. log uh as log's steps 2 to 5 (``log.log_parts``): uh = 2^k z, log z = Lh + Ll.
4. log(uh + ul) = log uh + log1p(d), d = ul/uh, |d| <= 2^-24: dh = ul / uh;
   dl = fma(-dh, uh, ul) / uh (the remainder of a division is exact); log1p(d) = dh + (dl -
   dh dh/2) (truncation |d|^3/3 < 2^-49 |d|). Folded into log z: (s, e) = two_sum(Lh, dh);
   (Lh', Ll') = fast_two_sum(s, e + (Ll + (dl - (dh dh) 1/2))).
5. k ln 2 + Lh' + Ll' as log's step 6 (``log.k_ln2_plus``); result = round_result(h, l).

Where k = 0 (uh in [0x1.67p-1, 0x1.67p+0)) nothing is added to log z and d: both are
relatively accurate (log's interval around 1 uses invc = 1, r = z - 1 exact), so the result is
too, down to |x| = 2^-25; where k != 0, |log(1 + x)| > 0.33 and nothing cancels. Error budget:
h + l is log(1 + x) to about 2^-45 relative (measured against mpmath: 2^-46.3 at worst,
tests/test_kernels_rsqrt_expm1_log1p_tan.py; 2^-45.96 at worst at 300 bits on about 63,000
inputs: random encodings of both signs, 2^-25 <= |x| < 2^-7, near -1, 2^60 and the ends of
k = 0). Exact case: x = ±0 only.

Accuracy (measured by the tests and registered): 0 ULP after nearest-even rounding to bfloat16,
float16 and both fp8 formats on every input, in the directed modes too; float32 results within
1 ulp (faithful).

Correctly rounded float32 (the ``float32`` entry point, issue 9): the same evaluation rounded
to nearest (``core.rounding("nearest")``), step 1's tiny rule giving x itself, plus a table of
exceptional inputs. The rounding test assumes |h + l - log(1 + x)| <= 2^-43 |log(1 + x)|
(``KERNELS[0]["bound"]``, 7.8 times the largest error measured). Over all 2^32 inputs
(``python -m ulplab.analysis.cr_scan log1p``) 5,694 were undecided by that test; the oracle
found RN(h + l) wrong on 43 of them, the table ``exceptions/log1p.json``.
"""

from __future__ import annotations

import numpy as np

from ulplab.kernels.core import by_mode, canonical_nan_where, round_result, tiny_magnitude
from ulplab.kernels.log import TABLE_BYTES, k_ln2_plus, log_parts
from ulplab.kit import fast_two_sum, fma, two_sum
from ulplab.kit.ops import f32hex

f32 = np.float32
u32 = np.uint32

TINY_BITS = 0x33000000  # 2^-25: below it log(1 + x) is x minus less than an ulp
BIG = f32hex("0x1p+60")  # above it the low part of 1 + x is dropped (step 2)


def log1p(x: np.ndarray) -> np.ndarray:
    """log(1 + x), float32 in -> float32 out (see the module docstring for the specification)."""
    with np.errstate(all="ignore"):
        xb = x.view(u32)
        tiny = tiny_magnitude(x, TINY_BITS)
        main = (x > f32(-1.0)) & (x < f32(np.inf)) & ~tiny  # -1 < x < inf, not tiny
        xm = np.where(main, x, f32(1.0))
        uh, ul = two_sum(np.full_like(xm, f32(1.0)), xm)
        ul = np.where(xm > BIG, f32(0.0), ul)
        k, lh, ll = log_parts(uh)
        dh = ul / uh
        dl = fma(-dh, uh, ul) / uh
        s, e = two_sum(lh, dh)
        lh, ll = fast_two_sum(s, e + (ll + (dl - (dh * dh) * f32(0.5))))
        y = round_result(*k_ln2_plus(k, lh, ll)).view(u32)
        even = ((xb & u32(1)) == 0) & ((xb & u32(0x7FFFFFFF)) != 0)
        step = np.where((xb >> u32(31)) == 1, xb + u32(1), xb - u32(1))  # toward -inf
        y = np.where(tiny, by_mode(np.where(even, step, xb), xb), y)  # step 1
        y = np.where(x == f32(-1.0), u32(0xFF800000), y)
        y = np.where(xb == u32(0x7F800000), u32(0x7F800000), y)
        invalid = np.isnan(x) | (x < f32(-1.0))
        return canonical_nan_where(invalid, y.view(f32))


KERNELS = [
    {"function": "log1p", "impl": log1p, "table_bytes": TABLE_BYTES, "bound": 2.0**-43,
     "idea": "1 + x exact as a double-float (two_sum); log of the high part by log's table "
             "kernel, plus log1p(low/high) from an exact division remainder"},
]
"""What ``ulplab.methods.det`` registers from this module."""
