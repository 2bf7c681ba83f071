"""TensorFlow on the CPU, eager (``tensorflow``) and compiled by XLA
(``tensorflow-xla``: ``tf.function(jit_compile=True)``), in the format itself where TensorFlow
has the dtype and the kernel (bfloat16, float16), else in float32; backward by
``tf.GradientTape``. TensorFlow is imported only when a row is made (its import takes seconds
and prints), never on ``import ulplab``."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import numpy as np

from ulplab.backends._base import (
    CARRIERS,
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

ORDER = 50
"""Where the backends of this module come on the card (lowest first)."""

ISA_SETTINGS = onednn_isa_settings(avx512=True)
"""oneDNN's cap (TensorFlow's CPU build runs oneDNN kernels for some ops): label ->
(environment, the CPU flag the level needs)."""

COMPILED = {"tensorflow": "tensorflow-xla"}
"""The backend -> its variant in the other mode: tf.function(jit_compile=True)."""

OPS: dict[str, Callable[[Any, Any], Any]] = {
    "gelu": lambda tf, x: tf.nn.gelu(x, approximate=False),
    "gelu_tanh": lambda tf, x: tf.nn.gelu(x, approximate=True),
    "silu": lambda tf, x: tf.nn.silu(x),
    "sigmoid": lambda tf, x: tf.math.sigmoid(x),
    "tanh": lambda tf, x: tf.math.tanh(x),
    "exp": lambda tf, x: tf.math.exp(x),
    "log": lambda tf, x: tf.math.log(x),
    "erf": lambda tf, x: tf.math.erf(x),
    "softplus": lambda tf, x: tf.math.softplus(x),
    "sin": lambda tf, x: tf.math.sin(x),
    "cos": lambda tf, x: tf.math.cos(x),
    "expm1": lambda tf, x: tf.math.expm1(x),
    "log1p": lambda tf, x: tf.math.log1p(x),
    "rsqrt": lambda tf, x: tf.math.rsqrt(x),
    "tan": lambda tf, x: tf.math.tan(x),
    "erfc": lambda tf, x: tf.math.erfc(x),
}
"""Each function as TensorFlow computes it."""


def _tf() -> Any:
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")  # no banner on stderr
    tf = _module("tensorflow")
    tf.get_logger().setLevel("ERROR")  # no retracing notes: each array shape is a new trace
    threads = thread_count()
    if threads is not None:
        try:
            tf.config.threading.set_intra_op_parallelism_threads(threads)
            tf.config.threading.set_inter_op_parallelism_threads(threads)
        except RuntimeError:  # already initialized in this process: the first setting holds
            pass
    return tf


def _tensorflow(xla: bool) -> Callable[[str, Format, bool], tuple[ArrayFn, str]]:
    def make(func: str, fmt: Format, backward: bool) -> tuple[ArrayFn, str]:
        tf = _tf()
        op = op_for(func, OPS, "TensorFlow")

        def build(native: bool) -> ArrayFn:
            dtype = getattr(tf, fmt.name, None) if native else tf.float32
            if dtype is None:
                raise Unavailable(f"TensorFlow has no {fmt.name} dtype")
            carrier = CARRIERS[fmt.dtype.itemsize] if native else None
            ints = tf.as_dtype(carrier) if carrier is not None else None

            def compute(t: Any) -> Any:
                if not backward:
                    return op(tf, t)
                with tf.GradientTape() as tape:
                    tape.watch(t)
                    y = op(tf, t)
                return tape.gradient(y, t)

            step = (tf.function(compute, jit_compile=True, reduce_retracing=True) if xla
                    else compute)

            def run(x: np.ndarray) -> np.ndarray:
                if carrier is None:
                    out = step(tf.constant(np.asarray(x, dtype=np.float32)))
                    return out.numpy()
                t = tf.bitcast(tf.constant(np.ascontiguousarray(x).view(carrier)), dtype)
                out = step(t)
                if out.dtype != dtype:  # a wrong dtype is shown as it is, not reinterpreted
                    return out.numpy()
                return tf.bitcast(out, ints).numpy().view(fmt.dtype)

            return run

        return native_or_float32(fmt, build, f"TensorFlow {func}")

    return make


_DISTRIBUTIONS = ("tensorflow-cpu", "tensorflow")
BACKENDS = (
    Backend("tensorflow", "TensorFlow CPU, eager, in the format where it has the kernel",
            _tensorflow(False), _DISTRIBUTIONS),
    Backend("tensorflow-xla", "TensorFlow CPU, tf.function(jit_compile=True) (XLA)",
            _tensorflow(True), _DISTRIBUTIONS, on_card=False),
)
