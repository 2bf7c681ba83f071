"""A correctly rounded float32 fused multiply-add on arrays (NumPy has none).

fma(a, b, c) = round_to_float32(a*b + c), one rounding. Method (all steps exact or proven):

1. p = a*b in float64 is exact: two 24-bit significands give at most 48 bits, and the exponent
   range of float32 products (2^-298 .. 2^256) lies inside float64's normal range.
2. s = fl64(p + c) and the exact residual e = (p + c) - s by TwoSum (Knuth), exact in float64.
3. Round to odd: if e != 0 and s is even, move s one float64 ulp toward e. Now s is the
   round-to-odd float64 value of p + c. (Only an s on a float32 rounding boundary can be
   affected, so steps 2-3 run on those elements alone.)
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
        a64, b64, c64 = np.broadcast_arrays(*(np.asarray(v, dtype=np.float64)
                                              for v in (a, b, c)))  # exact widening
        s = a64 * b64 + c64
        # The odd fix can only change the float32 result where s sits on a float32 rounding
        # boundary: its low 29 bits are 1 followed by zeros (a midpoint of normal float32
        # numbers), or s is in float32's subnormal range, where the boundary moves up. Only
        # those elements take the TwoSum path (a speed-up; the result is the same).
        bits = s.view(np.int64)
        maybe = ((bits & 0x1FFFFFFF) == 0x10000000) | (np.abs(s) < 2.0**-125)
        idx = np.flatnonzero(maybe)
        if idx.size:
            p = a64.ravel()[idx] * b64.ravel()[idx]
            c = c64.ravel()[idx]
            t = p + c
            bp = t - c
            e = (p - bp) + (c - (t - bp))  # TwoSum: exact residual
            tb = t.view(np.int64)
            fix = np.isfinite(t) & (e != 0) & ((tb & 1) == 0)
            toward_up = (e > 0) == (t > 0)  # away from zero when e has the sign of t
            odd = np.where(toward_up, tb + 1, tb - 1).view(np.float64)
            s = s.copy().ravel()
            s[idx] = np.where(fix, odd, t)
            s = s.reshape(a64.shape)
        return s.astype(np.float32)
