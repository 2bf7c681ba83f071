"""Pieces several function modules share: signs, the normal density, erf without SciPy."""

from __future__ import annotations

import math

import numpy as np
from flint import arb, fmpq

f32 = np.float32
ONE = f32(1.0)
HALF = f32(0.5)

GELU_TANH_C = fmpq(44715, 10**6)
"""The exact decimal 0.044715 of the GELU tanh form."""


def sgn(x: float) -> int:
    return (x > 0) - (x < 0)


def normal_density(X: arb) -> arb:
    """phi(x) = e^(-x^2/2) / sqrt(2 pi) as an Arb ball."""
    return (-(X * X) / 2).exp() / (2 * arb.pi()).sqrt()


_erf = np.frompyfunc(math.erf, 1, 1)
_erfc = np.frompyfunc(math.erfc, 1, 1)


def erf64(x: np.ndarray) -> np.ndarray:
    """The C library's double erf, elementwise (NumPy has none)."""
    return _erf(np.asarray(x, dtype=np.float64)).astype(np.float64)


def erfc64(x: np.ndarray) -> np.ndarray:
    return _erfc(np.asarray(x, dtype=np.float64)).astype(np.float64)


def erf_f32(x: np.ndarray) -> np.ndarray:
    """libm erf (double) rounded to float32, elementwise: a float32 erff to within an ulp."""
    return erf64(x).astype(f32)


def erfc_f32(x: np.ndarray) -> np.ndarray:
    return erfc64(x).astype(f32)


def sigmoid_f32(x: np.ndarray) -> np.ndarray:
    """1 / (1 + e^-x) in float32 NumPy."""
    return ONE / (ONE + np.exp(-x))


def sigmoid64(x: np.ndarray) -> np.ndarray:
    """1 / (1 + e^-x) in float64: no cancellation (e^-x overflowing gives 0, an underflow)."""
    return 1 / (1 + np.exp(-x))
