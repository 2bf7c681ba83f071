"""Declared parameters of a method, and the polynomial evaluation schemes a parameter selects.

A method built from parameters (every GELU research method) declares them once: coefficient
tuples, thresholds, tables of knots or values, integers (depths, counts) and the evaluation
scheme of its polynomials. ``Method.build(params)`` makes the kernel from them, so a study that
wants other coefficients, another threshold or Horner without FMA asks for
``method.rebuild(NAME=value)``: a new kernel, the registered one untouched (no module globals
replaced, no source text searched).

Kinds and what a value is normalised to:
    coeffs     a tuple of float32 (polynomial or rational coefficients, low to high)
    constant   a float32 scalar in a formula (1.702 of x sigma(1.702 x), a scale)
    threshold  a float32 scalar: a region edge in x, a clamp
    table      a read-only float32 array (table entries); a table of values of a function at
               known x says so (``table(values, of="Phi", at=xs)``), and verify-knots checks it
    knots      a read-only float32 array of x positions the kernel reads (knots, breakpoints,
               segment edges): with the thresholds, the inputs the regression study probes
    integer    a Python int (depth of a continued fraction, number of nodes)
    scheme     one of SCHEMES: how every polynomial of the method is evaluated
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ulplab.kit import estrin, horner

f32 = np.float32

KINDS = ("coeffs", "constant", "threshold", "table", "knots", "integer", "scheme")
SCHEMES = ("horner-fma", "horner", "estrin-fma", "estrin")
"""Horner c0 + x(c1 + ...) or Estrin (pairs, then x^2, x^4 ...), each step one correctly
rounded fma (``-fma``) or a float32 multiply then a float32 add."""


def evaluate_poly(scheme: str, x: np.ndarray, coeffs: Sequence[float]) -> np.ndarray:
    """The polynomial with ``coeffs`` (low to high) at x by ``scheme`` (one of SCHEMES)."""
    if scheme == "horner-fma":
        return horner(x, coeffs, use_fma=True)
    if scheme == "horner":
        return horner(x, coeffs, use_fma=False)
    if scheme == "estrin-fma":
        return estrin(x, coeffs, use_fma=True)
    if scheme == "estrin":
        return estrin(x, coeffs, use_fma=False)
    raise ValueError(f"unknown evaluation scheme {scheme!r}; valid: {', '.join(SCHEMES)}")


@dataclass(frozen=True)
class Param:
    """One declared parameter: its kind (one of KINDS) and its value; a table of values of a
    function also says of what (``of``: "GELU", "Phi", "2^x", ...) and at which x (``at``)."""

    kind: str
    value: Any
    of: str = ""
    at: tuple[float, ...] | None = None


def _normalise(name: str, kind: str, value: Any) -> Any:
    if kind == "coeffs":
        vals = tuple(f32(v) for v in value)
        if len(vals) < 1:
            raise ValueError(f"{name}: a coefficient tuple needs at least one value")
        return vals
    if kind in ("constant", "threshold"):
        return f32(value)
    if kind in ("table", "knots"):
        arr = np.array(value, dtype=np.float32)
        arr.setflags(write=False)
        return arr
    if kind == "integer":
        if int(value) != value:
            raise ValueError(f"{name}: {value!r} is not an integer")
        return int(value)
    if kind == "scheme":
        if value not in SCHEMES:
            raise ValueError(f"{name}: unknown evaluation scheme {value!r}; valid: "
                             + ", ".join(SCHEMES))
        return value
    raise ValueError(f"{name}: unknown parameter kind {kind!r}; valid: {', '.join(KINDS)}")


class Params(Mapping[str, Any]):
    """An immutable mapping name -> value, each name with its kind; ``p.NAME`` reads a value."""

    __slots__ = ("_kinds", "_tables", "_values")

    def __init__(self, decl: Mapping[str, Param]) -> None:
        kinds = {n: d.kind for n, d in decl.items()}
        values = {n: _normalise(n, d.kind, d.value) for n, d in decl.items()}
        tables = {n: (d.of, d.at) for n, d in decl.items() if d.of or d.at is not None}
        object.__setattr__(self, "_kinds", kinds)
        object.__setattr__(self, "_values", values)
        object.__setattr__(self, "_tables", tables)

    def __getitem__(self, name: str) -> Any:
        return self._values[name]

    def __getattr__(self, name: str) -> Any:
        try:
            return self._values[name]
        except KeyError:
            raise AttributeError(f"no parameter {name!r}; declared: "
                                 + ", ".join(self._values)) from None

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("Params are immutable: use replace()")

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def __repr__(self) -> str:
        return f"Params({', '.join(f'{n}:{k}' for n, k in self._kinds.items())})"

    def kind(self, name: str) -> str:
        return self._kinds[name]

    def names(self, kind: str) -> list[str]:
        """The parameter names of one kind, in declaration order."""
        return [n for n, k in self._kinds.items() if k == kind]

    def table_of(self, name: str) -> tuple[str, tuple[float, ...] | None]:
        """(of, at) of a table parameter: the function its values are of and the x of each
        entry (("", None) where the declaration does not say)."""
        return self._tables.get(name, ("", None))

    def declarations(self) -> dict[str, Param]:
        return {n: Param(self._kinds[n], v, *self.table_of(n)) for n, v in self._values.items()}

    def replace(self, **changes: Any) -> Params:
        """The same parameters with some values changed (each normalised to its kind)."""
        unknown = sorted(set(changes) - set(self._values))
        if unknown:
            raise KeyError(f"no parameter {', '.join(unknown)}; declared: "
                           + ", ".join(self._values))
        decl = self.declarations()
        for n, v in changes.items():
            decl[n] = Param(self._kinds[n], v, *self.table_of(n))
        return Params(decl)


def coeffs(values: Sequence[float]) -> Param:
    return Param("coeffs", values)


def constant(value: float) -> Param:
    return Param("constant", value)


def threshold(value: float) -> Param:
    return Param("threshold", value)


def table(values: np.ndarray | Sequence[float], of: str = "",
          at: Sequence[float] | None = None) -> Param:
    """A table; ``of``/``at``: the function its entries are values of, and the x of each."""
    if at is not None and len(at) != len(values):
        raise ValueError(f"a table of {len(values)} entries at {len(at)} points")
    return Param("table", values, of, None if at is None else tuple(float(a) for a in at))


def knots(values: np.ndarray | Sequence[float]) -> Param:
    return Param("knots", values)


def integer(value: int) -> Param:
    return Param("integer", value)


def scheme(value: str = "horner-fma") -> Param:
    return Param("scheme", value)
