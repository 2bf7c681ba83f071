"""The method registry: every implementation ulplab can measure, by function and name.

A method is a callable over whole arrays. ``takes="float32"``: it takes and returns float32
arrays, and its outputs are rounded to the format being measured. ``takes="format"``: it takes and
returns arrays of the format's own dtype (a native bfloat16 kernel, say).
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from ulplab.errors import unknown_choice
from ulplab.formats import get_format
from ulplab.functions import get_function
from ulplab.kit.count import count_ops
from ulplab.methods.params import Params

ArrayFn = Callable[[np.ndarray], np.ndarray]


@dataclass(frozen=True)
class Claim:
    """A method's measured accuracy on every input of one format: the test bound it must keep.

    ``max_ulp``/``mean_ulp`` are over the inputs where result and reference are both finite;
    ``nan_mismatches``/``inf_mismatches`` count the inputs where one side is NaN (or infinite)
    and the other is not the same NaN/infinity: measured figures, 0 for every method registered
    today (tests/test_methods.py measures them). ``inputs`` is how many inputs the figures are
    over: every bit pattern of the format, filled in by ``register`` when not given.
    """

    max_ulp: int
    mean_ulp: float
    nan_mismatches: int = 0
    inf_mismatches: int = 0
    inputs: int | None = None


@dataclass(frozen=True)
class Method:
    function: str
    name: str
    family: str
    idea: str
    impl: ArrayFn = field(repr=False)
    takes: str = "float32"
    library_calls: tuple[str, ...] = ()
    """Library functions the method calls (empty for arithmetic-only methods)."""
    table_bytes: int = 0
    claims: dict[str, Claim] = field(default_factory=dict)
    """Measured max/mean ULP per format name (nearest-even oracle, IEEE denormals)."""
    params: Params | None = field(default=None, repr=False, compare=False)
    """Declared parameters (coefficients, thresholds, tables, evaluation scheme), if built."""
    build: Callable[[Params], ArrayFn] | None = field(default=None, repr=False, compare=False)
    """build(params) -> impl; ``impl`` is ``build(params)`` for a built method."""
    seed: dict[str, int] = field(default_factory=dict, compare=False)
    """The seed research's published max ULP per format (its results table), where it has one."""
    note: str = ""
    """Why this method differs from the seed's figure, or what it changes from the seed's."""
    compiled: ArrayFn | None = field(default=None, repr=False, compare=False)
    """A faster build of ``impl`` giving the same bits (the det kernels' C export), run by
    ``__call__``; ``impl`` stays the NumPy definition that is traced, guarded and counted."""
    definition: ArrayFn | None = field(default=None, repr=False, compare=False)
    """For a method that takes the format's own dtype: the float32 NumPy kernel it is built on
    (``det``: the correctly rounded float32 entry point), which is counted and guarded."""

    def __call__(self, x: np.ndarray) -> np.ndarray:
        return (self.compiled or self.impl)(x)

    @property
    def float32_impl(self) -> ArrayFn | None:
        """The float32 -> float32 NumPy function that defines this method's arithmetic (what
        the float32 guard runs and ``ops`` counts), or None for a format-native method."""
        return self.impl if self.takes == "float32" else self.definition

    @functools.cached_property
    def ops(self) -> dict[str, int]:
        """Operations per element by kind, traced from a call (``kit.count.count_ops``)."""
        fn = self.float32_impl
        return {} if fn is None else count_ops(fn)

    def rebuild(self, **changes: Any) -> Method:
        """This method built from its parameters with some changed (the registered one is not
        touched); the result carries no claims (they were measured for the registered
        parameters)."""
        if self.params is None or self.build is None:
            raise ValueError(f"method {self.name!r} declares no parameters to rebuild from")
        p = self.params.replace(**changes)
        return dataclasses.replace(self, impl=self.build(p), params=p, claims={}, compiled=None)


def built(function: str, name: str, family: str, idea: str,
          build: Callable[[Params], ArrayFn], params: Params, **fields: Any) -> Method:
    """A Method made by ``build(params)`` that keeps both (register it with ``register``)."""
    return Method(function, name, family, idea, build(params), params=params, build=build,
                  **fields)


_REGISTRY: dict[str, dict[str, Method]] = {}


def canonical_name(name: str) -> str:
    """Lower case, spaces and punctuation as one hyphen: 'B1v2 Sigmoid' -> 'b1v2-sigmoid'."""
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


def register(method: Method) -> Method:
    get_function(method.function)
    for fmt_name, claim in method.claims.items():
        if claim.inputs is None:
            method.claims[fmt_name] = replace(claim, inputs=get_format(fmt_name).n_patterns)
    key = canonical_name(method.name)
    table = _REGISTRY.setdefault(method.function, {})
    if key in table:
        raise ValueError(f"method {method.name!r} of {method.function} registered twice")
    table[key] = method
    return method


def methods_for(function: str) -> list[Method]:
    get_function(function)
    return list(_REGISTRY.get(function, {}).values())


def all_methods() -> list[Method]:
    return [m for table in _REGISTRY.values() for m in table.values()]


def get_method(function: str, name: str) -> Method:
    table = {canonical_name(m.name): m for m in methods_for(function)}
    try:
        return table[canonical_name(name)]
    except KeyError:
        valid = [m.name for m in table.values()]
        raise unknown_choice(f"method for {function}", name, valid) from None


def select_methods(function: str, spec: str) -> list[Method]:
    """'all', or a comma-separated list of method names."""
    if canonical_name(spec) == "all":
        found = methods_for(function)
        if not found:
            raise unknown_choice(f"method for {function}", spec, ["(none registered)"])
        return found
    found = [get_method(function, part) for part in spec.split(",") if part.strip()]
    if not found:
        valid = [m.name for m in methods_for(function)]
        raise unknown_choice(f"method for {function}", spec, [*valid, "all"])
    return found
