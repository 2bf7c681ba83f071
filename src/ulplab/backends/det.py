"""ulplab's own deterministic kernels (``ulplab.det``) as a row of the card: correctly rounded
in the format itself, the same bits on every thread count, position, batch shape and ISA (the
determinism card checks that they show 0 everywhere); no autograd rows here (``det``'s
derivatives are functions of their own: gelu_grad, tanh_grad)."""

from __future__ import annotations

import numpy as np

from ulplab.backends._base import ArrayFn, Backend, Unavailable, thread_count
from ulplab.formats import Format

ORDER = 100
"""Where the backends of this module come on the card (lowest first)."""

ISA_SETTINGS = {
    "ULPLAB_MAX_ISA=portable": ({"ULPLAB_MAX_ISA": "portable"}, ""),
    "ULPLAB_MAX_ISA=avx2": ({"ULPLAB_MAX_ISA": "avx2"}, "avx2"),
}
"""The builds of ulplab's compiled loops it may use: label -> (environment, CPU flag needed)."""


def _det(func: str, fmt: Format, backward: bool) -> tuple[ArrayFn, str]:
    from ulplab import det

    if backward:
        raise Unavailable("ulplab.det has no autograd rows (its derivatives are functions)")
    if func not in det.FUNCTIONS:
        raise Unavailable(f"ulplab.det has no {func}")
    if fmt.name not in det.formats(func):
        raise Unavailable(f"ulplab.det has no {func} proved in {fmt.name}")
    threads = thread_count()

    def run(x: np.ndarray) -> np.ndarray:
        return det.apply(func, np.ascontiguousarray(x), threads=threads)

    return run, "format"


BACKENDS = (Backend("det", "ulplab.det kernel (correctly rounded, deterministic)", _det,
                    ("ulplab",)),)
