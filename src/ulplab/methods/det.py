"""``det`` and ``det-odd``: the deterministic kernels of the registry as measurable methods.

``det`` is what ``ulplab.det.FUNC`` returns, in every format: it takes the format's own arrays
(``takes="format"``) and returns ``ulplab.det.apply(FUNC, x)`` — the correctly rounded float32
result on float32 inputs, the exact lookup on narrower ones. Its claim is exact (0 ULP, no
NaN/inf mismatch) on every input of every narrow format the registry has proved
(``ulplab.kernels.registry``; re-measured by tests/test_methods.py); float32 is proved by the
exhaustive sweep over all 2^32 inputs (``ulplab analyze FUNC --format float32 --method det
--exhaustive``), whose record the registry keeps. Its ``definition`` (what the float32 guard runs
and ``ops`` counts) is the correctly rounded float32 NumPy kernel.

``det-odd`` is the same kernel's round-to-odd float32 entry point (faithful in float32), a
float32 method whose output the sweep rounds to the format: rounded to any narrower format in
any rounding mode it is the correctly rounded result, which is what the narrow-format tables are
built from. Calling it runs the compiled kernel (``ulplab.det.float32_kernel``); ``impl`` is the
NumPy kernel (what is traced for export, run under the float32 guard and counted).

Methods read kernels; kernels never read methods.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from ulplab import det
from ulplab.formats import EXHAUSTIVE_FORMATS
from ulplab.kernels import exceptions, registry
from ulplab.methods.registry import Claim, Method, register


def run_compiled(func: str, x: np.ndarray, rounding: str = "odd") -> np.ndarray:
    """``func``'s det kernel compiled (built or loaded on the first call) applied to ``x``."""
    return det.float32_kernel(func, rounding)(x)


def _apply(func: str, x: Any) -> Any:
    return det.apply(func, x)


def _slots(func: str) -> int:
    t = exceptions.table(func)
    return 0 if t is None or t.slot_keys is None else int(t.slot_keys.size)


def _claims(k: registry.Kernel) -> dict[str, Claim]:
    return {f: Claim(0, 0.0) for f in k.formats if f in EXHAUSTIVE_FORMATS}


for _k in registry.kernels().values():
    _entry = _k.entry()
    _bytes = _entry["table_bytes"]
    register(Method(_k.function, "det", "deterministic",
                    f"correctly rounded in every proved format ({len(_k.formats)}); "
                    f"float32: nearest + {_k.exceptions} exceptions of 2^32. {_entry['idea']}",
                    functools.partial(_apply, _k.function), takes="format",
                    table_bytes=_bytes + 8 * _slots(_k.function), claims=_claims(_k),
                    definition=_k.impl("float32")))
    register(Method(_k.function, "det-odd", "deterministic",
                    f"float32 round-to-odd (faithful); narrower formats round from it. "
                    f"{_entry['idea']}", _k.impl("odd"), table_bytes=_bytes,
                    claims=_claims(_k),
                    compiled=functools.partial(run_compiled, _k.function)))
