"""Polynomial coefficient tuples of the GELU modules, and the methods that read them.

Used by the quantization and sensitivity studies. A coefficient tuple is a module-level tuple of
at least two numbers whose name says it holds polynomial coefficients (``*COEFFS*``,
``*TAYLOR*``, ``*_P``, ``*_Q``, ``ASYMPTOTIC``, ``SMOOTH*``). Kernels read these constants at
call time (``horner(s, TANH_P)``), so replacing the module attribute for the duration of a sweep
rebuilds the method with other coefficients and nothing else changed. A constant captured when
the module was imported (a closure or default argument) cannot be reached that way: the probe
(every coefficient scaled by 1 + 2^-3) finds which methods actually read a tuple.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from types import ModuleType

import numpy as np

from ulplab.formats import all_patterns, get_format
from ulplab.methods import Method
from ulplab.studies.common import (
    gelu_methods,
    gelu_modules,
    got_bits,
    module_of,
    patched,
    short_module,
)

_COEFF_NAME = re.compile(r"(COEFFS|TAYLOR|_P$|_Q$|^ASYMPTOTIC$|SMOOTH)")
SHARED_USER = "B3 Pure"
"""The method measured for tuples of a module that registers no method (``tail``)."""


@dataclass(frozen=True)
class CoeffTuple:
    module: ModuleType
    name: str
    values: tuple[float, ...]

    @property
    def label(self) -> str:
        return f"{short_module(self.module)}.{self.name}"


def coefficient_tuples() -> list[CoeffTuple]:
    out = []
    for mod in gelu_modules():
        for name, v in vars(mod).items():
            if (name.isupper() and _COEFF_NAME.search(name) and isinstance(v, tuple)
                    and len(v) >= 2 and all(isinstance(e, float | int | np.floating)
                                            for e in v)):
                out.append(CoeffTuple(mod, name, tuple(float(e) for e in v)))
    return out


def find_tuple(label: str) -> CoeffTuple:
    for c in coefficient_tuples():
        if c.label == label or c.name == label:
            return c
    raise ValueError(f"no coefficient tuple {label!r}; valid: "
                     + ", ".join(c.label for c in coefficient_tuples()))


def as_float32_tuple(values: np.ndarray | tuple[float, ...]) -> tuple[np.float32, ...]:
    return tuple(np.float32(v) for v in values)


def users(c: CoeffTuple, sample: int = 4096) -> list[Method]:
    """Methods of the tuple's module (or ``SHARED_USER``) whose results change when every
    coefficient is scaled by 1 + 2^-3, on a spread sample of bfloat16 inputs."""
    cands = [m for m in gelu_methods() if module_of(m) is c.module]
    if not cands:
        cands = gelu_methods([SHARED_USER])
    fmt = get_format("bfloat16")
    bits = all_patterns(fmt)[:: max(fmt.n_patterns // sample, 1)]
    base = {m.name: got_bits(m, fmt, bits) for m in cands}
    probe = as_float32_tuple(np.array(c.values) * (1 + 2.0**-3))
    found = []
    with patched(c.module, c.name, probe):
        for m in cands:
            if not np.array_equal(got_bits(m, fmt, bits), base[m.name]):
                found.append(m)
    return found
