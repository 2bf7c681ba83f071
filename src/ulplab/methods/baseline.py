"""``f32-naive``: the textbook formula of each function in float32 NumPy.

These are the baselines a kernel author starts from: every operation is a float32 NumPy ufunc
(constants are float32 too, so nothing is promoted to float64). NumPy has no erf/erfc: for those
the C library's double-precision erf (``math.erf``) is called per element and its result rounded
to float32, which is what a float32 libm ``erff`` gives to within an ulp.
"""

from __future__ import annotations

import math

import numpy as np

from ulplab.methods.registry import Method, register

f32 = np.float32
_HALF = f32(0.5)
_ONE = f32(1.0)
_INV_SQRT2 = f32(float.fromhex("0x1.6a09e6p-1"))  # 1/sqrt(2) rounded to float32
_SQRT_2_OVER_PI = f32(float.fromhex("0x1.988454p-1"))  # sqrt(2/pi) rounded to float32
_INV_SQRT_2PI = f32(float.fromhex("0x1.988454p-2"))  # 1/sqrt(2 pi) rounded to float32
_GELU_TANH_C = f32(0.044715)  # the decimal constant of the tanh form, rounded to float32

_erf64 = np.frompyfunc(math.erf, 1, 1)
_erfc64 = np.frompyfunc(math.erfc, 1, 1)


def erf_f32(x: np.ndarray) -> np.ndarray:
    """libm erf (double) rounded to float32, elementwise."""
    return _erf64(x.astype(np.float64)).astype(np.float64).astype(f32)


def erfc_f32(x: np.ndarray) -> np.ndarray:
    return _erfc64(x.astype(np.float64)).astype(np.float64).astype(f32)


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return _ONE / (_ONE + np.exp(-x))


def _gelu(x: np.ndarray) -> np.ndarray:
    return _HALF * x * (_ONE + erf_f32(x * _INV_SQRT2))


def _gelu_tanh(x: np.ndarray) -> np.ndarray:
    return _HALF * x * (_ONE + np.tanh(_SQRT_2_OVER_PI * (x + _GELU_TANH_C * x * x * x)))


def _gelu_grad(x: np.ndarray) -> np.ndarray:
    cdf = _HALF * (_ONE + erf_f32(x * _INV_SQRT2))
    pdf = np.exp(-_HALF * x * x) * _INV_SQRT_2PI
    return cdf + x * pdf


_NAIVE = {
    "gelu": (_gelu, "x/2 (1 + erf(x/sqrt2))", ("erf",)),
    "gelu_tanh": (_gelu_tanh, "x/2 (1 + tanh(sqrt(2/pi)(x + 0.044715 x^3)))", ("tanh",)),
    "tanh": (np.tanh, "np.tanh", ("tanh",)),
    "exp": (np.exp, "np.exp", ("exp",)),
    "exp2": (np.exp2, "np.exp2", ("exp2",)),
    "log": (np.log, "np.log", ("log",)),
    "log2": (np.log2, "np.log2", ("log2",)),
    "sin": (np.sin, "np.sin", ("sin",)),
    "cos": (np.cos, "np.cos", ("cos",)),
    "sigmoid": (_sigmoid, "1 / (1 + exp(-x))", ("exp",)),
    "softplus": (lambda x: np.log(_ONE + np.exp(x)), "log(1 + exp(x))", ("exp", "log")),
    "silu": (lambda x: x * _sigmoid(x), "x / (1 + exp(-x))", ("exp",)),
    "erf": (erf_f32, "libm erf rounded to float32", ("erf",)),
    "erfc": (erfc_f32, "libm erfc rounded to float32", ("erfc",)),
    "gelu_grad": (_gelu_grad, "Phi(x) + x exp(-x^2/2)/sqrt(2 pi)", ("erf", "exp")),
    "tanh_grad": (lambda x: _ONE - np.tanh(x) ** 2, "1 - tanh(x)^2", ("tanh",)),
    "rsqrt": (lambda x: _ONE / np.sqrt(x), "1 / np.sqrt(x)", ()),
    "log1p": (np.log1p, "np.log1p", ("log1p",)),
    "expm1": (np.expm1, "np.expm1", ("expm1",)),
    "tan": (np.tan, "np.tan", ("tan",)),
}


def _float32_only(fn):  # noqa: ANN001
    def run(x: np.ndarray) -> np.ndarray:
        with np.errstate(all="ignore"):  # overflow to inf and NaN are results, not warnings
            return np.asarray(fn(np.asarray(x, dtype=f32)), dtype=f32)

    return run


for _function, (_fn, _idea, _calls) in _NAIVE.items():
    register(Method(_function, "f32-naive", "baseline", f"textbook formula in float32: {_idea}",
                    _float32_only(_fn), library_calls=_calls))
