"""The compiled det kernels: the C export built once into the cache and called on NumPy buffers.

``kernel(func)`` returns a callable float32 array -> float32 array running the C export of
``func``'s det kernel (``ulplab export FUNC --lang c``) built with the system C compiler,
``-O3 -ffp-contract=off -fno-fast-math`` (no contraction into FMA; the kernel's own FMAs are
``fmaf`` calls, single instructions where the target has FMA). One shared library per function and
build variant, cached under ``$ULPLAB_CACHE_DIR/native`` (see ``ulplab.cache.cache_dir``),
named by the SHA-256 of source, compiler and flags, so a changed kernel or compiler gets a fresh
build; the build writes a temporary file in that directory and renames it into place, so
concurrent processes never load half a library.

A kernel whose ``KERNELS`` entry has a ``fast_path`` (B, impl) — the same bits as the kernel on
every input whose magnitude's encoding is below B, with the work for the others left out (sin
and cos without the Payne-Hanek reduction) — gets that impl compiled too; the driver below
calls it on every chunk of inputs that lies entirely below B, the full one elsewhere. The result
does not depend on the chunking (the tests hold both builds and the runner to the golden
hashes).

The float32 entry point runs in two passes (``_float32_passes``). Pass 1 is the kernel's
first pass where its ``KERNELS`` entry has one (``first_pass``: exp, log, sin, cos, tanh,
sigmoid, silu, gelu): a shorter evaluation with its own error bound and rounding test
(``core.first_pass_result``/``first_pass_scaled``), returning the correctly rounded result or a
flag (each kernel module's docstring gives the analysis and the measured error); for the other
kernels it is the kernel traced in the ``fast`` rounding mode (``ulplab.kernels.core``: nearest
rounding with every result it cannot decide flagged — within the kernel's bound of a midpoint,
subnormal, or past a scaling's exact range). Pass 2 is the whole float32 entry point (nearest
rounding, subnormal results and the exception table) on the flagged inputs only. Whatever pass
1 keeps is the correctly rounded result, and so is the entry point's everywhere (swept against
the oracle over all 2^32 inputs), so the runner's output is the entry point's, bit for bit:
tested against the golden hashes, and over all 2^32 inputs by ``benchmarks/verify_native.py``
(0 mismatches for every function with a first pass). Pass 1 flags about 1e-4 to 6e-4 of
ordinary inputs (tests/test_first_pass.py), so the exception table's gathers, the subnormal
branch and the long double-float evaluations leave the hot loop.

All of it runs in ``ulplab_drive``, a small C driver (``DRIVER``) that takes the kernels as
function pointers: chunks of ``CHUNK`` inputs (copied to a buffer first only when ``out``
overlaps ``x``), the round-to-odd fast path chosen per chunk, the flagged outputs found block by
block and fixed per chunk (their inputs gathered into one buffer and run through the entry point
in one call).

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
from ulplab.kernels.core import FLAG_NAN

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
    from ulplab.cache import cache_dir

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


@cache
def _entry(func: str, variant: str, rounding: str = "odd") -> Callable[..., None]:
    from ulplab.export import c_name

    fn = getattr(ctypes.CDLL(str(build(func, variant, rounding))), c_name(func, rounding))
    fn.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_long]
    fn.restype = None
    return fn


CHUNK = 2048
"""Inputs per chunk of the driver: the fast path is chosen, and flags fixed, per chunk."""

BLOCK = 64
"""Inputs per block of the driver's search for flagged results."""

FLAG_BITS = int(FLAG_NAN)
"""A flagged result, either sign (``ulplab.kernels.core``)."""

DRIVER = f"""
#include <stdint.h>
#include <string.h>
typedef void (*ul_kernel)(const float *restrict, float *restrict, long);
/* out[i] = the kernel's result for x[i]: main (or fast, on a chunk whose magnitudes are all
   encoded below `below`) over each chunk, then fix on the results main/fast flagged. The
   input chunk is copied first only when out overlaps x; flags are looked for in blocks of
   {BLOCK} (a vectorized test per block, a scalar gather only in a block that has one). */
void ulplab_drive(const float *x, float *out, long n, ul_kernel main_k, ul_kernel fast_k,
                  uint32_t below, ul_kernel fix_k) {{
    float xb[{CHUNK}], xf[{CHUNK}], yf[{CHUNK}];
    int32_t at[{CHUNK}];
    const int overlap = (const char *)out < (const char *)(x + n)
                        && (const char *)x < (const char *)(out + n);
    for (long s = 0; s < n; s += {CHUNK}) {{
        const long m = n - s < {CHUNK} ? n - s : {CHUNK};
        const float *xs = x + s;
        float *ys = out + s;
        if (overlap) {{
            memcpy(xb, xs, (size_t)m * 4);
            xs = xb;
        }}
        ul_kernel k = main_k;
        if (fast_k) {{
            uint32_t top = 0;
            for (long i = 0; i < m; i++) {{
                uint32_t b; memcpy(&b, xs + i, 4); b &= 0x7FFFFFFFu;
                top = b > top ? b : top;
            }}
            if (top < below) k = fast_k;
        }}
        k(xs, ys, m);
        if (!fix_k) continue;
        long nf = 0;
        for (long b0 = 0; b0 < m; b0 += {BLOCK}) {{
            const long e = b0 + {BLOCK} < m ? b0 + {BLOCK} : m;
            uint32_t any = 0;
            for (long i = b0; i < e; i++) {{
                uint32_t b; memcpy(&b, ys + i, 4);
                any |= (uint32_t)((b & 0x7FFFFFFFu) == 0x{FLAG_BITS:08X}u);
            }}
            if (!any) continue;
            for (long i = b0; i < e; i++) {{
                uint32_t b; memcpy(&b, ys + i, 4);
                if ((b & 0x7FFFFFFFu) == 0x{FLAG_BITS:08X}u) {{
                    xf[nf] = xs[i]; at[nf] = (int32_t)i; nf++;
                }}
            }}
        }}
        if (nf) {{  /* the flagged inputs in one vectorized call, scattered back */
            fix_k(xf, yf, nf);
            for (long j = 0; j < nf; j++) ys[at[j]] = yf[j];
        }}
    }}
}}
"""


@cache
def _driver(variant: str) -> Callable[..., None]:
    fn = ctypes.CDLL(str(build_source("driver", DRIVER, variant))).ulplab_drive
    fn.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_long, ctypes.c_void_p,
                   ctypes.c_void_p, ctypes.c_uint32, ctypes.c_void_p]
    fn.restype = None
    return fn


def _compiled(name: str, kern: Callable[[np.ndarray], np.ndarray], head: str,
              variant: str) -> Callable[..., None]:
    from ulplab.export.emit_c import emit_c
    from ulplab.export.trace import trace

    src = emit_c(trace(kern), name, head, dialect="c")
    fn = getattr(ctypes.CDLL(str(build_source(name[7:], src, variant))), name)
    fn.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_long]
    fn.restype = None
    return fn


def _address(fn: Callable[..., None] | None) -> int | None:
    return None if fn is None else ctypes.cast(fn, ctypes.c_void_p).value


@cache
def _float32_passes(func: str, variant: str) -> tuple[Callable[..., None], int,
                                                      Callable[..., None] | None]:
    """(main, below, fast) of the float32 entry point's first pass: the kernel, and its fast
    path where it has one, traced in the ``fast`` rounding mode with the kernel's bound."""
    from ulplab.export import c_name, header
    from ulplab.kernels import kernel_entry
    from ulplab.kernels.core import rounding

    entry = kernel_entry(func)
    bound = entry["bound"]

    def in_fast_mode(impl: Callable[[np.ndarray], np.ndarray]) -> Callable[[np.ndarray],
                                                                             np.ndarray]:
        def run(x: np.ndarray) -> np.ndarray:
            with rounding("fast", bound):
                return impl(x)
        return run

    head = header(func, "c", "float32") + ("\nFirst pass of the compiled float32 runner "
                                           "(ulplab.export.native): the fast rounding mode.")
    name = c_name(func, "float32") + "_fast_mode"
    first = entry.get("first_pass")
    if first is not None:
        name = c_name(func, "float32") + "_first_pass"
        head = header(func, "c", "float32") + ("\nFirst pass of the compiled float32 runner "
                                               "(ulplab.export.native): KERNELS' first_pass.")
    main = _compiled(name, first or in_fast_mode(entry["impl"]), head, variant)
    fast = entry.get("fast_path")
    if fast is None or first is not None:  # a first pass leaves large inputs to the second
        return main, 0, None
    below, impl = fast
    return main, below, _compiled(name + "_below", in_fast_mode(impl), head + "\nFast path: "
                                  f"inputs with |x| encoded below 0x{below:08x} only.", variant)


@cache
def _fast_entry(func: str, variant: str) -> tuple[int, Callable[..., None]] | None:
    """(B, C function) of the round-to-odd fast path of ``func`` for inputs below B, or None if
    it has none (the float32 runner's are in ``_float32_passes``)."""
    from ulplab.export import c_name, header
    from ulplab.kernels import kernel_entry

    fast = kernel_entry(func).get("fast_path")
    if fast is None:
        return None
    below, impl = fast
    return below, _compiled(c_name(func) + "_fast", impl, header(func, "c") + "\nFast path: "
                            f"inputs with |x| encoded below 0x{below:08x} only.", variant)


LOOKUP = """
#include <stdint.h>
/* out[i] = tab[idx[i]]: the exact lookup of det's narrow formats (2^16 or 2^8 entries) */
void ulplab_lookup16(const uint16_t *restrict tab, const uint16_t *restrict idx,
                     uint16_t *restrict out, long n) {
    for (long i = 0; i < n; i++) out[i] = tab[idx[i]];
}
void ulplab_lookup8(const uint8_t *restrict tab, const uint8_t *restrict idx,
                    uint8_t *restrict out, long n) {
    for (long i = 0; i < n; i++) out[i] = tab[idx[i]];
}
"""


@cache
def _lookup_lib() -> ctypes.CDLL | None:
    try:
        lib = ctypes.CDLL(str(build_source("lookup", LOOKUP)))
    except (RuntimeError, OSError):
        return None
    for fn in (lib.ulplab_lookup16, lib.ulplab_lookup8):
        fn.argtypes = [ctypes.c_void_p] * 3 + [ctypes.c_long]
        fn.restype = None
    return lib


def lookup(table: np.ndarray, index: np.ndarray) -> np.ndarray:
    """``table[index]`` for a uint16 table of 2^16 entries and uint16 indices, or uint8 of 2^8
    and uint8: a C loop over the two buffers (``np.take`` first widens every index to intp,
    about three times slower on 2^24 bfloat16 values); ``np.take`` where no compiler is."""
    idx = np.ascontiguousarray(index)
    lib = _lookup_lib()
    wide = table.dtype == np.uint16
    if (lib is None or table.dtype != idx.dtype or table.size != (65536 if wide else 256)
            or table.dtype not in (np.uint16, np.uint8)):
        return np.take(table, idx)
    tab = np.ascontiguousarray(table)
    out = np.empty_like(idx)
    fn = lib.ulplab_lookup16 if wide else lib.ulplab_lookup8
    fn(tab.ctypes.data, idx.ctypes.data, out.ctypes.data, idx.size)
    return out


def kernel(func: str, variant: str | None = None, rounding: str = "odd") -> NativeKernel:
    """``f(x, out=None)``: ``func``'s det kernel compiled for ``variant`` (default: the best this
    CPU runs), in ``rounding`` ("odd" or "float32": the two passes of the module docstring).
    ``x`` is read in place when it is a C-contiguous float32 array (otherwise one float32 copy
    is made); the result goes into ``out`` (a C-contiguous float32 array of x's shape; may be x
    itself) or a new array."""
    variant = variant or best_variant()
    drive = _driver(variant)
    if rounding == "odd":
        fast = _fast_entry(func, variant)
        main, below, first_fast, fix = (_entry(func, variant), *(fast or (0, None)), None)
    else:
        main, below, first_fast = _float32_passes(func, variant)
        fix = _entry(func, variant, rounding)
    args = (_address(main), _address(first_fast), below, _address(fix))

    def run(x: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        xs = np.ascontiguousarray(x, dtype=np.float32)
        if out is None:
            out = np.empty_like(xs)
        elif (out.dtype != np.float32 or out.shape != xs.shape
              or not out.flags.c_contiguous or not out.flags.writeable):
            raise UsageError("out must be a writeable C-contiguous float32 array of x's shape")
        elif out.ctypes.data != xs.ctypes.data and np.may_share_memory(out, xs):
            xs = xs.copy()  # out overlaps x shifted: a chunk's results would overwrite the
            # inputs of the next one (the driver's copy covers out = x exactly)
        drive(xs.ctypes.data, out.ctypes.data, xs.size, *args)
        return out

    run.__name__ = f"ulplab_{func}_native" + ("" if rounding == "odd" else f"_{rounding}")
    return run


__all__ = ["VARIANTS", "best_variant", "build", "build_source", "kernel", "lookup",
           "runnable_variants"]
