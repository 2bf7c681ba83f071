"""The deterministic kernels as a drop-in API: ``from ulplab import det``; ``det.gelu(x)``.

``det.exp, exp2, log, log2, sin, cos, sincos, tanh, sigmoid, softplus, silu, erf, gelu,
gelu_tanh, rsqrt, log1p, expm1, tan`` and the derivatives ``gelu_grad, tanh_grad`` take a NumPy
array, a PyTorch tensor or a JAX array of float32, bfloat16, float16, float8_e4m3fn or
float8_e5m2 and return the same kind of object, dtype and shape (``sincos``: a
pair). The bits do not depend on the framework, the device, the thread count or the build.

* float32: ``rounding="float32"`` (the default) gives the correctly rounded float32 result
  (nearest-even) on every input: the kernel's double-float result rounded to nearest, and for the
  few inputs where that rounding is within the kernel's error bound of a midpoint a table found
  over all 2^32 inputs (``ulplab.kernels.exceptions``). ``rounding="odd"`` gives the float32
  round-to-odd (faithful; what a narrower format rounds from without double rounding). Both run
  compiled (``ulplab.export.native``), or as ulplab's NumPy kernel where there is no C compiler
  (same bits).
* bfloat16, float16, fp8: an exact lookup. A table of the kernel's result for every one of the
  2^16 (2^8) inputs, rounded to the format (nearest-even, from the round-to-odd float32), built
  from the kernel's own outputs on first use and cached on disk (``ulplab.cache``: atomic
  write, SHA-256 checked on every load; the key carries the kernel's golden hash, so a changed
  kernel gets new tables). It is applied by a gather: a compiled C loop
  (``ulplab.export.native.lookup``; ``np.take`` without a compiler) for NumPy arrays and for
  PyTorch CPU tensors (through a zero-copy view), torch indexing on other devices,
  ``jnp.take`` for JAX (also under ``jax.jit``).

PyTorch tensors are not differentiated through here (the result has no grad_fn); the modules of
``ulplab.torch`` add autograd. JAX float32 under ``jax.jit`` runs the compiled kernel through
``jax.pure_callback``.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from functools import cache
from importlib import resources
from typing import Any

import numpy as np

from ulplab.errors import UsageError

FUNCTIONS = ("exp", "exp2", "log", "log2", "sin", "cos", "tanh", "sigmoid", "softplus", "silu",
             "erf", "gelu", "gelu_tanh", "rsqrt", "log1p", "expm1", "tan", "gelu_grad",
             "tanh_grad")
NARROW = ("bfloat16", "float16", "float8_e4m3fn", "float8_e5m2")
ROUNDINGS = ("odd", "float32")


@cache
def _golden() -> dict[str, str]:
    return json.loads(resources.files("ulplab.kernels").joinpath("golden.json").read_text())


_COMPILED: dict[tuple[str, str], Callable[[np.ndarray], np.ndarray]] = {}


def float32_kernel(func: str, rounding: str = "odd") -> Callable[[np.ndarray], np.ndarray]:
    """The det kernel of ``func`` on float32 arrays in ``rounding`` ("odd" or "float32"):
    compiled if a C compiler is at hand, else ulplab's NumPy kernel (the same bits). Only a
    compiled kernel is kept: a build that failed (no compiler, an unusable cache directory) is
    tried again on the next call rather than leaving the process on the slow path."""
    from ulplab.export import det_kernel, native

    key = (func, rounding)
    if key in _COMPILED:
        return _COMPILED[key]
    try:
        _COMPILED[key] = native.kernel(func, rounding=rounding)
        return _COMPILED[key]
    except (RuntimeError, OSError):
        numpy_kernel = det_kernel(func, rounding)

        def run(x: np.ndarray) -> np.ndarray:
            with np.errstate(all="ignore"):
                return numpy_kernel(np.ascontiguousarray(x, dtype=np.float32))

        return run


@cache
def table(func: str, fmt: str) -> np.ndarray:
    """Bits of the det result for every bit pattern of ``fmt`` (uint16 or uint8, indexed by the
    input's bits), from the disk cache or built from the kernel's outputs."""
    from ulplab import cache as disk
    from ulplab.formats import get_format

    spec = get_format(fmt)
    key = f"det-table-{func}-{fmt}-{_golden()[func][:16]}"
    bits = disk.load(key)
    if bits is not None and bits.dtype == spec.uint and bits.size == spec.n_patterns:
        return bits
    patterns = np.arange(spec.n_patterns, dtype=np.int64).astype(spec.uint)
    with np.errstate(all="ignore"):
        wide = patterns.view(spec.dtype).astype(np.float32)
        bits = float32_kernel(func)(wide).astype(spec.dtype).view(spec.uint)
    disk.save(key, bits)
    return bits


def _check(func: str, rounding: str) -> None:
    if func not in FUNCTIONS:
        raise UsageError(f"unknown function {func!r}; valid: {', '.join(FUNCTIONS)}")
    if rounding not in ROUNDINGS:
        raise UsageError(f"unknown rounding {rounding!r}; valid: {', '.join(ROUNDINGS)}")
    if rounding == "float32":
        from ulplab.export import has_float32

        if not has_float32(func):
            raise UsageError(f"{func} has no correctly rounded float32 entry point yet (no "
                             "exception table); use rounding='odd'")


def _dtype_name(dtype: Any) -> str:
    name = str(dtype).removeprefix("torch.")
    if name not in ("float32", *NARROW):
        raise UsageError(f"det functions take float32, {', '.join(NARROW)}; got {name}")
    return name


def _gather(tab: np.ndarray, index: np.ndarray) -> np.ndarray:
    """tab[index] by the compiled lookup (``ulplab.export.native.lookup``, which falls back to
    np.take without a C compiler; the same values either way)."""
    from ulplab.export.native import lookup

    return lookup(tab, index)


def _numpy(func: str, x: np.ndarray, rounding: str) -> np.ndarray:
    name = _dtype_name(x.dtype)
    if name == "float32":
        return float32_kernel(func, rounding)(x).reshape(x.shape)
    tab = table(func, name)
    return _gather(tab, x.view(tab.dtype)).view(x.dtype)


def _torch(func: str, x: Any, rounding: str) -> Any:
    import torch

    name = _dtype_name(x.dtype)
    x = x.detach()
    if name == "float32":
        if x.device.type != "cpu":
            raise UsageError(f"float32 det on a {x.device.type} tensor: use the exported kernel "
                             "(ulplab export FUNC --lang torch/triton/cuda) on that device")
        out = float32_kernel(func, rounding)(x.contiguous().numpy())
        return torch.from_numpy(out).reshape(x.shape)
    tab = table(func, name)
    carrier = torch.int16 if tab.dtype == np.uint16 else torch.uint8
    if x.device.type == "cpu":
        result = _gather(tab, x.contiguous().view(carrier).numpy().view(tab.dtype))
        if carrier is torch.int16:
            result = result.view(np.int16)
        return torch.from_numpy(result).view(x.dtype)
    index = x.view(carrier).to(torch.int32)
    if carrier is torch.int16:
        index = index & 0xFFFF
    lookup = torch.from_numpy(tab.view(np.int16) if carrier is torch.int16 else tab)
    return lookup.to(x.device)[index].view(x.dtype)


def _jax(func: str, x: Any, rounding: str) -> Any:
    import jax
    import jax.numpy as jnp

    name = _dtype_name(x.dtype)
    if name == "float32":
        kernel = float32_kernel(func, rounding)
        spec = jax.ShapeDtypeStruct(x.shape, jnp.float32)
        return jax.pure_callback(lambda a: kernel(np.asarray(a)).reshape(a.shape), spec, x)
    tab = table(func, name)
    bits = jax.lax.bitcast_convert_type(x, jnp.uint16 if tab.dtype == np.uint16 else jnp.uint8)
    return jax.lax.bitcast_convert_type(jnp.take(jnp.asarray(tab), bits.astype(jnp.int32)),
                                        x.dtype)


def apply(func: str, x: Any, rounding: str = "float32") -> Any:
    """``func``'s det kernel on ``x`` (NumPy array, PyTorch tensor or JAX array)."""
    _check(func, rounding)
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(x, torch.Tensor):
        return _torch(func, x, rounding)
    jax = sys.modules.get("jax")
    if jax is not None and isinstance(x, jax.Array):
        return _jax(func, x, rounding)
    if isinstance(x, np.ndarray | np.generic):
        out = _numpy(func, np.asarray(x), rounding)
        return out[()] if isinstance(x, np.generic) else out
    raise UsageError(f"det functions take a NumPy array, a PyTorch tensor or a JAX array; "
                     f"got {type(x).__name__}")


def _make(func: str) -> Callable[..., Any]:
    def fn(x: Any, rounding: str = "float32") -> Any:
        return apply(func, x, rounding)

    fn.__name__ = fn.__qualname__ = func
    fn.__doc__ = (f"det {func}(x): same type, dtype and shape as x; deterministic bits "
                  f"(see ulplab.det).")
    return fn


exp = _make("exp")
exp2 = _make("exp2")
log = _make("log")
log2 = _make("log2")
sin = _make("sin")
cos = _make("cos")
tanh = _make("tanh")
sigmoid = _make("sigmoid")
softplus = _make("softplus")
silu = _make("silu")
erf = _make("erf")
gelu = _make("gelu")
gelu_tanh = _make("gelu_tanh")
rsqrt = _make("rsqrt")
log1p = _make("log1p")
expm1 = _make("expm1")
tan = _make("tan")
gelu_grad = _make("gelu_grad")
tanh_grad = _make("tanh_grad")


def softmax(x: Any) -> Any:
    """Deterministic softmax over the last axis (float32; ``ulplab.export.softmax``): a fixed
    pairwise summation order and det exp, the same bits in NumPy, PyTorch, JAX and C."""
    from ulplab.export.softmax import softmax as run

    return run(x)


def sincos(x: Any, rounding: str = "float32") -> tuple[Any, Any]:
    """(det sin(x), det cos(x)): the bits of ``sin`` and ``cos``."""
    return apply("sin", x, rounding), apply("cos", x, rounding)


__all__ = ["FUNCTIONS", "NARROW", "apply", "cos", "erf", "exp", "exp2", "expm1", "float32_kernel",
           "gelu", "gelu_grad", "gelu_tanh", "log", "log1p", "log2", "rsqrt", "sigmoid", "silu",
           "sin", "sincos", "softmax", "softplus", "table", "tan", "tanh", "tanh_grad"]
