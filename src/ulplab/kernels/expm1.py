"""expm1: a deterministic float32 kernel for e^x - 1, correctly rounded on every bfloat16/float16/
fp8 input.

Specification (the evaluation order is part of it; every operation is IEEE float32 with
round-to-nearest-even, FMA only where written ``fma``):

1. Special values by encoding: NaN -> 0x7FC00000; +inf -> +inf; -inf -> -1 (exact);
   |x| < 2^-25 (``TINY_BITS`` = 0x33000000, found on the bits, subnormals included): ±0 stay;
   else e^x - 1 = x + x^2/2 + ... lies strictly between x and its float32 neighbour toward
   +inf (x^2/2 < 2^-26 |x|, below the spacing 2^-24 |x|), so the round-to-odd (odd mode) is x
   when its encoding is odd, else encoding + 1 (x > 0) or encoding - 1 (x < 0); and as it is
   less than half the spacing from x (at least 2^-25 |x|, below a power of two too), the
   nearest rounding (nearest and flag modes) is x;
   x > 0x1.62e42ep+6 (88.72283, exp's overflow threshold; e^x - 1 differs from e^x by far less
   than an ulp there) -> +inf in every mode;
   x < -0x1.2p+4 (-18: e^x < 2^-25.9) -> -1 + e^x lies strictly between -1 and the midpoint
   -(1 - 2^-25) toward its neighbour -(1 - 2^-24): 0xBF7FFFFF, the round-to-odd (odd mode),
   or -1, the nearest rounding (other modes).
2. Reduction as exp's (``reduction.reduce_ln2_64``): x = k ln2/64 + r + rl, |r| <= ln2/128
   (1 + 2^-20).
3. P = e^r - 1 as a double-float, relative error about 2^-48 (truncation r^7/5040 < 2^-57 |r|):
   (h2, l2) = two_prod(r, r); c3 = r h2; c3l = fma(r, h2, -c3) + r l2   (r^3 = c3 + c3l);
   q = fma(fma(Q3, r, Q2), r, Q1) (1/24 + r/120 + r^2/720); (u, ue) = two_prod(q, r);
   (p, pe) = fast_two_sum(Q0, u); pl = pe + (ue + Q0_LO)   (1/6 + r/24 + ... = p + pl);
   (t3, t3e) = two_prod(c3, p); t3e = t3e + (c3 pl + c3l p);
   (s, a1) = fast_two_sum(r, h2/2); (s, a2) = two_sum(s, t3).
   e^(r+rl) - 1 = P + rl (1 + P) (to rl^2/2 < 2^-62 |r|), so the low part is
   lo = ((a1 + a2) + (t3e + l2/2)) + (rl + rl s); (sh, sl) = fast_two_sum(s, lo).
4. k = 64 M + j (j = k & 63, integer ops); T = 2^(j/64) = T_hi + T_lo + T_lo2 (exp's table and
   a third part ``T_LO2``, made by mpmath at import, 256 bytes: where M = 0 or -1 the result
   can be 2^-7.5 of T, and exp's two parts leave 2^-49 absolute). Then
   e^x - 1 = 2^M (T (1 + s) - 2^-M), summed as a double-float in this order:
   B = -2^-M (built from its bits; M >= -26 by step 1; for M > 126, that is x > 87.3, B = 0: the
   dropped 2^-M is below 2^-126 of the result); (C, Ce) = two_prod(T_hi, sh);
   (s1, e1) = two_sum(T_hi, B); (s2, e2) = two_sum(s1, C); (s3, e3) = two_sum(s2, T_lo);
   lo = ((e1 + e2) + e3) + (Ce + (T_hi sl + (T_lo sh + T_lo2))); (h, l) = fast_two_sum(s3, lo).
   For k = 0 (T = 1, B = -1) s1 = 0 and h + l = sh + sl exactly: the result is as accurate,
   relatively, as s. For M = -1 or 0, T_hi + B is exact (Sterbenz); elsewhere nothing cancels.
5. Result: (h + l) 2^M rounded in the mode asked for (``core.round_result_scaled``; no result
   is subnormal).

Error budget: h + l is e^x - 1 to about 2^-46 relative (every term that can cancel is exact or
a double-float; measured against mpmath: 2^-47.0 at worst, tests/test_kernels_rsqrt_expm1_
log1p_tan.py). Accuracy (measured by the tests and registered): 0 ULP after nearest-even
rounding to bfloat16, float16 and both fp8 formats on every input, and in the directed modes
too except where float32 overflows (there the result is the correctly rounded +inf, as exp's,
not the round-to-odd FLT_MAX); float32 results within 1 ulp (faithful) in the odd mode.

Correctly rounded float32 (``rounding="float32"``): the nearest mode plus a table of exceptional
inputs (``kernels.exceptions``), found by a rounding test over all 2^32 inputs (``python -m
ulplab.analysis.cr_scan expm1``) with the bound ``KERNELS[..]["bound"]`` = 2^-44, 6 times the
largest relative error of h + l measured against mpmath (2^-46.7 on 18,000 random inputs over
[-18, 88.7], x = -0.815 at worst): 951 inputs undecided, 13 exceptions; 0 wrong on 2*10^6
random inputs against the oracle.
"""

from __future__ import annotations

import numpy as np
from mpmath import mp, mpf

from ulplab.kernels.core import (
    by_mode,
    canonical_nan_where,
    pow2,
    round_result_scaled,
    tiny_magnitude,
)
from ulplab.kernels.exp import EXP_OVERFLOW, T_HI, T_LO, TABLE_BYTES
from ulplab.kernels.reduction import reduce_ln2_64
from ulplab.kit import fast_two_sum, fma, lookup, two_prod, two_sum
from ulplab.kit.ops import f32hex

f32 = np.float32
u32 = np.uint32
_h = f32hex

# 1/6 (with its rounding error Q0_LO), 1/24, 1/120, 1/720 rounded to float32: the Taylor
# coefficients of (e^r - 1 - r - r^2/2)/r^3 (``split_constants`` regenerates them)
Q0 = _h("0x1.555556p-3")
Q0_LO = _h("-0x1.555556p-28")
Q = (_h("0x1.555556p-5"), _h("0x1.111112p-7"), _h("0x1.6c16c2p-10"))
NEG_LIMIT = _h("-0x1.2p+4")  # -18: below it 0 < e^x < 2^-25.9, the result is 0xBF7FFFFF
TINY_BITS = 0x33000000  # 2^-25: below it e^x - 1 is x plus less than an ulp
MINUS_ONE_UP = u32(0xBF7FFFFF)  # -(1 - 2^-24), the odd neighbour of -1 toward zero
MINUS_ONE = u32(0xBF800000)  # -1.0


def split_constants() -> dict[str, float]:
    """Regenerate Q0, Q0_LO and Q from mpmath (test-checked)."""
    with mp.workprec(200):
        q0 = float(f32(float(mpf(1) / 6)))
        return {"Q0": q0, "Q0_LO": float(f32(float(mpf(1) / 6 - mpf(q0)))),
                **{f"Q{i + 1}": float(f32(float(mpf(1) / c))) for i, c in
                   enumerate((24, 120, 720))}}


def two_pow_table_third(n: int = 64) -> np.ndarray:
    """T_LO2[j] = RN(2^(j/n) - T_HI[j] - T_LO[j]) by mpmath at 200 bits: the third float32 of
    2^(j/n), so that T_HI + T_LO + T_LO2 is 2^(j/n) to 2^-72 (exp's two are good to 2^-49 only,
    too coarse where T (1 + s) - 1 cancels)."""
    out = np.empty(n, f32)
    with mp.workprec(200):
        for j in range(n):
            v = mp.mpf(2) ** (mpf(j) / n) - mpf(float(T_HI[j])) - mpf(float(T_LO[j]))
            out[j] = f32(float(v))
    return out


T_LO2 = two_pow_table_third()


def expm1_reduced(r: np.ndarray, rl: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(sh, sl) = e^(r + rl) - 1 to about 2^-47 relative, for |r| <= ln2/128 (step 3)."""
    h2, l2 = two_prod(r, r)
    c3 = r * h2
    c3l = fma(r, h2, -c3) + r * l2
    q = fma(fma(np.full_like(r, Q[2]), r, Q[1]), r, Q[0])
    u, ue = two_prod(q, r)
    p, pe = fast_two_sum(np.full_like(r, Q0), u)
    pl = pe + (ue + Q0_LO)
    t3, t3e = two_prod(c3, p)
    t3e = t3e + (c3 * pl + c3l * p)
    half = f32(0.5)
    s, a1 = fast_two_sum(r, h2 * half)
    s, a2 = two_sum(s, t3)
    lo = ((a1 + a2) + (t3e + l2 * half)) + (rl + rl * s)
    return fast_two_sum(s, lo)


def expm1(x: np.ndarray) -> np.ndarray:
    """e^x - 1, float32 in -> float32 out (see the module docstring for the specification)."""
    with np.errstate(all="ignore"):
        tiny = tiny_magnitude(x, TINY_BITS)
        outside = (x > EXP_OVERFLOW) | (x < NEG_LIMIT) | np.isnan(x) | tiny
        k, r, rl = reduce_ln2_64(np.where(outside, f32(1.0), x))
        sh, sl = expm1_reduced(r, rl)
        ki = k.astype(np.int32)
        j = ki & 63
        m = (ki - j) >> 6
        th, tl, tl2 = lookup(T_HI, j), lookup(T_LO, j), lookup(T_LO2, j)
        b = np.where(m > 126, f32(0.0), -pow2(np.maximum(-m, -126)))
        c, ce = two_prod(th, sh)
        s1, e1 = two_sum(th, b)
        s2, e2 = two_sum(s1, c)
        s3, e3 = two_sum(s2, tl)
        lo = ((e1 + e2) + e3) + (ce + (th * sl + (tl * sh + tl2)))
        y = round_result_scaled(*fast_two_sum(s3, lo), m).view(u32)
        xb = x.view(u32)
        even = ((xb & u32(1)) == 0) & ((xb & u32(0x7FFFFFFF)) != 0)
        step = np.where((xb >> u32(31)) == 1, xb - u32(1), xb + u32(1))  # toward +inf
        y = np.where(tiny, by_mode(np.where(even, step, xb), xb), y)
        y = np.where(x < NEG_LIMIT, by_mode(MINUS_ONE_UP, MINUS_ONE), y)
        y = np.where(x == -np.inf, MINUS_ONE, y)
        y = np.where(x > EXP_OVERFLOW, u32(0x7F800000), y)
        return canonical_nan_where(np.isnan(x), y.view(f32))


KERNELS = [
    {"function": "expm1", "impl": expm1, "table_bytes": TABLE_BYTES + T_LO2.nbytes,
     "bound": 2.0**-44,
     "idea": "exp's ln2/64 reduction and 2^(j/64) table; e^r - 1 as a double-float Taylor "
             "series; 2^M (T (1 + s) - 2^-M) summed without cancellation"},
]
"""What ``ulplab.methods.det`` registers from this module."""
