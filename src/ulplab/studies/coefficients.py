"""The coefficient tuples the GELU methods declare, and methods rebuilt with other values.

Used by the quantization and sensitivity studies. A coefficient tuple is a parameter of kind
``coeffs`` of a method (``Method.params``): its own polynomial or rational coefficients and those
of the shared pieces it uses (the exp's Taylor coefficients ``EXP_TAYLOR``, the asymptotic
series ``ASYMPTOTIC``). It is named ``"METHOD: PARAM"`` (e.g. ``"R4 Pure: TANH_P"``). A study
changes a tuple by ``Method.rebuild(PARAM=values)``: a new kernel built from the changed
parameters, the registered method untouched, so nothing can escape the change.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ulplab.errors import UsageError
from ulplab.methods import Method
from ulplab.studies.common import gelu_methods

LABEL_SEPARATOR = ": "


@dataclass(frozen=True)
class CoeffTuple:
    method: Method
    name: str

    @property
    def values(self) -> tuple[float, ...]:
        assert self.method.params is not None
        return tuple(float(v) for v in self.method.params[self.name])

    @property
    def label(self) -> str:
        return f"{self.method.name}{LABEL_SEPARATOR}{self.name}"

    def rebuilt(self, values: Sequence[float]) -> Method:
        """The method built with this tuple replaced by ``values`` (rounded to float32)."""
        return self.method.rebuild(**{self.name: tuple(values)})


def coefficient_tuples(methods: Sequence[str] | None = None) -> list[CoeffTuple]:
    """Every coefficient tuple of the named GELU methods (all built methods when None)."""
    return [CoeffTuple(m, name) for m in gelu_methods(methods) if m.params is not None
            for name in m.params.names("coeffs")]


def find_tuple(label: str) -> CoeffTuple:
    """The tuple named ``"METHOD: PARAM"``."""
    method, sep, name = label.partition(LABEL_SEPARATOR)
    if sep:
        for c in coefficient_tuples([method]):
            if c.name == name:
                return c
    raise UsageError(f"no coefficient tuple {label!r}; valid: "
                     + ", ".join(c.label for c in coefficient_tuples()))


def as_float32_tuple(values: np.ndarray | tuple[float, ...]) -> tuple[np.float32, ...]:
    return tuple(np.float32(v) for v in values)
