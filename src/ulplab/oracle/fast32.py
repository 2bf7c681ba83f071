"""The float32 oracle's fast path: a float64 evaluation with a proven error bound, Arb for the rest.

For a float32 input x each function is written, as in ``forms``, as

    f(x) = anchor + delta

with ``anchor`` exactly representable (0, ±1/2, ±1, 2, x or x/2: float32 values, or below 2^-125
the midpoint x/2) and ``delta`` computed in float64 with an absolute error bound ``err``
(per element: libm ulps, the roundings of the formula, series/continued-fraction truncation,
underflow). The float32 rounding of f(x) is then decided without Arb in two ways:

* tiny rule: when the sign of delta is certain and |delta| + err is below a quarter of the float32
  spacing next to the anchor, f(x) rounds in every mode like anchor + sign * spacing/8 (the same
  argument as ``ziv.decide``'s sign-of-d shortcut);
* interval test: with y64 = anchor + delta and margin = SAFETY err + 2^-52 |y64| (one more
  rounding), f(x) lies strictly between lo = y64 - 2 margin and hi = y64 + 2 margin, also after
  lo and hi are rounded to float64; when lo and hi round to the same float32 pattern (in the
  mode asked for), so does every value between them (rounding is monotone), f(x) included.

Every other finite input goes to the certified Arb path (``ziv.correctly_rounded_array``), as do
NaN, infinities and zeros (one Arb call per class, broadcast); the count of escalated inputs
leaves those out, so it does not depend on how a sweep is chunked.

Error budget (``LIBM_ULPS``, ``SAFETY``): glibc's manual ("Known Maximum Errors in Math
Functions", x86_64 column) lists 1 or 2 ulps for the double functions used here (exp, exp2, expm1,
log, log1p, log2, sin, cos, tanh). NumPy may dispatch to its own SIMD loops instead (AVX-512
builds); their bounds were not checked here. Each libm call is therefore charged LIBM_ULPS = 4
ulps, every composed bound is multiplied by SAFETY = 16, and the tests cross-check against Arb.
The bound of each function, in units of u = 2^-53 relative to |delta| unless said otherwise:

    function   form (float64)                                        err before SAFETY
    exp        |x|<1/2: 1 + expm1(x); else exp(x)                    L
    exp2       |x|<1/2: 1 + expm1(x ln2); else exp2(x)               L + 4
    expm1      expm1(x) (anchor 0: no cancellation)                  L
    log, log2  1/2<x<3/2: log1p(x-1) [/ln2]; else log(x), log2(x)    L + 2
    sin        |x|<2^-12: x - x^3/6 (truncation x^2/20 rel); sin(x)  L (+ truncation)
    cos        |x|<1/2: 1 - 2 sin^2(x/2); else cos(x)                2L + 4
    tanh       |x|<2^-12: x - x^3/3; |x|<=1/2: tanh; 1 - 2/(e^2x+1)  L + 4 (+ truncation)
    sigmoid    |x|<1/16: 1/2 + tanh(x/2)/2; 1 - 1/(1+e^x) / 1/(1+e^-x)   L + 4
    silu       |x|<=1: x/2 + (x/2) tanh(x/2); x sigmoid(x) forms      L + 5
    softplus   x + log1p(e^-x) (x>0); log1p(e^x)                      2L + 4
    tanh_grad  |x|<1/2: 1 - tanh^2; else 4t/(1+t)^2, t = e^-2|x|      2L + 8
    gelu_tanh  |x|<=1: x/2 + x tanh(u)/2; else x - x/(1+e^2u) ...    (L + 8)(1 + 2|u|)
    log1p      |x|<2^-12: x - x^2/2 + x^3/3 (truncation x^2 rel); log1p  L (+ truncation)
    rsqrt      1/sqrt(x) (two correctly rounded operations)           2
    tan        |x|<2^-12: x + x^3/3 (truncation 2x^2/5 rel); tan(x)   L (+ truncation)
    gelu, gelu_grad, erf, erfc: Phi / erf from the positive series T(s) = sum s^n/(2n+1)!!
               (|x|<=3, s <= 9) and the Mills-ratio continued fraction (beyond): 3N + L + 8
               (N = 44 terms), truncation 2^-58 (series) / 2^-56 (fraction, 60 levels)

Underflow: every delta also carries 2^-1060 max(1, |x|) absolute (a float64 subnormal times x).
The test ``test_fast32`` checks the fast path against Arb on 10^4 inputs per function, those
nearest a rounding boundary among them, and finds no disagreement.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ulplab.formats import ROUNDING_MODES, check_mode, flush_subnormals, get_format, get_policy
from ulplab.formats import round_to_format as _round
from ulplab.oracle.ziv import correctly_rounded_array

F32 = get_format("float32")
U = 2.0**-53
LIBM_ULPS = 4.0
SAFETY = 16.0
_ABS = 2.0**-1060  # underflow: a float64 subnormal (<= 2^-1074) times |x| <= 2^128, with room

# float64 constants, each within half an ulp of its value (float64 literals of these decimals)
_LN2 = float.fromhex("0x1.62e42fefa39efp-1")  # ln 2
_INV_LN2 = float.fromhex("0x1.71547652b82fep+0")  # 1 / ln 2
_INV_SQRT_2PI = float.fromhex("0x1.9884533d43651p-2")  # 1 / sqrt(2 pi)
_TWO_OVER_SQRT_PI = float.fromhex("0x1.20dd750429b6dp+0")  # 2 / sqrt(pi)
_INV_SQRT_PI = float.fromhex("0x1.20dd750429b6dp-1")  # 1 / sqrt(pi)
_SQRT_2_OVER_PI = float.fromhex("0x1.9884533d43651p-1")  # sqrt(2 / pi)
_GELU_TANH_C = 0.044715  # the decimal of the GELU tanh form, within half an ulp

_SERIES_TERMS = 44  # T(s), s <= 9: the 44th term is below 2^-60 (9^44/89!! < 2^-60)
_SERIES_MAX_S = 9.0  # series where s = x^2 (Phi) or 2 x^2 (erf) is at most 9
_FRACTION_LEVELS = 60  # Mills ratio at a >= 3 (erf: z >= 3/sqrt 2): truncation below 2^-58


Value = np.ndarray | float | int


@dataclass
class Form:
    """anchor + delta, |delta64 - delta| <= err (before SAFETY), sign of delta when certain.
    A field may be a scalar when it holds for every row."""

    n: int
    anchor: Value = 0.0
    delta: Value = 0.0
    err: Value = 0.0
    sign: Value = 0


def _form(n: int) -> Form:
    return Form(n)


def _put(f: Form, m: Rows, anchor: Value, delta: np.ndarray, units: Value, sign: Value,
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


def _sgn(x: np.ndarray) -> np.ndarray:
    return np.where(x > 0, 1, -1)


Rows = np.ndarray | slice


def _rows(mask: np.ndarray) -> Rows:
    """A row mask as an index: a slice when it takes every row or none (a chunk of a sweep is
    usually inside one region), which costs no copy."""
    if mask.all():
        return slice(None)
    return mask if mask.any() else slice(0, 0)


def _split(cond: np.ndarray) -> tuple[Rows, Rows]:
    return _rows(cond), _rows(~cond)


# ---------------------------------------------------------------- the error-function family
def _series(s: np.ndarray) -> np.ndarray:
    """T(s) = sum_n s^n / (2n+1)!!, s <= 9: positive terms, rel. error <= 3N u + 2^-58."""
    term = np.ones_like(s)
    total = np.ones_like(s)
    for n in range(_SERIES_TERMS):
        term = term * s / (2 * n + 3)
        total = total + term
        if not (term > 2.0**-62).any():
            break
    return total


def _fraction(b: np.ndarray, c: float) -> np.ndarray:
    """1/(b + c/(b + 2c/(b + 3c/...))), 60 levels from the bottom: positive, rel. error <= 122 u
    (+ truncation). c = 1: the Mills ratio Q(b)/phi(b); c = 1/2: erfc(b) sqrt(pi) e^(b^2)."""
    t = b.copy()
    for k in range(_FRACTION_LEVELS, 0, -1):
        t = b + (k * c) / t
    return 1.0 / t


_SERIES_UNITS = 3 * _SERIES_TERMS + LIBM_ULPS + 8 + 2.0**-58 / U
_FRACTION_UNITS = 2 * _FRACTION_LEVELS + 2 + LIBM_ULPS + 8 + 2.0**-56 / U


def _phi_parts(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(phi(a) = e^(-a^2/2)/sqrt(2 pi), a^2): a is a float32 value, so a^2 and a^2/2 are exact."""
    s = a * a
    return np.exp(-0.5 * s) * _INV_SQRT_2PI, s


def _erfc_pos(z: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(erf(z), erfc(z), absolute error bounds of each) for z >= 0."""
    s = 2 * z * z  # exact: z is a float32 value
    e = np.empty_like(z)
    c = np.empty_like(z)
    err_e = np.empty_like(z)
    err_c = np.empty_like(z)
    small = s <= _SERIES_MAX_S
    zs = z[small]
    e[small] = _TWO_OVER_SQRT_PI * np.exp(-zs * zs) * zs * _series(s[small])
    c[small] = 1.0 - e[small]
    err_e[small] = _SERIES_UNITS * U * e[small]
    err_c[small] = err_e[small] + U * c[small]
    big = ~small
    zb = z[big]
    c[big] = _INV_SQRT_PI * np.exp(-zb * zb) * _fraction(zb, 0.5)
    e[big] = 1.0 - c[big]
    err_c[big] = _FRACTION_UNITS * U * c[big]
    err_e[big] = err_c[big] + U * e[big]
    return e, c, err_e + _ABS, err_c + _ABS


def _gelu_like(x: np.ndarray, grad: bool) -> Form:
    f = _form(x.size)
    ax = np.abs(x)
    near_cond = ax * ax <= _SERIES_MAX_S
    near = _rows(near_cond)
    xs = x[near]
    phi, s = _phi_parts(xs)
    t = _series(s)
    if grad:  # Phi(x) + x phi(x) = 1/2 + x phi(x) (T(x^2) + 1)
        _put(f, near, 0.5, xs * phi * (t + 1), _SERIES_UNITS + 4, _sgn(xs), _ABS)
    else:  # x Phi(x) = x/2 + x^2 phi(x) T(x^2), positive rest
        _put(f, near, xs * 0.5, xs * xs * phi * t, _SERIES_UNITS + 4, 1, _ABS)
    for positive in (True, False):
        m = _rows(~near_cond & ((x > 0) if positive else (x < 0)))
        a = ax[m]
        phi_a, _ = _phi_parts(a)
        r = _fraction(a, 1.0)  # Q(a) = phi(a) r
        if grad:  # x > 3: 1 + phi (x - r); x < -3: phi (r - a), both without cancellation
            d = phi_a * (a - r) if positive else phi_a * (r - a)
            _put(f, m, 1.0 if positive else 0.0, d, _FRACTION_UNITS + 4,
                 1 if positive else -1, _ABS)
        else:  # x > 3: x - x Q(x); x < -3: x Q(-x)
            _put(f, m, x[m] if positive else 0.0, -a * phi_a * r, _FRACTION_UNITS + 4, -1,
                 _ABS * np.maximum(a, 1.0))
    return f


def _gelu(x: np.ndarray) -> Form:
    return _gelu_like(x, grad=False)


def _gelu_grad(x: np.ndarray) -> Form:
    return _gelu_like(x, grad=True)


def _erf(x: np.ndarray) -> Form:
    f = _form(x.size)
    e, c, err_e, err_c = _erfc_pos(np.abs(x))
    s = _sgn(x)
    inner = np.abs(x) <= 0.5
    f.anchor = np.where(inner, 0.0, s.astype(np.float64))
    f.delta = np.where(inner, s * e, -s * c)
    f.err = np.where(inner, err_e, err_c)
    f.sign = np.where(inner, s, -s)
    return f


def _erfc(x: np.ndarray) -> Form:
    f = _form(x.size)
    e, c, err_e, err_c = _erfc_pos(np.abs(x))
    inner = np.abs(x) <= 0.5  # 1 - erf(x)
    neg = x < 0
    f.anchor = np.where(inner, 1.0, np.where(neg, 2.0, 0.0))
    f.delta = np.where(inner, np.where(neg, e, -e), np.where(neg, -c, c))
    f.err = np.where(inner, err_e, err_c)
    f.sign = np.where(inner, np.where(neg, 1, -1), np.where(neg, -1, 1))
    return f


# ---------------------------------------------------------------- libm-based functions
def _exp(x: np.ndarray) -> Form:
    f = _form(x.size)
    m, other = _split(np.abs(x) < 0.5)
    _put(f, m, 1.0, np.expm1(x[m]), LIBM_ULPS, _sgn(x[m]))
    # beyond x = 700 both e^x and e^700 are far above float32's range: they round alike
    _put(f, other, 0.0, np.exp(np.minimum(x[other], 700.0)), LIBM_ULPS, 1, _ABS)
    return f


def _exp2(x: np.ndarray) -> Form:
    f = _form(x.size)
    m, other = _split(np.abs(x) < 0.5)
    _put(f, m, 1.0, np.expm1(x[m] * _LN2), LIBM_ULPS + 4, _sgn(x[m]))
    _put(f, other, 0.0, np.exp2(np.minimum(x[other], 1000.0)), LIBM_ULPS, 1, _ABS)  # as _exp
    return f


def _expm1(x: np.ndarray) -> Form:
    f = _form(x.size)
    # beyond x = 700 both e^x - 1 and e^700 - 1 are far above float32's range: they round alike
    _put(f, slice(None), 0.0, np.expm1(np.minimum(x, 700.0)), LIBM_ULPS, _sgn(x))
    return f


def _log_form(x: np.ndarray, scale: float, far: Callable[[np.ndarray], np.ndarray]) -> Form:
    f = _form(x.size)
    m, other = _split((x > 0.5) & (x < 1.5))  # x - 1 exact
    s = np.sign(x - 1.0).astype(np.int64)  # 0 at x = 1: log(1) = +0 is left to the grid test
    _put(f, m, 0.0, np.log1p(x[m] - 1.0) * scale, LIBM_ULPS + 2, s[m])
    _put(f, other, 0.0, far(x[other]), LIBM_ULPS + 2, s[other])
    return f


def _log(x: np.ndarray) -> Form:
    return _log_form(x, 1.0, np.log)


def _log2(x: np.ndarray) -> Form:
    return _log_form(x, _INV_LN2, np.log2)


def _odd_small(f: Form, x: np.ndarray, m: Rows, c: float, trunc: float) -> None:
    """|x| < 2^-12: f(x) = x - c x^3 (1 + O(x^2)); the relative truncation is below trunc x^2."""
    xm = x[m]
    d = -c * xm * xm * xm
    _put(f, m, xm, d, 4.0, -_sgn(xm), np.abs(d) * trunc * xm * xm + _ABS)


def _log1p(x: np.ndarray) -> Form:
    f = _form(x.size)
    tiny, m = _split(np.abs(x) < 2.0**-12)
    xt = x[tiny]
    d = xt * xt * (xt / 3.0 - 0.5)  # -x^2/2 + x^3/3 < 0; the next term x^4/4 is x^2/2 of it
    _put(f, tiny, xt, d, 4.0, -1, np.abs(d) * xt * xt + _ABS)
    _put(f, m, 0.0, np.log1p(x[m]), LIBM_ULPS, _sgn(x[m]))
    return f


def _rsqrt(x: np.ndarray) -> Form:
    f = _form(x.size)
    _put(f, slice(None), 0.0, 1.0 / np.sqrt(x), 2.0, 1)
    return f


def _tan(x: np.ndarray) -> Form:
    f = _form(x.size)
    ax = np.abs(x)
    tiny, m = _split(ax < 2.0**-12)
    xt = x[tiny]
    d = xt * xt * xt / 3.0  # tan x = x + x^3/3 + 2x^5/15 + ...: relative truncation < 2x^2/5
    _put(f, tiny, xt, d, 4.0, _sgn(xt), np.abs(d) * 0.4 * xt * xt + _ABS)
    _put(f, m, 0.0, np.tan(x[m]), LIBM_ULPS, np.where(ax[m] < 1, _sgn(x[m]), 0))
    return f


def _sin(x: np.ndarray) -> Form:
    f = _form(x.size)
    ax = np.abs(x)
    tiny, m = _split(ax < 2.0**-12)
    _odd_small(f, x, tiny, 1 / 6, 1 / 20)
    _put(f, m, 0.0, np.sin(x[m]), LIBM_ULPS, np.where(ax[m] < 1, _sgn(x[m]), 0))
    return f


def _cos(x: np.ndarray) -> Form:
    f = _form(x.size)
    m, other = _split(np.abs(x) < 0.5)
    h = np.sin(x[m] * 0.5)  # x/2 exact
    _put(f, m, 1.0, -2.0 * h * h, 2 * LIBM_ULPS + 4, -1)
    _put(f, other, 0.0, np.cos(x[other]), LIBM_ULPS, 0)
    return f


def _tanh(x: np.ndarray) -> Form:
    f = _form(x.size)
    ax = np.abs(x)
    _odd_small(f, x, _rows(ax < 2.0**-12), 1 / 3, 2 / 5)
    mid = _rows((ax >= 2.0**-12) & (ax <= 0.5))
    _put(f, mid, 0.0, np.tanh(x[mid]), LIBM_ULPS, _sgn(x[mid]))
    far = _rows(ax > 0.5)
    s = _sgn(x[far])
    _put(f, far, s.astype(np.float64), -s * 2.0 / (np.exp(2.0 * ax[far]) + 1.0),
         LIBM_ULPS + 4, -s)
    return f


def _logistic(x: np.ndarray, times_x: bool) -> Form:
    """sigmoid (times_x False) or silu = x sigmoid(x)."""
    f = _form(x.size)
    ax = np.abs(x)
    near_cond = ax <= (1.0 if times_x else 0.0625)
    near = _rows(near_cond)
    xn = x[near]
    th = np.tanh(xn * 0.5) * 0.5  # sigmoid(x) - 1/2
    if times_x:
        _put(f, near, xn * 0.5, xn * th, LIBM_ULPS + 5, 1, _ABS)
    else:
        _put(f, near, 0.5, th, LIBM_ULPS + 4, _sgn(xn), _ABS)
    for positive in (True, False):
        m = _rows(~near_cond & ((x > 0) if positive else (x < 0)))
        xm = x[m]
        scale = xm if times_x else 1.0
        if positive:  # 1 - 1/(1 + e^x), x - x/(1 + e^x)
            _put(f, m, scale, -scale / (1.0 + np.exp(xm)), LIBM_ULPS + 4, -1,
                 _ABS * np.maximum(ax[m], 1.0))
        else:  # 1/(1 + e^-x), x/(1 + e^-x)
            _put(f, m, 0.0, scale / (1.0 + np.exp(-xm)), LIBM_ULPS + 4, -1 if times_x else 1,
                 _ABS * np.maximum(ax[m], 1.0))
    return f


def _sigmoid(x: np.ndarray) -> Form:
    return _logistic(x, times_x=False)


def _silu(x: np.ndarray) -> Form:
    return _logistic(x, times_x=True)


def _softplus(x: np.ndarray) -> Form:
    f = _form(x.size)
    pos, neg = _split(x > 0)
    d = np.log1p(np.exp(-np.abs(x)))
    _put(f, pos, x[pos], d[pos], 2 * LIBM_ULPS + 4, 1, _ABS)
    _put(f, neg, 0.0, d[neg], 2 * LIBM_ULPS + 4, 1, _ABS)
    return f


def _tanh_grad(x: np.ndarray) -> Form:
    f = _form(x.size)
    ax = np.abs(x)
    m, other = _split(ax < 0.5)
    t = np.tanh(x[m])
    _put(f, m, 1.0, -t * t, 2 * LIBM_ULPS + 4, -1, _ABS)
    e = np.exp(-2.0 * ax[other])  # sech^2 = 4 e^-2|x| / (1 + e^-2|x|)^2
    _put(f, other, 0.0, 4.0 * e / ((1.0 + e) * (1.0 + e)), 2 * LIBM_ULPS + 8, 1, _ABS)
    return f


def _gelu_tanh(x: np.ndarray) -> Form:
    f = _form(x.size)
    ax = np.abs(x)
    u = _SQRT_2_OVER_PI * (x + _GELU_TANH_C * x * x * x)  # rel. error <= 6 u
    grow = 1.0 + 2.0 * np.abs(u)  # e^(2u) amplifies u's error by 2|u|
    near = _rows(ax <= 1.0)
    xn = x[near]
    _put(f, near, xn * 0.5, xn * np.tanh(u[near]) * 0.5, (LIBM_ULPS + 8) * grow[near], 1, _ABS)
    pos = _rows((ax > 1.0) & (x > 0))
    _put(f, pos, x[pos], -x[pos] / (1.0 + np.exp(2.0 * u[pos])), (LIBM_ULPS + 8) * grow[pos],
         -1, _ABS * ax[pos])
    neg = _rows((ax > 1.0) & (x < 0))
    _put(f, neg, 0.0, x[neg] / (1.0 + np.exp(-2.0 * u[neg])), (LIBM_ULPS + 8) * grow[neg],
         -1, _ABS * ax[neg])
    return f


FAST_FORMS: dict[str, Callable[[np.ndarray], Form]] = {
    "gelu": _gelu,
    "gelu_tanh": _gelu_tanh,
    "tanh": _tanh,
    "exp": _exp,
    "exp2": _exp2,
    "expm1": _expm1,
    "log": _log,
    "log2": _log2,
    "sin": _sin,
    "cos": _cos,
    "sigmoid": _sigmoid,
    "softplus": _softplus,
    "silu": _silu,
    "erf": _erf,
    "erfc": _erfc,
    "gelu_grad": _gelu_grad,
    "tanh_grad": _tanh_grad,
    "log1p": _log1p,
    "rsqrt": _rsqrt,
    "tan": _tan,
}
"""Each function's float64 form (the per-function table of this module)."""

def _tiny_rule(f: Form, err: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Tiny rule on ``rows``: where sign(delta) is certain and |delta| + err is below a quarter of
    the float32 spacing next to the anchor (at least |anchor| 2^-26, or 2^-151 at 0), f(x) rounds
    in every mode like z = anchor + sign * max(|anchor| 2^-27, 2^-152), exact in float64.
    Returns (the rows where the rule holds, z on those rows)."""

    def at(v: Value) -> np.ndarray:
        return np.broadcast_to(v, (f.n,))[rows]

    anchor, delta, e = at(f.anchor), at(f.delta), at(err)
    sign = at(f.sign)
    sign = np.where(sign != 0, sign, np.where(np.abs(delta) > e, np.sign(delta), 0))
    step = np.maximum(np.abs(anchor) * 2.0**-27, 2.0**-152)
    tiny = np.flatnonzero((np.abs(delta) + e < 2 * step) & (sign != 0))
    return rows[tiny], anchor[tiny] + sign[tiny] * step[tiny]


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
    with np.errstate(all="ignore"):  # e^x -> inf / 0 are bounded (see forms); NaN is undecided
        f = FAST_FORMS[func](x)
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
    """Inputs the forms do not take (NaN, ±inf, ±0, log of x < 0): one Arb call per class."""
    log_like = func in ("log", "log2")
    cls = np.full(x.shape, -1, np.int64)
    cls[np.isnan(x)] = 0
    cls[x == np.inf] = 1
    cls[x == -np.inf] = 2
    cls[(x == 0) & ~np.signbit(x)] = 3
    cls[(x == 0) & np.signbit(x)] = 4
    if log_like:
        cls[(x < 0) & np.isfinite(x)] = 5
    out = np.zeros(x.shape, np.uint32)
    for k in np.unique(cls[cls >= 0]).tolist():
        out[cls == k] = _special_value(func, k, mode)
    return out


_SPECIALS = (np.nan, np.inf, -np.inf, 0.0, -0.0, -1.0)  # one input of each class, in order


@functools.cache
def _special_value(func: str, k: int, mode: int) -> int:
    """f of class k's input (``_SPECIALS``: keyed by index, as 0.0 == -0.0), once per process."""
    return int(correctly_rounded_array(func, np.array([_SPECIALS[k]]), F32)[mode, 0])


_NAN_BELOW = {"log1p": -1.0, "rsqrt": 0.0}  # f(x) is NaN for x below this (-0.0 is not below)


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
    if func in _NAN_BELOW:  # outside the domain f(x) is the NaN that f(NaN) is
        x64 = np.where(x64 < _NAN_BELOW[func], np.nan, x64)
    regular = np.isfinite(x64) & ((x64 > 0) if func in ("log", "log2") else (x64 != 0))
    rows = _rows(regular)
    xs = x64[rows]
    d = decide64(func, xs, ROUNDING_MODES[mode])
    hard = np.flatnonzero(~d.ok)
    if hard.size:
        d.bits[hard] = correctly_rounded_array(func, xs[hard], F32)[mode]
    if isinstance(rows, slice) and rows == slice(None):
        out = d.bits
    else:
        out = _special_bits(func, x64, mode)
        out[rows] = d.bits
    if policy.ftz:
        out = flush_subnormals(out, F32)
    return out.astype(np.uint32), int(hard.size)


__all__ = ["FAST_FORMS", "LIBM_ULPS", "SAFETY", "Decided", "correctly_rounded32", "decide64"]
