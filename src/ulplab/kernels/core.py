"""What every deterministic kernel shares: the final round-to-odd step and its scaled form.

A kernel computes f(x) as an unevaluated double-float sum hi + lo (relative error far below
2^-24), then returns the float32 *round-to-odd* of that sum: the value itself when it is a
float32, else whichever of its two float32 neighbours has an odd significand. An odd result
carries a sticky bit, so rounding it again to any format with at least two fewer bits (bfloat16,
float16, fp8) to nearest-even gives the correctly rounded result of hi + lo — the cure for
double rounding (Boldo & Melquiond, IEEE TC 2008). The float32 result itself is faithful
(within 1 ulp). What remains is the error of hi + lo itself, which the exhaustive tests bound:
0 ULP on every bfloat16 and float16 input.

Kernels keep every arithmetic operand normal where it matters (``round_to_odd_scaled`` builds
subnormal results as integers; ``tiny_magnitude`` finds tiny inputs on their bits), so that
backends that flush subnormals to zero give the same bits.
"""

from __future__ import annotations

import numpy as np

f32 = np.float32
CANONICAL_NAN = np.uint32(0x7FC00000)


def _step_toward(b: np.ndarray, sign_pos: np.ndarray, value_pos: np.ndarray) -> np.ndarray:
    """Bit pattern one step away from zero when the residual has the value's sign, else toward."""
    return np.where(sign_pos == value_pos, b + np.uint32(1), b - np.uint32(1))


def round_to_odd(hi: np.ndarray, lo: np.ndarray) -> np.ndarray:
    """float32 round-to-odd of hi + lo for a normalized pair (hi = RN(hi + lo))."""
    b = hi.view(np.uint32)
    need = (lo != 0) & ((b & np.uint32(1)) == 0) & np.isfinite(hi)
    stepped = _step_toward(b, lo > 0, hi > 0)
    return np.where(need, stepped, b).view(np.float32)


def _clamp(v: np.ndarray, lo: int, hi: int) -> np.ndarray:
    return np.minimum(np.maximum(v, lo), hi)


def pow2(e: np.ndarray) -> np.ndarray:
    """2^e as float32 from its bits, for integer e in [-126, 127] (exact, always normal)."""
    return ((np.asanyarray(e).astype(np.int32) + 127) << 23).astype(np.uint32).view(np.float32)


def round_to_odd_scaled(hi: np.ndarray, lo: np.ndarray, m: np.ndarray) -> np.ndarray:
    """float32 round-to-odd of (hi + lo) * 2^m, subnormal results included, for a normalized
    pair with hi normal or zero (|hi| < 2^60, |m| <= 250).

    Every arithmetic operand and result here is a normal number, so the bits are the same on
    hardware that flushes subnormals (XLA on CPU, GPUs in FTZ mode): a normal result is the
    round-to-odd of hi + lo scaled exactly by two powers of two; a subnormal result is built
    as an integer, n = rint(hi 2^(m+149)), moved to the odd neighbour when the remainder
    (hi 2^(m+149) - n) + lo 2^(m+149) is not zero.
    """
    m = np.asanyarray(m).astype(np.int32)
    hb = hi.view(np.uint32)
    sign = hb & np.uint32(0x80000000)
    odd = round_to_odd(hi, lo)  # its exponent decides (hi = 1, lo < 0 gives 1 - 2^-24)
    eo = ((odd.view(np.uint32) >> np.uint32(23)) & np.uint32(0xFF)).astype(np.int32) - 127
    subnormal = (eo + m) < -126
    m1 = m >> 1
    scaled_normal = odd * pow2(_clamp(m1, -126, 127)) * pow2(_clamp(m - m1, -126, 127))
    t = m + 149
    tc = _clamp(t, -30, 30)
    scale = pow2(tc)
    s = hi * scale
    n = np.rint(s)
    rest = (s - n) + lo * scale
    mag = np.abs(n).astype(np.int32)
    away = (rest > 0) == (hi > 0)
    fix = (rest != 0) & ((mag & 1) == 0)
    mag = np.where(fix, np.where(away, mag + 1, mag - 1), mag)
    mag = np.where((t < -30) & (hi != 0), 1, mag)  # far below the smallest subnormal: odd 1
    sub_bits = mag.astype(np.uint32) | sign
    return np.where(subnormal, sub_bits, scaled_normal.view(np.uint32)).view(np.float32)


def tiny_magnitude(x: np.ndarray, below_bits: int) -> np.ndarray:
    """|x| < the float32 whose encoding is ``below_bits``, decided on the bits (a subnormal x
    is seen as it is even where the hardware reads it as zero)."""
    return (x.view(np.uint32) & np.uint32(0x7FFFFFFF)) < np.uint32(below_bits)


def canonical_nan_where(isnan: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Replace results at NaN inputs by the canonical quiet NaN 0x7FC00000."""
    return np.where(isnan, CANONICAL_NAN, y.view(np.uint32)).view(np.float32)
