"""tinygrad on its CPU device (kernels compiled by clang at run time: without clang the device
does not start and the row says so), in the format itself (bfloat16, float16) or in float32;
backward by tinygrad's autograd. tinygrad's ``gelu`` is the tanh form, so it is the peer of
gelu_tanh; it has no erf-based GELU."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ulplab.backends._base import (
    ArrayFn,
    Backend,
    Unavailable,
    _module,
    native_or_float32,
    one_line,
    op_for,
)
from ulplab.formats import Format

ORDER = 80
"""Where the backends of this module come on the card (lowest first)."""

OPS: dict[str, Callable[[Any], Any]] = {
    "gelu_tanh": lambda t: t.gelu(),
    "silu": lambda t: t.silu(),
    "sigmoid": lambda t: t.sigmoid(),
    "tanh": lambda t: t.tanh(),
    "exp": lambda t: t.exp(),
    "log": lambda t: t.log(),
    "erf": lambda t: t.erf(),
    "softplus": lambda t: t.softplus(),
    "sin": lambda t: t.sin(),
    "cos": lambda t: t.cos(),
    "tan": lambda t: t.tan(),
    "exp2": lambda t: t.exp2(),
    "log2": lambda t: t.log2(),
    "rsqrt": lambda t: t.rsqrt(),
}
"""Each function as a tinygrad ``Tensor`` method."""

DEVICE = "CPU"


def _tinygrad(func: str, fmt: Format, backward: bool) -> tuple[ArrayFn, str]:
    tg = _module("tinygrad")
    op = op_for(func, OPS, "tinygrad")
    try:
        tg.Device[DEVICE]
    except Exception as exc:  # no clang: the CPU device cannot compile its own helpers
        raise Unavailable(f"tinygrad's {DEVICE} device does not start: {one_line(exc)}") from None
    dtypes = tg.dtypes

    def build(native: bool) -> ArrayFn:
        dtype = getattr(dtypes, fmt.name, None) if native else dtypes.float32
        if dtype is None:
            raise Unavailable(f"tinygrad has no {fmt.name} dtype")
        ints = {1: dtypes.uint8, 2: dtypes.uint16}.get(fmt.dtype.itemsize)

        def run(x: np.ndarray) -> np.ndarray:
            if native and fmt.dtype != np.float32:
                src = np.ascontiguousarray(x).view(fmt.uint)
                t = tg.Tensor(src, device=DEVICE).bitcast(dtype)
            else:
                t = tg.Tensor(np.ascontiguousarray(x, dtype=np.float32), device=DEVICE)
            if backward:
                t = t.detach()
                t.requires_grad = True
                op(t).sum().backward()
                out = t.grad
            else:
                out = op(t)
            if out.dtype != dtype:  # a wrong dtype is shown as it is, not reinterpreted
                return out.float().numpy()
            if native and fmt.dtype != np.float32:
                return out.bitcast(ints).numpy().view(fmt.dtype)
            return out.numpy()

        return run

    return native_or_float32(fmt, build, f"tinygrad {func}")


BACKENDS = (Backend("tinygrad", "tinygrad CPU device (clang-compiled kernels)", _tinygrad,
                    ("tinygrad",)),)
