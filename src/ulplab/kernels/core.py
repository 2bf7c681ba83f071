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
    A subnormal result is built as an integer n = rint(hi 2^t) (t = m + 149) and moved by one
    where the rest (hi 2^t - n) + lo 2^t passes a half: that happens only where hi 2^t - n is
    exactly +-1/2, and lo's sign decides it (exactly; an earlier version added the two in
    float32 and lost lo at such ties, rounding them to even).
``flag``
    As ``nearest``, but a result whose rounding the bound cannot decide — hi + lo within
    ``bound`` |hi + lo| (plus the rounding of the test itself) of a float32 midpoint — is
    replaced by the NaN 0x7FC00001 with the result's sign (``FLAG_NAN``). Used only by the scan
    that builds the exception tables (``ulplab.analysis.cr_scan``).
``fast``
    As ``flag``, with a shorter rounding test that flags a superset of its lanes
    (``_undecided_fast``); ``round_result_scaled`` does not build subnormal results but flags
    them, and ``scale`` is one multiplication, its out-of-range lanes flagged. The first pass of
    the compiled float32 runner (``ulplab.export.native``): every result it does not flag is the
    ``nearest`` one (the operations that give it are the same; only the discarded subnormal
    branch is left out), and the runner recomputes the flagged ones with the whole float32 entry
    point, so its output is that entry point's, bit for bit.

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

from ulplab.kit import ldexp

f32 = np.float32
CANONICAL_NAN = np.uint32(0x7FC00000)
FLAG_NAN = np.uint32(0x7FC00001)
"""The result of an input whose rounding the flag mode cannot decide (with the result's sign)."""
MODES = ("odd", "nearest", "flag", "fast")
_MODE: ContextVar[tuple[str, float]] = ContextVar("ulplab_kernel_rounding", default=("odd", 0.0))
_OUTSIDE: ContextVar[list[Any] | None] = ContextVar("ulplab_kernel_outside", default=None)
"""In the fast mode: masks of the lanes where a ``scale`` left its exact range (flagged)."""


@contextmanager
def rounding(mode: str, bound: float = 0.0) -> Iterator[None]:
    """Kernels called (or traced) inside round their results in ``mode`` (see the module
    docstring); ``bound`` is the relative error of hi + lo that the ``flag`` mode assumes."""
    if mode not in MODES:
        raise ValueError(f"unknown rounding mode {mode!r}; valid: {', '.join(MODES)}")
    if mode in ("flag", "fast") and not 0.0 < bound < 2.0**-26:
        raise ValueError(f"flag mode needs an error bound in (0, 2^-26), not {bound!r}")
    token = _MODE.set((mode, float(bound)))
    outside = _OUTSIDE.set([] if mode == "fast" else None)
    try:
        yield
    finally:
        _OUTSIDE.reset(outside)
        _MODE.reset(token)


def current_rounding() -> str:
    """The mode kernels round in here: "odd", "nearest", "flag" or "fast"."""
    return _MODE.get()[0]


def by_mode(odd: Any, nearest: Any) -> Any:
    """``odd`` in the round-to-odd mode, else ``nearest`` (special values of a kernel that are
    decided without rounding hi + lo, e.g. the odd neighbour of 1 versus 1 itself)."""
    return odd if current_rounding() == "odd" else nearest


def scale(x: np.ndarray, k: np.ndarray) -> np.ndarray:
    """x 2^k rounded once (``kit.ldexp``). In the fast mode, one multiplication by 2^k built
    from its bits: the same bits as ldexp where k is in [-126, 127] (a product with an exact
    power of two is rounded once, subnormal results included), and the lanes where k is not
    are flagged at the final rounding (``_OUTSIDE``). The C ldexp is some 25 operations; a
    kernel whose scalings stay in range on common inputs (sigmoid's on [-87, 87]) runs its
    first pass without them."""
    outside = _OUTSIDE.get()
    if outside is None:
        return ldexp(x, k)
    k = np.asanyarray(k).astype(np.int32)
    outside.append((k < -126) | (k > 127))
    return x * pow2(_clamp(k, -126, 127))


def _outside_flags(flag: np.ndarray) -> np.ndarray:
    for mask in _OUTSIDE.get() or ():
        flag = flag | mask
    return flag


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


def _undecided_fast(hi: np.ndarray, lo: np.ndarray, bound: float) -> np.ndarray:
    """``_undecided`` with fewer operations, for the fast mode: the same test where hi's
    exponent field e is at least 25 (|lo| > (edge - delta) 2^(e - 151), the half ulp built from
    the bits: both sides exact), and every lane with lo != 0 below that (|hi| < 2^-102) — a
    superset of ``_undecided``'s lanes, which is all the fast mode needs."""
    hb = hi.view(np.uint32)
    e = ((hb >> np.uint32(23)) & np.uint32(0xFF)).astype(np.int32)
    half_ulp = ((e - 24) << 23).astype(np.uint32).view(np.float32)
    delta = f32(bound * 2.0**25)
    below_pow2 = ((hb & np.uint32(0x007FFFFF)) == 0) & (e > 1) & ((lo < 0) != (hi < 0))
    limit = np.where(below_pow2, f32(0.5) - delta, f32(1.0) - delta) * half_ulp
    return ((e < 25) & (lo != 0)) | ((e != 255) & (np.abs(lo) > limit))


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
    if mode == "fast":
        flag = _outside_flags(_undecided_fast(hi, lo, bound))
    else:
        flag = _undecided(hi, lo, bound)
    return _with_flags(hi.view(np.uint32), hi, flag).view(np.float32)


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
    d = s - n  # exact, in [-1/2, 1/2]
    dd = np.where(pos, d, -d)  # oriented toward larger magnitude
    ld = np.where(pos, lo, -lo)
    mag = np.abs(n).astype(np.int32)
    odd_mag = (mag & 1) == 1
    half = f32(0.5)
    # |lo| 2^t is at most half an ulp of s and d a multiple of that ulp, so the exact rest
    # d + lo 2^t passes 1/2 only when d is +-1/2 itself; lo's sign then decides, and where lo
    # is 0 the tie goes to even (rint has already picked the even n)
    up = (dd == half) & ((ld > 0) | ((ld == 0) & odd_mag))
    down = (dd == -half) & ((ld < 0) | ((ld == 0) & odd_mag))
    mag = np.where(up, mag + 1, np.where(down, mag - 1, mag))
    mag = np.where(t < -30, 0, mag)  # far below half the smallest subnormal
    sub_bits = mag.astype(np.uint32) | sign
    bits = np.where(subnormal, sub_bits, scaled_normal.view(np.uint32))
    if bound is None:
        return bits, np.zeros(hi.shape, bool)
    r = d + lo * scale
    slack = f32(bound) * np.abs(s) + f32(2.0**-24)
    sub_undecided = (np.abs(r) > half - slack) & (t >= -30)
    undecided = np.where(subnormal, sub_undecided, _undecided(hi, lo, bound))
    return bits, undecided


def _fast_scaled(hi: np.ndarray, lo: np.ndarray, m: np.ndarray, bound: float) -> np.ndarray:
    """The fast mode of ``round_result_scaled``: ``_nearest_scaled_bits``'s normal branch and
    its +-0 far below the subnormals (the same operations), the other subnormal results and the
    undecided roundings flagged."""
    hb = hi.view(np.uint32)
    eh = ((hb >> np.uint32(23)) & np.uint32(0xFF)).astype(np.int32) - 127
    subnormal = (eh + m) < -126
    zero = (m + 149) < -30  # below half the smallest subnormal: nearest gives +-0
    bits = np.where(zero, _sign_bits(hi), _split_pow2(hi, m).view(np.uint32))
    flag = _outside_flags(np.where(subnormal, ~zero, _undecided_fast(hi, lo, bound)))
    return _with_flags(bits, hi, flag).view(np.float32)


def round_result_scaled(hi: np.ndarray, lo: np.ndarray, m: np.ndarray) -> np.ndarray:
    """The float32 result of (hi + lo) * 2^m in the current rounding mode, subnormal results
    included, for a normalized pair with hi normal or zero (|hi| < 2^60, |m| <= 250); see
    ``round_to_odd_scaled`` for how subnormal results stay exact on flushing hardware."""
    mode, bound = _MODE.get()
    if mode == "odd":
        return round_to_odd_scaled(hi, lo, m)
    m = np.asanyarray(m).astype(np.int32)
    if mode == "fast":
        return _fast_scaled(hi, lo, m, bound)
    bits, undecided = _nearest_scaled_bits(hi, lo, m, bound if mode == "flag" else None)
    if mode == "flag":
        bits = _with_flags(bits, hi, undecided)
    return bits.view(np.float32)


def _first_pass_flag(hi: np.ndarray, lo: np.ndarray,
                     bound: float) -> tuple[np.ndarray, np.ndarray]:
    """(hi's bits, flag) of the first passes' rounding test (``first_pass_scaled`` gives the
    argument): flag where the bound cannot decide RN(hi + lo) = hi, or hi is a power of two
    (zero included)."""
    hb = hi.view(np.uint32)
    half_ulp = ((hb & np.uint32(0x7F800000)) - np.uint32(24 << 23)).view(np.float32)
    factor = np.nextafter(f32(1.0 - bound * 2.0**25), f32(0.0))
    return hb, (np.abs(lo) >= half_ulp * factor) | ((hb & np.uint32(0x007FFFFF)) == 0)


def first_pass_scaled(hi: np.ndarray, lo: np.ndarray, m: np.ndarray, bound: float,
                      m_checked: bool = True, positive: bool = False) -> np.ndarray:
    """RN((hi + lo) 2^m) where the bound decides it, else ``FLAG_NAN`` (with hi's sign): the
    short ending of a kernel's first pass (``KERNELS[..]["first_pass"]``, what the compiled
    float32 runner calls before the whole entry point on the flagged lanes).

    For a normalized pair with 2^-102 <= |hi| < 2^126 and the exact value within ``bound`` |hi|
    of hi + lo. With u = half an ulp of hi (from hi's exponent bits, a power of two), the exact
    value lies strictly inside hi's rounding interval when |lo| < u (1 - bound 2^25) (as
    |hi| < 2^25 u), so RN of it is hi; the comparison is exact (both sides are u times a
    float32, the factor rounded down). Flagged: the other lanes, every hi that is a power of
    two (its interval is lopsided), and m outside [-125, 127] (``m_checked``; a caller that
    guarantees the range passes False) — the scaling is one exact multiplication by 2^m, right
    while the result stays normal, which m >= -125 ensures for 1/2 <= |hi| < 2. ``positive``:
    the caller guarantees hi > 0 (the flag then needs no sign)."""
    _, flag = _first_pass_flag(hi, lo, bound)
    if m_checked:
        flag = flag | (m < -125) | (m > 127)
    y = (hi * pow2(m)).view(np.uint32)
    return np.where(flag, FLAG_NAN if positive else FLAG_NAN | _sign_bits(hi),
                    y).view(np.float32)


def first_pass_result(hi: np.ndarray, lo: np.ndarray, bound: float) -> np.ndarray:
    """``first_pass_scaled`` without the scaling: RN(hi + lo) where the bound decides it, else
    ``FLAG_NAN`` with hi's sign, for a normalized pair with 2^-102 <= |hi| < 2^128 (a zero hi
    is flagged, as a power of two)."""
    hb, flag = _first_pass_flag(hi, lo, bound)
    return np.where(flag, FLAG_NAN | _sign_bits(hi), hb).view(np.float32)


def tiny_magnitude(x: np.ndarray, below_bits: int) -> np.ndarray:
    """|x| < the float32 whose encoding is ``below_bits``, decided on the bits (a subnormal x
    is seen as it is even where the hardware reads it as zero)."""
    return (x.view(np.uint32) & np.uint32(0x7FFFFFFF)) < np.uint32(below_bits)


def canonical_nan_where(isnan: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Replace results at NaN inputs by the canonical quiet NaN 0x7FC00000."""
    return np.where(isnan, CANONICAL_NAN, y.view(np.uint32)).view(np.float32)
