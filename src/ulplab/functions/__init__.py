"""The catalogue of mathematical functions: one module per function, found by a registry.

Each public module of this package (``exp.py``, ``rsqrt.py`` ...) defines ``FUNCTION``, a
``Function`` holding everything ulplab knows about f:

* what it is: name (the module's name), definition, analysis regions;
* the truth: its Arb form, f(±inf) and its exact cases (``ulplab.oracle`` evaluates them with
  certified balls in a Ziv loop);
* an independent second opinion: f with mpmath's functions (``ulplab.oracle.crosscheck``);
* a float64 reference and the sides of its anchors (``ulplab.analysis.faithful``);
* its float64 form: f = anchor + delta in float64 with a per-element error bound, argued in the
  form's docstring (``ulplab.oracle.fast32``, the float32 oracle's fast path; parts shared by the
  forms in ``_float64``), and ``nan_below``, where f's domain ends;
* the textbook float32 formula (the ``f32-naive`` baseline method);
* the names of its peers in PyTorch, JAX, NumPy and the C library (``ulplab peers``).

A function module may import flint and mpmath (it defines the truth) and this package's shared
modules (``_parts``, ``_shared``, ``_float64``, a sibling function), never ``ulplab.oracle`` or
``ulplab.methods``: both of those read this package, neither reads the other.
"""

from __future__ import annotations

import importlib
import pkgutil

from ulplab.errors import unknown_choice
from ulplab.functions._parts import (
    GELU_REGIONS,
    GENERIC_REGIONS,
    INF,
    DoubleReference,
    Form,
    Function,
    Naive,
    Peer,
    Peers,
    Region,
)


def _discover() -> dict[str, Function]:
    """Every module of this package not starting with '_', by its FUNCTION's name (sorted)."""
    found: dict[str, Function] = {}
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        function = getattr(module, "FUNCTION", None)
        if not isinstance(function, Function) or function.name != info.name:
            raise ImportError(f"{module.__name__} must define FUNCTION = Function({info.name!r}, "
                              "...)")
        found[function.name] = function
    return found


FUNCTIONS: dict[str, Function] = _discover()


def get_function(name: str) -> Function:
    try:
        return FUNCTIONS[name]
    except KeyError:
        raise unknown_choice("function", name, FUNCTIONS) from None


__all__ = ["FUNCTIONS", "GELU_REGIONS", "GENERIC_REGIONS", "INF", "DoubleReference", "Form",
           "Function", "Naive", "Peer", "Peers", "Region", "get_function"]
