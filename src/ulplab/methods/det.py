"""``det``: the deterministic float32 kernels of ``ulplab.kernels``, one per function.

Every module of ``ulplab.kernels`` with a ``KERNELS`` list is registered here. Their claim is
exact: 0 ULP after rounding the float32 output to nearest-even, on every input of every format
small enough to enumerate (``EXHAUSTIVE_FORMATS``: bfloat16, float16 and every fp8/fp6/fp4
format; measured, and re-measured by tests/test_methods.py). It holds because the kernels' float32
round-to-odd keeps at least 2 bits beyond each of these formats, subnormals included
(tests/test_formats.py checks that from the formats' metadata).

``det-float32``: the same kernels' correctly rounded float32 entry point (nearest rounding of the
same double-float result plus the exception table found over all 2^32 inputs,
``ulplab.kernels.exceptions``), registered for the kernels that have their table. It is the one
to sweep over float32 (``ulplab analyze FUNC --format float32 --method det-float32``); rounded
again to a narrower format it would round twice, so it claims nothing there: its float32 claim is
checked by tests/test_kernels_float32.py and the exhaustive float32 sweeps.

Calling a det method runs its kernel compiled (``ulplab.det.float32_kernel``: the C export built
once into the cache, or the NumPy kernel where there is no C compiler; the same bits, held to the
golden hashes by tests/test_export.py and tests/test_native.py); ``method.impl`` is the NumPy
kernel itself (what is traced for export, run under the float32 guard and counted).
"""

from __future__ import annotations

import functools
import importlib
import pkgutil

import numpy as np

import ulplab.kernels
from ulplab.formats import EXHAUSTIVE_FORMATS
from ulplab.kernels import exceptions
from ulplab.methods.registry import Claim, Method, register

EXACT = {f: Claim(0, 0.0) for f in EXHAUSTIVE_FORMATS}


def run_compiled(func: str, x: np.ndarray, rounding: str = "odd") -> np.ndarray:
    """``func``'s det kernel compiled (built or loaded on the first call) applied to ``x``."""
    from ulplab.det import float32_kernel

    return float32_kernel(func, rounding)(x)


for _info in sorted(pkgutil.iter_modules(ulplab.kernels.__path__), key=lambda m: m.name):
    _mod = importlib.import_module(f"ulplab.kernels.{_info.name}")
    for _k in getattr(_mod, "KERNELS", ()):
        register(Method(_k["function"], "det", "deterministic", _k["idea"], _k["impl"],
                        table_bytes=_k["table_bytes"], claims=EXACT,
                        compiled=functools.partial(run_compiled, _k["function"])))
        _table = exceptions.table(_k["function"])
        if _table is not None:
            register(Method(_k["function"], "det-float32", "deterministic",
                            f"correctly rounded float32: nearest + {_table.keys.size} "
                            f"exceptions of 2^32", exceptions.correctly_rounded(
                                _k["function"], _k["impl"]),
                            table_bytes=_k["table_bytes"] + 8 * _table.slot_keys.size,
                            claims={}, compiled=functools.partial(run_compiled, _k["function"],
                                                                  rounding="float32")))
