"""What a function's float64 form is made of: the type, the row helpers, the shared error terms.

A function module's ``float64_form(x)`` (``Function.float64_form``) writes f, for float32 values
x (as float64: finite, non-zero, inside f's domain), as

    f(x) = anchor + delta

with ``anchor`` exactly representable (0, ±1/2, ±1, 2, x or x/2: float32 values, or below 2^-125
the midpoint x/2) and ``delta`` computed in float64 with an absolute error bound ``err`` per
element, and the sign of delta where it is certain (``Form64``). The float32 oracle's fast path
(``ulplab.oracle.fast32``) multiplies every bound by its safety factor and decides the float32
rounding from it, or sends the input to Arb; the form's docstring gives its bound and why.

Units: u = 2^-53, relative to |delta| unless said otherwise. Every libm call (NumPy's exp, expm1,
log, log1p, log2, sin, cos, tan, tanh) is charged ``LIBM_ULPS`` = 4 ulps (the argument for it is
in ``ulplab.oracle.fast32``); every other float64 operation one u per rounding. Underflow: a
delta that may pass through float64's subnormals also carries ``ABS`` = 2^-1060 absolute (times
|x| where x multiplies it). For the error-function family (erf, erfc, gelu, gelu_grad; NumPy has
no erf) the forms share a bounded series and continued fraction, defined here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

U = 2.0**-53
LIBM_ULPS = 4.0  # ulps charged per libm call (see ulplab.oracle.fast32)
ABS = 2.0**-1060  # underflow: a float64 subnormal (<= 2^-1074) times |x| <= 2^128, with room

Value = np.ndarray | float | int
Rows = np.ndarray | slice


@dataclass
class Form64:
    """anchor + delta, |delta64 - delta| <= err (before the oracle's safety factor), sign of
    delta when certain (0: unknown). A field may be a scalar when it holds for every row."""

    n: int
    anchor: Value = 0.0
    delta: Value = 0.0
    err: Value = 0.0
    sign: Value = 0


Float64Form = Callable[[np.ndarray], Form64]
"""float32 values as float64 (finite, non-zero, not below ``Function.nan_below``) -> Form64."""


def put(f: Form64, m: Rows, anchor: Value, delta: np.ndarray, units: Value, sign: Value,
        extra: Value = 0.0) -> None:
    """Fill rows ``m``: err = units * u * |delta| + extra (whole-array rows: no copies)."""
    if isinstance(m, slice) and m != slice(None):
        return  # no rows
    err = units * U * np.abs(delta) + extra
    if isinstance(m, slice):
        f.anchor, f.delta, f.err, f.sign = anchor, delta, err, sign
        return
    for name, value, dtype in (("anchor", anchor, np.float64), ("delta", delta, np.float64),
                               ("err", err, np.float64), ("sign", sign, np.int64)):
        column = getattr(f, name)
        if np.ndim(column) == 0:
            column = np.full(f.n, column, dtype)
            setattr(f, name, column)
        column[m] = value


def signs(x: np.ndarray) -> np.ndarray:
    """+1 where x > 0, else -1 (x is non-zero)."""
    return np.where(x > 0, 1, -1)


def rows(mask: np.ndarray) -> Rows:
    """A row mask as an index: a slice when it takes every row or none (a chunk of a sweep is
    usually inside one region), which costs no copy."""
    if mask.all():
        return slice(None)
    return mask if mask.any() else slice(0, 0)


def split(cond: np.ndarray) -> tuple[Rows, Rows]:
    """The rows where ``cond`` holds, and the others."""
    return rows(cond), rows(~cond)


def tails(x: np.ndarray, near: np.ndarray) -> Iterator[tuple[bool, Rows]]:
    """The rows outside ``near``: (True, those with x > 0), then (False, those with x < 0)."""
    for positive in (True, False):
        yield positive, rows(~near & ((x > 0) if positive else (x < 0)))


def odd_small(f: Form64, x: np.ndarray, m: Rows, c: float, trunc: float) -> None:
    """Rows m, |x| < 2^-12: f(x) = x - c x^3 (1 + O(x^2)), the relative truncation below
    trunc x^2. delta = -c x^3: c's rounding and three products, 4 u; plus the truncation."""
    xm = x[m]
    d = -c * xm * xm * xm
    put(f, m, xm, d, 4.0, -signs(xm), np.abs(d) * trunc * xm * xm + ABS)


# ---------------------------------------------------------------- the error-function family
# float64 constants, each within half an ulp of its value
_INV_SQRT_2PI = float.fromhex("0x1.9884533d43651p-2")  # 1 / sqrt(2 pi)
_TWO_OVER_SQRT_PI = float.fromhex("0x1.20dd750429b6dp+0")  # 2 / sqrt(pi)
_INV_SQRT_PI = float.fromhex("0x1.20dd750429b6dp-1")  # 1 / sqrt(pi)

SERIES_TERMS = 44  # T(s), s <= 9: the 44th term is below 2^-60 (9^44/89!! < 2^-60)
SERIES_MAX_S = 9.0  # series where s = x^2 (Phi) or 2 x^2 (erf) is at most 9
FRACTION_LEVELS = 60  # Mills ratio at a >= 3 (erf: z >= 3/sqrt 2): truncation below 2^-58


def series(s: np.ndarray) -> np.ndarray:
    """T(s) = sum_n s^n / (2n+1)!!, s <= 9: positive terms, rel. error <= 3N u + 2^-58."""
    term = np.ones_like(s)
    total = np.ones_like(s)
    for n in range(SERIES_TERMS):
        term = term * s / (2 * n + 3)
        total = total + term
        if not (term > 2.0**-62).any():
            break
    return total


def fraction(b: np.ndarray, c: float) -> np.ndarray:
    """1/(b + c/(b + 2c/(b + 3c/...))), 60 levels from the bottom: positive, rel. error <= 122 u
    (+ truncation). c = 1: the Mills ratio Q(b)/phi(b); c = 1/2: erfc(b) sqrt(pi) e^(b^2)."""
    t = b.copy()
    for k in range(FRACTION_LEVELS, 0, -1):
        t = b + (k * c) / t
    return 1.0 / t


SERIES_UNITS = 3 * SERIES_TERMS + LIBM_ULPS + 8 + 2.0**-58 / U
"""phi(x) T(s) (or e^(-z^2) z T(s)): the series (3N u, truncation 2^-58), one exp, roundings."""
FRACTION_UNITS = 2 * FRACTION_LEVELS + 2 + LIBM_ULPS + 8 + 2.0**-56 / U
"""phi(a) times the fraction (122 u, truncation 2^-56 with room), one exp, roundings."""


def phi_parts(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(phi(a) = e^(-a^2/2)/sqrt(2 pi), a^2): a is a float32 value, so a^2 and a^2/2 are exact."""
    s = a * a
    return np.exp(-0.5 * s) * _INV_SQRT_2PI, s


def erfc_pos(z: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(erf(z), erfc(z), absolute error bounds of each) for z >= 0: the series where 2 z^2 <= 9
    (erfc = 1 - erf, one more rounding), else the fraction (erf = 1 - erfc)."""
    s = 2 * z * z  # exact: z is a float32 value
    e = np.empty_like(z)
    c = np.empty_like(z)
    err_e = np.empty_like(z)
    err_c = np.empty_like(z)
    small = s <= SERIES_MAX_S
    zs = z[small]
    e[small] = _TWO_OVER_SQRT_PI * np.exp(-zs * zs) * zs * series(s[small])
    c[small] = 1.0 - e[small]
    err_e[small] = SERIES_UNITS * U * e[small]
    err_c[small] = err_e[small] + U * c[small]
    big = ~small
    zb = z[big]
    c[big] = _INV_SQRT_PI * np.exp(-zb * zb) * fraction(zb, 0.5)
    e[big] = 1.0 - c[big]
    err_c[big] = FRACTION_UNITS * U * c[big]
    err_e[big] = err_c[big] + U * e[big]
    return e, c, err_e + ABS, err_c + ABS


def normal_series(x: np.ndarray) -> tuple[np.ndarray, Rows, np.ndarray, np.ndarray]:
    """Phi's series region x^2 <= 9: (its mask, its rows, phi(x) and T(x^2) on those rows);
    Phi(x) = 1/2 + x phi(x) T(x^2)."""
    ax = np.abs(x)
    near_cond = ax * ax <= SERIES_MAX_S
    near = rows(near_cond)
    phi, s = phi_parts(x[near])
    return near_cond, near, phi, series(s)


def normal_tails(x: np.ndarray, near: np.ndarray
                 ) -> Iterator[tuple[bool, Rows, np.ndarray, np.ndarray, np.ndarray]]:
    """Beyond the series (|x| > 3), x > 0 then x < 0: (positive, rows, a = |x|, phi(a), r) with
    the upper tail Q(a) = 1 - Phi(a) = phi(a) r (the Mills ratio r = Q(a)/phi(a))."""
    ax = np.abs(x)
    for positive, m in tails(x, near):
        a = ax[m]
        phi_a, _ = phi_parts(a)
        yield positive, m, a, phi_a, fraction(a, 1.0)


__all__ = [
    "ABS",
    "FRACTION_UNITS",
    "LIBM_ULPS",
    "SERIES_UNITS",
    "Float64Form",
    "Form64",
    "Rows",
    "U",
    "erfc_pos",
    "normal_series",
    "normal_tails",
    "odd_small",
    "phi_parts",
    "put",
    "rows",
    "signs",
    "split",
    "tails",
]
