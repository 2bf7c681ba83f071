"""``det``: the deterministic float32 kernels of ``ulplab.kernels``, one per function.

Every module of ``ulplab.kernels`` with a ``KERNELS`` list is registered here. Their claim is
exact: 0 ULP after rounding the float32 output to nearest-even, on every input of bfloat16,
float16 and both fp8 formats (measured, and re-measured by tests/test_methods.py).
"""

from __future__ import annotations

import importlib
import pkgutil

import ulplab.kernels
from ulplab.methods.registry import Claim, Method, register

EXACT = {f: Claim(0, 0.0) for f in ("bfloat16", "float16", "float8_e4m3fn", "float8_e5m2")}

for _info in sorted(pkgutil.iter_modules(ulplab.kernels.__path__), key=lambda m: m.name):
    _mod = importlib.import_module(f"ulplab.kernels.{_info.name}")
    for _k in getattr(_mod, "KERNELS", ()):
        register(Method(_k["function"], "det", "deterministic", _k["idea"], _k["impl"],
                        table_bytes=_k["table_bytes"], claims=EXACT))
