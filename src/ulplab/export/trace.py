"""Tracing a deterministic kernel into a graph of float32/integer operations.

A kernel is straight-line array code: ufuncs, np.where/np.full_like, bit casts (``.view``),
conversions (``.astype``), the kit's fma and constant-table ``lookup``. Running it once on a
``Traced`` array records every operation with its operands (earlier results, scalar constants,
constant tables); ``ulplab.export`` turns the graph into C, NumPy, PyTorch or JAX source that
performs the same operations in the same order — the exported code is the kernel, not a
re-implementation.

An operation outside that set (a library transcendental, a Python-level branch on data, indexing
a table with ``T[j]`` instead of ``ulplab.kit.lookup``) makes tracing fail with ``NotTraceable``.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ulplab.kit.guard import ARITHMETIC_UFUNCS


class NotTraceable(TypeError):
    """The kernel did something the exporters cannot reproduce."""


Arg = tuple  # ("node", id) | ("const", value, dtype-str) | ("table", name)


@dataclass
class Node:
    id: int
    op: str
    args: list[Arg]
    dtype: str
    index: int = 0  # which output of a multi-output op (frexp)


@dataclass
class Graph:
    nodes: list[Node] = field(default_factory=list)
    tables: dict[str, np.ndarray] = field(default_factory=dict)
    output: int = -1

    def add(self, op: str, args: list[Arg], dtype: np.dtype, index: int = 0) -> int:
        node = Node(len(self.nodes), op, args, np.dtype(dtype).str, index)
        self.nodes.append(node)
        return node.id

    def table(self, arr: np.ndarray) -> str:
        for name, t in self.tables.items():
            if t is arr or (t.dtype == arr.dtype and t.shape == arr.shape and
                            np.array_equal(t.view(np.uint8), arr.view(np.uint8))):
                return name
        name = f"T{len(self.tables)}"
        self.tables[name] = np.ascontiguousarray(arr).copy()
        return name


_ACTIVE: list[Graph] = []


def _graph() -> Graph:
    if not _ACTIVE:
        raise NotTraceable("no trace is active")
    return _ACTIVE[-1]


class Traced(np.ndarray):
    """An array that records what is computed from it."""

    _node: int | None = None

    def __array_finalize__(self, obj: Any) -> None:
        self._node = None

    def view(self, dtype: Any = None, *args: Any) -> Any:
        if isinstance(dtype, builtins.type) and issubclass(dtype, np.ndarray):
            return super().view(dtype)
        if dtype is None:
            return super().view()
        plain = np.ndarray.view(self.view(np.ndarray), dtype)
        return _wrap(plain, _graph().add("bitcast", [_ref(self)], plain.dtype))

    def astype(self, dtype: Any, *args: Any, **kwargs: Any) -> Any:
        plain = np.ndarray.astype(self.view(np.ndarray), dtype, *args, **kwargs)
        return _wrap(plain, _graph().add("convert", [_ref(self)], plain.dtype))

    def __getitem__(self, key: Any) -> Any:
        raise NotTraceable("indexing a traced array (use ulplab.kit.lookup / np.where)")

    def __array_ufunc__(self, ufunc: np.ufunc, method: str, *inputs: Any, **kwargs: Any) -> Any:
        if method != "__call__" or ufunc not in ARITHMETIC_UFUNCS or "out" in kwargs:
            raise NotTraceable(f"np.{ufunc.__name__}.{method} cannot be exported")
        args = [_ref(v) for v in inputs]
        result = ufunc(*(_plain(v) for v in inputs), **kwargs)
        g = _graph()
        if isinstance(result, tuple):
            return tuple(_wrap(r, g.add(ufunc.__name__, args, r.dtype, i))
                         for i, r in enumerate(result))
        return _wrap(result, g.add(ufunc.__name__, args, result.dtype))

    def __array_function__(self, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
        g = _graph()
        if func is np.where and len(args) == 3 and not kwargs:
            r = np.where(*(_plain(v) for v in args))
            return _wrap(r, g.add("where", [_ref(v) for v in args], r.dtype))
        if func in (np.full_like, np.zeros_like, np.ones_like):
            proto = args[0]
            value = {np.zeros_like: 0, np.ones_like: 1}.get(func)
            value = args[1] if value is None else value
            dtype = kwargs.get("dtype") or (args[2] if len(args) > 2 else None)
            r = func(_plain(proto), *(args[1:2] if func is np.full_like else ()),
                     **({"dtype": dtype} if dtype is not None else {}))
            return _wrap(r, g.add("full", [_ref(proto), _const(value, r.dtype)], r.dtype))
        raise NotTraceable(f"np.{getattr(func, '__name__', func)} cannot be exported")

    @classmethod
    def __ulplab_take__(cls, table: Any, index: Any) -> Any:
        if isinstance(table, Traced):
            raise NotTraceable("a lookup in a traced array")
        g = _graph()
        tab = np.asarray(table)
        r = tab[_plain(index)]
        return _wrap(r, g.add("take", [("table", g.table(tab)), _ref(index)], r.dtype))

    @classmethod
    def __ulplab_fma__(cls, a: Any, b: Any, c: Any) -> Any:
        from ulplab.kit.fma import fma_values

        r = fma_values(*(np.asarray(_plain(v), dtype=np.float32) for v in (a, b, c)))
        return _wrap(r, _graph().add("fma", [_ref(v) for v in (a, b, c)], r.dtype))


def _plain(v: Any) -> Any:
    return v.view(np.ndarray) if isinstance(v, Traced) else v


def _wrap(arr: np.ndarray, node: int) -> Traced:
    t = np.asarray(arr).view(Traced)
    t._node = node
    return t


def _const(value: Any, dtype: Any) -> Arg:
    arr = np.asarray(value)
    if arr.ndim:
        raise NotTraceable("an untraced array operand (only scalars and np.take tables)")
    dt = arr.dtype if isinstance(value, np.generic | np.ndarray) else np.dtype(dtype)
    return ("const", arr.astype(dt).item(), np.dtype(dt).str)


def _ref(v: Any) -> Arg:
    if isinstance(v, Traced):
        if v._node is None:
            raise NotTraceable("an array derived outside the trace (a view or slice)")
        return ("node", v._node)
    if isinstance(v, np.generic):
        return ("const", v.item(), v.dtype.str)
    if isinstance(v, bool | int | float):
        return ("const", v, "weak")
    if isinstance(v, np.ndarray) and v.ndim == 0:
        return ("const", v.item(), v.dtype.str)
    raise NotTraceable(f"an untraced operand of type {type(v).__name__}")


def trace(kernel: Callable[[np.ndarray], np.ndarray], sample: np.ndarray | None = None) -> Graph:
    """The graph of ``kernel`` (float32 -> float32), traced on ``sample`` (a few values)."""
    g = Graph()
    x = np.asarray(sample if sample is not None else np.array([0.5, -2.0, 1e-40, np.nan],
                                                              np.float32), np.float32)
    _ACTIVE.append(g)
    try:
        inp = _wrap(x.copy(), g.add("input", [], np.float32))
        with np.errstate(all="ignore"):
            out = kernel(inp)
        if not isinstance(out, Traced) or out._node is None:
            raise NotTraceable("the result did not come from traced operations")
        if out.dtype != np.float32:
            raise NotTraceable(f"the result is {out.dtype}, not float32")
        g.output = out._node
    finally:
        _ACTIVE.pop()
    return g
