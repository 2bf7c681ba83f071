"""The method registry: every implementation ulplab can measure, by function and name.

A method is a callable over whole arrays. ``takes="float32"``: it takes and returns float32
arrays, and its outputs are rounded to the format being measured. ``takes="format"``: it takes and
returns arrays of the format's own dtype (a native bfloat16 kernel, say).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace

import numpy as np

from ulplab.errors import unknown_choice
from ulplab.formats import get_format
from ulplab.functions import get_function

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
    ops: dict[str, int] = field(default_factory=dict)
    """Operation counts by kind per element on the main path (mul, add, div, sqrt, cmp, ...)."""
    table_bytes: int = 0
    claims: dict[str, Claim] = field(default_factory=dict)
    """Measured max/mean ULP per format name (nearest-even oracle, IEEE denormals)."""

    def __call__(self, x: np.ndarray) -> np.ndarray:
        return self.impl(x)


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
