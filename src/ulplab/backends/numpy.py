"""NumPy's float32 ufunc (the function module's ``peers.numpy``), rounded to the format; NumPy
has no autograd."""

from __future__ import annotations

import numpy as np

from ulplab.backends._base import ArrayFn, Backend, Unavailable, _peer_callable
from ulplab.formats import Format

ORDER = 30
"""Where the backends of this module come on the card (lowest first)."""


def _numpy_isa_settings() -> dict[str, tuple[dict[str, str], str]]:
    """NumPy's dispatched feature groups (``__cpu_dispatch__``: X86_V3, X86_V4, AVX512_ICL, ...
    on x86-64), switched off from the best down: 'off X86_V4 AVX512_ICL AVX512_SPR' leaves
    X86_V3 (AVX2) and the baseline. A group the CPU lacks is never asked for."""
    try:
        from numpy._core._multiarray_umath import __cpu_dispatch__ as groups
    except ImportError:  # another NumPy layout: no setting offered
        return {}
    out: dict[str, tuple[dict[str, str], str]] = {}
    for i in range(len(groups)):
        off = " ".join(groups[i:])
        out[f"NPY_DISABLE_CPU_FEATURES={off}"] = ({"NPY_DISABLE_CPU_FEATURES": off},
                                                 f"numpy:{groups[i]}")
    return out


ISA_SETTINGS = _numpy_isa_settings()
"""Label -> (environment, the NumPy feature that must be present for switching it off to mean
anything: 'numpy:X86_V4')."""


def _numpy(func: str, fmt: Format, backward: bool) -> tuple[ArrayFn, str]:
    if backward:
        raise Unavailable("NumPy has no autograd")
    uf = _peer_callable(func, "numpy")

    def run(x: np.ndarray) -> np.ndarray:
        with np.errstate(all="ignore"):
            return uf(x)

    return run, "float32"


BACKENDS = (Backend("numpy", "NumPy float32 ufunc, rounded", _numpy, ("numpy",)),)
