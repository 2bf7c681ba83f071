"""``f32-naive``: the textbook formula of each function in float32 NumPy (its module's ``naive``).

These are the baselines a kernel author starts from: every operation is a float32 NumPy ufunc
(constants are float32 too, so nothing is promoted to float64). NumPy has no erf/erfc: for those
the C library's double-precision erf (``math.erf``) is called per element and its result rounded
to float32, which is what a float32 libm ``erff`` gives to within an ulp.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ulplab.functions import FUNCTIONS
from ulplab.methods.registry import Method, register


def _float32_only(fn: Callable[[np.ndarray], np.ndarray]) -> Callable[[np.ndarray], np.ndarray]:
    def run(x: np.ndarray) -> np.ndarray:
        with np.errstate(all="ignore"):  # overflow to inf and NaN are results, not warnings
            return np.asarray(fn(np.asarray(x, dtype=np.float32)), dtype=np.float32)

    return run


for _function in FUNCTIONS.values():
    register(Method(_function.name, "f32-naive", "baseline",
                    f"textbook formula in float32: {_function.naive.idea}",
                    _float32_only(_function.naive.evaluate),
                    library_calls=_function.naive.library_calls))
