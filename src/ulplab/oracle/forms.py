"""Each function, written for certified evaluation with Arb (python-flint).

A finite input ``x`` (exact: every input of every format is a float64) is evaluated as

    f(x) = anchor + d

where ``anchor`` is an exactly representable number (0, ±1, 2 or x itself) and ``d`` is an Arb
ball computed with *relative* accuracy. Saturating functions need this: tanh(1e30) = 1 - 2e^-2e30
is a ball around 1 at any feasible precision, but its distance below 1 is an ordinary Arb number.
``sign`` is the sign of ``d`` when mathematics tells it (so a ball that only bounds |d|, such as
erfc(1e38) = [0 +/- 1e-1e76], still decides the rounding), else 0.

Forms are chosen to avoid cancellation: erfc for the negative GELU tail, x/(1 + e^(-2u)) instead of
x/2 * (1 + tanh(u)), expm1 and -2 sin^2(x/2) near zero, log1p near one.

``special`` gives the results for NaN, infinities, domain errors and the exact cases (f(0), exp(0),
log(1), log2(2^k), exp2(k), rsqrt(4^k) ...) that no precision would decide from a ball.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction

from flint import arb, fmpq

Form = tuple[float, arb, int]

_GELU_TANH_C = fmpq(44715, 10**6)  # the exact decimal 0.044715 of the GELU tanh form


def _sgn(x: float) -> int:
    return (x > 0) - (x < 0)


def _phi(X: arb) -> arb:
    """Standard normal density."""
    return (-(X * X) / 2).exp() / (2 * arb.pi()).sqrt()


def _gelu(x: float, X: arb) -> Form:
    s = arb(2).sqrt()
    if x > 0:
        return x, -X * (X / s).erfc() / 2, -1
    return 0.0, X * (-X / s).erfc() / 2, -1


def _gelu_tanh(x: float, X: arb) -> Form:
    u = (2 / arb.pi()).sqrt() * (X + arb(_GELU_TANH_C) * X * X * X)
    if x > 0:
        return x, -X / (1 + (2 * u).exp()), -1
    return 0.0, X / (1 + (-2 * u).exp()), -1


def _tanh(x: float, X: arb) -> Form:
    if abs(x) <= 0.5:
        return 0.0, X.tanh(), _sgn(x)
    if x > 0:
        return 1.0, -2 / ((2 * X).exp() + 1), -1
    return -1.0, 2 / ((-2 * X).exp() + 1), 1


def _exp(x: float, X: arb) -> Form:
    if abs(x) < 0.5:
        return 1.0, X.expm1(), _sgn(x)
    return 0.0, X.exp(), 1


def _exp2(x: float, X: arb) -> Form:
    y = X * arb.const_log2()
    if abs(x) < 0.5:
        return 1.0, y.expm1(), _sgn(x)
    return 0.0, y.exp(), 1


def _log(x: float, X: arb) -> Form:
    if 0.5 < x < 1.5:
        return 0.0, (X - 1).log1p(), _sgn(x - 1)
    return 0.0, X.log(), _sgn(x - 1)


def _log2(x: float, X: arb) -> Form:
    anchor, d, sign = _log(x, X)
    return anchor, d / arb.const_log2(), sign


def _sin(x: float, X: arb) -> Form:
    return 0.0, X.sin(), _sgn(x) if abs(x) < 1 else 0


def _cos(x: float, X: arb) -> Form:
    if abs(x) < 0.5:
        return 1.0, -2 * (X / 2).sin() ** 2, -1
    return 0.0, X.cos(), 0


def _sigmoid(x: float, X: arb) -> Form:
    if x > 0:
        return 1.0, -1 / (1 + X.exp()), -1
    return 0.0, 1 / (1 + (-X).exp()), 1


def _softplus(x: float, X: arb) -> Form:
    if x > 0:
        return x, (-X).exp().log1p(), 1
    return 0.0, X.exp().log1p(), 1


def _silu(x: float, X: arb) -> Form:
    if x > 0:
        return x, -X / (1 + X.exp()), -1
    return 0.0, X / (1 + (-X).exp()), -1


def _erf(x: float, X: arb) -> Form:
    if abs(x) <= 0.5:
        return 0.0, X.erf(), _sgn(x)
    if x > 0:
        return 1.0, -X.erfc(), -1
    return -1.0, (-X).erfc(), 1


def _erfc(x: float, X: arb) -> Form:
    if x >= -0.5:
        return 0.0, X.erfc(), 1
    return 2.0, -(-X).erfc(), -1


def _gelu_grad(x: float, X: arb) -> Form:
    s = arb(2).sqrt()
    if x > 0:  # Phi(x) + x phi(x) = 1 + (x phi(x) - erfc(x/sqrt2)/2), above 1 for x > 1
        return 1.0, X * _phi(X) - (X / s).erfc() / 2, 1 if x >= 1 else 0
    return 0.0, (-X / s).erfc() / 2 + X * _phi(X), -1 if x <= -1 else 0


def _tanh_grad(x: float, X: arb) -> Form:
    if abs(x) < 0.5:
        return 1.0, -(X.tanh() ** 2), -1
    return 0.0, X.sech() ** 2, 1


def _rsqrt(x: float, X: arb) -> Form:
    return 0.0, X.rsqrt(), 1


def _log1p(x: float, X: arb) -> Form:
    return 0.0, X.log1p(), _sgn(x)


def _expm1(x: float, X: arb) -> Form:
    if x < -0.5:  # -1 + e^x: e^-100 is a ball far below any precision's radius around -1
        return -1.0, X.exp(), 1
    return 0.0, X.expm1(), _sgn(x)


def _tan(x: float, X: arb) -> Form:
    return 0.0, X.tan(), _sgn(x) if abs(x) < 1 else 0  # tan has the sign of x on (-pi/2, pi/2)


FORMS: dict[str, Callable[[float, arb], Form]] = {
    "gelu": _gelu,
    "gelu_tanh": _gelu_tanh,
    "tanh": _tanh,
    "exp": _exp,
    "exp2": _exp2,
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
    "rsqrt": _rsqrt,
    "log1p": _log1p,
    "expm1": _expm1,
    "tan": _tan,
}

_NAN = math.nan
_INF = math.inf

# f(+inf), f(-inf): limits, the zero's sign from the side it is approached
_AT_INF: dict[str, tuple[float, float]] = {
    "gelu": (_INF, -0.0),
    "gelu_tanh": (_INF, -0.0),
    "silu": (_INF, -0.0),
    "tanh": (1.0, -1.0),
    "erf": (1.0, -1.0),
    "erfc": (0.0, 2.0),
    "exp": (_INF, 0.0),
    "exp2": (_INF, 0.0),
    "log": (_INF, _NAN),
    "log2": (_INF, _NAN),
    "sin": (_NAN, _NAN),
    "cos": (_NAN, _NAN),
    "sigmoid": (1.0, 0.0),
    "softplus": (_INF, 0.0),
    "gelu_grad": (1.0, -0.0),
    "tanh_grad": (0.0, 0.0),
    "rsqrt": (0.0, _NAN),
    "log1p": (_INF, _NAN),
    "expm1": (_INF, -1.0),
    "tan": (_NAN, _NAN),
}

# f(±0) = ±0
_ODD_AT_ZERO = {"gelu", "gelu_tanh", "silu", "tanh", "erf", "sin", "log1p", "expm1", "tan"}
_AT_ZERO = {"exp": 1.0, "exp2": 1.0, "cos": 1.0, "erfc": 1.0, "sigmoid": 0.5,
            "gelu_grad": 0.5, "tanh_grad": 1.0}


def special(name: str, x: float) -> float | Fraction | None:
    """The exact result where no ball can decide it, or None for the general case.

    A float result may be NaN, ±inf or a signed zero; a Fraction is an exact finite value.
    """
    if math.isnan(x):
        return _NAN
    if math.isinf(x):
        return _AT_INF[name][0 if x > 0 else 1]
    if x == 0:
        if name in _ODD_AT_ZERO:
            return x
        if name in _AT_ZERO:
            return _AT_ZERO[name]
    if name in ("log", "log2"):
        if x == 0:
            return -_INF
        if x < 0:
            return _NAN
        if x == 1:
            return 0.0
        mant, e = math.frexp(x)
        if name == "log2" and mant == 0.5:
            return Fraction(e - 1)
    if name == "rsqrt":
        if x == 0:
            return math.copysign(_INF, x)
        if x < 0:
            return _NAN
        mant, e = math.frexp(x)  # x = 2^(e-1) exactly when mant == 0.5
        if mant == 0.5 and (e - 1) % 2 == 0:  # x = 4^k: 1/sqrt(x) = 2^-k, the only dyadic case
            return Fraction(2) ** (-(e - 1) // 2)
    if name == "log1p":
        if x == -1:
            return -_INF
        if x < -1:
            return _NAN
    if name == "exp2" and x == int(x) and abs(x) < 4096:  # beyond, 2^x is out of every range
        return Fraction(2) ** int(x)
    return None


def evaluate(name: str, x: float) -> Form:
    """Anchor, ball and known sign of f(x) at the current Arb precision (flint.ctx.prec)."""
    return FORMS[name](x, arb(x))
