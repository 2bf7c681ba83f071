"""A correctly rounded float32 fused multiply-add on arrays (NumPy has none).

fma(a, b, c) = round_to_float32(a*b + c), one rounding. Method (all steps exact or proven):

1. p = a*b in float64 is exact: two 24-bit significands give at most 48 bits, and the exponent
   range of float32 products (2^-298 .. 2^256) lies inside float64's normal range.
2. s = fl64(p + c) and the exact residual e = (p + c) - s by TwoSum (Knuth), exact in float64.
3. Round to odd: if e != 0 and s is even, move s one float64 ulp toward e. Now s is the
   round-to-odd float64 value of p + c.
4. Round s to float32 to nearest-even. Rounding to odd at 53 bits and then to nearest at 24 bits
   (<= 53 - 2) equals one rounding to nearest (Boldo & Melquiond, "Emulation of FMA and correctly
   rounded sums: proved algorithms using rounding to odd", IEEE TC 2008); this holds for float32
   subnormal results too, which have even fewer bits.

Infinities and NaNs take the plain float64 path (a*b + c), which gives IEEE results for them:
inf*0 = NaN, inf - inf = NaN, overflow to inf.
"""

from __future__ import annotations

import numpy as np


def fma(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """Correctly rounded float32 a*b + c, elementwise (inputs must be float32)."""
    a, b, c = (np.asanyarray(v) for v in (a, b, c))
    for v in (a, b, c):  # an array type that records or checks operations takes the call over
        hook = getattr(type(v), "__ulplab_fma__", None)
        if hook is not None:
            return hook(a, b, c)
    return fma_values(a, b, c)


def fma_values(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """The computation of ``fma`` on plain arrays."""
    for name, v in (("a", a), ("b", b), ("c", c)):
        if v.dtype != np.float32:
            raise TypeError(f"fma operand {name} is {v.dtype}, not float32")
    with np.errstate(invalid="ignore", over="ignore"):
        a64, b64, c64 = (np.asarray(v, dtype=np.float64) for v in (a, b, c))  # exact widening
        p = a64 * b64
        s = p + c64
        bp = s - c64
        e = (p - bp) + (c64 - (s - bp))  # TwoSum: exact residual
        bits = s.view(np.int64)
        fix = np.isfinite(s) & (e != 0) & ((bits & 1) == 0)
        toward_up = (e > 0) == (s > 0)  # away from zero when e has the sign of s
        s_odd = np.where(toward_up, bits + 1, bits - 1).view(np.float64)
        s = np.where(fix, s_odd, s)
        return s.astype(np.float32)
