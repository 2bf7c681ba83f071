"""tan: a deterministic float32 kernel, correctly rounded on every bfloat16/float16/fp8 input.

Specification (the evaluation order is part of it; every operation is IEEE float32 with
round-to-nearest-even, FMA only where written ``fma``; integer steps on uint32/int32):

1. Special values by encoding: NaN and ±inf -> 0x7FC00000; tan(±0) = ±0 (the sign of zero is
   kept).
2. Tiny |x| < 2^-12 (``trig.TINY_BITS``, decided on the bits, subnormals included): tan x =
   x + x^3/3 + ... lies strictly between x and its float32 neighbour away from zero (x^3/3 <
   2^-25.5 |x|, below the spacing 2^-24 |x|), so the round-to-odd is x when its encoding is
   odd, else encoding + 1 (one step away from zero, either sign). In the nearest modes the
   result is x itself: x^3/3 (plus 2x^5/15 ...) < 2^-25.58 |x| is below half the spacing above
   |x| (more than 2^-25 |x|; the spacing away from zero never halves).
3. sin x and cos x as double-floats (Sh, Sl) and (Ch, Cl), exactly as trig.py's steps 3 to 6
   before their rounding (``trig.prepare_sincos`` once: Cody-Waite below 2^12, integer
   Payne-Hanek above; then ``trig.combine_quadrant`` for quadrants q and q + 1); each is its
   value to about 2^-46 relative.
4. tan x = S/C as a double-float quotient: qh = Sh / Ch; (p, pe) = two_prod(qh, Ch);
   rem = (((Sh - p) - pe) + Sl) - qh Cl   (Sh - p is exact by Sterbenz);
   ql = rem / Ch; (h, l) = fast_two_sum(qh, ql); result = round_result(h, l).

Range: 2^-12 <= |tan x| < 2^32 for every float32 x outside steps 1 and 2 (the float32 closest
to an odd multiple of pi/2 is 2^-29.9 away from it, relatively to q), so every operand is
normal. Error budget: h + l is tan x to about 2^-45 relative (the errors of S and C add, the
quotient costs 2^-47; measured against mpmath: 2^-45.8 at worst on the sample of
tests/test_kernels_rsqrt_expm1_log1p_tan.py, 2^-45.20 at worst (x = 0xF53F5183) at 300 bits on
about 43,000 inputs: random encodings of both signs, 2^-12 <= |x| < 2^23, the float32 nearest
to 15,000 multiples of pi/2 and their neighbours, TRIG_HARD). Exact case: x = ±0 only.

Accuracy (measured by the tests and registered): 0 ULP after nearest-even rounding to bfloat16,
float16 and both fp8 formats on every input, in the directed modes too; float32 results within
1 ulp (faithful).

Correctly rounded float32 (the ``float32`` entry point, issue 9): the same evaluation rounded
to nearest (``core.rounding("nearest")``), step 2's tiny rule giving x itself, plus a table of
exceptional inputs. The rounding test assumes |h + l - tan x| <= 2^-43 |tan x|
(``KERNELS[0]["bound"]``, 4.6 times the largest error measured). Over all 2^32 inputs
(``python -m ulplab.analysis.cr_scan tan``) 8,912 were undecided by that test; the oracle found
RN(h + l) wrong on 86 of them, the table ``exceptions/tan.json``.
"""

from __future__ import annotations

import numpy as np

from ulplab.kernels.core import by_mode, canonical_nan_where, round_result
from ulplab.kernels.reduction import CW_LIMIT_BITS
from ulplab.kernels.trig import TABLE_BYTES, combine_quadrant, prepare_sincos
from ulplab.kit import fast_two_sum, two_prod

f32 = np.float32
u32 = np.uint32


def _tan(x: np.ndarray, payne_hanek: bool) -> np.ndarray:
    with np.errstate(all="ignore"):
        bad, b, tiny, q, parts = prepare_sincos(x, payne_hanek)
        sh, sl = combine_quadrant(q, *parts)
        ch, cl = combine_quadrant(q + np.int32(1), *parts)
        qh = sh / ch
        p, pe = two_prod(qh, ch)
        rem = (((sh - p) - pe) + sl) - qh * cl
        y = round_result(*fast_two_sum(qh, rem / ch)).view(u32)
        keep = ((b & u32(1)) == 1) | ((b & u32(0x7FFFFFFF)) == 0)
        y = np.where(tiny, by_mode(np.where(keep, b, b + u32(1)), b), y)  # step 2
        return canonical_nan_where(bad, y.view(f32))


def tan(x: np.ndarray) -> np.ndarray:
    """tan x, float32 in -> float32 out (see the module docstring for the specification)."""
    return _tan(x, True)


def tan_below_2p12(x: np.ndarray) -> np.ndarray:
    """tan x for |x| < 2^12 only: ``tan``'s bits there without the Payne-Hanek reduction (the
    compiled runner's fast path)."""
    return _tan(x, False)


KERNELS = [
    {"function": "tan", "impl": tan, "table_bytes": TABLE_BYTES, "bound": 2.0**-43,
     "fast_path": (CW_LIMIT_BITS, tan_below_2p12),
     "idea": "sin's reduction (Cody-Waite / Payne-Hanek) and table; sin and cos as "
             "double-floats, their quotient as a double-float"},
]
"""What ``ulplab.methods.det`` registers from this module."""
