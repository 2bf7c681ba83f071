"""Native implementations people run today, wrapped as sweepable callables.

A backend turns (function, format) into a callable over the format's whole input array, or says
why it cannot (missing package, no such function, format unsupported) — a reason that is printed,
never an error. Kinds of callables, as ``ulplab.sweep`` takes them:

* ``takes="format"``: computes in the format itself (torch/JAX on bfloat16 tensors);
* ``takes="float32"``: computes in float32; the sweep rounds to the format (nearest-even).

Which native function each backend calls is the function module's ``peers`` (an import path and
keywords; the C library's float function name). Backward passes (autograd of a function whose
module names its ``derivative``: gelu, tanh) are measured against the oracle's derivative.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import importlib
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ulplab.formats import Format
from ulplab.functions import Peer, get_function

ArrayFn = Callable[[np.ndarray], np.ndarray]


class Unavailable(Exception):
    """The backend cannot run this (function, format); the message says why."""


@dataclass(frozen=True)
class Backend:
    name: str
    describe: str
    make: Callable[[str, Format, bool], tuple[ArrayFn, str]]
    """(function, format, backward) -> (callable, takes)"""


def _module(name: str) -> Any:
    try:
        return importlib.import_module(name)
    except ImportError:
        raise Unavailable(f"{name} is not installed") from None


# ---------------------------------------------------------------- torch
def _peer_callable(func: str, library: str) -> Callable[..., Any]:
    """The function module's peer in ``library`` (torch, jax, numpy), imported and bound."""
    named: Peer | None = getattr(get_function(func).peers, library)
    if named is None:
        raise Unavailable(f"{library} has no {func}")
    parts = named.path.split(".")
    obj = _module(parts[0])
    for i, attr in enumerate(parts[1:], start=1):
        if not hasattr(obj, attr):  # a submodule not imported by its parent (jax.scipy ...)
            _module(".".join(parts[:i + 1]))
        obj = getattr(obj, attr)
    return functools.partial(obj, **dict(named.kwargs)) if named.kwargs else obj


def _torch_dtype(fmt: Format) -> Any:
    torch = _module("torch")
    dtype = getattr(torch, fmt.name, None)
    if not isinstance(dtype, torch.dtype):
        raise Unavailable(f"torch has no {fmt.name} dtype")
    return dtype


def _probe(run: ArrayFn, fmt: Format, what: str) -> None:
    """Run ``run`` on one value of ``fmt``; a backend that refuses the dtype is Unavailable."""
    try:
        with np.errstate(all="ignore"):
            run(np.ones(1, dtype=fmt.dtype))
    except Exception as exc:  # each library has its own "not implemented for this dtype"
        first = str(exc).splitlines()[0][:120] if str(exc) else type(exc).__name__
        raise Unavailable(f"{what} in {fmt.name}: {first}") from None


def _torch(device: str, native: bool) -> Callable[[str, Format, bool], tuple[ArrayFn, str]]:
    def make(func: str, fmt: Format, backward: bool) -> tuple[ArrayFn, str]:
        torch = _module("torch")
        if device == "cuda" and not torch.cuda.is_available():
            raise Unavailable("no CUDA device")
        fn = _peer_callable(func, "torch")
        dtype = _torch_dtype(fmt) if native else torch.float32
        as_ints = native and fmt.dtype != np.float32  # moved across as integers, bit for bit
        ints = {1: torch.uint8, 2: torch.int16, 4: torch.int32}[fmt.dtype.itemsize]

        def run(x: np.ndarray) -> np.ndarray:
            src = x.view(fmt.uint) if as_ints else x
            t = torch.from_numpy(np.ascontiguousarray(src))
            if as_ints:
                t = t.view(dtype)
            t = t.to(device)
            if backward:
                t = t.clone().requires_grad_(True)
                fn(t).backward(torch.ones_like(t))
                out = t.grad
            else:
                with torch.no_grad():
                    out = fn(t)
            out = out.detach().to("cpu")
            if as_ints:
                return out.view(ints).numpy().view(fmt.uint).view(fmt.dtype)
            return out.numpy().astype(np.float32, copy=False)

        if native:
            _probe(run, fmt, f"torch {func}")
        return run, "format" if native else "float32"

    return make


# ---------------------------------------------------------------- JAX
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
            out = np.asarray(fn(jnp.asarray(x)))
            return out if native else out.astype(np.float32, copy=False)

        if native:
            _probe(run, fmt, f"JAX {func}")
        return run, "format" if native else "float32"

    return make


# ---------------------------------------------------------------- NumPy and the C library
def _numpy(func: str, fmt: Format, backward: bool) -> tuple[ArrayFn, str]:
    if backward:
        raise Unavailable("NumPy has no autograd")
    uf = _peer_callable(func, "numpy")

    def run(x: np.ndarray) -> np.ndarray:
        with np.errstate(all="ignore"):
            return uf(x)

    return run, "float32"


# The C library's float function over a float32 buffer in one compiled loop (a direct call by
# name: the compiler emits `call expf`, the same glibc entry point ctypes reaches; with neither
# -ffast-math nor -fopenmp-simd, glibc declares no SIMD variants, so nothing is vectorized).
_LIBM_LOOP_C = """#include <math.h>
void ulplab_libm_map(const float *x, float *y, long n) {
    for (long i = 0; i < n; i++) y[i] = %s(x[i]);
}
"""
_FLOAT_BUFFER_FN = Callable[[Any, Any, int], None]


@functools.cache
def _libm_loop(c_name: str) -> _FLOAT_BUFFER_FN | str:
    """The compiled loop calling ``c_name`` on each float of a buffer (built once, cached under
    ``$ULPLAB_CACHE_DIR/native`` as the det kernels are, written to a temporary file and renamed),
    or why it cannot be built (no compiler, a failed build)."""
    from ulplab.export import native

    try:
        lib = native.build_source(f"libm-{c_name}", _LIBM_LOOP_C % c_name, "portable")
        fn = ctypes.CDLL(str(lib)).ulplab_libm_map
    except (RuntimeError, OSError) as why:
        return str(why).splitlines()[0][:200] if str(why) else type(why).__name__
    fn.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_long]
    fn.restype = None
    return fn


@functools.cache
def _libm_note(c_name: str, why: str) -> None:
    """Said once per function and process: the per-element fallback is ~100x slower."""
    print(f"note: libm {c_name} runs through ctypes, one Python call per input (no compiled "
          f"loop: {why})", file=sys.stderr)


def _libm_ctypes(c_name: str) -> ArrayFn:
    """``c_name`` called per element through ctypes (the fallback without a C compiler)."""
    path = ctypes.util.find_library("m")
    if path is None:
        raise Unavailable("no C math library found")
    cfn = getattr(ctypes.CDLL(path), c_name)
    cfn.restype = ctypes.c_float
    cfn.argtypes = [ctypes.c_float]
    vec = np.frompyfunc(cfn, 1, 1)

    def run(x: np.ndarray) -> np.ndarray:
        with np.errstate(all="ignore"):
            return vec(x).astype(np.float32)

    return run


def _libm(func: str, fmt: Format, backward: bool, compiled: bool = True) -> tuple[ArrayFn, str]:
    if backward:
        raise Unavailable("the C library has no derivatives")
    c_name = get_function(func).peers.libm
    if c_name is None:
        raise Unavailable(f"the C library has no {func}")
    slow = _libm_ctypes(c_name)  # also checks that the library has the function
    loop = _libm_loop(c_name) if compiled else "asked for"
    if isinstance(loop, str):
        if compiled:
            _libm_note(c_name, loop)
        return slow, "float32"

    def run(x: np.ndarray) -> np.ndarray:
        xs = np.ascontiguousarray(x, dtype=np.float32)
        out = np.empty_like(xs)
        loop(xs.ctypes.data, out.ctypes.data, xs.size)
        return out

    return run, "float32"


BACKENDS: dict[str, Backend] = {
    b.name: b
    for b in (
        Backend("torch", "PyTorch CPU, computing in the format itself", _torch("cpu", True)),
        Backend("torch-f32", "PyTorch CPU in float32, rounded to the format",
                _torch("cpu", False)),
        Backend("torch-cuda", "PyTorch CUDA in the format itself", _torch("cuda", True)),
        Backend("torch-cuda-f32", "PyTorch CUDA in float32, rounded", _torch("cuda", False)),
        Backend("jax", "JAX (jit, CPU) in the format itself", _jax(True, True)),
        Backend("jax-f32", "JAX (jit, CPU) in float32, rounded", _jax(False, True)),
        Backend("numpy", "NumPy float32 ufunc, rounded", _numpy),
        Backend("libm", "C library float function (expf, ...), rounded", _libm),
    )
}


def user_callable(spec: str) -> tuple[str, ArrayFn]:
    """'module:function' -> a float32 callable; the module is looked up on the import path and
    in the current directory. Any failure to get it is a ``UsageError`` naming the spec."""
    import os
    import sys

    from ulplab.errors import UsageError

    mod, sep, name = spec.partition(":")
    mod, name = mod.strip(), name.strip()
    if not sep or not mod or not name:
        raise UsageError(f"--callable {spec!r}: expected module:function")
    added = os.getcwd() not in sys.path
    if added:
        sys.path.insert(0, os.getcwd())
    try:
        module = importlib.import_module(mod)
    except Exception as exc:  # SyntaxError, ImportError, whatever the module raises on import
        lines = str(exc).strip().splitlines()
        why = f"{type(exc).__name__}: {lines[0][:120]}" if lines else type(exc).__name__
        raise UsageError(f"--callable {spec!r}: importing {mod} failed: {why}") from None
    finally:
        if added:
            sys.path.remove(os.getcwd())
    fn = getattr(module, name, None)
    if fn is None:
        raise UsageError(f"--callable {spec!r}: module {mod} has no attribute {name!r}")
    if not callable(fn):
        raise UsageError(f"--callable {spec!r}: {name} is a {type(fn).__name__}, not a function")
    return spec, fn
