"""The float32 oracle's fast path: a float64 evaluation with a proven error bound, Arb for the rest.

For a float32 input x each function's float64 form (``Function.float64_form``, in the function's
own module: ``ulplab/functions/exp.py`` ..., built from ``ulplab.functions._float64``) writes
f, as in ``forms``, as

    f(x) = anchor + delta

with ``anchor`` exactly representable (0, ±1/2, ±1, 2, x or x/2: float32 values, or below 2^-125
the midpoint x/2) and ``delta`` computed in float64 with an absolute error bound ``err``
(per element: libm ulps, the roundings of the formula, series/continued-fraction truncation,
underflow; each form's docstring gives its bound and why). The float32 rounding of f(x) is then
decided without Arb in two ways:

* tiny rule: when the sign of delta is certain and |delta| + err is below a quarter of the float32
  spacing next to the anchor, f(x) rounds in every mode like anchor + sign * spacing/8 (the same
  argument as ``ziv.decide``'s sign-of-d shortcut);
* interval test: with y64 = anchor + delta and margin = SAFETY err + 2^-52 |y64| (one more
  rounding), f(x) lies strictly between lo = y64 - 2 margin and hi = y64 + 2 margin, also after
  lo and hi are rounded to float64; when lo and hi round to the same float32 pattern (in the
  mode asked for), so does every value between them (rounding is monotone), f(x) included.

Every other finite input goes to the certified Arb path (``ziv.correctly_rounded_array``), as do
NaN, infinities and zeros (one Arb call per class, broadcast; an input below the function's
``nan_below`` is the NaN class); the count of escalated inputs leaves those out, so it does not
depend on how a sweep is chunked. A function without a float64 form sends every input to Arb.

Error budget (``LIBM_ULPS``, ``SAFETY``): glibc's manual ("Known Maximum Errors in Math
Functions", x86_64 column) lists 1 or 2 ulps for the double functions used here (exp, exp2, expm1,
log, log1p, log2, sin, cos, tanh). NumPy may dispatch to its own SIMD loops instead (AVX-512
builds); their bounds were not checked here. Each libm call is therefore charged LIBM_ULPS = 4
ulps (L in the forms' bounds, in units of u = 2^-53 relative to |delta| unless said otherwise),
every composed bound is multiplied by SAFETY = 16, and the tests cross-check against Arb.
Underflow: a delta that may pass through float64's subnormals also carries 2^-1060 max(1, |x|)
absolute. ``tests/test_exhaustive.py`` checks the fast path against Arb on 10^4 inputs per
function, those nearest a rounding boundary among them, and finds no disagreement.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from ulplab.formats import ROUNDING_MODES, check_mode, flush_subnormals, get_format, get_policy
from ulplab.formats import round_to_format as _round
from ulplab.functions import FUNCTIONS, get_function
from ulplab.functions._float64 import LIBM_ULPS, Float64Form, Form64, Value, rows
from ulplab.oracle.ziv import correctly_rounded_array

F32 = get_format("float32")
SAFETY = 16.0

FAST_FORMS: dict[str, Float64Form] = {name: f.float64_form for name, f in FUNCTIONS.items()
                                      if f.float64_form is not None}
"""The functions with a float64 form, and their forms (read from the registry)."""


def _tiny_rule(f: Form64, err: np.ndarray, candidates: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray]:
    """Tiny rule on the rows ``candidates``: where sign(delta) is certain and |delta| + err is
    below a quarter of the float32 spacing next to the anchor (at least |anchor| 2^-26, or 2^-151
    at 0), f(x) rounds in every mode like z = anchor + sign * max(|anchor| 2^-27, 2^-152), exact
    in float64.
    Returns (the rows where the rule holds, z on those rows)."""

    def at(v: Value) -> np.ndarray:
        return np.broadcast_to(v, (f.n,))[candidates]

    anchor, delta, e = at(f.anchor), at(f.delta), at(err)
    sign = at(f.sign)
    sign = np.where(sign != 0, sign, np.where(np.abs(delta) > e, np.sign(delta), 0))
    step = np.maximum(np.abs(anchor) * 2.0**-27, 2.0**-152)
    tiny = np.flatnonzero((np.abs(delta) + e < 2 * step) & (sign != 0))
    return candidates[tiny], anchor[tiny] + sign[tiny] * step[tiny]


def _round32(v: np.ndarray, rounding: str) -> np.ndarray:
    if rounding == "nearest-even":
        return v.astype(np.float32).view(np.uint32)
    return _round(v, F32, rounding)


@dataclass
class Decided:
    """Result patterns (valid where ``ok``) and the float64 value y64 with its margin."""

    bits: np.ndarray
    ok: np.ndarray
    y: np.ndarray
    margin: np.ndarray


def decide64(func: str, x: np.ndarray, rounding: str = "nearest-even") -> Decided:
    """The fast path on finite, non-zero float32 values ``x`` (as float64).

    With y64 = anchor + delta and margin = SAFETY err + 2^-52 |y64|, f(x) lies strictly between
    lo = y64 - 2 margin and hi = y64 + 2 margin even after these are rounded to float64; when lo
    and hi round to the same float32 pattern, so does every value between them, f(x) included
    (rounding is monotone; an endpoint on a tie still rounds like the values next to it inside).
    Rows this leaves open get the tiny rule (``_tiny_rule``).
    """
    form = get_function(func).float64_form
    if form is None:  # no float64 form: nothing is decided here
        return Decided(np.zeros(x.shape, np.uint32), np.zeros(x.shape, bool),
                       np.full(x.shape, np.nan), np.full(x.shape, np.inf))
    with np.errstate(all="ignore"):  # e^x -> inf / 0 are bounded (see forms); NaN is undecided
        f = form(x)
        err = np.broadcast_to(SAFETY * f.err, x.shape)
        y = np.broadcast_to(f.anchor + f.delta, x.shape)
        margin = err + 2.0**-52 * np.abs(y)
        lo = _round32(y - 2 * margin, rounding)
        hi = _round32(y + 2 * margin, rounding)
        ok = (lo == hi) & ~np.isnan(y)
        open_rows = np.flatnonzero(~ok)
        if open_rows.size:
            tiny, z = _tiny_rule(f, err, open_rows)
            ok[tiny] = True
            lo[tiny] = _round32(z, rounding)
    return Decided(lo, ok, y, margin)


def _special_bits(func: str, x: np.ndarray, mode: int) -> np.ndarray:
    """Inputs the forms do not take (NaN, ±inf, ±0; below ``nan_below`` x is NaN already): one
    Arb call per class."""
    cls = np.full(x.shape, -1, np.int64)
    cls[np.isnan(x)] = 0
    cls[x == np.inf] = 1
    cls[x == -np.inf] = 2
    cls[(x == 0) & ~np.signbit(x)] = 3
    cls[(x == 0) & np.signbit(x)] = 4
    out = np.zeros(x.shape, np.uint32)
    for k in np.unique(cls[cls >= 0]).tolist():
        out[cls == k] = _special_value(func, k, mode)
    return out


_SPECIALS = (np.nan, np.inf, -np.inf, 0.0, -0.0)  # one input of each class, in order


@functools.cache
def _special_value(func: str, k: int, mode: int) -> int:
    """f of class k's input (``_SPECIALS``: keyed by index, as 0.0 == -0.0), once per process."""
    return int(correctly_rounded_array(func, np.array([_SPECIALS[k]]), F32)[mode, 0])


def correctly_rounded32(func: str, x: np.ndarray, rounding: str = "nearest-even",
                        denormals: str = "ieee") -> tuple[np.ndarray, int]:
    """(bit patterns of f(x) correctly rounded to float32, how many finite inputs the fast path
    left to Arb; NaN, infinities and zeros take one Arb call per class and are not counted).

    ``x``: float32 values (any array of them). Same results as ``oracle.table.evaluate`` for
    float32; under DAZ a subnormal input reads as the zero of its sign, under FTZ a subnormal
    result becomes the zero of its sign.
    """
    mode = ROUNDING_MODES.index(check_mode(rounding))
    policy = get_policy(denormals)
    with np.errstate(invalid="ignore"):  # signalling NaNs are quieted
        x64 = np.asarray(x, dtype=np.float32).astype(np.float64)
    if policy.daz:
        x64 = np.where((x64 != 0) & (np.abs(x64) < F32.min_normal), np.copysign(0.0, x64), x64)
    nan_below = get_function(func).nan_below
    if nan_below is not None:  # outside the domain f(x) is the NaN that f(NaN) is
        x64 = np.where(x64 < nan_below, np.nan, x64)
    regular = rows(np.isfinite(x64) & (x64 != 0))
    xs = x64[regular]
    d = decide64(func, xs, ROUNDING_MODES[mode])
    hard = np.flatnonzero(~d.ok)
    if hard.size:
        d.bits[hard] = correctly_rounded_array(func, xs[hard], F32)[mode]
    if isinstance(regular, slice) and regular == slice(None):
        out = d.bits
    else:
        out = _special_bits(func, x64, mode)
        out[regular] = d.bits
    if policy.ftz:
        out = flush_subnormals(out, F32)
    return out.astype(np.uint32), int(hard.size)


__all__ = ["FAST_FORMS", "LIBM_ULPS", "SAFETY", "Decided", "correctly_rounded32", "decide64"]
