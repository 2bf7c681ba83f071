"""gelu_grad: a deterministic float32 kernel for d/dx gelu(x) = Phi(x) + x phi(x), correctly
rounded on every bfloat16/float16/fp8 input (the backward pass of a det GELU).

Specification (every operation is IEEE float32 with round-to-nearest-even, FMA only where
written ``fma``; ``erf_series``, ``erfcx_parts``, ``RS_HI``/``RS_LO`` (1/sqrt2) are erf.py's,
``exp_neg_parts`` and ``_one_minus`` logistic.py's; dd = double-float pair):

1. NaN -> 0x7FC00000; +inf -> 1; -inf -> -0 (the limits; the value tends to 0 from below);
   |x| < 2^-30 (on the bits, subnormals included): 1/2 + x sqrt(2/pi) + ... lies strictly
   between 1/2 and its float32 neighbour on x's side, so the round-to-odd is 0x3F000001 for
   x > 0, 0x3EFFFFFF for x < 0 and exactly 1/2 for ±0; x < -14.75 -> -2^-149 (0x80000001:
   |gelu_grad(x)| < 2^-154 there, the round-to-odd of a tiny negative value).
2. xc = min(max(x, -14.75), 9) (for x > 9 the value is 1 + less than 2^-55, whose round-to-odd
   0x3F800001 is that of xc = 9); a = |xc|; y + yl = a/sqrt2 = a (RS_HI + RS_LO) as a dd;
   e^(-x^2/2) = e^(-y^2) = (h + hl) 2^m by exp_neg_parts of y^2 = two_prod(y, y) + 2 y yl;
   t + te = a/sqrt(2 pi) = two_prod(a, C_HI) + a C_LO (C_HI + C_LO = 1/sqrt(2 pi)).
3. y < 1/2: Phi = (1 ± erf(y))/2 as gelu's step 3 (erf(y) = (y + yl) erf_series(y^2) by dd_mul,
   + for x >= 0); x phi(x) = ±(t + te)(h + hl) 2^m by dd_mul (m is -1 or 0 here);
   gelu_grad = Phi + x phi by dd_add; scale 0.
4. y >= 1/2: with R = erfcx_parts(y, yl) = e^(y^2) erfc(y) and D = R/2 - (t + te) (dd_add,
   the only cancellation: D = 0 at x = -0.7518..., where gelu_grad changes sign),
   w + wl = (h + hl) D by dd_mul: x < 0: gelu_grad = Phi(x) + x phi(x) = e^(-y^2) D = (w + wl) 2^m;
   x >= 0: gelu_grad = 1 - erfc(y)/2 + a phi(a) = 1 - (w + wl) 2^m by _one_minus (m >= -59).
5. Result: round_result_scaled(hi, lo, scale) (subnormal results built as integers).

Error budget: exp_parts' 2^-37 relative dominates, as in gelu; near the sign change the absolute
error of D (about 2^-44) is divided by |D|, so float32 inputs within 2^-20 of -0.7518 get
fewer correct bits (every bfloat16/float16/fp8 input is far enough: measured 0 ULP).

Accuracy (measured by the tests and registered): 0 ULP after nearest-even rounding to bfloat16,
float16 and both fp8 formats on every input, in the directed modes too; float32 results within
1 ulp (faithful) on every random input checked.
"""

from __future__ import annotations

import numpy as np
from mpmath import mp

from ulplab.kernels.core import canonical_nan_where, pow2, round_result_scaled, tiny_magnitude
from ulplab.kernels.erf import RS_HI, RS_LO, TABLE_BYTES, erf_series, erfcx_parts
from ulplab.kernels.logistic import TINY_BITS, _one_minus, exp_neg_parts
from ulplab.kit import dd_add, dd_mul, fast_two_sum, two_prod, two_sum
from ulplab.kit.ops import f32hex

f32 = np.float32
u32 = np.uint32

C_HI = f32hex("0x1.988454p-2")  # 1/sqrt(2 pi) rounded to float32
C_LO = f32hex("-0x1.857936p-27")  # 1/sqrt(2 pi) - C_HI rounded to float32
NEG_LIMIT = f32hex("-0x1.d8p+3")  # -14.75: below it |gelu_grad(x)| < 2^-154
POS_LIMIT = f32hex("0x1.2p+3")  # 9: above it gelu_grad(x) - 1 < 2^-55


def split_constants() -> dict[str, float]:
    """Regenerate C_HI and C_LO from mpmath at 200 bits (test-checked)."""
    with mp.workprec(200):
        c = 1 / mp.sqrt(2 * mp.pi)
        hi = float(f32(float(c)))
        return {"C_HI": hi, "C_LO": float(f32(float(c - hi)))}


def gelu_grad(x: np.ndarray) -> np.ndarray:
    """Phi(x) + x phi(x), float32 in -> float32 out (see the module docstring)."""
    with np.errstate(all="ignore"):
        xc = np.minimum(np.maximum(x, NEG_LIMIT), POS_LIMIT)
        xc = np.where(np.isnan(xc), f32(0.0), xc)
        a = np.abs(xc)
        pos = xc >= 0
        y, yl = two_prod(a, np.full_like(a, RS_HI))
        y, yl = fast_two_sum(y, yl + a * RS_LO)
        s, se = two_prod(y, y)
        s, se = fast_two_sum(s, se + f32(2.0) * y * yl)
        h, hl, m = exp_neg_parts(s, se)
        t, te = two_prod(a, np.full_like(a, C_HI))
        t, te = fast_two_sum(t, te + a * C_LO)
        # 3. y < 1/2
        q, qe = two_prod(y, y)
        q, qe = fast_two_sum(q, qe + f32(2.0) * y * yl)
        eh, el = dd_mul(y, yl, *erf_series(q, qe))
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
        r, rle = _one_minus(w, wl, np.where(pos, m, 0))
        bh, bl = np.where(pos, r, w), np.where(pos, rle, wl)
        small = y < f32(0.5)
        hi, lo = np.where(small, sh, bh), np.where(small, sl, bl)
        out = round_result_scaled(hi, lo, np.where(small | pos, 0, m)).view(u32)
        xb = x.view(u32)
        half = np.where((xb & u32(0x7FFFFFFF)) == 0, u32(0x3F000000),
                        np.where((xb >> u32(31)) == 1, u32(0x3EFFFFFF), u32(0x3F000001)))
        out = np.where(tiny_magnitude(x, TINY_BITS), half, out)
        out = np.where(x < NEG_LIMIT, u32(0x80000001), out)
        out = np.where(x == -np.inf, u32(0x80000000), out)
        out = np.where(x == np.inf, u32(0x3F800000), out)
        return canonical_nan_where(np.isnan(x), out.view(f32))


KERNELS = [
    {"function": "gelu_grad", "impl": gelu_grad, "table_bytes": TABLE_BYTES + 512,
     "idea": "Phi + x phi: (1 ± erf)/2 + x phi near 0; e^-y^2 (erfcx(y)/2 - |x|/sqrt(2 pi)) "
             "elsewhere (one cancellation, at the sign change), from erf's building blocks"},
]
"""What ``ulplab.methods.det`` registers from this module."""
