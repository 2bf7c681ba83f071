"""PaddlePaddle on the CPU, in the format where Paddle has the CPU kernel (most ops have
float32 and float64 only), else in float32; backward by Paddle's autograd."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import numpy as np

from ulplab.backends._base import (
    ArrayFn,
    Backend,
    Unavailable,
    _module,
    native_or_float32,
    onednn_isa_settings,
    op_for,
    thread_count,
)
from ulplab.formats import Format

ORDER = 90
"""Where the backends of this module come on the card (lowest first)."""

ISA_SETTINGS = onednn_isa_settings()
"""oneDNN's cap (Paddle's CPU build links oneDNN): label -> (environment, CPU flag needed)."""

OPS: dict[str, Callable[[Any, Any], Any]] = {
    "gelu": lambda pd, x: pd.nn.functional.gelu(x, approximate=False),
    "gelu_tanh": lambda pd, x: pd.nn.functional.gelu(x, approximate=True),
    "silu": lambda pd, x: pd.nn.functional.silu(x),
    "sigmoid": lambda pd, x: pd.nn.functional.sigmoid(x),
    "tanh": lambda pd, x: pd.tanh(x),
    "exp": lambda pd, x: pd.exp(x),
    "log": lambda pd, x: pd.log(x),
    "erf": lambda pd, x: pd.erf(x),
    "softplus": lambda pd, x: pd.nn.functional.softplus(x),
    "sin": lambda pd, x: pd.sin(x),
    "cos": lambda pd, x: pd.cos(x),
    "tan": lambda pd, x: pd.tan(x),
    "expm1": lambda pd, x: pd.expm1(x),
    "log1p": lambda pd, x: pd.log1p(x),
    "rsqrt": lambda pd, x: pd.rsqrt(x),
}
"""Each function as Paddle computes it."""


def _paddle(func: str, fmt: Format, backward: bool) -> tuple[ArrayFn, str]:
    os.environ.setdefault("GLOG_minloglevel", "2")
    pd = _module("paddle")
    op = op_for(func, OPS, "Paddle")
    pd.set_device("cpu")
    threads = thread_count()
    if threads is not None:
        os.environ["OMP_NUM_THREADS"] = str(threads)

    def build(native: bool) -> ArrayFn:
        dtype = getattr(pd, fmt.name, None) if native else pd.float32
        if dtype is None:
            raise Unavailable(f"Paddle has no {fmt.name} dtype")
        ints = {1: pd.uint8, 2: pd.uint16}.get(fmt.dtype.itemsize)

        def run(x: np.ndarray) -> np.ndarray:
            if native and fmt.dtype != np.float32:
                t = pd.to_tensor(np.ascontiguousarray(x).view(fmt.uint)).view(dtype)
            else:
                t = pd.to_tensor(np.ascontiguousarray(x, dtype=np.float32))
            if backward:
                t.stop_gradient = False
                y = op(pd, t)
                y.backward(pd.ones_like(y))
                out = t.grad
            else:
                with pd.no_grad():
                    out = op(pd, t)
            if out.dtype != dtype:  # a wrong dtype is shown as it is, not reinterpreted
                return out.astype(pd.float32).numpy()
            if native and fmt.dtype != np.float32:
                return out.view(ints).numpy().view(fmt.uint).view(fmt.dtype)
            return out.numpy()

        return run

    return native_or_float32(fmt, build, f"Paddle {func}")


BACKENDS = (Backend("paddle", "PaddlePaddle CPU, in the format where it has the kernel",
                    _paddle, ("paddlepaddle",)),)
