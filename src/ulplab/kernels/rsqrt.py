"""rsqrt: a deterministic float32 kernel for 1/sqrt(x), correctly rounded on every bfloat16/
float16/fp8 input.

Specification (the evaluation order is part of it; every operation is IEEE float32 with
round-to-nearest-even, FMA only where written ``fma``; integer steps on uint32/int32):

1. Special values by encoding (decided on the bits, so flushing hardware agrees): NaN ->
   0x7FC00000; x < 0 (-inf and negative subnormals included, -0 excluded) -> 0x7FC00000;
   +0 -> +inf (0x7F800000); -0 -> -inf (0xFF800000); +inf -> +0.
2. Split on the bits: a subnormal x = n 2^-149 (n its encoding, 1 <= n < 2^23) is replaced by
   the normal float32(n) (an exact integer conversion) with 149 taken off its exponent, so
   that no arithmetic operand is ever subnormal. With e the unbiased exponent so found and
   k = e >> 1 (arithmetic: floor(e/2)), z is the significand with the exponent field set to
   127 + (e & 1): x = z 4^k exactly, z in [1, 4), k in [-75, 63].
3. y0 = 1 / sqrt(z) (two correctly rounded operations: |y0 sqrt(z) - 1| < 2^-23).
4. The residual of y0 as an approximation, exactly as far as it matters:
   (p, pe) = two_prod(y0, y0); (a, ae) = two_prod(z, p)   (z y0^2 = a + ae + z pe);
   r = ((1 - a) - ae) - z pe   (1 - a is exact by Sterbenz: a is within 2^-21 of 1);
   so z y0^2 = 1 - r with |r| < 2^-21, r absolute error < 2^-46.
5. 1/sqrt(z) = y0 (1 - r)^(-1/2) = y0 (1 + r/2 + 3 r^2/8 + ...): c = r (1/2 + (3/8) r)
   (truncation 5|r|^3/16 < 2^-64); (h, l) = fast_two_sum(y0, y0 c).
6. Result: round_result(h, l) (in (1/2, 1]) times 2^-k, exact since every result is normal
   (2^-64 < 1/sqrt(x) < 2^75).

Exact cases: x = 4^k gives z = 1, y0 = 1, r = 0, l = 0, so the result is exactly 2^-k; no other
float32 has a dyadic 1/sqrt(x), and no other result is a float32. Error budget: r to 2^-46
absolute, c and y0 c rounded once each (2^-47 relative): h + l is 1/sqrt(z) to about 2^-45
relative (measured against mpmath: 2^-46.3 at worst, tests/test_kernels_rsqrt_expm1_log1p_tan.py;
2^-46.16 at worst on 28,000 random encodings at 300 bits).

Accuracy (measured by the tests and registered): 0 ULP after nearest-even rounding to bfloat16,
float16 and both fp8 formats on every input; float32 results within 1 ulp (faithful).

Correctly rounded float32 (the ``float32`` entry point, issue 9): the same evaluation rounded
to nearest (``core.rounding("nearest")``; the scaling by 2^-k stays exact). The rounding test
assumes |h + l - 1/sqrt(z)| <= 2^-44 / sqrt(z) (``KERNELS[0]["bound"]``, 4.5 times the largest
error measured). Over all 2^32 inputs (``python -m ulplab.analysis.cr_scan rsqrt``) 3,955 were
undecided by that test; the oracle found RN(h + l) correct on every one of them, so the table
``exceptions/rsqrt.json`` is empty and the nearest kernel alone is correctly rounded. No special
value depends on the mode (±0, +inf, x < 0 and 4^k are exact in both).
"""

from __future__ import annotations

import numpy as np

from ulplab.kernels.core import canonical_nan_where, pow2, round_result
from ulplab.kit import fast_two_sum, two_prod

f32 = np.float32
u32 = np.uint32
i32 = np.int32

HALF = f32(0.5)
THREE_EIGHTHS = f32(0.375)  # 3/8, exact: the r^2 coefficient of (1 - r)^(-1/2)


def _split(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(z, k) with x = z 4^k, z in [1, 4) and k int32 (step 2), for finite x > 0."""
    b = x.view(u32).astype(i32)
    sub = b < i32(0x00800000)
    ix = np.where(sub, b.astype(f32).view(u32).astype(i32), b)  # n -> float32(n), exact
    e = (ix >> 23) - np.where(sub, i32(127 + 149), i32(127))
    k = e >> 1
    z = ((ix & i32(0x007FFFFF)) | ((i32(127) + (e & 1)) << 23)).astype(u32).view(f32)
    return z, k


def rsqrt_parts(z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(h, l) with h + l = 1/sqrt(z) to about 2^-45 relative, for z in [1, 4) (steps 3 to 5)."""
    y0 = f32(1.0) / np.sqrt(z)
    p, pe = two_prod(y0, y0)
    a, ae = two_prod(z, p)
    r = ((f32(1.0) - a) - ae) - z * pe
    c = r * (HALF + THREE_EIGHTHS * r)
    return fast_two_sum(y0, y0 * c)


def rsqrt(x: np.ndarray) -> np.ndarray:
    """1/sqrt(x), float32 in -> float32 out (see the module docstring for the specification)."""
    with np.errstate(all="ignore"):
        b = x.view(u32)
        main = (b != 0) & (b < u32(0x7F800000))  # 0 < x < inf, on the bits
        z, k = _split(np.where(main, x, f32(1.0)))
        y = round_result(*rsqrt_parts(z)) * pow2(-k)
        y = np.where(b == u32(0), f32(np.inf), y)
        y = np.where(b == u32(0x80000000), f32(-np.inf), y)
        y = np.where(b == u32(0x7F800000), f32(0.0), y)
        invalid = (b > u32(0x80000000)) | ((b > u32(0x7F800000)) & (b < u32(0x80000000)))
        return canonical_nan_where(invalid, y)


KERNELS = [
    {"function": "rsqrt", "impl": rsqrt, "table_bytes": 0, "bound": 2.0**-44,
     "idea": "exponent split on the bits (x = z 4^k), 1/sqrt(z) by sqrt and divide, then one "
             "second-order correction from the exact residual 1 - z y0^2"},
]
"""What ``ulplab.methods.det`` registers from this module."""
