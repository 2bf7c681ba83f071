"""The compiled det kernels: the C export built once into the cache and called on NumPy buffers.

``kernel(func)`` returns a callable float32 array -> float32 array running the C export of
``func``'s det kernel (``ulplab export FUNC --lang c``) built with the system C compiler,
``-O3 -ffp-contract=off -fno-fast-math`` (no contraction into FMA; the kernel's own FMAs are
``fmaf`` calls, single instructions where the target has FMA). One shared library per function and
build variant, cached under ``$ULPLAB_CACHE_DIR/native`` (see ``ulplab.oracle.cache.cache_dir``),
named by the SHA-256 of source, compiler and flags, so a changed kernel or compiler gets a fresh
build; the build writes a temporary file in that directory and renames it into place, so
concurrent processes never load half a library.

A kernel whose ``KERNELS`` entry has a ``fast_path`` (B, impl) — the same bits as the kernel on
every input whose magnitude's encoding is below B, with the work for the others left out (sin
and cos without the Payne-Hanek reduction) — gets that impl compiled too; the runner checks the
input in blocks of ``BLOCK`` values and calls the fast build on the runs of blocks that lie
entirely below B, the full one elsewhere. The result does not depend on the blocking (the tests
hold both builds and the runner to the golden hashes).

Build variants (function multi-versioning by separate builds, chosen at run time from the CPU's
flags): ``avx512`` (-march=x86-64-v4), ``avx2`` (-march=x86-64-v3: AVX2 and FMA), ``portable``
(the compiler's default target; fmaf is then glibc's correctly rounded software FMA) and ``O0``
(no optimization, a check that the optimizer changes no bits). Every variant gives the same bits:
the tests hold each variant the machine can run to the golden hashes.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import platform
import shutil
import subprocess
import tempfile
from collections.abc import Callable
from functools import cache
from pathlib import Path

import numpy as np

from ulplab.errors import UsageError

# -fno-math-errno: sqrtf need not set errno, so it vectorizes (its result is the IEEE one either
# way); -ffp-contract=off: no FMA but the explicit fmaf
BASE_FLAGS = ("-O3", "-ffp-contract=off", "-fno-fast-math", "-fno-math-errno", "-shared", "-fPIC")
# name -> (extra compiler flags, CPU flags (/proc/cpuinfo) the build needs); best first
VARIANTS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "avx512": (("-march=x86-64-v4",),
               ("avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl", "avx2", "fma",
                "bmi1", "bmi2", "f16c", "movbe", "abm")),
    "avx2": (("-march=x86-64-v3",), ("avx2", "fma", "bmi1", "bmi2", "f16c", "movbe", "abm")),
    "portable": ((), ()),
    "O0": (("-O0",), ()),
}
X86_ONLY = ("avx512", "avx2")

NativeKernel = Callable[..., np.ndarray]


def compiler() -> str:
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        raise RuntimeError("no C compiler (cc or gcc) on this machine; set CC")
    return cc


@cache
def _compiler_id(cc: str) -> str:
    out = subprocess.run([cc, "--version"], capture_output=True, text=True, check=False)
    return out.stdout.splitlines()[0] if out.stdout else cc


@cache
def _cpu_flags() -> frozenset[str]:
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return frozenset()
    for line in text.splitlines():
        if line.startswith("flags"):
            return frozenset(line.split(":", 1)[1].split())
    return frozenset()


def runnable_variants() -> list[str]:
    """The build variants this machine can run, best first."""
    x86 = platform.machine().lower() in ("x86_64", "amd64")
    flags = _cpu_flags()
    return [name for name, (_, need) in VARIANTS.items()
            if name not in X86_ONLY or (x86 and set(need) <= flags)]


def best_variant() -> str:
    return runnable_variants()[0]


def build(func: str, variant: str | None = None, rounding: str = "odd") -> Path:
    """The shared library of ``func``'s C export for ``variant``, built if not yet cached."""
    from ulplab.export import c_name, export_source

    return build_source(c_name(func, rounding)[7:], export_source(func, "c", rounding), variant)


def build_source(name: str, src: str, variant: str | None = None) -> Path:
    """The shared library built from C source ``src`` for ``variant`` (cached by source hash)."""
    from ulplab.oracle.cache import cache_dir

    variant = variant or best_variant()
    if variant not in VARIANTS:
        raise UsageError(f"unknown build variant {variant!r}; valid: {', '.join(VARIANTS)}")
    cc = compiler()
    flags = [*BASE_FLAGS, *VARIANTS[variant][0]]
    key = hashlib.sha256("\0".join([src, _compiler_id(cc), *flags]).encode()).hexdigest()[:24]
    target = cache_dir() / "native" / f"{name}-{variant}-{key}.so"
    if target.exists():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent, prefix=".build-") as tmp:
        c_path, so_path = Path(tmp) / f"{name}.c", Path(tmp) / f"{name}.so"
        c_path.write_text(src)
        res = subprocess.run([cc, *flags, str(c_path), "-o", str(so_path), "-lm"],
                             capture_output=True, text=True, check=False)
        if res.returncode != 0:
            raise RuntimeError(f"building {name} ({variant}) failed: {res.stderr.strip()[:500]}")
        os.replace(so_path, target)
    return target


_FLOAT_P = ctypes.POINTER(ctypes.c_float)


@cache
def _entry(func: str, variant: str, rounding: str = "odd") -> Callable[..., None]:
    from ulplab.export import c_name

    fn = getattr(ctypes.CDLL(str(build(func, variant, rounding))), c_name(func, rounding))
    fn.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_long]
    fn.restype = None
    return fn


BLOCK = 4096
"""Inputs per block when choosing between a kernel's fast and full builds."""


@cache
def _fast_entry(func: str, variant: str,
                rounding: str = "odd") -> tuple[int, Callable[..., None]] | None:
    """(B, C function) of ``func``'s fast path for inputs below B, or None if it has none."""
    from ulplab.export import c_name, header
    from ulplab.export.emit_c import emit_c
    from ulplab.export.trace import trace
    from ulplab.kernels import kernel_entry
    from ulplab.kernels.exceptions import correctly_rounded

    fast = kernel_entry(func).get("fast_path")
    if fast is None:
        return None
    below, impl = fast
    kern = impl if rounding == "odd" else correctly_rounded(func, impl)
    name = c_name(func, rounding) + "_fast"
    src = emit_c(trace(kern), name, header(func, "c", rounding) + "\nFast path: inputs with "
                 f"|x| encoded below 0x{below:08x} only.", dialect="c")
    fn = getattr(ctypes.CDLL(str(build_source(name[7:], src, variant))), name)
    fn.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_long]
    fn.restype = None
    return below, fn


def _blocks_below(bits: np.ndarray, below: int) -> np.ndarray:
    """For each whole block of ``BLOCK`` inputs: are all magnitudes encoded below ``below``?"""
    nb = bits.size // BLOCK
    mags = bits[: nb * BLOCK].reshape(nb, BLOCK) & np.uint32(0x7FFFFFFF)
    return mags.max(axis=1) < np.uint32(below)


def _run_split(full: Callable[..., None], fast: Callable[..., None], below: int,
               xs: np.ndarray, out: np.ndarray) -> None:
    ok = _blocks_below(xs.reshape(-1).view(np.uint32), below)
    edges = np.flatnonzero(ok[1:] != ok[:-1]) + 1
    starts = np.concatenate([[0], edges]).astype(np.int64)
    ends = np.concatenate([edges, [ok.size]]).astype(np.int64)
    xp, yp = xs.ctypes.data, out.ctypes.data
    for s, e in zip(starts.tolist(), ends.tolist(), strict=True):
        fn = fast if ok[s] else full
        fn(xp + 4 * s * BLOCK, yp + 4 * s * BLOCK, (e - s) * BLOCK)
    done = ok.size * BLOCK
    if done < xs.size:
        full(xp + 4 * done, yp + 4 * done, xs.size - done)


def kernel(func: str, variant: str | None = None, rounding: str = "odd") -> NativeKernel:
    """``f(x, out=None)``: ``func``'s det kernel compiled for ``variant`` (default: the best this
    CPU runs). ``x`` is read in place when it is a C-contiguous float32 array (otherwise one
    float32 copy is made); the result goes into ``out`` (a C-contiguous float32 array of x's
    shape; may be x itself) or a new array."""
    fn = _entry(func, variant or best_variant(), rounding)
    fast = _fast_entry(func, variant or best_variant(), rounding)

    def run(x: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        xs = np.ascontiguousarray(x, dtype=np.float32)
        if out is None:
            out = np.empty_like(xs)
        elif (out.dtype != np.float32 or out.shape != xs.shape
              or not out.flags.c_contiguous or not out.flags.writeable):
            raise UsageError("out must be a writeable C-contiguous float32 array of x's shape")
        if fast is None or xs.size < 2 * BLOCK:
            fn(xs.ctypes.data, out.ctypes.data, xs.size)
        else:
            _run_split(fn, fast[1], fast[0], xs, out)
        return out

    run.__name__ = f"ulplab_{func}_native" + ("" if rounding == "odd" else f"_{rounding}")
    return run


__all__ = ["VARIANTS", "best_variant", "build", "build_source", "kernel", "runnable_variants"]
