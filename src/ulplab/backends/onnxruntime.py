"""ONNX Runtime's CPU execution provider: a one-node model per function, built with the ``onnx``
helper API (``Gelu`` of opset 20 and its ``approximate="tanh"``, ``Swish`` of opset 24 for
silu, ``Tanh``, ``Exp``, ``Log``, ``Sigmoid``, ``Erf``, ``Softplus``, ``Sin``, ``Cos``, ...), typed
in the format where the CPU provider has the kernel (float16 for most), else in float32. The
CPU package has no autograd (training is another package): no backward rows."""

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
    op_for,
    thread_count,
)
from ulplab.formats import Format

ORDER = 60
"""Where the backends of this module come on the card (lowest first)."""

OPS: dict[str, tuple[str, dict[str, str], int]] = {
    "gelu": ("Gelu", {}, 20),
    "gelu_tanh": ("Gelu", {"approximate": "tanh"}, 20),
    "silu": ("Swish", {}, 24),
    "sigmoid": ("Sigmoid", {}, 13),
    "tanh": ("Tanh", {}, 13),
    "exp": ("Exp", {}, 13),
    "log": ("Log", {}, 13),
    "erf": ("Erf", {}, 13),
    "softplus": ("Softplus", {}, 13),
    "sin": ("Sin", {}, 13),
    "cos": ("Cos", {}, 13),
    "tan": ("Tan", {}, 13),
}
"""Each function as one ONNX node: (operator, attributes, opset)."""

ELEMENT_TYPES = {"bfloat16": "BFLOAT16", "float16": "FLOAT16", "float32": "FLOAT",
                 "float8_e4m3fn": "FLOAT8E4M3FN", "float8_e5m2": "FLOAT8E5M2",
                 "float8_e4m3fnuz": "FLOAT8E4M3FNUZ", "float8_e5m2fnuz": "FLOAT8E5M2FNUZ"}
"""ONNX's name (``onnx.TensorProto``) of each format it has."""


def model_bytes(func: str, element_type: str) -> bytes:
    """The serialized one-node model of ``func`` over tensors of ``element_type`` (any rank)."""
    onnx = _module("onnx")
    op, attrs, opset = op_for(func, OPS, "ONNX")
    kind = getattr(onnx.TensorProto, element_type)
    node = onnx.helper.make_node(op, ["x"], ["y"], **attrs)
    graph = onnx.helper.make_graph(
        [node], f"ulplab_{func}", [onnx.helper.make_tensor_value_info("x", kind, None)],
        [onnx.helper.make_tensor_value_info("y", kind, None)])
    model = onnx.helper.make_model(graph, opset_imports=[onnx.helper.make_opsetid("", opset)])
    model.ir_version = 10  # what ONNX Runtime reads; the helper's default may be newer
    return model.SerializeToString()


def _session(ort: Any, func: str, element_type: str) -> Any:
    opts = ort.SessionOptions()
    threads = thread_count()
    if threads is not None:
        opts.intra_op_num_threads = threads
        opts.inter_op_num_threads = 1
    opts.log_severity_level = 3  # errors only
    try:
        return ort.InferenceSession(model_bytes(func, element_type), opts,
                                    providers=["CPUExecutionProvider"])
    except Exception as exc:  # INVALID_GRAPH / NOT_IMPLEMENTED for a type the op lacks
        first = str(exc).strip().splitlines()[0][:120] if str(exc).strip() else type(exc).__name__
        raise Unavailable(f"ONNX Runtime {func} in {element_type}: {first}") from None


def _onnxruntime(func: str, fmt: Format, backward: bool) -> tuple[ArrayFn, str]:
    if backward:
        raise Unavailable("ONNX Runtime's CPU package has no autograd")
    ort = _module("onnxruntime")
    op_for(func, OPS, "ONNX")

    def build(native: bool) -> ArrayFn:
        name = fmt.name if native else "float32"
        if name not in ELEMENT_TYPES:
            raise Unavailable(f"ONNX has no {name} type")
        session = _session(ort, func, ELEMENT_TYPES[name])
        onnx_type = getattr(_module("onnx").TensorProto, ELEMENT_TYPES[name])
        as_values = name in ("float16", "float32")  # NumPy has these; the others go as bits

        def run(x: np.ndarray) -> np.ndarray:
            if as_values:
                src = np.ascontiguousarray(x, dtype=fmt.dtype if native else np.float32)
                return np.asarray(session.run(None, {"x": src})[0])
            bits = np.ascontiguousarray(x).view(fmt.uint)
            value = ort.OrtValue.ortvalue_from_numpy_with_onnx_type(bits, onnx_type)
            out = session.run_with_ort_values(["y"], {"x": value})[0]
            y = np.asarray(out.numpy())
            return y.view(fmt.dtype) if y.dtype.itemsize == fmt.dtype.itemsize else y

        return run

    return native_or_float32(fmt, build, f"ONNX Runtime {func}")


_make: Callable[[str, Format, bool], tuple[ArrayFn, str]] = _onnxruntime
BACKENDS = (Backend("onnxruntime", "ONNX Runtime CPU, a one-node model per function", _make,
                    ("onnxruntime", "onnx")),)
