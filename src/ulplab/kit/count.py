"""Operation counts by tracing: run a kernel once on a counting array and tally what it does.

``count_ops(fn)`` calls ``fn`` on a one-element float32 ``OpCounter`` array. Every NumPy ufunc
applied to it, every ``kit.fma`` and ``kit.lookup`` (through the same hooks the float32 guard
uses) and every ``np.where`` is counted by kind. The kernels are branch-free array code (every
element takes every path; selects choose), so the counts of one element are the operations per
element. Kinds:

    add (add, subtract)   mul (multiply, square)   div (divide, reciprocal)   sqrt   fma
    cmp (comparisons, isnan/isinf/isfinite, signbit)   minmax (minimum, maximum, fmin, fmax)
    select (np.where)   sign (abs, negative, copysign, sign)   round (rint, floor, ceil, trunc)
    scale (ldexp, frexp)   bit (and, or, xor, shifts, invert, logical ops)   lookup
    convert (``astype`` between a float and an integer type: one instruction)
    lib:NAME (any other ufunc: exp, log, tanh, erf ... a library call, not arithmetic)

Constant arrays (np.full_like, zeros_like), bit reinterpretations (``view``) and conversions
that keep the kind (float32 -> float64, bool -> int) are not counted.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any, ClassVar

import numpy as np

_KIND = {
    np.add: "add", np.subtract: "add",
    np.multiply: "mul", np.square: "mul",
    np.divide: "div", np.true_divide: "div", np.reciprocal: "div", np.floor_divide: "div",
    np.remainder: "div", np.fmod: "div",
    np.sqrt: "sqrt",
    np.greater: "cmp", np.greater_equal: "cmp", np.less: "cmp", np.less_equal: "cmp",
    np.equal: "cmp", np.not_equal: "cmp", np.isnan: "cmp", np.isinf: "cmp",
    np.isfinite: "cmp", np.signbit: "cmp",
    np.minimum: "minmax", np.maximum: "minmax", np.fmin: "minmax", np.fmax: "minmax",
    np.absolute: "sign", np.fabs: "sign", np.negative: "sign", np.positive: "sign",
    np.copysign: "sign", np.sign: "sign",
    np.rint: "round", np.floor: "round", np.ceil: "round", np.trunc: "round",
    np.ldexp: "scale", np.frexp: "scale",
    np.bitwise_and: "bit", np.bitwise_or: "bit", np.bitwise_xor: "bit", np.invert: "bit",
    np.left_shift: "bit", np.right_shift: "bit", np.logical_and: "bit", np.logical_or: "bit",
    np.logical_not: "bit", np.logical_xor: "bit",
}
_COUNTED_FUNCTIONS = {"where": "select"}

ORDER = ("mul", "add", "fma", "div", "sqrt", "cmp", "minmax", "select", "sign", "round",
         "scale", "convert", "bit", "lookup")
"""The arithmetic kinds in display order (library calls follow as lib:NAME)."""


class OpCounter(np.ndarray):
    """ndarray that tallies the operations applied to it in ``OpCounter.tally``."""

    tally: ClassVar[Counter[str]] = Counter()

    @classmethod
    def __ulplab_fma__(cls, a: Any, b: Any, c: Any) -> Any:
        from ulplab.kit.fma import fma_values

        cls.tally["fma"] += 1
        return fma_values(*(np.asarray(v) for v in (a, b, c))).view(cls)

    @classmethod
    def __ulplab_take__(cls, table: Any, index: Any) -> Any:
        cls.tally["lookup"] += 1
        return np.asarray(table)[np.asarray(index)].view(cls)

    def astype(self, dtype: Any, *args: Any, **kwargs: Any) -> Any:
        kinds = {self.dtype.kind, np.dtype(dtype).kind}
        if "f" in kinds and kinds & {"i", "u"}:
            OpCounter.tally["convert"] += 1
        return _wrap(self.view(np.ndarray).astype(dtype, *args, **kwargs))

    def __array_ufunc__(self, ufunc: np.ufunc, method: str, *inputs: Any, **kwargs: Any) -> Any:
        OpCounter.tally[_KIND.get(ufunc, f"lib:{ufunc.__name__}")] += 1
        plain = [x.view(np.ndarray) if isinstance(x, OpCounter) else x for x in inputs]
        if "out" in kwargs:
            kwargs["out"] = tuple(o.view(np.ndarray) if isinstance(o, OpCounter) else o
                                  for o in kwargs["out"])
        result = getattr(ufunc, method)(*plain, **kwargs)
        return _wrap(result)

    def __array_function__(self, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
        kind = _COUNTED_FUNCTIONS.get(func.__name__)
        if kind is not None:
            OpCounter.tally[kind] += 1
        return _wrap(func(*_unwrap(args), **_unwrap(kwargs)))


def _unwrap(v: Any) -> Any:
    if isinstance(v, OpCounter):
        return v.view(np.ndarray)
    if isinstance(v, list | tuple):
        return type(v)(_unwrap(x) for x in v)
    if isinstance(v, dict):
        return {k: _unwrap(x) for k, x in v.items()}
    return v


def _wrap(result: Any) -> Any:
    if isinstance(result, tuple):
        return tuple(_wrap(r) for r in result)
    return result.view(OpCounter) if isinstance(result, np.ndarray) else result


def count_ops(fn: Callable[[np.ndarray], np.ndarray], value: float = 0.75) -> dict[str, int]:
    """Operations per element of ``fn`` (a float32 array kernel), by kind, traced at ``value``.

    A kernel that leaves the counting array (plain NumPy indexing, Python floats) is only
    counted up to there; kernels index tables through ``kit.lookup``.
    """
    OpCounter.tally = Counter()
    x = np.array([value], dtype=np.float32).view(OpCounter)
    with np.errstate(all="ignore"):
        fn(x)
    tally = OpCounter.tally
    OpCounter.tally = Counter()
    known = [k for k in ORDER if tally.get(k)]
    return {k: tally[k] for k in [*known, *sorted(set(tally) - set(ORDER))] if tally[k]}
