"""What every deterministic kernel shares: the final round-to-odd step and its scaled form.

A kernel computes f(x) as an unevaluated double-float sum hi + lo (relative error far below
2^-24), then returns the float32 *round-to-odd* of that sum: the value itself when it is a
float32, else whichever of its two float32 neighbours has an odd significand. An odd result
carries a sticky bit, so rounding it again to any format with at least two fewer bits (bfloat16,
float16, fp8) to nearest-even gives the correctly rounded result of hi + lo — the cure for
double rounding (Boldo & Melquiond, IEEE TC 2008). The float32 result itself is faithful
(within 1 ulp). What remains is the error of hi + lo itself, which the exhaustive tests bound:
0 ULP on every bfloat16 and float16 input.
"""

from __future__ import annotations

import numpy as np

from ulplab.kit import ldexp

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


def round_to_odd_scaled(hi: np.ndarray, lo: np.ndarray, m: np.ndarray) -> np.ndarray:
    """float32 round-to-odd of (hi + lo) * 2^m, subnormal results included.

    ldexp rounds hi * 2^m once (to nearest); what it dropped, (hi - s 2^-m) + lo, is recovered
    exactly in sign, and an even result is moved one step toward it.
    """
    s = ldexp(hi, m)
    back = ldexp(s, -m)
    rest = (hi - back) + lo
    b = s.view(np.uint32)
    need = (rest != 0) & ((b & np.uint32(1)) == 0) & np.isfinite(s)
    tiny = np.where(rest > 0, np.uint32(1), np.uint32(0x80000001))  # s == 0: ±smallest subnormal
    stepped = np.where(s == 0, tiny, _step_toward(b, rest > 0, s > 0))
    return np.where(need, stepped, b).view(np.float32)


def canonical_nan_where(isnan: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Replace results at NaN inputs by the canonical quiet NaN 0x7FC00000."""
    return np.where(isnan, CANONICAL_NAN, y.view(np.uint32)).view(np.float32)
