"""Native implementations people run today, wrapped as sweepable callables: one module per
framework.

A backend turns (function, format) into a callable over the format's whole input array, or says
why it cannot (missing or half-installed package, no such function, format unsupported) — a
reason that is printed, never an error. Kinds of callables, as ``ulplab.sweep`` takes them:

* ``takes="format"``: computes in the format itself (torch/JAX on bfloat16 tensors);
* ``takes="float32"``: computes in float32; the sweep rounds to the format (nearest-even).

**Adding a backend is adding one module** beside these (``torch``, ``jax``, ``numpy``, ``libm``,
``tensorflow``, ``onnxruntime``, ``openvino``, ``tinygrad``, ``paddle``): a module whose name does
not start with ``_`` and that defines ``BACKENDS`` (a tuple of ``Backend``) and ``ORDER`` (where
its rows come on the card). The registry below finds every such module of this package; a module
imports its framework only inside ``make``, so that listing the backends imports none of them.

Which native function each backend calls is the function module's ``peers`` (torch, JAX, NumPy,
the C library), or the backend module's own table of ops (the others). Backward passes (autograd
of a function whose module names its ``derivative``: gelu, tanh, exp, sin, softplus) are
measured against the oracle's derivative.
"""

from __future__ import annotations

import importlib
import pkgutil
from types import ModuleType

from ulplab.backends._base import (
    ArrayFn,
    Backend,
    Unavailable,
    _module,
    _peer_callable,
    _probe,
    one_line,
    user_callable,
)
from ulplab.backends.libm import _libm, _libm_ctypes, _libm_loop, _libm_note


def backend_modules() -> list[ModuleType]:
    """Every backend module of this package (a name without a leading ``_``), by ``ORDER``."""
    found = [importlib.import_module(f"{__name__}.{info.name}")
             for info in pkgutil.iter_modules(__path__) if not info.name.startswith("_")]
    return sorted(found, key=lambda m: (getattr(m, "ORDER", 1000), m.__name__))


def _registry() -> dict[str, Backend]:
    out: dict[str, Backend] = {}
    for mod in backend_modules():
        for b in mod.BACKENDS:
            if b.name in out:
                raise RuntimeError(f"backend {b.name!r} is defined twice ({mod.__name__})")
            out[b.name] = b
    return out


BACKENDS: dict[str, Backend] = _registry()
"""Every backend by name, in card order."""

_DEFINED = dict(BACKENDS)


def registered_backends() -> set[str]:
    """The names in ``BACKENDS`` that a backend module defines (not added or replaced since):
    a child process finds these by name; any other is sent to it whole."""
    return {n for n, b in BACKENDS.items() if _DEFINED.get(n) is b}

__all__ = ["BACKENDS", "ArrayFn", "Backend", "Unavailable", "_libm", "_libm_ctypes", "_libm_loop",
           "_libm_note", "_module", "_peer_callable", "_probe", "backend_modules", "one_line",
           "registered_backends", "user_callable"]
