"""A float32 guard: run a kernel on an array that refuses float64 and library transcendentals.

``Float32Guard`` is an ndarray subclass. Every NumPy ufunc applied to it is checked: the ufunc
must be arithmetic (+ - * / sqrt, abs, min/max, compare, select helpers, rounding to integer,
ldexp/frexp, bit operations); no floating input or output may be anything but float32. Array
functions that are not ufuncs (np.where, np.concatenate, np.full_like ...) must give float32 (or
integer/boolean) results. Anything else raises ``GuardViolation`` naming the operation. A result
that is not a guard array at the end means the kernel left the guarded path (``np.asarray``,
``.tolist()``, Python floats), which ``run_guarded`` reports too.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

ARITHMETIC_UFUNCS = frozenset({
    np.add, np.subtract, np.multiply, np.divide, np.true_divide, np.sqrt, np.negative,
    np.positive, np.absolute, np.fabs, np.minimum, np.maximum, np.fmin, np.fmax, np.square,
    np.reciprocal, np.greater, np.greater_equal, np.less, np.less_equal, np.equal, np.not_equal,
    np.logical_and, np.logical_or, np.logical_not, np.logical_xor, np.bitwise_and,
    np.bitwise_or, np.bitwise_xor, np.invert, np.left_shift, np.right_shift, np.isnan,
    np.isinf, np.isfinite, np.signbit, np.copysign, np.rint, np.floor, np.ceil, np.trunc,
    np.ldexp, np.frexp, np.sign, np.floor_divide, np.remainder, np.fmod,
})
"""What an arithmetic-only method may apply. exp, log, sin, tanh, power ... are not here."""

_FLOAT_KINDS = "fc"


class GuardViolation(AssertionError):
    """A kernel used a forbidden operation or a non-float32 floating type."""


def _check_dtype(arr: Any, where: str) -> None:
    dt = getattr(arr, "dtype", None)
    if dt is not None and dt.kind in _FLOAT_KINDS and dt != np.float32:
        raise GuardViolation(f"{where} is {dt}, not float32")
    if dt is not None and dt.kind == "O":
        raise GuardViolation(f"{where} is an object array (a Python-level loop)")


class Float32Guard(np.ndarray):
    """ndarray whose ufuncs must be float32 arithmetic."""

    calls: int = 0

    @classmethod
    def __ulplab_fma__(cls, a: Any, b: Any, c: Any) -> Any:
        """The kit's fma is a float32 operation: checked, counted, and the guard kept."""
        from ulplab.kit.fma import fma_values

        for i, v in enumerate((a, b, c)):
            _check_dtype(v, f"operand {i} of fma")
        cls.calls += 1
        return fma_values(*(np.asarray(v) for v in (a, b, c))).view(cls)

    @classmethod
    def __ulplab_take__(cls, table: Any, index: Any) -> Any:
        """A constant-table lookup: the table must be float32 or integer."""
        _check_dtype(np.asarray(table), "a lookup table")
        cls.calls += 1
        return np.asarray(table)[index.view(np.ndarray)].view(cls)

    def __array_ufunc__(self, ufunc: np.ufunc, method: str, *inputs: Any, **kwargs: Any) -> Any:
        if ufunc not in ARITHMETIC_UFUNCS:
            raise GuardViolation(f"np.{ufunc.__name__} is not an arithmetic operation")
        plain = []
        for i, x in enumerate(inputs):
            if isinstance(x, float) and not isinstance(x, np.floating):
                plain.append(x)  # a Python float is a weak scalar: it takes the array's float32
                continue
            _check_dtype(x, f"input {i} of np.{ufunc.__name__}")
            plain.append(x.view(np.ndarray) if isinstance(x, Float32Guard) else x)
        if "out" in kwargs:
            kwargs["out"] = tuple(o.view(np.ndarray) if isinstance(o, Float32Guard) else o
                                  for o in kwargs["out"])
        result = getattr(ufunc, method)(*plain, **kwargs)
        Float32Guard.calls += 1
        results = result if isinstance(result, tuple) else (result,)
        wrapped = []
        for r in results:
            _check_dtype(r, f"result of np.{ufunc.__name__}")
            wrapped.append(r.view(Float32Guard) if isinstance(r, np.ndarray) else r)
        return tuple(wrapped) if isinstance(result, tuple) else wrapped[0]


def _unwrap(v: Any) -> Any:
    if isinstance(v, Float32Guard):
        return v.view(np.ndarray)
    if isinstance(v, list | tuple):
        return type(v)(_unwrap(x) for x in v)
    return v


def _float32_array_function(self: Float32Guard, func: Any, types: Any, args: Any,
                            kwargs: Any) -> Any:
    """np.where, np.concatenate, np.full_like ... are not ufuncs: check their results too."""
    result = func(*_unwrap(args), **_unwrap(kwargs))
    Float32Guard.calls += 1
    results = result if isinstance(result, tuple) else (result,)
    wrapped = []
    for r in results:
        _check_dtype(r, f"result of np.{func.__name__}")
        wrapped.append(r.view(Float32Guard) if isinstance(r, np.ndarray) else r)
    return tuple(wrapped) if isinstance(result, tuple) else wrapped[0]


Float32Guard.__array_function__ = _float32_array_function  # type: ignore[method-assign]


def run_guarded(fn: Callable[[np.ndarray], np.ndarray], x: np.ndarray) -> np.ndarray:
    """Run ``fn`` on a guarded float32 copy of ``x``; returns a plain float32 array."""
    g = np.array(x, dtype=np.float32).view(Float32Guard)
    before = Float32Guard.calls
    y = fn(g)
    if not isinstance(y, Float32Guard):
        raise GuardViolation(f"result is {type(y).__name__}: the kernel left the guarded path")
    if Float32Guard.calls == before:
        raise GuardViolation("no operation went through the guard")
    _check_dtype(y, "the result")
    if y.dtype != np.float32:
        raise GuardViolation(f"the result is {y.dtype}, not float32")
    return y.view(np.ndarray)
