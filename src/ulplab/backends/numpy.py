"""NumPy's float32 ufunc (the function module's ``peers.numpy``), rounded to the format; NumPy
has no autograd."""

from __future__ import annotations

import numpy as np

from ulplab.backends._base import ArrayFn, Backend, Unavailable, _peer_callable
from ulplab.formats import Format

ORDER = 30
"""Where the backends of this module come on the card (lowest first)."""


def _numpy(func: str, fmt: Format, backward: bool) -> tuple[ArrayFn, str]:
    if backward:
        raise Unavailable("NumPy has no autograd")
    uf = _peer_callable(func, "numpy")

    def run(x: np.ndarray) -> np.ndarray:
        with np.errstate(all="ignore"):
            return uf(x)

    return run, "float32"


BACKENDS = (Backend("numpy", "NumPy float32 ufunc, rounded", _numpy, ("numpy",)),)
