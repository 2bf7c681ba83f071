"""The C library's float functions (expf, tanhf, ...: the function module's ``peers.libm``)
over float32 buffers, rounded to the format; the C library has no derivatives."""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import sys
from collections.abc import Callable
from typing import Any

import numpy as np

from ulplab.backends._base import ArrayFn, Backend, Unavailable
from ulplab.formats import Format
from ulplab.functions import get_function

ORDER = 40
"""Where the backends of this module come on the card (lowest first)."""

ISA_SETTINGS = {
    "GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX2,-FMA,-AVX512F": (
        {"GLIBC_TUNABLES": "glibc.cpu.hwcaps=-AVX2,-FMA,-AVX512F"}, ""),
}
"""glibc picks each function's variant (expf's FMA one, ...) at load time from the CPU's
features; this tunable hides AVX2, FMA and AVX-512 from that choice."""


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


BACKENDS = (Backend("libm", "C library float function (expf, ...), rounded", _libm),)
