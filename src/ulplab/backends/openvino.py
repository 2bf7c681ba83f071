"""OpenVINO's CPU plugin: a one-operation model per function (``Gelu`` erf/tanh, ``Swish``,
``Sigmoid``, ``Tanh``, ``Exp``, ``Log``, ``Erf``, ``SoftPlus``, ``Sin``, ``Cos``), with inputs and
outputs in the format (bfloat16, float16) — the plugin chooses the precision it computes in
(``INFERENCE_PRECISION_HINT``, left at its default) — else in float32. OpenVINO has no autograd:
no backward rows."""

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
    onednn_isa_settings,
    op_for,
    thread_count,
)
from ulplab.formats import Format

ORDER = 70
"""Where the backends of this module come on the card (lowest first)."""

ISA_SETTINGS = onednn_isa_settings()
"""oneDNN's cap, which OpenVINO's CPU plugin (built on a fork of oneDNN) reads too: label ->
(environment, CPU flag needed)."""

OPS: dict[str, Callable[[Any, Any], Any]] = {
    "gelu": lambda ops, p: ops.gelu(p, "erf"),
    "gelu_tanh": lambda ops, p: ops.gelu(p, "tanh"),
    "silu": lambda ops, p: ops.swish(p),
    "sigmoid": lambda ops, p: ops.sigmoid(p),
    "tanh": lambda ops, p: ops.tanh(p),
    "exp": lambda ops, p: ops.exp(p),
    "log": lambda ops, p: ops.log(p),
    "erf": lambda ops, p: ops.erf(p),
    "softplus": lambda ops, p: ops.softplus(p),
    "sin": lambda ops, p: ops.sin(p),
    "cos": lambda ops, p: ops.cos(p),
    "tan": lambda ops, p: ops.tan(p),
}
"""Each function as one operation of opset 13."""

ELEMENT_TYPES = {"bfloat16": "bf16", "float16": "f16", "float32": "f32",
                 "float8_e4m3fn": "f8e4m3", "float8_e5m2": "f8e5m2"}
"""OpenVINO's ``Type`` of each format it has."""


def _openvino(func: str, fmt: Format, backward: bool) -> tuple[ArrayFn, str]:
    if backward:
        raise Unavailable("OpenVINO has no autograd")
    ov = _module("openvino")
    ops = _module("openvino.opset13")
    op = op_for(func, OPS, "OpenVINO")
    threads = thread_count()
    config = {} if threads is None else {"INFERENCE_NUM_THREADS": threads}
    compiled: dict[tuple[str, int], Any] = {}  # (type, rank) -> compiled model

    def build(native: bool) -> ArrayFn:
        name = fmt.name if native else "float32"
        if name not in ELEMENT_TYPES:
            raise Unavailable(f"OpenVINO has no {name} type")
        kind = getattr(ov.Type, ELEMENT_TYPES[name])

        def model(rank: int) -> Any:
            if (name, rank) not in compiled:
                p = ops.parameter([-1] * rank, kind)
                compiled[name, rank] = ov.Core().compile_model(ov.Model([op(ops, p)], [p]),
                                                               "CPU", config)
            return compiled[name, rank]

        def run(x: np.ndarray) -> np.ndarray:
            if not native or fmt.dtype == np.float32:
                src = np.ascontiguousarray(x, dtype=np.float32)
                tensor = ov.Tensor(src)
            else:
                src = np.ascontiguousarray(x).view(fmt.uint)
                tensor = ov.Tensor(src, list(src.shape), kind)
            request = model(src.ndim).create_infer_request()
            request.infer([tensor])
            out = request.get_output_tensor(0)
            if out.element_type != kind:
                return np.array(out.data)
            y = np.array(out.data)
            return y if not native or fmt.dtype == np.float32 else y.view(fmt.uint).view(
                fmt.dtype)

        return run

    return native_or_float32(fmt, build, f"OpenVINO {func}")


BACKENDS = (Backend("openvino", "OpenVINO CPU plugin, a one-operation model per function",
                    _openvino, ("openvino",)),)
