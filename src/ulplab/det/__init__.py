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

Threads: ``det.FUNC(x, threads=N)`` (also ``det.apply(func, x, rounding, threads=N)``,
``det.sincos``, ``det.softmax`` and the callable of ``det.float32_kernel``) runs on N threads;
without it, ``$ULPLAB_NUM_THREADS``, else for a PyTorch tensor torch's intra-op thread count
(``torch.get_num_threads()``), else every core (``os.cpu_count()``). N must be a positive int
(0, a negative number, a bool, a float or a string is a ``UsageError`` naming ``threads`` or
the variable); more than ``os.cpu_count()`` is accepted and capped at it. The buffer is run by
the compiled C loop on a C thread pool in one call with the GIL released, the threads taking
pieces of it on the driver's chunks until none is left (``ulplab.export.native.run_pooled``;
one thread below 2^16 elements, 2^18 for the narrow formats' gather). Every kernel is elementwise,
so the bits do not depend on N; softmax splits whole rows, never a row's reduction. The float32
kernels and the gather of NumPy arrays and PyTorch CPU tensors are threaded; JAX's
``jnp.take`` and torch indexing on other devices keep their own threading. PyTorch's OpenMP
threads spin for milliseconds after each op, holding the cores a det call right after it needs:
set ``OMP_WAIT_POLICY=PASSIVE`` before importing torch where det and torch calls alternate
(measured on 2 cores: det exp on 2^20 elements and 2 threads right after ``torch.exp`` took
2256 us, no faster than one thread; 1275 us with PASSIVE).

Arrays of any layout: strided, transposed, misaligned (a view at an odd byte offset), read-only,
zero-size and 0-d arrays give the bits of a contiguous copy, in x's shape (a NumPy scalar gives
a scalar); one aligned contiguous copy is made where needed, and x is never written. A
big-endian array (``>f4``, ``>f2``) gives its result in the native byte order (dtype float32,
float16), with the same bits as a native copy. A NumPy masked array gives a masked array with a
copy of its mask (every value computed, as NumPy's ufuncs do; ``softmax`` refuses one); a
PyTorch tensor with the negative bit set (a lazy negation) gives the bits of its values; sparse
and nested tensors are ``UsageError`` (one line: ``.to_dense()`` first).

Autograd: a PyTorch tensor that requires grad gets a result with a ``grad_fn`` for every
function with a derivative (``det.derivative``: the registry's derivative kernel where there is
one, or a documented float32 formula over det kernels); a function without one raises
``UsageError`` rather than silently dropping the gradient, and so does a second derivative.
``jax.grad`` likewise, every format (a ``jax.custom_jvp``: the tangent times the derivative in
float32, rounded to x's dtype; the same bits as PyTorch's where no product is subnormal, which
XLA flushes on the CPU). A concrete JAX array runs NumPy's path and gets its result on x's
device; under ``jax.jit``, ``vmap`` or ``grad`` float32 runs the compiled kernel through
``jax.pure_callback`` (one callback object per function, so JAX compiles it once).

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
