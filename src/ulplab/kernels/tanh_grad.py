"""tanh_grad: a deterministic float32 kernel for d/dx tanh(x) = 1 - tanh(x)^2, correctly rounded
on every bfloat16/float16/fp8 input (the backward pass of a det tanh).

Specification (every operation is IEEE float32 with round-to-nearest-even, FMA only where
written ``fma``; ``sigmoid_neg_parts`` is ``logistic``'s, ``one_minus_scaled`` (1 - (q + ql)
2^m) ``doublefloat``'s):

1. Even: computed for a = |x|. NaN -> 0x7FC00000; ±inf -> +0 (exact).
   a < 2^-13 (``TINY_BITS`` = 0x39000000, on the bits, subnormals included): 1 - a^2 + ...
   lies in (1 - 2^-26, 1), strictly between 1 - 2^-24 and 1, so its round-to-odd is
   0x3F7FFFFF and, above the midpoint 1 - 2^-25, its nearest is 1 (``by_mode``); a = 0 gives 1
   exactly. (In nearest mode 1 holds up to a = 2^-12.5; 2^-13 <= a < 2^-12.5 is computed.)
2. 1 - tanh(a)^2 = sech(a)^2 = 4 sigma(-2a) (1 - sigma(-2a)), written as a product so that
   nothing cancels (an error d in sigma changes it by 4 d (1 - 2 sigma), which vanishes where
   sigma is near 1/2). With ac = min(a, 64) (for a > 64 the value is below 2^-182 and its
   round-to-odd is 2^-149, as for a = 64, and its nearest +0, as for a = 64):
   (q, ql, m) = sigmoid_neg_parts(ac + ac)   (sigma(-2a) = (q + ql) 2^m);
   (r, rl) = one_minus_scaled(q, ql, m) for a <= 20; (1, 0) for a > 20 (1 - sigma(-2a) is within
   e^-40 < 2^-57 of 1 there);
   (p, pl) = dd_mul(q, ql, r, rl); result = round_result_scaled(p, pl, m + 2) (subnormal
   results built as integers, FTZ-proof).

Error bound and the correctly rounded float32 entry point: measured maximum relative error of
hi + lo (before the final rounding) against mpmath at 120 bits, 2^-45.5 on 24,000 inputs (uniform
in [-64, 64], log-uniform magnitudes, +-3000 ULP around the thresholds; a < 2^-13 and a > 20
excluded), set by exp_parts and dd_div; ``KERNELS[0]["bound"]`` = 2^-43 (5.7 times that). The
float32 entry point (``ulplab.kernels.exceptions``) rounds to nearest, then applies the table of
inputs whose rounding the bound leaves undecided and where RN(hi + lo) is wrong, found over all
2^32 inputs by ``python -m ulplab.analysis.cr_scan tanh_grad``: 92,424 undecided, 8 exceptions
(scan 21 min on a shared 2-core machine). Exact cases: x = ±0 (1) and ±inf (+0) only.

Accuracy (measured by the tests and registered): 0 ULP after nearest-even rounding to bfloat16,
float16 and both fp8 formats on every input, in the directed modes too; float32 results within
1 ulp (faithful) in the odd mode, correctly rounded in the float32 mode.
"""

from __future__ import annotations

import numpy as np

from ulplab.kernels.core import by_mode, canonical_nan_where, round_result_scaled, tiny_magnitude
from ulplab.kernels.doublefloat import one_minus_scaled
from ulplab.kernels.logistic import sigmoid_neg_parts
from ulplab.kit import dd_mul

f32 = np.float32
u32 = np.uint32

TINY_BITS = 0x39000000  # 2^-13: below it 1 - x^2 is within 2^-26 of 1
SATURATE = f32(64.0)  # above it the result's round-to-odd is 2^-149
ONE = u32(0x3F800000)
ONE_DOWN = u32(0x3F7FFFFF)  # 1 - 2^-24, the odd neighbour below 1
ONE_SIDED = f32(20.0)  # above it 1 - sigma(-2a) is taken as 1 (within 2^-57)


def tanh_grad(x: np.ndarray) -> np.ndarray:
    """1 - tanh(x)^2, float32 in -> float32 out (see the module docstring)."""
    with np.errstate(all="ignore"):
        a = np.abs(x)
        ac = np.where(np.isnan(a), f32(0.0), np.minimum(a, SATURATE))
        q, ql, m = sigmoid_neg_parts(ac + ac)
        far = ac > ONE_SIDED
        r, rl = one_minus_scaled(q, ql, np.where(far, 0, m))
        r, rl = np.where(far, f32(1.0), r), np.where(far, f32(0.0), rl)
        p, pl = dd_mul(q, ql, r, rl)
        y = round_result_scaled(p, pl, m + 2).view(u32)
        zero = (x.view(u32) & u32(0x7FFFFFFF)) == 0
        y = np.where(tiny_magnitude(x, TINY_BITS),
                     np.where(zero, ONE, by_mode(ONE_DOWN, ONE)), y)
        y = np.where(a == np.inf, u32(0), y)
        return canonical_nan_where(np.isnan(x), y.view(f32))


KERNELS = [
    {"function": "tanh_grad", "impl": tanh_grad, "table_bytes": 512, "bound": 2.0**-43,
     "idea": "4 sigma(-2|x|) (1 - sigma(-2|x|)) as a double-float product, sigma from "
             "exp_parts (no cancellation); tiny and saturated inputs on the bits"},
]
"""What ``ulplab.methods.det`` registers from this module."""
