"""exp and exp2: deterministic float32 kernels, correctly rounded in float32 and in every narrower
format.

Specification (the evaluation order is part of it; every operation is IEEE float32 with
round-to-nearest-even, FMA only where written ``fma``):

exp(x)
    1. Special values by encoding: NaN -> 0x7FC00000; +inf -> +inf; -inf -> +0; |x| < 2^-25
       (found on the bits) -> 1 for ±0, else (odd mode) the odd neighbour of 1 on the side of
       x's sign, (nearest) 1: e^x is within 2^-25 (1 + 2^-24) of 1, inside the half-ulp on
       either side; x > 0x1.62e42ep+6 (88.72283172607422, the largest float32 whose exp is
       finite) -> +inf (e^x above FLT_MAX + half an ulp); x < -0x1.9fe368p+6 (-103.97207708,
       below which e^x < 2^-150) -> (odd) the smallest subnormal, the round-to-odd of a
       positive value under half of it, which any narrower format rounds to +0; (nearest) +0.
    2. Reduction x = k ln2/64 + r (``reduction.reduce_ln2_64``): k = rint(x * 64/ln2);
       t = x - k*C1 (exact: C1 has 10 significant bits and |k| < 2^14); (p, pe) =
       two_prod(k, C2); (r, rl) = two_sum(t, -p); rl = rl - (pe + k*C3). |r| <= ln2/128
       (1 + 2^-20), and r + rl is x - k ln2/64 to ~2^-60.
    3. e^(r+rl) = 1 + s: (p, pe) = two_prod(r, r) (r^2 exactly); c = (p r) (1/6 + r (1/24 +
       r/120)) by Horner with FMA (|c| < 2^-25, rounding about 2^-48); (s1, e1) = two_sum(r,
       p/2); s = s1 + (e1 + ((pe/2 + c) + fma(s1, rl, rl))), the last term rl e^r (rl up to
       2^-29, so rl r^2/2 matters: 2^-45.5), normalized by fast_two_sum. Truncation |r|^6/720 <
       2^-54. (Before 2026-11-23 q = r^2 (1/2 + ...) was rounded as one float32 term, 2^-41
       absolute, and rl (1 + r) left out r^2 rl/2: hi + lo was 2^-38.8 from e^x, measured.)
    4. 2^(j/64), j = k mod 64, from a 64-entry double-float table T (hi + lo, both float32, made
       by ``two_pow_table`` with mpmath at import: 512 bytes); e = T (1 + s) as a double-float:
       (a, ae) = two_prod(T_hi, s_hi); ae += T_hi s_lo + T_lo + T_lo s_hi; (h, l) =
       fast_two_sum(T_hi, a); l += ae.
    5. Result: (h + l) * 2^((k - j)/64) rounded in the mode asked for, subnormals included
       (``core.round_result_scaled``).

exp2(x)
    Same, with k = rint(64 x) and r = x - k/64 exact (Sterbenz), then (r ln2) as a double-float
    by two_prod(r, LN2_HI) + r LN2_LO; thresholds 128 (overflow) and -150 (below 2^-150).
    exp2 of an integer is exact (r = 0, T[0] = 1), ties included: 2^-134 stays 2^-134 and
    rounds to +0 in bfloat16, as the correctly rounded result does.

Accuracy. hi + lo is within 2^-46.6 (relative) of e^x, measured against mpmath on 25,000
inputs over [-103.9, 88.7] and [-0.02, 0.02] (two seeds; the same for exp2's reduction path);
the rounding test uses the bound 2^-44 (``KERNELS``), a factor 6 above it. Odd mode: 0 ULP after
rounding to bfloat16, float16 and every fp8/fp6/fp4 format, in all four rounding modes, on every
input (the tests). Float32 entry point (``exceptions``): the nearest rounding is decided by the
bound on all but 46,061 (exp) and 58,265 (exp2) of the 2^32 inputs; of those the oracle found 11
and 15 where it is wrong, kept in ``exceptions/exp.json`` and ``exp2.json``: the result is the
correctly rounded float32 on every input (``python -m ulplab.analysis.cr_scan exp exp2``:
1.6 and 2.6 minutes on one core of the 2-core machine under load).
"""

from __future__ import annotations

import numpy as np
from mpmath import mp, mpf

from ulplab.kernels.core import (
    CANONICAL_NAN,
    FLAG_NAN,
    by_mode,
    canonical_nan_where,
    first_pass_scaled,
    round_result_scaled,
    tiny_magnitude,
)
from ulplab.kernels.reduction import INV_LN2_64, ln2_64_constants, reduce_ln2_64
from ulplab.kernels.reduction import LN2_64_C1 as LN2_64_C1  # re-exported: exp's constants
from ulplab.kernels.reduction import LN2_64_C2 as LN2_64_C2
from ulplab.kernels.reduction import LN2_64_C3 as LN2_64_C3
from ulplab.kit import fast_two_sum, fma, lookup, two_prod, two_sum
from ulplab.kit.ops import f32hex

f32 = np.float32


_h = f32hex  # exact hex literal -> float32


LN2_HI = _h("0x1.62e430p-1")  # ln 2 rounded to float32
LN2_LO = _h("-0x1.05c610p-29")  # ln 2 - LN2_HI rounded to float32
# 1/2, 1/6, 1/24, 1/120 rounded to float32 (Taylor coefficients of (e^r - 1 - r)/r^2)
Q = (_h("0x1p-1"), _h("0x1.555556p-3"), _h("0x1.555556p-5"), _h("0x1.111112p-7"))
HALF = _h("0x1p-1")
EXP_OVERFLOW = _h("0x1.62e42ep+6")  # 88.72283: largest float32 x with e^x <= FLT_MAX
EXP_UNDERFLOW = _h("-0x1.9fe368p+6")  # -103.972: e^x < 2^-150 below it
EXP2_OVERFLOW = _h("0x1p+7")  # 2^x overflows for x >= 128
EXP2_UNDERFLOW = _h("-0x1.2cp+7")  # -150: 2^x < 2^-150 below it


def split_constants() -> dict[str, float]:
    """Regenerate the ln2/64 split (``reduction.ln2_64_constants``) and LN2_HI/LN2_LO from
    mpmath (test-checked)."""
    with mp.workprec(200):
        ln2_hi = float(f32(float(mp.ln2)))
        return {**ln2_64_constants(), "LN2_HI": ln2_hi,
                "LN2_LO": float(f32(float(mp.ln2 - mpf(ln2_hi))))}


def two_pow_table(n: int = 64) -> tuple[np.ndarray, np.ndarray]:
    """2^(j/n) for j = 0..n-1 as float32 pairs hi + lo (hi = RN(2^(j/n)), lo = RN(rest))."""
    hi, lo = np.empty(n, f32), np.empty(n, f32)
    with mp.workprec(200):
        for j in range(n):
            v = mp.mpf(2) ** (mpf(j) / n)
            hi[j] = f32(float(v))
            lo[j] = f32(float(v - mpf(float(hi[j]))))
    return hi, lo


T_HI, T_LO = two_pow_table()
TABLE_BYTES = T_HI.nbytes + T_LO.nbytes


def exp_reduced_parts(k: np.ndarray, r: np.ndarray,
                      rl: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(h, l, m) with 2^(k/64) e^(r + rl) = (h + l) 2^m to about 2^-40, for |r| <= ln2/128."""
    p, pe = two_prod(r, r)  # r^2 exactly
    c = (p * r) * fma(fma(np.full_like(r, Q[3]), r, Q[2]), r, Q[1])  # r^3/6 + r^4/24 + r^5/120
    h2 = p * HALF
    s1, e1 = two_sum(r, h2)
    # e^(r + rl) - 1 = (e^r - 1) + rl e^r, and e^r = 1 + s1 to 2^-24.5: rl (1 + s1)
    s_hi, s_lo = fast_two_sum(s1, e1 + ((pe * HALF + c) + fma(s1, rl, rl)))
    ki = k.astype(np.int32)
    j = ki & 63
    m = (ki - j) >> 6
    th, tl = lookup(T_HI, j), lookup(T_LO, j)
    a, ae = two_prod(th, s_hi)
    ae = ae + (th * s_lo + (tl + tl * s_hi))
    h, low = fast_two_sum(th, a)
    h, low = fast_two_sum(h, low + ae)
    return h, low, m


def exp_parts(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(h, l, m) with e^x = (h + l) 2^m to about 2^-40 relative (steps 2 to 4), for finite
    EXP_UNDERFLOW <= x <= EXP_OVERFLOW; 0.99 < h < 2, m is int32. The building block of the
    kernels made from exp (sigmoid, tanh, softplus, ...)."""
    return exp_reduced_parts(*reduce_ln2_64(x))


ONE_UP = np.uint32(0x3F800001)  # the odd neighbour above 1
ONE_DOWN = np.uint32(0x3F7FFFFF)  # the odd neighbour below 1
ONE = np.uint32(0x3F800000)
TINY_BITS = 0x33000000  # 2^-25: below it e^x and 2^x are within 2^-25 of 1
SMALLEST_SUBNORMAL = _h("0x1p-149")


def _finish(x: np.ndarray, y: np.ndarray, over: float, under: float) -> np.ndarray:
    # |x| < 2^-25: round-to-odd of 1 + (tiny) is decided by the sign bit alone; on the bits, so
    # that a subnormal x is not read as zero by flushing hardware
    xb = x.view(np.uint32)
    near_one = np.where((xb & np.uint32(0x7FFFFFFF)) == 0, np.uint32(0x3F800000),
                        np.where((xb >> np.uint32(31)) == 1, by_mode(ONE_DOWN, ONE),
                                 by_mode(ONE_UP, ONE)))
    y = np.where(tiny_magnitude(x, TINY_BITS), near_one, y.view(np.uint32)).view(np.float32)
    y = np.where(x > over, f32(np.inf), y)
    y = np.where(x < under, by_mode(SMALLEST_SUBNORMAL, f32(0.0)), y)
    y = np.where(x == -np.inf, f32(0.0), y)
    return canonical_nan_where(np.isnan(x), y)


def exp(x: np.ndarray) -> np.ndarray:
    """e^x, float32 in -> float32 out (see the module docstring for the specification)."""
    with np.errstate(all="ignore"):
        xc = np.where((x > EXP_OVERFLOW) | (x < EXP_UNDERFLOW) | np.isnan(x), f32(0.0), x)
        y = round_result_scaled(*exp_parts(xc))
        return _finish(x, y, EXP_OVERFLOW, EXP_UNDERFLOW)


def exp2(x: np.ndarray) -> np.ndarray:
    """2^x, float32 in -> float32 out (see the module docstring)."""
    with np.errstate(all="ignore"):
        xc = np.where((x >= EXP2_OVERFLOW) | (x < EXP2_UNDERFLOW) | np.isnan(x), f32(0.0), x)
        k = np.rint(xc * f32(64.0))
        r = xc - k * f32(1.0 / 64)
        p, pe = two_prod(r, np.full_like(r, LN2_HI))
        rh, rl = fast_two_sum(p, pe + r * LN2_LO)
        y = round_result_scaled(*exp_reduced_parts(k, rh, rl))
        y = np.where(x >= EXP2_OVERFLOW, f32(np.inf), y)
        return _finish(x, y, np.inf, EXP2_UNDERFLOW)


EXP_NORMAL = _h("-0x1.5ap+6")  # -86.5: below it the first pass leaves exp to the second
EXP_FIRST_HIGH = _h("0x1.62ccccp+6")  # 88.7: above it too (k could reach 8192, m 128)
BOUND = 2.0**-44
LN2_64 = _h("0x1.62e430p-7")  # ln2/64 rounded to float32 (24 bits)
LN2_64_REST = _h("-0x1.05c610p-35")  # ln2/64 - LN2_64 rounded to float32
SHIFTER = _h("0x1.8p+23")  # v + 1.5 2^23 rounds v to an integer held in the low bits
FIRST_PASS_BOUND = 2.0**-38


def exp_first_parts(x: np.ndarray, normalize: bool = True
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(h, l, k) of ``exp_first_pass`` (steps 1 to 3): e^x = (h + l) 2^(k >> 6) within
    ``FIRST_PASS_BOUND`` h, for finite -86.5 <= x <= 88.7; k int32; 0.99 < h < 2. Without
    ``normalize`` the last fast_two_sum is left to the caller (|l| < 2^-6 h then)."""
    v = x * INV_LN2_64 + SHIFTER
    kn = SHIFTER - v  # -k
    ki = v.view(np.int32) - SHIFTER.view(np.int32)
    t = fma(kn, np.full_like(kn, LN2_64), x)
    rl = kn * LN2_64_REST
    p = t * t
    c = (p * t) * fma(fma(np.full_like(t, Q[3]), t, Q[2]), t, Q[1])
    s_hi, e = fast_two_sum(t, p * HALF)
    s_lo = e + (c + fma(s_hi, rl, rl))
    j = ki & 63
    th, tl = lookup(T_HI, j), lookup(T_LO, j)
    a, ae = two_prod(th, s_hi)
    h, low = fast_two_sum(th, a)
    low = low + (fma(th, s_lo, ae) + fma(tl, s_hi, tl))
    if normalize:
        h, low = fast_two_sum(h, low)
    return h, low, ki


def exp_first_pass(x: np.ndarray) -> np.ndarray:
    """The compiled float32 runner's first pass of exp: a shorter evaluation than ``exp`` with
    its own bound, ``FIRST_PASS_BOUND`` = 2^-38, finished by ``core.first_pass_scaled``: the
    correctly rounded e^x, or ``FLAG_NAN`` where the second pass (the whole entry point)
    decides — hi + lo within the bound of a midpoint (about 6e-5 of ordinary inputs), x in
    [-103.97, -86.5) (results near or below 2^-126) and (88.7, 88.72],
    and the rare hi that is a power of two.

    1. k = rint(x 64/ln2) by the shifter (v = x INV + 1.5 2^23 holds k in its low bits; the
       addition rounds ties to even as rint does); t = fma(-k, L, x) with L = RN(ln2/64) is
       exact: k L is a multiple of 2^-30, x (|x| >= 2^-7.5 when k != 0) of 2^-31, and
       |t| < 2^-7, so t fits 24 bits. rl = -k L' (L' = RN(ln2/64 - L), |rl| < 2^-18, rounding
       2^-42; the third part of ln2/64 left out: |k| 2^-56 < 2^-43).
    2. e^(t + rl) - 1 = s_hi + s_lo: p = RN(t^2) (its rounding, 2^-40 after halving, left out);
       (s_hi, e) = fast_two_sum(t, p/2); c = p t (1/6 + t (1/24 + t/120)) (|c| < 2^-25,
       truncation 2^-54); s_lo = e + (c + rl (1 + s_hi)) by one FMA for rl (1 + s_hi).
    3. 2^(j/64) (T_hi + T_lo, j = k mod 64: the kernel's table) times 1 + s as a double-float:
       (a, ae) = two_prod(T_hi, s_hi), hi = T_hi + a by fast_two_sum, the rest ae + T_hi s_lo +
       T_lo (1 + s_hi) added to its error, then (hi, lo) normalized; the result (hi + lo) 2^m,
       m = (k - j)/64.
    Error of hi + lo: the neglected pieces above sum to under 2^-39.2 relative (each a bound,
    not an estimate); measured max 2^-40.76 on 2 x 2^22 random inputs (3/4 over [-86.5, 88.7],
    1/4 over [-0.02, 0.02]) against Arb (``python -m ulplab.analysis.first_pass exp``), a factor 6.8
    under the bound. The runner's output is the entry point's on every float32 input:
    ``benchmarks/verify_native.py exp`` (all 2^32, 0 mismatches)."""
    with np.errstate(all="ignore"):
        inside = (x >= EXP_NORMAL) & (x <= EXP_FIRST_HIGH)
        xc = np.where(inside, x, f32(0.0))
        h, low, ki = exp_first_parts(xc)
        # -7987 <= k <= 8190 on [-86.5, 88.7]: m in [-125, 127], no range check needed
        y = first_pass_scaled(h, low, ki >> 6, FIRST_PASS_BOUND, m_checked=False,
                              positive=True).view(np.uint32)
        y = np.where(tiny_magnitude(x, TINY_BITS), ONE, y)
        special = np.where(x > EXP_OVERFLOW, np.uint32(0x7F800000),
                           np.where(x < EXP_UNDERFLOW, np.uint32(0), FLAG_NAN))
        y = np.where(inside, y, np.where(x != x, CANONICAL_NAN, special))
        return y.view(np.float32)


KERNELS = [
    {"function": "exp", "impl": exp, "table_bytes": TABLE_BYTES, "bound": BOUND,
     "first_pass": exp_first_pass,
     "idea": "2^(k/64) table (double-float) x Taylor e^r, Cody-Waite ln2/64 in 3 parts"},
    {"function": "exp2", "impl": exp2, "table_bytes": TABLE_BYTES, "bound": 2.0**-44,
     "idea": "exact k/64 split, r ln2 as double-float, then exp's table and Taylor"},
]
"""What ``ulplab.methods.det`` registers from this module (every kernel module has KERNELS)."""
