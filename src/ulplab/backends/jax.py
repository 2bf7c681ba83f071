"""JAX on the CPU, jitted: the function module's ``peers.jax``, in the format itself or in
float32; backward by ``jax.grad`` mapped over the inputs."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ulplab.backends._base import ArrayFn, Backend, _module, _peer_callable, _probe
from ulplab.formats import Format

ORDER = 20
"""Where the backends of this module come on the card (lowest first)."""

ISA_SETTINGS = {
    "--xla_cpu_max_isa=SSE4_2": ({"XLA_FLAGS": "--xla_cpu_max_isa=SSE4_2"}, ""),
    "--xla_cpu_max_isa=AVX2": ({"XLA_FLAGS": "--xla_cpu_max_isa=AVX2"}, "avx2"),
    "--xla_cpu_max_isa=AVX512": ({"XLA_FLAGS": "--xla_cpu_max_isa=AVX512"}, "avx512f"),
}
"""The instructions XLA's CPU compiler may emit, set before JAX starts: label -> (environment,
the CPU flag the level needs)."""

COMPILED = {"jax": "jax-eager"}
"""The backend -> its variant in the other mode: the card's JAX is jitted, compared here with
JAX op by op (``jax.disable_jit`` is not used: each op still compiles alone)."""


def _jax(native: bool, jit: bool) -> Callable[[str, Format, bool], tuple[ArrayFn, str]]:
    def make(func: str, fmt: Format, backward: bool) -> tuple[ArrayFn, str]:
        jax = _module("jax")
        jnp = jax.numpy
        fn = _peer_callable(func, "jax")
        if backward:
            fn = jax.vmap(jax.grad(fn))
        if jit:
            fn = jax.jit(fn)

        def run(x: np.ndarray) -> np.ndarray:
            src = x if native else np.asarray(x, dtype=np.float32)
            out = np.asarray(fn(jnp.asarray(src)))
            return out if native else out.astype(np.float32, copy=False)

        if native:
            _probe(run, fmt, f"JAX {func}")
        return run, "format" if native else "float32"

    return make


BACKENDS = (
    Backend("jax", "JAX (jit, CPU) in the format itself", _jax(True, True), ("jax", "jaxlib")),
    Backend("jax-eager", "JAX (CPU, op by op, no jit) in the format itself", _jax(True, False),
            ("jax", "jaxlib"), on_card=False),
    Backend("jax-f32", "JAX (jit, CPU) in float32, rounded", _jax(False, True),
            ("jax", "jaxlib")),
)
