"""The deterministic kernels as a drop-in API: ``from ulplab import det``; ``det.gelu(x)``.

``det.FUNC(x)`` for every kernel of the registry (``ulplab.kernels.registry``: exp, exp2, log,
log2, sin, cos, tanh, sigmoid, softplus, silu, erf, gelu, gelu_tanh, rsqrt, log1p, expm1, tan and
the derivatives gelu_grad, tanh_grad; ``det.sincos`` gives a pair) takes a NumPy array, a
PyTorch tensor or a JAX array and returns the same kind of object, dtype and shape. **det means
one thing: the correctly rounded result (nearest-even) in the array's own format**, on every
input, for every format the registry has proved for that kernel (``det.formats(FUNC)``: float32
and the 13 formats of bfloat16, float16 and fp8/fp6/fp4 that ulplab enumerates; each proved on
every input against the oracle). The bits do not depend on the framework, the device, the thread
count or the build.

* float32: the kernel's double-float result rounded to nearest, and for the few inputs where
  that rounding is within the kernel's error bound of a midpoint a table found over all 2^32
  inputs (``ulplab.kernels.exceptions``). ``rounding="odd"`` gives instead the float32
  round-to-odd (faithful; what a narrower format rounds from without double rounding: the
  ``det-odd`` method). Both run compiled (``ulplab.export.native``); where no compiler or
  build is usable, ulplab's NumPy kernel runs (the same bits, slower; said once on stderr).
* narrower formats: an exact lookup. A table of the kernel's result for every one of the
  format's inputs (the float32 round-to-odd rounded to the format, nearest-even), built from
  the kernel's own outputs on first use and cached on disk (``ulplab.cache``: atomic write,
  SHA-256 checked on every load; the key carries the kernel's golden hash, so a changed kernel
  gets new tables). It is applied by a gather: a compiled C loop (``native.lookup``) for NumPy
  arrays and PyTorch CPU tensors, torch indexing on other devices, ``jnp.take`` for JAX.

Autograd: a PyTorch tensor that requires grad gets a result with a ``grad_fn`` for every
function with a derivative (``det.derivative``: the registry's derivative kernel where there is
one, or a documented float32 formula over det kernels); a function without one raises
``UsageError`` rather than silently dropping the gradient, and so does a second derivative.
JAX float32 under ``jax.jit`` runs the compiled kernel through ``jax.pure_callback``.

Importing this module reads the registry's JSON and nothing else of ulplab's (no research
method, no fitter, no oracle); the first float32 call loads the cached native build after
checking its SHA-256 (tests/test_layering.py, benchmarks/bench_import.py).
"""

from __future__ import annotations

from ulplab.det.core import (
    DIFFERENTIABLE,
    FUNCTIONS,
    KERNEL_FUNCTIONS,
    ROUNDINGS,
    apply,
    derivative,
    float32_kernel,
    formats,
    sincos,
    table,
)
from ulplab.det.softmax import softmax

globals().update(KERNEL_FUNCTIONS)  # det.exp, det.gelu, ...: one per kernel of the registry

__all__ = ["DIFFERENTIABLE", "FUNCTIONS", "ROUNDINGS", "apply", "derivative", "float32_kernel",
           "formats", "sincos", "softmax", "table", *FUNCTIONS]
