"""gelu_grad: a deterministic float32 kernel for d/dx gelu(x) = Phi(x) + x phi(x), correctly
rounded on every bfloat16/float16/fp8 input (the backward pass of a det GELU).

Specification (every operation is IEEE float32 with round-to-nearest-even, FMA only where
written ``fma``; ``erf_series``, ``erfcx_parts``, ``exp_neg_dd``, ``RS_HI``/``RS_LO`` (1/sqrt2)
are erf.py's, ``dd_horner_step`` and ``one_minus_scaled`` (1 - (w + wl) 2^m) doublefloat.py's;
dd = double-float pair):

1. NaN -> 0x7FC00000; +inf -> 1; -inf -> -0 (the limits; the value tends to 0 from below);
   |x| < 2^-30 (on the bits, subnormals included): 1/2 + x sqrt(2/pi) + ... lies strictly
   between 1/2 and its float32 neighbour on x's side, so the round-to-odd (odd mode) is
   0x3F000001 for x > 0, 0x3EFFFFFF for x < 0 and exactly 1/2 for ±0; it is less than 2^-30
   from 1/2, below the half spacing 2^-26 on either side, so the nearest rounding (nearest and
   flag modes) is 1/2; x < -14.75 (|gelu_grad(x)| < 2^-154 there) -> -2^-149 (0x80000001, the
   round-to-odd of a tiny negative value) in the odd mode, -0 in the others.
2. xc = min(max(x, -14.75), 9) (for x > 9 the value is 1 + less than 2^-55, whose round-to-odd
   0x3F800001 is that of xc = 9, its nearest rounding 1 too); a = |xc|; y + yl = a/sqrt2 =
   a (RS_HI + RS_LO) as a dd; y^2 = a^2/2 exactly as (s, se) = two_prod(a, a) times 1/2;
   e^(-x^2/2) = e^(-y^2) = (h + hl) 2^m = exp_neg_dd(s, se);
   t + te = a/sqrt(2 pi) = two_prod(a, C_HI) + a C_LO (C_HI + C_LO = 1/sqrt(2 pi)).
3. y < 1/2: Phi = (1 ± erf(y))/2 as gelu's step 3 (erf(y) = (y + yl) erf_series(s, se) by dd_mul,
   + for x >= 0); x phi(x) = ±(t + te)(h + hl) 2^m by dd_mul (m is -1 or 0 here);
   gelu_grad = Phi + x phi by dd_add; scale 0.
4. y >= 1/2: with R = erfcx_parts(y, yl) = e^(y^2) erfc(y) and D = R/2 - (t + te) (dd_add,
   the only cancellation: D = 0 at x = -0.7518..., where gelu_grad changes sign),
   w + wl = (h + hl) D by dd_mul: x < 0: gelu_grad = Phi(x) + x phi(x) = e^(-y^2) D = (w + wl) 2^m;
   x >= 0: gelu_grad = 1 - erfc(y)/2 + a phi(a) = 1 - (w + wl) 2^m by one_minus_scaled
   (m >= -59).
3z. x in ZERO_WINDOW = [-1, -1/2] (replaces steps 3 and 4 there; gelu_grad changes sign at
   X0 = -0.75179..., where steps 3 and 4 cancel: their absolute error, about 2^-48, would be
   divided by |gelu_grad(x)|): t + tl = x - X0 as a dd: th = x - X0_HI (exact, Sterbenz);
   (t, tl) = two_sum(th, -X0_LO); tl -= X0_LO2; P(t) = sum_k ZERO[k] t^k, k = 0..11, by
   Horner: k = 11 .. 8 in float32 with fma, k = 7 .. 0 as dd steps (``dd_horner_step``, terms
   below
   2^-25 of P are left to float32); gelu_grad = (t + tl) P as dd_mul; scale 0. The float32
   input nearest X0 is 2^-26.3 from it, so t is known to 2^-50 relative there.
5. Result: round_result_scaled(hi, lo, scale) (subnormal results built as integers).

Error budget (measured against mpmath at 140 bits, 30,000 random inputs over [-14.7, 9] and
the 16 float32 inputs around X0): h + l is gelu_grad(x) to 2^-45.3 relative at worst (x =
-1.014, just outside the window, where steps 3 and 4 still cancel by a factor 4); inside the
window 2^-46.5; elsewhere 2^-45.6 (the erfcx fit of [7.5, 10.5] is 2^-46.3).

Accuracy (measured by the tests and registered): 0 ULP after nearest-even rounding to bfloat16,
float16 and both fp8 formats on every input, in the directed modes too; float32 results within
1 ulp (faithful) on every random input checked, in the odd mode.

Correctly rounded float32 (``rounding="float32"``): the nearest mode plus a table of exceptional
inputs (``kernels.exceptions``), found by a rounding test over all 2^32 inputs (``python -m
ulplab.analysis.cr_scan gelu_grad``) with the bound ``KERNELS[..]["bound"]`` = 2^-42, 9 times the
measured 2^-45.3: 31,144 inputs undecided, 14 exceptions (15 before the nearest mode decided
exact subnormal midpoints by lo's sign; 0 wrong on 2*10^6 random inputs against the oracle, and
on all 2^32 inputs: ``benchmarks/results/float32/det-float32/gelu_grad.json``).
"""

from __future__ import annotations

import numpy as np
from mpmath import mp

from ulplab.kernels.core import (
    by_mode,
    canonical_nan_where,
    pow2,
    round_result_scaled,
    tiny_magnitude,
)
from ulplab.kernels.doublefloat import dd_horner_step, one_minus_scaled
from ulplab.kernels.erf import RS_HI, RS_LO, TABLE_BYTES, erf_series, erfcx_parts, exp_neg_dd
from ulplab.kernels.logistic import TINY_BITS
from ulplab.kit import dd_add, dd_mul, fast_two_sum, fma, two_prod, two_sum
from ulplab.kit.ops import f32hex

f32 = np.float32
u32 = np.uint32

C_HI = f32hex("0x1.988454p-2")  # 1/sqrt(2 pi) rounded to float32
C_LO = f32hex("-0x1.857936p-27")  # 1/sqrt(2 pi) - C_HI rounded to float32
NEG_LIMIT = f32hex("-0x1.d8p+3")  # -14.75: below it |gelu_grad(x)| < 2^-154
POS_LIMIT = f32hex("0x1.2p+3")  # 9: above it gelu_grad(x) - 1 < 2^-55
HALF = u32(0x3F000000)  # 1/2
HALF_UP = u32(0x3F000001)  # 1/2 + 2^-24, the odd neighbour above 1/2
HALF_DOWN = u32(0x3EFFFFFF)  # 1/2 - 2^-25, the odd neighbour below 1/2
ZERO_WINDOW = (f32hex("-0x1p+0"), f32hex("-0x1p-1"))  # [-1, -1/2]: step 3z, around X0
# X0 = X0_HI + X0_LO + X0_LO2 = -0.75179152469356445745..., the zero of gelu_grad, to 2^-77
# (mpmath findroot at 200 bits, each part the float32 rounding of what is left; regenerated by
# ``python -m ulplab.analysis.kernel_tables gelu_grad``)
X0_HI = f32hex("-0x1.80ead2p-1")
X0_LO = f32hex("0x1.a03fd4p-27")
X0_LO2 = f32hex("-0x1.eec18cp-52")
# P(t) = gelu_grad(X0 + t)/t on [-1 - X0, -1/2 - X0], the real minimax (relative error 2^-50.8,
# monomials 0..11) from the fitter's Remez stage (``python -m ulplab.analysis.kernel_tables
# gelu_grad``, which regenerates and compares them); hi = RN32(c), lo = RN32(c - hi) for the
# eight coefficients evaluated as double-floats
ZERO_HI = np.array([f32hex(v) for v in (
    "0x1.b9d99p-2", "0x1.8d9a94p-2", "-0x1.2a2efap-6", "-0x1.d2fa4cp-4", "-0x1.e40882p-7",
    "0x1.3e346ep-6", "0x1.297b9p-8", "-0x1.258a64p-9", "-0x1.867366p-11", "0x1.86be08p-13",
    "0x1.63559ep-14", "-0x1.736b8ap-17")], f32)
ZERO_LO = np.array([f32hex(v) for v in (
    "-0x1.69737ap-28", "0x1.de3aacp-30", "0x1.119e6cp-32", "-0x1.7c07d6p-32", "-0x1.5517bcp-34",
    "-0x1.a4b0dep-34", "-0x1.3d0748p-33", "0x1.7c6a54p-34")], f32)


def split_constants() -> dict[str, float]:
    """Regenerate C_HI and C_LO from mpmath at 200 bits (test-checked)."""
    with mp.workprec(200):
        c = 1 / mp.sqrt(2 * mp.pi)
        hi = float(f32(float(c)))
        return {"C_HI": hi, "C_LO": float(f32(float(c - hi)))}


def _near_zero(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Step 3z: gelu_grad(x) = t P(t), t = x - X0, as a dd, for x in ZERO_WINDOW."""
    th = x - X0_HI  # exact (Sterbenz: x and X0_HI within a factor 2)
    t, tl = two_sum(th, np.full_like(th, -X0_LO))
    tl = tl - X0_LO2
    acc = np.full_like(t, ZERO_HI[-1])
    for k in range(ZERO_HI.size - 2, ZERO_LO.size - 1, -1):
        acc = fma(acc, t, np.full_like(t, ZERO_HI[k]))
    ah, al = acc, np.zeros_like(acc)
    for k in range(ZERO_LO.size - 1, -1, -1):
        ah, al = dd_horner_step(ah, al, t, tl, np.full_like(t, ZERO_HI[k]), ZERO_LO[k])
    return dd_mul(t, tl, ah, al)


def gelu_grad(x: np.ndarray) -> np.ndarray:
    """Phi(x) + x phi(x), float32 in -> float32 out (see the module docstring)."""
    with np.errstate(all="ignore"):
        xc = np.minimum(np.maximum(x, NEG_LIMIT), POS_LIMIT)
        xc = np.where(np.isnan(xc), f32(0.0), xc)
        a = np.abs(xc)
        pos = xc >= 0
        near = (xc >= ZERO_WINDOW[0]) & (xc <= ZERO_WINDOW[1])
        y, yl = two_prod(a, np.full_like(a, RS_HI))
        y, yl = fast_two_sum(y, yl + a * RS_LO)
        s, se = two_prod(a, a)  # y^2 = x^2/2 exactly
        s, se = s * f32(0.5), se * f32(0.5)
        h, hl, m = exp_neg_dd(s, se)
        t, te = two_prod(a, np.full_like(a, C_HI))
        t, te = fast_two_sum(t, te + a * C_LO)
        # 3. y < 1/2
        eh, el = dd_mul(y, yl, *erf_series(s, se))
        eh, el = np.where(pos, eh, -eh), np.where(pos, el, -el)
        ph, pl = two_sum(np.full_like(eh, f32(1.0)), eh)
        ph, pl = fast_two_sum(ph, pl + el)
        g, gl = dd_mul(t, te, h, hl)
        scale = pow2(np.maximum(m, -126))  # m is -1 or 0 where this branch is taken
        g, gl = np.where(pos, g, -g) * scale, np.where(pos, gl, -gl) * scale
        sh, sl = dd_add(ph * f32(0.5), pl * f32(0.5), g, gl)
        # 4. y >= 1/2
        rh, rl = erfcx_parts(np.maximum(y, f32(0.5)), yl)
        d, dl = dd_add(rh * f32(0.5), rl * f32(0.5), -t, -te)
        w, wl = dd_mul(h, hl, d, dl)
        r, rle = one_minus_scaled(w, wl, np.where(pos, m, 0))
        bh, bl = np.where(pos, r, w), np.where(pos, rle, wl)
        # 3z. around the zero
        zh, zl = _near_zero(np.where(near, xc, X0_HI))
        small = y < f32(0.5)
        hi, lo = np.where(small, sh, bh), np.where(small, sl, bl)
        hi, lo = np.where(near, zh, hi), np.where(near, zl, lo)
        out = round_result_scaled(hi, lo, np.where(small | pos | near, 0, m)).view(u32)
        xb = x.view(u32)
        half_odd = np.where((xb & u32(0x7FFFFFFF)) == 0, HALF,
                            np.where((xb >> u32(31)) == 1, HALF_DOWN, HALF_UP))
        out = np.where(tiny_magnitude(x, TINY_BITS), by_mode(half_odd, HALF), out)
        out = np.where(x < NEG_LIMIT, by_mode(u32(0x80000001), u32(0x80000000)), out)
        out = np.where(x == -np.inf, u32(0x80000000), out)
        out = np.where(x == np.inf, u32(0x3F800000), out)
        return canonical_nan_where(np.isnan(x), out.view(f32))


KERNELS = [
    {"function": "gelu_grad", "impl": gelu_grad, "table_bytes": TABLE_BYTES + 512,
     "bound": 2.0**-42,
     "idea": "Phi + x phi: (1 ± erf)/2 + x phi near 0; e^-y^2 (erfcx(y)/2 - |x|/sqrt(2 pi)) "
             "elsewhere (one cancellation, at the sign change), from erf's building blocks"},
]
"""What ``ulplab.methods.det`` registers from this module."""
