"""What every deterministic kernel shares: the final rounding, in the mode asked for.

A kernel computes f(x) as an unevaluated double-float sum hi + lo (relative error far below
2^-24; each kernel states the bound its rounding test uses, ``KERNELS[..]["bound"]``), then
ends in ``round_result`` / ``round_result_scaled``, which round hi + lo (times 2^m) to float32 in
the mode of the surrounding ``rounding(...)`` context — decided when the kernel runs or is traced,
so every export carries one mode:

``odd`` (the default)
    The float32 *round-to-odd* of hi + lo: the value itself when it is a float32, else whichever
    of its two float32 neighbours has an odd significand. An odd result carries a sticky bit, so
    rounding it again to any format with at least two fewer bits (bfloat16, float16, fp8) to
    nearest-even — or in a directed mode — gives the correctly rounded result of hi + lo, the
    cure for double rounding (Boldo & Melquiond, IEEE TC 2008). As a float32 it is faithful.
``nearest``
    The float32 round-to-nearest-even of hi + lo. It is the correctly rounded f(x) except where
    the exact value lies within the error bound of a float32 midpoint; those inputs are found
    once, over all 2^32 float32 inputs, by the ``flag`` mode, and their correctly rounded results
    are a table that the float32 entry point applies last (``ulplab.kernels.exceptions``).
    Known imprecision (left as is because every exception table was built with it): a
    subnormal result whose hi (scaled) lies exactly on a midpoint can lose lo's sign when
    (s - n) + lo 2^t rounds to exactly 1/2, and then ties to even; such inputs are within the
    bound of a midpoint, so the flag mode marks them and the oracle decides them (silu, gelu and
    gelu_tanh take their tiny x/2 from the bits in nearest mode for that reason).
``flag``
    As ``nearest``, but a result whose rounding the bound cannot decide — hi + lo within
    ``bound`` |hi + lo| (plus the rounding of the test itself) of a float32 midpoint — is
    replaced by the NaN 0x7FC00001 with the result's sign (``FLAG_NAN``). Used only by the scan
    that builds the exception tables (``ulplab.analysis.cr_scan``).

Special values that a kernel returns without rounding hi + lo (a saturated tanh, exp of a tiny
x) are written per mode with ``by_mode``; where the mode changes a threshold the kernel says so.

Kernels keep every arithmetic operand normal where it matters (``round_result_scaled`` builds
subnormal results as integers; ``tiny_magnitude`` finds tiny inputs on their bits), so that
backends that flush subnormals to zero give the same bits, in every mode but ``flag``.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

import numpy as np

f32 = np.float32
CANONICAL_NAN = np.uint32(0x7FC00000)
FLAG_NAN = np.uint32(0x7FC00001)
"""The result of an input whose rounding the flag mode cannot decide (with the result's sign)."""
MODES = ("odd", "nearest", "flag")
_MODE: ContextVar[tuple[str, float]] = ContextVar("ulplab_kernel_rounding", default=("odd", 0.0))


@contextmanager
def rounding(mode: str, bound: float = 0.0) -> Iterator[None]:
    """Kernels called (or traced) inside round their results in ``mode`` (see the module
    docstring); ``bound`` is the relative error of hi + lo that the ``flag`` mode assumes."""
    if mode not in MODES:
        raise ValueError(f"unknown rounding mode {mode!r}; valid: {', '.join(MODES)}")
    if mode == "flag" and not 0.0 < bound < 2.0**-26:
        raise ValueError(f"flag mode needs an error bound in (0, 2^-26), not {bound!r}")
    token = _MODE.set((mode, float(bound)))
    try:
        yield
    finally:
        _MODE.reset(token)


def current_rounding() -> str:
    """The mode kernels round in here: "odd", "nearest" or "flag"."""
    return _MODE.get()[0]


def by_mode(odd: Any, nearest: Any) -> Any:
    """``odd`` in the round-to-odd mode, else ``nearest`` (special values of a kernel that are
    decided without rounding hi + lo, e.g. the odd neighbour of 1 versus 1 itself)."""
    return odd if current_rounding() == "odd" else nearest


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


def _sign_bits(hi: np.ndarray) -> np.ndarray:
    return hi.view(np.uint32) & np.uint32(0x80000000)


def _split_pow2(v: np.ndarray, k: np.ndarray) -> np.ndarray:
    """v * 2^k for integer k in [-252, 254] as two exact power-of-two products."""
    k1 = k >> 1
    return v * pow2(_clamp(k1, -126, 127)) * pow2(_clamp(k - k1, -126, 127))


def _undecided(hi: np.ndarray, lo: np.ndarray, bound: float) -> np.ndarray:
    """Where the float32 nearest rounding of the exact value, known as hi + lo to within
    bound |hi|, may differ from hi: hi + lo lies within that distance of a midpoint between hi
    and a neighbour. In units of half an ulp of hi, r = lo / (ulp(hi)/2) is exact (a power-of-two
    scaling); the distance bound |hi| is below bound 2^25 such units. Below a power of two
    (normal, exponent above the smallest) the midpoint is at r = -1/2."""
    hb = hi.view(np.uint32)
    e = ((hb >> np.uint32(23)) & np.uint32(0xFF)).astype(np.int32)
    k = np.where(e == 0, 150, 151 - e)  # half an ulp of hi is 2^-k
    r = _split_pow2(lo, k)
    a = np.abs(r)
    delta = f32(bound * 2.0**25)
    below_pow2 = ((hb & np.uint32(0x007FFFFF)) == 0) & (e > 1) & ((lo < 0) != (hi < 0))
    edge = np.where(below_pow2, f32(0.5), f32(1.0))
    finite = (e != 255) & (lo == lo)
    return finite & (a > edge - delta) & (lo != 0)


def _with_flags(bits: np.ndarray, hi: np.ndarray, undecided: np.ndarray) -> np.ndarray:
    return np.where(undecided, FLAG_NAN | _sign_bits(hi), bits)


def round_result(hi: np.ndarray, lo: np.ndarray) -> np.ndarray:
    """The float32 result of hi + lo (a normalized pair, hi = RN(hi + lo)) in the current
    rounding mode."""
    mode, bound = _MODE.get()
    if mode == "odd":
        return round_to_odd(hi, lo)
    if mode == "nearest":
        return hi
    return _with_flags(hi.view(np.uint32), hi, _undecided(hi, lo, bound)).view(np.float32)


def _nearest_scaled_bits(hi: np.ndarray, lo: np.ndarray, m: np.ndarray,
                         bound: float | None) -> tuple[np.ndarray, np.ndarray]:
    """(bits of RN((hi + lo) 2^m), undecided) — undecided only computed when ``bound`` is
    given (flag mode), else all False."""
    hb = hi.view(np.uint32)
    sign = _sign_bits(hi)
    eh = ((hb >> np.uint32(23)) & np.uint32(0xFF)).astype(np.int32) - 127
    subnormal = (eh + m) < -126
    scaled_normal = _split_pow2(hi, m)
    t = m + 149
    tc = _clamp(t, -30, 30)
    scale = pow2(tc)
    s = hi * scale
    n = np.rint(s)
    pos = hi > 0
    rest = (s - n) + lo * scale
    r = np.where(pos, rest, -rest)  # toward larger magnitude when positive
    mag = np.abs(n).astype(np.int32)
    odd_mag = (mag & 1) == 1
    half = f32(0.5)
    up = (r > half) | ((r == half) & odd_mag)
    down = (r < -half) | ((r == -half) & odd_mag)
    mag = np.where(up, mag + 1, np.where(down, mag - 1, mag))
    mag = np.where(t < -30, 0, mag)  # far below half the smallest subnormal
    sub_bits = mag.astype(np.uint32) | sign
    bits = np.where(subnormal, sub_bits, scaled_normal.view(np.uint32))
    if bound is None:
        return bits, np.zeros(hi.shape, bool)
    slack = f32(bound) * np.abs(s) + f32(2.0**-24)
    sub_undecided = (np.abs(r) > half - slack) & (t >= -30)
    undecided = np.where(subnormal, sub_undecided, _undecided(hi, lo, bound))
    return bits, undecided


def round_result_scaled(hi: np.ndarray, lo: np.ndarray, m: np.ndarray) -> np.ndarray:
    """The float32 result of (hi + lo) * 2^m in the current rounding mode, subnormal results
    included, for a normalized pair with hi normal or zero (|hi| < 2^60, |m| <= 250); see
    ``round_to_odd_scaled`` for how subnormal results stay exact on flushing hardware."""
    mode, bound = _MODE.get()
    if mode == "odd":
        return round_to_odd_scaled(hi, lo, m)
    m = np.asanyarray(m).astype(np.int32)
    bits, undecided = _nearest_scaled_bits(hi, lo, m, bound if mode == "flag" else None)
    if mode == "flag":
        bits = _with_flags(bits, hi, undecided)
    return bits.view(np.float32)


def tiny_magnitude(x: np.ndarray, below_bits: int) -> np.ndarray:
    """|x| < the float32 whose encoding is ``below_bits``, decided on the bits (a subnormal x
    is seen as it is even where the hardware reads it as zero)."""
    return (x.view(np.uint32) & np.uint32(0x7FFFFFFF)) < np.uint32(below_bits)


def canonical_nan_where(isnan: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Replace results at NaN inputs by the canonical quiet NaN 0x7FC00000."""
    return np.where(isnan, CANONICAL_NAN, y.view(np.uint32)).view(np.float32)
