"""Deterministic softmax over the last axis: the same bits in NumPy, PyTorch, JAX and C.

For each row x[0..n-1] (float32), in this order, every operation a float32 operation rounded to
nearest-even:

1. Flush: an input of magnitude below 2^-126 (a subnormal) becomes +0. (XLA on CPU treats
   subnormals as zero; flushing them first makes every backend see the same numbers.)
2. m = max_i x_i (a NaN anywhere makes m NaN; exact, so the order does not matter).
3. d_i = x_i - m, flushed as in 1; e_i = det exp(d_i) (its round-to-odd entry point,
   bit-identical in every backend), flushed as in 1.
4. s = the pairwise sum of e by index: the row is padded with +0 to the next power of two P and
   summed in log2(P) levels, level by level e'_j = e_2j + e_2j+1. The tree depends on n only, not
   on threads, vector width or backend.
5. y_i = e_i / s, flushed as in 1.

Threads (``threads=``, as in ``ulplab.det``): NumPy arrays of many rows are split into blocks of
whole rows, one per thread, each block run through the steps above; otherwise (few long rows,
PyTorch, JAX) only the exp of step 3 runs on several threads. A NumPy array below two threads'
share (``native.MIN_PER_THREAD``) runs the same steps in C (``C_SOFTMAX``) in one call. A row
is never split, so its reduction order (steps 2 and 4) is the same whatever the thread count:
so are the bits.

Accuracy, measured against the exact softmax of the float32 inputs (mpmath, 60 digits; 200, 100
and 10 rows of n = 3, 17, 1000; tests/test_softmax.py asserts these figures): at most 3.4 / 4.2 /
5.7 float32 ulps for standard-normal inputs and 27 / 32 / 61 ulps for inputs 10 times larger.
The error grows with |x_i - m|: d_i = x_i - m is rounded to float32 (relative error
2^-24) and exp turns an absolute error of |d_i| 2^-24 into a relative one, as in every float32
softmax that subtracts the maximum; the sum adds at most log2(P) roundings, the det exp (rounded
to odd, within 1 ulp) one.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from functools import cache, partial
from typing import Any

import numpy as np

from ulplab.det.core import apply, check_threads, dense_tensor, float32_kernel
from ulplab.errors import UsageError

TINY = np.float32(np.uint32(0x00800000).view(np.float32))  # 2^-126, the smallest normal


def _levels(n: int) -> int:
    return max(n - 1, 0).bit_length()  # P = 2^levels >= n


def softmax_numpy(x: np.ndarray, exp: Callable[[np.ndarray], np.ndarray] | None = None,
                  threads: int | None = None) -> np.ndarray:
    """Softmax over the last axis of float32 ``x`` (the module docstring's steps) with ``exp``
    (default: det exp's round-to-odd entry point); blocks of whole rows on ``threads``
    threads, or the exp alone on them where there are too few rows."""
    from ulplab.export import native

    check_threads(threads)
    x = np.asarray(x, dtype=np.float32)
    if x.ndim == 0:
        raise UsageError("softmax needs at least one axis")
    count = native.resolve_threads(threads)
    n = x.shape[-1]
    rows = x.size // n if n else 0
    if exp is None and x.size < 2 * native.MIN_PER_THREAD and _c_softmax() is not None:
        # one thread either way: the C steps (the same bits, tests/test_softmax.py) cost 2 us
        # where NumPy's operations, ten levels of the sum among them, cost 29 (1,024 inputs)
        return _run_c(_c_softmax(), x, rows, n)
    min_rows = -(-native.MIN_PER_THREAD // max(n, 1))  # a thread's rows hold MIN_PER_THREAD
    kernel = float32_kernel("exp", "odd")
    if len(native.slice_bounds(rows, count, min_rows, 1)) == 1:  # too few rows to split
        return _softmax_rows(x, exp or partial(kernel, threads=count))
    x2 = x.reshape(rows, n)
    y2 = np.empty_like(x2)
    one_thread = exp or partial(kernel, threads=1)

    def work(lo: int, hi: int) -> None:
        y2[lo:hi] = _softmax_rows(x2[lo:hi], one_thread)

    native.run_sliced(work, rows, count, min_rows, 1)
    return y2.reshape(x.shape)


def _softmax_rows(x: np.ndarray, exp: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
    zero = np.float32(0)
    with np.errstate(all="ignore"):
        x = np.where(np.abs(x) < TINY, zero, x)
        if x.shape[-1] == 0:
            return x.copy()
        m = np.max(x, axis=-1, keepdims=True)
        d = x - m
        d = np.where(np.abs(d) < TINY, zero, d)
        e = exp(d).reshape(x.shape)
        e = np.where(e < TINY, zero, e)
        n = x.shape[-1]
        acc = np.concatenate([e, np.zeros((*x.shape[:-1], (1 << _levels(n)) - n), np.float32)],
                             axis=-1)
        while acc.shape[-1] > 1:
            acc = acc[..., 0::2] + acc[..., 1::2]
        y = e / acc
        return np.where(np.abs(y) < TINY, zero, y)


def softmax_torch(x: Any, threads: int | None = None) -> Any:
    import torch

    if x.dtype != torch.float32 or x.device.type != "cpu":
        raise UsageError("det softmax takes a float32 CPU tensor")
    x = dense_tensor(x, "det softmax")
    if x.ndim == 0:
        raise UsageError("softmax needs at least one axis")
    x = x.detach()
    zero = torch.zeros((), dtype=torch.float32)
    x = torch.where(x.abs() < float(TINY), zero, x)
    if x.shape[-1] == 0:
        return x.clone()
    m = torch.amax(x, dim=-1, keepdim=True)
    m = torch.where(torch.isnan(x).any(dim=-1, keepdim=True), torch.nan, m)
    d = x - m
    d = torch.where(d.abs() < float(TINY), zero, d)
    e = apply("exp", d, "odd", threads)
    e = torch.where(e < float(TINY), zero, e)
    n = x.shape[-1]
    pad = torch.zeros((*x.shape[:-1], (1 << _levels(n)) - n), dtype=torch.float32)
    acc = torch.cat([e, pad], dim=-1)
    while acc.shape[-1] > 1:
        acc = acc[..., 0::2] + acc[..., 1::2]
    y = e / acc
    return torch.where(y.abs() < float(TINY), zero, y)


def softmax_jax(x: Any, threads: int | None = None) -> Any:
    import jax.numpy as jnp
    from jax import lax

    if x.dtype != jnp.float32:
        raise UsageError("det softmax takes float32")
    if x.ndim == 0:
        raise UsageError("softmax needs at least one axis")
    tiny, zero = jnp.float32(TINY), jnp.float32(0)
    x = jnp.where(jnp.abs(x) < tiny, zero, x)
    if x.shape[-1] == 0:
        return x
    m = jnp.max(x, axis=-1, keepdims=True)
    d = x - m
    d = jnp.where(jnp.abs(d) < tiny, zero, d)
    e = apply("exp", d, "odd", threads)
    e = jnp.where(e < tiny, zero, e)
    n = x.shape[-1]
    acc = jnp.concatenate([e, jnp.zeros((*x.shape[:-1], (1 << _levels(n)) - n), jnp.float32)],
                          axis=-1)
    while acc.shape[-1] > 1:
        acc = lax.optimization_barrier(acc[..., 0::2] + acc[..., 1::2])
    # XLA rewrites a division by a broadcast into a multiplication by the reciprocal (another
    # rounding): the barrier keeps the broadcast sum out of its sight, so e / s stays one division
    s = lax.optimization_barrier(jnp.broadcast_to(acc, e.shape))
    y = lax.optimization_barrier(e / s)
    return jnp.where(jnp.abs(y) < tiny, zero, y)


C_SOFTMAX = r"""
#include <stdlib.h>
static inline float ul_flush(float v) { return fabsf(v) < 0x1p-126f ? 0.0f : v; }

/* softmax over rows of n floats (see ulplab/det/softmax.py for the order of operations) */
int ulplab_softmax(const float *x, float *y, long rows, long n) {
    long p = 1;
    while (p < n) p *= 2;
    float *buf = (float *)malloc(sizeof(float) * (size_t)(p > 0 ? p : 1) * 2);
    if (!buf) return -1;
    float *row = buf + p;
    for (long r = 0; r < rows; r++) {
        const float *xr = x + r * n;
        float *yr = y + r * n;
        float m = 0.0f;
        int has_nan = 0;
        for (long i = 0; i < n; i++) {
            const float v = ul_flush(xr[i]);
            row[i] = v;
            if (v != v) has_nan = 1;
            if (i == 0 || v > m) m = v;
        }
        if (has_nan) m = ul_u2f(0x7FC00000u);
        for (long i = 0; i < n; i++) row[i] = ul_flush(row[i] - m);
        ulplab_exp_odd(row, yr, n);
        for (long i = 0; i < n; i++) { yr[i] = yr[i] < 0x1p-126f ? 0.0f : yr[i]; buf[i] = yr[i]; }
        for (long i = n; i < p; i++) buf[i] = 0.0f;
        for (long w = p / 2; w >= 1; w /= 2)
            for (long i = 0; i < w; i++) buf[i] = buf[2 * i] + buf[2 * i + 1];
        const float s = buf[0];
        for (long i = 0; i < n; i++) yr[i] = ul_flush(yr[i] / s);
    }
    free(buf);
    return 0;
}
"""


def c_source() -> str:
    from ulplab.export import export_source

    return export_source("exp", "c", "odd") + C_SOFTMAX


@cache
def _c_function(variant: str | None) -> Callable[..., int]:
    """``ulplab_softmax`` of ``c_source()`` built for ``variant`` (loaded once)."""
    import ctypes

    from ulplab.export import native

    fn = ctypes.CDLL(str(native.build_source("softmax", c_source(), variant))).ulplab_softmax
    fn.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_long, ctypes.c_long]
    fn.restype = ctypes.c_int
    return fn


@cache
def _c_softmax() -> Callable[..., int] | None:
    """``_c_function(None)``, or None where no compiler or build is usable (then NumPy's
    operations run, for the rest of the process: the same bits; ``float32_kernel`` says why
    once on the first det call)."""
    try:
        return _c_function(None)
    except (RuntimeError, OSError):
        return None


def _run_c(fn: Callable[..., int], x: np.ndarray, rows: int, n: int) -> np.ndarray:
    from ulplab.export import native

    x = np.ascontiguousarray(x, dtype=np.float32)
    out = np.empty_like(x)
    if rows and fn(native.data_address(x), native.data_address(out), rows, n) != 0:
        raise MemoryError("ulplab_softmax could not allocate its row buffer")
    return out


def softmax_c(x: np.ndarray, variant: str | None = None) -> np.ndarray:
    x = np.ascontiguousarray(x, dtype=np.float32)
    if x.ndim == 0:
        raise UsageError("softmax needs at least one axis")
    n = x.shape[-1]
    return _run_c(_c_function(variant), x, x.size // n if n else 0, n)


def softmax(x: Any, threads: int | None = None) -> Any:
    """Deterministic softmax over the last axis of a float32 NumPy array, PyTorch CPU tensor or
    JAX array (see the module docstring for the order of operations) on ``threads`` threads
    (as ``ulplab.det``; the bits do not depend on it)."""
    check_threads(threads)
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(x, torch.Tensor):
        return softmax_torch(x, threads)
    jax = sys.modules.get("jax")
    if jax is not None and isinstance(x, jax.Array):
        return softmax_jax(x, threads)
    if isinstance(x, np.ma.MaskedArray):  # which entries a masked row normalizes over is a
        raise UsageError("det softmax takes a plain array, not a masked one (its mask would "
                         "be ignored; fill the masked entries with -inf instead)")  # choice
    if isinstance(x, np.ndarray) and x.dtype == np.float32:
        return softmax_numpy(x, threads=threads)
    raise UsageError(f"det softmax takes float32 (NumPy, PyTorch or JAX); got {type(x).__name__}"
                     f" of {getattr(x, 'dtype', '?')}")


__all__ = ["softmax", "softmax_c", "softmax_jax", "softmax_numpy", "softmax_torch"]
