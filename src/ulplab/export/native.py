"""The compiled det kernels: the C export built once into the cache and called on NumPy buffers.

``kernel(func)`` returns a callable float32 array -> float32 array running the C export of
``func``'s det kernel (``ulplab export FUNC --lang c``) built with the system C compiler,
``-O3 -ffp-contract=off -fno-fast-math`` (no contraction into FMA; the kernel's own FMAs are
``fmaf`` calls, single instructions where the target has FMA). One shared library per function and
build variant, cached under ``$ULPLAB_CACHE_DIR/native`` (see ``ulplab.cache.cache_dir``),
named by a SHA-256 of the files that decide the emitted C (``source_digest``: the packages
kernels, kit and export), the compiler and the flags, so a changed kernel or compiler gets a
fresh build and a cached one is found without tracing the kernel. The build writes a temporary
file in that directory and renames it into place, then a manifest with the library's SHA-256;
a library is loaded only after its bytes match the manifest (a truncated or damaged file is
rebuilt, with one warning line, rather than loaded: ``library``).

A kernel whose ``KERNELS`` entry has a ``fast_path`` (B, impl) — the same bits as the kernel on
every input whose magnitude's encoding is below B, with the work for the others left out (sin
and cos without the Payne-Hanek reduction) — gets that impl compiled too; the driver below
calls it on every chunk of inputs that lies entirely below B, the full one elsewhere. The result
does not depend on the chunking (the tests hold both builds and the runner to the golden
hashes).

The float32 entry point runs in two passes (``_float32_passes``). Pass 1 is the kernel's
float64 first pass where it has one (``ulplab.export.fast64.FUNCTIONS``: every kernel since
2026-11-26; hand-written C in float64 arithmetic that the compiler
vectorizes, with a rounding test, proved to give the kernel's bits on all 2^32 inputs per
build variant by ``benchmarks/verify_native.py --fast64``, built with ``fast64_flags``;
``kernel(..., first_pass="float32")`` skips it), else its float32 first pass where its
``KERNELS`` entry has one (``first_pass``: exp, log, sin, cos, tanh, sigmoid, silu, gelu): a
shorter evaluation with its own error bound and rounding test
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
overlaps ``x``; the first pass called on ``SUBCHUNK`` inputs at a time, the same span of the
next chunk's inputs prefetched into the cache before each call), the
round-to-odd fast path chosen per chunk, the flagged outputs found (a
test over the chunk, then block by block where it has one) and fixed per chunk (their inputs
gathered into one buffer and run through the entry point in one call).

Threads: ``kernel``'s callable and ``lookup`` run a large buffer in one foreign call on a C
thread pool (``POOL``, ``run_pooled``: no Python and no GIL between the call and the workers;
ctypes releases the GIL for the call): the calling thread and the workers take pieces of about
a quarter of a thread's share (``pool_grain``, every boundary a multiple of ``CHUNK``, and of a
huge page of the output where it holds one a thread) from one counter until none is left.
How many threads take part is ``slice_bounds``'s slice count.
The result is elementwise, so it does not depend on the thread count (tests/test_threads.py).
How many threads: ``threads=`` where given, else ``$ULPLAB_NUM_THREADS``, else every core
(``os.cpu_count()``); a count above ``os.cpu_count()`` is accepted and capped at it, and a
buffer shorter than ``2 * MIN_PER_THREAD`` runs on the calling thread alone (``resolve_threads``).

Build variants (function multi-versioning by separate builds, chosen at run time from the CPU's
flags): ``avx512`` (-march=x86-64-v4), ``avx2`` (-march=x86-64-v3: AVX2 and FMA), ``portable``
(the compiler's default target; fmaf is then glibc's correctly rounded software FMA) and ``O0``
(no optimization, a check that the optimizer changes no bits). Every variant gives the same bits:
the tests hold each variant the machine can run to the golden hashes.
"""

from __future__ import annotations

import ctypes
import hashlib
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import wait as wait_all
from functools import cache
from pathlib import Path

import numpy as np

from ulplab.errors import ArgumentTypeError, UsageError, shown
from ulplab.kernels import registry

FLAG_NAN_BITS = 0x7FC00001
"""``ulplab.kernels.core.FLAG_NAN``'s bits (a flagged result; tests/test_native.py checks that
they agree), kept here so that loading a build imports no kernel module."""

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
def _cpuinfo(field: str) -> str:
    """The first ``field : value`` line of /proc/cpuinfo ("" where there is none)."""
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return ""
    for line in text.splitlines():
        if line.startswith(field):
            return line.split(":", 1)[1].strip()
    return ""


def cpu_flags() -> frozenset[str]:
    """The CPU's feature flags (/proc/cpuinfo: avx2, avx512f, ...); empty where unreadable."""
    return frozenset(_cpuinfo("flags").split())


def cpu_model() -> str:
    """The CPU's model name (/proc/cpuinfo), or "unknown CPU"."""
    return _cpuinfo("model name") or "unknown CPU"


ISA_LEVELS = ("avx512", "avx2", "portable")
"""What ``ULPLAB_MAX_ISA`` may name: the best build variant ulplab may choose on this machine (an
AVX-512 machine runs as an AVX2 one with ``ULPLAB_MAX_ISA=avx2``, to test what such a machine
does; the bits are the same on every variant)."""


def runnable_variants() -> list[str]:
    """The build variants this machine can run, best first (no better than ``ULPLAB_MAX_ISA``
    where it is set)."""
    x86 = platform.machine().lower() in ("x86_64", "amd64")
    flags = cpu_flags()
    cap = os.environ.get("ULPLAB_MAX_ISA", "")
    if cap and cap not in ISA_LEVELS:
        raise UsageError(f"ULPLAB_MAX_ISA={cap!r} is not an ISA level; valid: "
                         f"{', '.join(ISA_LEVELS)}")
    barred = ISA_LEVELS[:ISA_LEVELS.index(cap)] if cap else ()
    return [name for name, (_, need) in VARIANTS.items()
            if name not in barred
            and (name not in X86_ONLY or (x86 and set(need) <= flags))]


def best_variant() -> str:
    return runnable_variants()[0]


def build(func: str, variant: str | None = None, rounding: str = "float32") -> Path:
    """The shared library of ``func``'s C export for ``variant``, built if not yet cached."""
    from ulplab.export.source import c_name, check_rounding, export_source

    check_rounding(rounding)
    registry.get(func)
    return library(c_name(func, rounding)[7:], variant,
                   lambda: export_source(func, "c", rounding))


def build_source(name: str, src: str, variant: str | None = None) -> Path:
    """The shared library built from C source ``src`` for ``variant`` (cached by source hash)."""
    return library(name, variant, lambda: src, hashlib.sha256(src.encode()).hexdigest())


_SOURCE_PACKAGES = ("kernels", "kit", "export")
"""The packages whose files decide the C that ulplab emits for a kernel (its operations, the
tracer and emitter, the runner and its flags): their digest keys the cached builds."""


@cache
def source_digest() -> str:
    """SHA-256 of every file of ``_SOURCE_PACKAGES`` (paths and bytes, in sorted order): the key
    of a kernel's build without tracing the kernel (about 1 ms). Any edit there gives new
    builds; a kernel is traced and compiled only on a cache miss."""
    root = Path(__file__).resolve().parent.parent
    h = hashlib.sha256()
    for pkg in _SOURCE_PACKAGES:
        for path in sorted((root / pkg).rglob("*")):
            if path.suffix in (".py", ".json") and path.is_file():
                h.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes())
    return h.hexdigest()


def _compiler_key(cc: str) -> str:
    """The compiler as a build key: its resolved path, size and modification time (no process
    is started; the manifest keeps ``cc --version``)."""
    path = shutil.which(cc) or cc
    try:
        real = os.path.realpath(path)
        st = os.stat(real)
        return f"{real}:{st.st_size}:{st.st_mtime_ns}"
    except OSError:
        return path


def _file_sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


_REBUILT: set[str] = set()


def _verified(target: Path, manifest: Path) -> bool:
    """Whether ``target`` is the library its manifest describes (SHA-256 of its bytes). A
    library that fails (truncated, overwritten, manifest missing or damaged) is rebuilt, never
    loaded: loading a damaged shared object can crash the process."""
    if not target.is_file():
        return False
    try:
        doc = json.loads(manifest.read_text())
        ok = isinstance(doc, dict) and doc.get("sha256") == _file_sha256(target)
    except (OSError, ValueError):
        ok = False
    if not ok and target.name not in _REBUILT:
        _REBUILT.add(target.name)
        print(f"ulplab: warning: cached native library {target} failed its SHA-256 check; "
              "rebuilding it", file=sys.stderr)
    return ok


def library(name: str, variant: str | None, make_source: Callable[[], str],
            source_key: str | None = None, extra_flags: tuple[str, ...] = ()) -> Path:
    """The shared library ``name`` for ``variant``: loaded from the cache when its manifest's
    SHA-256 matches, else built from ``make_source()`` (called only then). The cache key is
    ``source_key`` (default: ``source_digest()``, the emitting packages' files), the compiler
    and the flags (``BASE_FLAGS``, the variant's and ``extra_flags``): ``cached_library``."""
    variant = variant or best_variant()
    if variant not in VARIANTS:
        raise UsageError(f"unknown build variant {variant!r}; valid: {', '.join(VARIANTS)}")
    cc = compiler()
    flags = [*BASE_FLAGS, *VARIANTS[variant][0], *extra_flags]
    return cached_library(f"{name}-{variant}", ".c", make_source, [cc, *flags], ["-lm"],
                          source_key)


def cached_library(stem: str, suffix: str, make_source: Callable[[], str],
                   command: Sequence[str], libs: Sequence[str] = (),
                   source_key: str | None = None) -> Path:
    """The shared library built by ``command SRC -o LIB libs`` from ``make_source()`` (a file
    ending in ``suffix``), cached in ``$ULPLAB_CACHE_DIR/native`` under a key made of
    ``stem``, ``source_key`` (default ``source_digest()``), the compiler (``command[0]``: its
    path, size and time) and the rest of the command. The library is written to a temporary
    file and renamed into place, then its manifest (JSON: SHA-256, source SHA-256, compiler,
    flags), so a reader never loads half a library, and one that fails its checksum is
    rebuilt. A failed build raises RuntimeError with the compiler's first 500 characters."""
    cc, flags = command[0], list(command[1:])
    parts = [stem, source_key or source_digest(), _compiler_key(cc), *flags, *libs]
    key = hashlib.sha256("\0".join(parts).encode()).hexdigest()[:24]
    target = _build_dir() / f"{stem}-{key}.so"
    manifest = target.with_suffix(".json")
    if _verified(target, manifest):
        return target
    src = make_source()
    with tempfile.TemporaryDirectory(dir=target.parent, prefix=".build-") as tmp:
        c_path, so_path = Path(tmp) / f"{stem}{suffix}", Path(tmp) / f"{stem}.so"
        c_path.write_text(src)
        res = subprocess.run([cc, *flags, str(c_path), "-o", str(so_path), *libs],
                             capture_output=True, text=True, check=False)
        if res.returncode != 0:
            raise RuntimeError(f"building {stem} failed: {res.stderr.strip()[:500]}")
        digest = _file_sha256(so_path)
        os.replace(so_path, target)
    doc = {"library": target.name, "sha256": digest,
           "source_sha256": hashlib.sha256(src.encode()).hexdigest(),
           "compiler": _compiler_id(cc), "flags": flags}
    from ulplab.files import write_text

    write_text(manifest, json.dumps(doc, indent=1) + "\n")  # atomic
    return target


_PRIVATE_DIR: list[Path] = []


def _build_dir() -> Path:
    """``$ULPLAB_CACHE_DIR/native``, created if needed; where the cache directory cannot be
    written, a directory private to this process (removed at exit), after the cache's one
    warning line: the kernels still run compiled."""
    from ulplab import cache

    folder = cache.cache_dir() / "native"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        if os.access(folder, os.W_OK | os.X_OK):
            return folder
        raise PermissionError(13, "not writable")
    except OSError as exc:
        cache.warn_unusable(folder.parent, exc)
    if not _PRIVATE_DIR:
        import atexit

        private = Path(tempfile.mkdtemp(prefix="ulplab-native-"))
        atexit.register(shutil.rmtree, private, ignore_errors=True)
        _PRIVATE_DIR.append(private)
    return _PRIVATE_DIR[0]


def buffer_function(path: Path, symbol: str) -> Callable[..., None]:
    """``symbol`` of the library at ``path``, a ``void f(const float *x, float *y, long n)``,
    callable with two buffer addresses and a count."""
    fn = getattr(ctypes.CDLL(str(path)), symbol)
    fn.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_long]
    fn.restype = None
    return fn


def array_function(path: Path, symbol: str) -> Callable[[np.ndarray], np.ndarray]:
    """``buffer_function`` as a float32 array function (one thread; x copied to a contiguous
    float32 array where it is not one), for the libraries built beside the det kernels."""
    fn = buffer_function(path, symbol)

    def run(x: np.ndarray) -> np.ndarray:
        xs = np.ascontiguousarray(x, dtype=np.float32)
        out = np.empty_like(xs)
        fn(xs.ctypes.data, out.ctypes.data, xs.size)
        return out

    return run


@cache
def _entry(func: str, variant: str, rounding: str = "float32") -> Callable[..., None]:
    from ulplab.export.source import c_name

    return buffer_function(build(func, variant, rounding), c_name(func, rounding))


CHUNK = 2048
"""Inputs per chunk of the driver: the fast path is chosen, and flags fixed, per chunk."""

BLOCK = 64
"""Inputs per block of the driver's search for flagged results."""

SUBCHUNK = 128
"""Inputs per call of the first pass within a chunk: before each call the driver prefetches the
same span of the next chunk's inputs. Until 2026-11-26 it prefetched the whole next chunk (128 cache
lines) at once, which measured slower than no prefetch at all for gelu and erf, whose gathers'
L1 misses the burst competes with, and faster for the others. 2^24 inputs, reused output, one
thread, AVX-512 build, ns an element, no prefetch / whole next chunk / sub-chunks of 512: tanh
1.30 / 0.98 / 0.85, sin 1.18 / 0.96 / 0.82, log 1.24 / 0.88 / 0.77, silu 2.54 / 1.13 / 0.96,
exp 0.70 / 0.80 / 0.72, gelu 1.29 / 1.48 / 1.43, erf 1.12 / 1.31 / 1.23. Then with a fresh
output, sub-chunks of 512 / 256 / 128 / 64 / 32, AVX-512 and AVX2 builds: tanh 1.25 / 1.18 /
1.14 / 1.15 / 1.17 and 1.74 / 1.71 / 1.66 / 1.69 / 1.74, sin 1.25 / 1.18 / 1.16 / 1.20 / 1.27,
exp 1.13 / 1.09 / 1.06 / 1.07 / 1.14 and 1.43 / 1.39 / 1.35 / 1.38 / 1.44; and at 128 gelu and
erf gain too, no prefetch / 128: gelu 1.81 / 1.73 and 2.57 / 2.53, erf 1.61 / 1.55 and 2.09 /
2.04. Prefetching two chunks ahead, half a chunk ahead, into L2 only (prefetcht1) or
non-temporally was slower for tanh, sin and exp (within 2% either way for gelu and erf), and so
was prefetching the output for writing."""

SUBCHUNK_AMD = 512
"""``SUBCHUNK`` on AMD processors (the driver asks ``__builtin_cpu_is("amd")`` once): on a 2-core
AMD EPYC (CPU family 26, AVX-512 build, 2026-11-26), 2^24 inputs, one thread, ns an element
into a fresh / a reused output, two alternating runs each, sub-chunks of 128 against 512: exp
0.625-0.655 / 0.515-0.556 against 0.548-0.565 / 0.378-0.400, gelu 1.667-1.729 / 1.470-1.542
against 1.620-1.703 / 1.374-1.453, erf 1.515-1.579 / 1.336-1.352 against 1.513-1.536 /
1.273-1.296, log, sin, cos, tanh, sigmoid, silu and softplus within 2%. (Whole chunks of 2048:
exp 0.378 into the reused output, the others as with 128.) The figures above for Intel's
machines keep 128 there.
Tried on the same VM and not kept (2026-11-27): each chunk computed into a buffer in L1 and
written out by streaming (non-temporal) stores, which skip reading the output's lines before
writing them. 2^24 inputs into a reused output, ns an element, two alternating runs, plain
stores against streaming: one thread exp 0.250-0.257 against 0.278-0.285, log 0.273-0.276
against 0.295-0.307, tanh 0.364-0.368 against 0.387-0.400; two threads exp 0.167-0.185 against
0.143-0.173, log 0.184-0.186 against 0.158-0.195, tanh 0.196-0.206 against 0.204-0.223. The
one-thread call, which the single-thread targets time, lost 8-11%."""

FLAG_BITS = FLAG_NAN_BITS
"""A flagged result, either sign (``ulplab.kernels.core``)."""

THREADS_ENV = "ULPLAB_NUM_THREADS"
"""The environment variable that sets the default thread count of the det kernels."""

MIN_PER_THREAD = 1 << 15
"""The fewest elements a thread is given: a buffer shorter than twice this (2^16) runs on the
calling thread alone. On the C pool (``run_pooled``) a job on two threads costs a few
microseconds more than one thread's call while the worker spins; measured on the 2-core VM
(AVX-512 build, reused output, medians of 300 calls, down to 2048 elements a thread allowed
for the measurement), one thread / two: exp at 2^14 elements 13.9 / 12.5 us, 2^15 22.8 /
16.7, 2^16 40.8 / 25.5, 2^17 77.8 / 43.6; gelu at 2^15 45.7 / 28.1. A worker asleep (idle for
more than ``POOL_SPIN_NS``) takes a wake-up of tens of microseconds, hence the margin. Until
2026-11-26 the slices ran on a Python pool whose hand-off cost about 80 us a worker, and this
was 2^16."""

MIN_PER_THREAD_LOOKUP = 1 << 17
"""The same for ``lookup`` (about 0.3 ns an element; each thread also reads the 128 KiB padded
table into its own cache): one thread / two, same run, bfloat16 indices: 2^17 51.0 / 52.8 us,
2^18 94.1 / 73.8 us."""


_CPU_COUNT = os.cpu_count() or 1
"""``os.cpu_count()`` read once: on Linux each call reads /sys/devices/system/cpu/online, a cost
of several microseconds on every det call that ``resolve_threads`` paid."""


def cpu_count() -> int:
    """The cores the thread count is capped at (``os.cpu_count()`` at import)."""
    return _CPU_COUNT


def check_threads(threads: object, name: str = "threads") -> int:
    """``threads`` as an int when it is a positive whole number (not a bool), else an error
    naming ``name``: ``ArgumentTypeError`` (a ``UsageError`` and a ``TypeError``) for another
    type, ``UsageError`` for zero or a negative number."""
    if isinstance(threads, bool) or not isinstance(threads, int | np.integer):
        raise ArgumentTypeError(f"{name} must be a positive whole number of threads; got "
                                f"{shown(threads)}")
    if threads < 1:
        raise UsageError(f"{name} must be a positive whole number of threads; got {threads}")
    return int(threads)


def env_threads() -> int | None:
    """``$ULPLAB_NUM_THREADS`` as a positive int, or None where it is unset or empty; any other
    value is a ``UsageError`` naming the variable."""
    text = os.environ.get(THREADS_ENV, "").strip()
    if not text:
        return None
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise UsageError(f"{THREADS_ENV}={os.environ[THREADS_ENV]!r}: expected a positive whole "
                         "number of threads")
    return value


def resolve_threads(threads: int | None = None, default: int | None = None) -> int:
    """The thread count to use: ``threads`` where given (checked by ``check_threads``), else
    ``$ULPLAB_NUM_THREADS``, else ``default`` (PyTorch tensors: torch's intra-op thread count),
    else every core; capped at ``cpu_count()``."""
    if threads is not None:
        wanted = check_threads(threads)
    else:
        wanted = env_threads() or (check_threads(default, "default") if default is not None
                                   else cpu_count())
    return min(wanted, cpu_count())


def slice_bounds(n: int, threads: int, min_per_thread: int = MIN_PER_THREAD,
                 align: int = CHUNK) -> list[tuple[int, int]]:
    """[start, stop) of each thread's slice of ``n`` elements: contiguous, in order, together
    exactly 0..n; at most ``threads`` of them and at most ``n // min_per_thread`` (at least
    one, possibly empty when n = 0); every boundary but n a multiple of ``align`` (so the
    driver's chunks are those of one thread), the slices as equal as that allows. Pure Python
    integers: nothing is truncated for n of 2^31 elements or more (tests/test_threads.py)."""
    count = max(1, min(threads, n // max(min_per_thread, 1)))
    if count == 1:
        return [(0, n)]
    units = -(-n // align)  # ceil(n / align)
    per = -(-units // count) * align
    return [(lo, min(lo + per, n)) for lo in range(0, n, per)]


_POOL: list[tuple[int, ThreadPoolExecutor]] = []
_POOL_LOCK = [threading.Lock()]


def _pool(workers: int) -> ThreadPoolExecutor:
    """The process's thread pool, with at least ``workers`` threads (a larger one replaces it
    when more are asked for: the old one finishes its tasks and ends)."""
    with _POOL_LOCK[0]:
        if not _POOL or _POOL[0][0] < workers:
            if _POOL:
                _POOL.pop()[1].shutdown(wait=False)
            _POOL.append((workers, ThreadPoolExecutor(max_workers=workers,
                                                      thread_name_prefix="ulplab-det")))
        return _POOL[0][1]


def _forget_pool_after_fork() -> None:
    """A forked child has none of the parent's pool threads: it starts its own pool when it
    needs one (a pool inherited from the parent would accept tasks and never run them)."""
    _POOL.clear()
    _POOL_LOCK[0] = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_pool_after_fork)


def run_sliced(work: Callable[[int, int], object], n: int, threads: int,
               min_per_thread: int = MIN_PER_THREAD, align: int = CHUNK) -> int:
    """``work(start, stop)`` over the slices of ``slice_bounds(n, threads, ...)``: the first on
    the calling thread, the others on the pool, in parallel where ``work`` releases the GIL (a
    ctypes call does). Returns once every slice is done (re-raising the first error), with the
    number of slices."""
    bounds = slice_bounds(n, threads, min_per_thread, align)
    if len(bounds) == 1:
        work(*bounds[0])
        return 1
    pool = _pool(len(bounds) - 1)
    futures: list[Future[object]] = [pool.submit(work, lo, hi) for lo, hi in bounds[1:]]
    try:
        work(*bounds[0])
    finally:
        wait_all(futures)  # the slices write into the caller's buffers: never return early
    for future in futures:
        future.result()
    return len(bounds)


@cache
def _pool_lib() -> ctypes.CDLL | None:
    """The library of ``POOL`` (None where it cannot be built or loaded: ``run_pooled`` then
    runs the slices on ``run_sliced``'s Python pool)."""
    try:
        lib = ctypes.CDLL(str(library("pool", "portable", lambda: POOL,
                                      hashlib.sha256(POOL.encode()).hexdigest(), ("-pthread",))))
    except (RuntimeError, OSError):
        return None
    lib.ulplab_pool_drive.argtypes = [ctypes.c_void_p] * 3 + [ctypes.c_long] * 3 + [
        ctypes.c_void_p] * 2 + [ctypes.c_uint32, ctypes.c_void_p]
    lib.ulplab_pool_lookup.argtypes = [ctypes.c_void_p] * 4 + [ctypes.c_long] * 4
    for fn in (lib.ulplab_pool_drive, lib.ulplab_pool_lookup, lib.ulplab_pool_workers):
        fn.restype = ctypes.c_long
    return lib


POOL_PIECES = 4
"""Pieces per thread of a pooled job (``run_pooled``): enough that a helper who starts late (a
wake-up from sleep took 45-50 us on the 2-core VM) or a slowed core leaves its share to the
others, few enough that each piece stays long against the cost of taking it."""


HUGE_PAGE = 2 << 20
"""x86-64's transparent huge page (2 MiB), which NumPy asks the kernel for on its large arrays.
Tried on the 2-core EPYC VM and not kept (2026-11-27): faulting a fresh output in on the
calling thread first (``madvise(MADV_POPULATE_WRITE)``: 3.5 ms for 64 MiB), then computing on
two threads; 2^24 float32, medians of 15: exp 5.24-5.42 ms a call as now, 6.86-6.96 so; tanh
6.06-6.10 and 6.90-7.02. (That VM sometimes faults fresh pages more slowly on two threads than
on one: a fresh 32 MiB filled in 2.3 ms on one thread, 3.0 on two, 0.76 reused.)"""


def pool_grain(n: int, threads: int, align: int = CHUNK, item_bytes: int = 0) -> int:
    """Elements per piece of a pooled job of ``n`` elements on ``threads`` threads: about
    ``n / (threads * POOL_PIECES)``, rounded up to a multiple of ``align`` (so that the driver's
    chunks are those of one call), at least ``align``. Where the output (``item_bytes`` an
    element) holds a ``HUGE_PAGE`` a thread or more, a piece is also a whole number of huge
    pages of it: the first write into a fresh huge page faults it in, and Linux clears a new
    2 MiB page for every thread that faults on it at the same time before it keeps one (so
    pieces of a quarter page, as bfloat16 output on 16 threads had, could clear each page up to
    four times). Measured on the lent 16-core Xeon, 2^24 elements, 16 threads, medians of 10
    alternating rounds, whole pages / quarter-thread pieces: bfloat16 det.gelu 1.65 / 1.76 ms,
    then 1.65 / 1.65 (rounds of one setting spread by 10%); float32 det.exp 2.36 / 2.42, then
    2.45 / 2.47 ms: no worse, and the duplicate clearing gone by construction."""
    if item_bytes > 0 and n * item_bytes >= threads * HUGE_PAGE:
        align = max(align, -(-HUGE_PAGE // item_bytes // align) * align)
    per = -(-n // max(threads * POOL_PIECES, 1))
    return max(align, -(-per // align) * align)


def run_pooled(one: Callable[[int, int], object], pooled: Callable[[int, int], object] | None,
               n: int, threads: int, min_per_thread: int = MIN_PER_THREAD,
               align: int = CHUNK, item_bytes: int = 0) -> int:
    """``n`` elements on up to ``threads`` threads (as many as ``slice_bounds`` gives slices:
    fewer where ``n`` is short of ``min_per_thread`` a thread). One: ``one(0, n)`` on the calling
    thread. Several: ``pooled(grain, count)``, a call into ``POOL``'s library that runs the job
    in pieces of ``pool_grain(n, count, align, item_bytes)`` elements (``item_bytes``: an output
    element's size) on the calling thread and ``count - 1`` workers and returns when every
    piece is done; where that library is missing (``pooled`` None), ``one(lo, hi)`` per slice
    on ``run_sliced``'s Python pool. Returns the thread count.
    Why C: handing slices to the Python pool and waiting for them costs a thread wake-up and a
    turn of the GIL per worker, one after another: a job of two empty slices took 87 us on the
    2-core VM against 1 us on one thread; on the C pool the workers wake in parallel and never
    take the GIL."""
    bounds = slice_bounds(n, threads, min_per_thread, align)
    if len(bounds) == 1:
        one(0, n)
        return 1
    if pooled is None:
        return run_sliced(one, n, threads, min_per_thread, align)
    pooled(pool_grain(n, len(bounds), align, item_bytes), len(bounds))
    return len(bounds)


DRIVER = f"""
#include <stdint.h>
#include <string.h>
typedef void (*ul_kernel)(const float *restrict, float *restrict, long);
/* out[i] = the kernel's result for x[i]: main (or fast, on a chunk whose magnitudes are all
   encoded below `below`) over each chunk, then fix on the results main/fast flagged. The
   input chunk is copied first only when out overlaps x; flags are looked for by one
   vectorized test over the chunk, then only in a chunk that has one in blocks of {BLOCK} (a
   vectorized test per block, a scalar gather only in a block that has one: the test per
   block alone, on every chunk, cost about 0.3 ns per element, a third of exp's float64 pass,
   on the AVX-512 machine). */
#if defined(__x86_64__) || defined(__i386__)
/* inputs per call of the first pass: {SUBCHUNK_AMD} on AMD processors, {SUBCHUNK} elsewhere
   (SUBCHUNK and SUBCHUNK_AMD in ulplab.export.native have the figures) */
static long ul_subchunk(void) {{
    static int chosen = 0;
    int s = __atomic_load_n(&chosen, __ATOMIC_RELAXED);
    if (!s) {{
        __builtin_cpu_init();
        s = __builtin_cpu_is("amd") ? {SUBCHUNK_AMD} : {SUBCHUNK};
        __atomic_store_n(&chosen, s, __ATOMIC_RELAXED);
    }}
    return s;
}}
#else
static long ul_subchunk(void) {{ return {SUBCHUNK}; }}
#endif

typedef long (*ul_counted_kernel)(const float *restrict, float *restrict, long);
/* `counted`: main_k is a ul_counted_kernel, which returns how many of its results it left
   flagged (or a negative number where it did not count them): a chunk where every call
   returned 0 is not looked at again (the look cost log's float32 lanes 0.04 ns an element of
   0.31, reading back what the pass had just stored) */
static inline void ul_drive(const float *x, float *out, long n, ul_kernel main_k,
                            ul_kernel fast_k, uint32_t below, ul_kernel fix_k, int counted) {{
    const long sub = ul_subchunk();
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
        /* the next chunk's inputs are fetched into the cache while this one is computed,
           `sub` at a time before each call of the first pass (a hint: no
           result depends on it, and the first passes are elementwise, so the calls give the
           bits of one call over the chunk); the hardware prefetchers alone left exp's float64
           pass waiting on memory, 1.9 ns per element on 2^24 inputs against 1.2 with it
           (AVX-512 Xeon, reused output, thread CPU time), and the whole next chunk at once
           (until 2026-11-26) cost 0.1 to 0.2 ns an element more than a sub-chunk at a time
           (SUBCHUNK in ulplab.export.native has the figures) */
        long left = 0;  /* what the counted calls left flagged; negative: not counted */
        for (long q = 0; q < m; q += sub) {{
            const long qe = q + sub < m ? q + sub : m;
            for (long j = s + {CHUNK} + q; j < s + {CHUNK} + qe && j < n; j += 16)
                __builtin_prefetch(x + j);
            if (counted && k == main_k) {{
                const long c = ((ul_counted_kernel)(void (*)(void))k)(xs + q, ys + q, qe - q);
                left = left < 0 || c < 0 ? -1 : left + c;
            }} else {{
                k(xs + q, ys + q, qe - q);
                left = -1;
            }}
        }}
        if (!fix_k || !left) continue;
        uint32_t flagged = 0;  /* one vectorized pass over the chunk; flags are rare */
        for (long i = 0; i < m; i++) {{
            uint32_t b; memcpy(&b, ys + i, 4);
            flagged |= (uint32_t)((b & 0x7FFFFFFFu) == 0x{FLAG_BITS:08X}u);
        }}
        if (!flagged) continue;
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

void ulplab_drive(const float *x, float *out, long n, ul_kernel main_k, ul_kernel fast_k,
                  uint32_t below, ul_kernel fix_k) {{
    ul_drive(x, out, n, main_k, fast_k, below, fix_k, 0);
}}

/* the same, main_k a ul_counted_kernel (passed as a ul_kernel: the pool's jobs hold one type) */
void ulplab_drive_counted(const float *x, float *out, long n, ul_kernel main_k,
                          ul_kernel fast_k, uint32_t below, ul_kernel fix_k) {{
    ul_drive(x, out, n, main_k, fast_k, below, fix_k, 1);
}}
"""


POOL_SPIN_NS = 50_000
"""How long a pool worker spins on its signal after a job, and the caller on the count of pieces
done, before sleeping on a futex (nanoseconds). On the 2-core VM a wake-up from sleep costs
45-50 us: exp on 2^16 elements and 2 threads took 26 us a call back to back and 57-63 us after
an idle spell of 0.2-2 ms (39-45 us on one thread)."""

POOL = rf"""/* ulplab's C thread pool (ulplab.export.native.POOL): the calling thread and up to
   T - 1 workers take the pieces of a job (`grain` elements each, the last shorter) from a shared
   counter until none is left, with no Python and no GIL between the call and the workers. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>
#ifdef __linux__
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

typedef void (*ul_kernel)(const float *restrict, float *restrict, long);
typedef void (*ul_drive_fn)(const float *, float *, long, ul_kernel, ul_kernel, uint32_t,
                            ul_kernel);
typedef void (*ul_lookup_fn)(const void *, const void *, void *, long);

#define UL_MAX_WORKERS 1024
#define UL_SPIN_NS {POOL_SPIN_NS}L
#define UL_MAX_PIECES ((1L << 24) - 1)

struct ul_job {{
    long n, grain;           /* piece i is [i grain, min((i + 1) grain, n)) */
    ul_drive_fn drive;       /* a kernel's job: drive(x + lo, out + lo, hi - lo, ...) */
    const float *x;
    float *out;
    ul_kernel main_k, fast_k, fix_k;
    uint32_t below;
    ul_lookup_fn lookup;     /* else a lookup's: lookup(table, index + lo, out + lo, hi - lo) */
    const void *table;
    const char *index;
    char *result;
    long size;
}};

/* What a waiter sleeps on: a count bumped by the waker, and whether the waiter is asleep (the
   waker's system call only then). The waiter sets `asleep` before its last look at `count`,
   the waker bumps `count` before it looks at `asleep` (both sequentially consistent), so one
   of the two always sees the other. */
struct ul_signal {{
    _Atomic uint32_t count;
    _Atomic uint32_t asleep;
    char pad[56];
}};

static pthread_mutex_t ul_call = PTHREAD_MUTEX_INITIALIZER;  /* one job at a time */
static struct ul_job ul_job;        /* written before ul_next, read after a piece is taken */
/* The pieces: bits 48-63 a job number, 24-47 the job's piece count, 0-23 the next piece. A
   piece is taken by a compare-and-swap that leaves the job number and count as they are, so a
   thread that read the word of a finished job takes nothing from a later one by mistake: what
   it takes is a piece the word it swapped says is free. */
static _Atomic uint64_t ul_next;
static struct ul_signal ul_done;    /* pieces done in this job; the caller waits on it */
static struct ul_signal ul_go[UL_MAX_WORKERS + 1];  /* worker i's: a job to help with */
static uint32_t ul_seen0[UL_MAX_WORKERS + 1];  /* ul_go[i].count when worker i was started */
static long ul_workers;             /* workers 1..ul_workers started */
static pthread_once_t ul_once = PTHREAD_ONCE_INIT;

static void ul_pause(void) {{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}}

static long ul_now_ns(void) {{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000000000L + t.tv_nsec;
}}

#ifdef __linux__
static void ul_sleep(struct ul_signal *s, uint32_t seen) {{
    syscall(SYS_futex, (uint32_t *)&s->count, FUTEX_WAIT_PRIVATE, seen, NULL, NULL, 0);
}}
static void ul_wake(struct ul_signal *s) {{
    syscall(SYS_futex, (uint32_t *)&s->count, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}}
#else
static pthread_mutex_t ul_sleep_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ul_sleep_cond = PTHREAD_COND_INITIALIZER;
static void ul_sleep(struct ul_signal *s, uint32_t seen) {{
    pthread_mutex_lock(&ul_sleep_lock);
    while (atomic_load(&s->count) == seen) pthread_cond_wait(&ul_sleep_cond, &ul_sleep_lock);
    pthread_mutex_unlock(&ul_sleep_lock);
}}
static void ul_wake(struct ul_signal *s) {{
    (void)s;
    pthread_mutex_lock(&ul_sleep_lock);
    pthread_cond_broadcast(&ul_sleep_cond);
    pthread_mutex_unlock(&ul_sleep_lock);
}}
#endif

/* s->count once it differs from seen: spinning for up to UL_SPIN_NS, then asleep. */
static uint32_t ul_wait(struct ul_signal *s, uint32_t seen) {{
    uint32_t now;
    const long until = ul_now_ns() + UL_SPIN_NS;
    for (int i = 1; ; i++) {{
        now = atomic_load_explicit(&s->count, memory_order_acquire);
        if (now != seen) return now;
        if ((i & 63) == 0 && ul_now_ns() > until) break;
        ul_pause();
    }}
    for (;;) {{
        atomic_store(&s->asleep, 1);
        now = atomic_load(&s->count);
        if (now != seen) break;
        ul_sleep(s, seen);
    }}
    atomic_store_explicit(&s->asleep, 0, memory_order_relaxed);
    return now;
}}

/* Bump s->count (what was written before is seen by the waiter) and wake its waiter if it
   sleeps. */
static void ul_signal(struct ul_signal *s) {{
    atomic_fetch_add(&s->count, 1);
    if (atomic_load(&s->asleep)) ul_wake(s);
}}

/* Pieces taken and run until none is left; returns how many this thread ran. */
static long ul_help(void) {{
    long ran = 0;
    uint64_t word = atomic_load(&ul_next);
    for (;;) {{
        const uint64_t piece = word & 0xFFFFFFu, pieces = (word >> 24) & 0xFFFFFFu;
        if (piece >= pieces) return ran;
        if (!atomic_compare_exchange_weak(&ul_next, &word, word + 1)) continue;
        /* piece taken: the job cannot end before it is done, so ul_job is this job's */
        const struct ul_job *job = &ul_job;
        const long lo = (long)piece * job->grain;
        const long m = (job->n - lo < job->grain ? job->n - lo : job->grain);
        if (job->drive)
            job->drive(job->x + lo, job->out + lo, m, job->main_k, job->fast_k, job->below,
                       job->fix_k);
        else
            job->lookup(job->table, job->index + lo * job->size,
                        job->result + lo * job->size, m);
        ran++;
        const uint32_t done = atomic_fetch_add(&ul_done.count, 1) + 1;
        if (done == (uint32_t)pieces && atomic_load(&ul_done.asleep)) ul_wake(&ul_done);
        word = atomic_load(&ul_next);
    }}
}}

static void *ul_worker(void *arg) {{
    const long i = (long)(intptr_t)arg;
    uint32_t seen = ul_seen0[i];  /* a job signalled before this thread first ran is taken */
    for (;;) {{
        seen = ul_wait(&ul_go[i], seen);
        ul_help();
    }}
    return NULL;
}}

/* fork: the child has none of the workers (it starts its own); no job runs during a fork. */
static void ul_prepare(void) {{ pthread_mutex_lock(&ul_call); }}
static void ul_parent(void) {{ pthread_mutex_unlock(&ul_call); }}
static void ul_child(void) {{
    ul_workers = 0;
    for (long i = 0; i <= UL_MAX_WORKERS; i++) atomic_store(&ul_go[i].asleep, 0);
    atomic_store(&ul_done.asleep, 0);
    pthread_mutex_init(&ul_call, NULL);
#ifndef __linux__
    pthread_mutex_init(&ul_sleep_lock, NULL);
    pthread_cond_init(&ul_sleep_cond, NULL);
#endif
}}
static void ul_init(void) {{ pthread_atfork(ul_prepare, ul_parent, ul_child); }}

/* Workers 1..helpers started where they are not yet (fewer where a thread cannot be made or
   past UL_MAX_WORKERS). ul_call held. */
static void ul_grow(long helpers) {{
    if (helpers <= ul_workers) return;
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);  /* the workers take no signals */
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    while (ul_workers < helpers && ul_workers < UL_MAX_WORKERS) {{
        const long i = ul_workers + 1;
        pthread_t t;
        ul_seen0[i] = atomic_load(&ul_go[i].count);
        if (pthread_create(&t, &attr, ul_worker, (void *)(intptr_t)i) != 0) break;
#ifdef __linux__
        pthread_setname_np(t, "ulplab-det");
#endif
        ul_workers = i;
    }}
    pthread_attr_destroy(&attr);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}}

/* The job on the calling thread and threads - 1 workers; returns the pieces the caller ran. */
static long ul_dispatch(struct ul_job *job, long threads) {{
    if (job->n <= 0) return 0;
    long grain = job->grain < 1 ? 1 : job->grain;
    if ((job->n - 1) / grain + 1 > UL_MAX_PIECES) grain = (job->n - 1) / UL_MAX_PIECES + 1;
    job->grain = grain;
    const uint64_t pieces = (uint64_t)((job->n - 1) / grain + 1);
    pthread_once(&ul_once, ul_init);
    pthread_mutex_lock(&ul_call);
    ul_grow(threads - 1);
    const long helpers = threads - 1 < ul_workers ? threads - 1 : ul_workers;
    ul_job = *job;
    atomic_store(&ul_done.count, 0);
    const uint64_t number = (atomic_load(&ul_next) >> 48) + 1;
    atomic_store(&ul_next, (number << 48) | (pieces << 24));
    for (long i = 1; i <= helpers; i++) ul_signal(&ul_go[i]);
    const long ran = ul_help();
    uint32_t done = atomic_load(&ul_done.count);
    while (done < (uint32_t)pieces) done = ul_wait(&ul_done, done);
    pthread_mutex_unlock(&ul_call);
    return ran;
}}

long ulplab_pool_drive(ul_drive_fn drive, const float *x, float *out, long n, long grain,
                       long threads, ul_kernel main_k, ul_kernel fast_k, uint32_t below,
                       ul_kernel fix_k) {{
    struct ul_job job = {{n, grain, drive, x, out, main_k, fast_k, fix_k, below,
                         0, 0, 0, 0, 0}};
    return ul_dispatch(&job, threads);
}}

long ulplab_pool_lookup(ul_lookup_fn lookup, const void *table, const void *index,
                        void *result, long size, long n, long grain, long threads) {{
    struct ul_job job = {{n, grain, 0, 0, 0, 0, 0, 0, 0, lookup, table, index, result, size}};
    return ul_dispatch(&job, threads);
}}

long ulplab_pool_workers(void) {{ return ul_workers; }}
"""
"""The C thread pool of ``run_pooled`` (its own library, built once). A job is cut into pieces of
``grain`` elements that the calling thread and its helpers take from one atomic counter until
none is left, so a helper that wakes late, or a core that another process slows, leaves its
share to the others instead of holding the job up (until 2026-11-26, later, each thread had one
fixed slice). Each worker waits on a signal of its own (a count and a flag: asleep or not),
spinning on it for ``POOL_SPIN_NS`` before sleeping on a futex (a condition variable off Linux),
so a job wakes only the workers it asks for, with a system call only for one that sleeps; the
caller waits for the count of pieces done the same way. One job at a time (a mutex: concurrent
callers take turns). A piece is taken by a compare-and-swap on a word that names the job, so a
late helper takes nothing from a job that has ended. The workers block every signal; a forked
child starts its own workers (``pthread_atfork``)."""


@cache
def _driver(variant: str, counted: bool = False) -> Callable[..., None]:
    """``ulplab_drive`` (or, ``counted``, ``ulplab_drive_counted``: for a first pass that
    returns how many results it left flagged, ``fast64.COUNTED``) built for ``variant``."""
    lib = ctypes.CDLL(str(build_source("driver", DRIVER, variant)))
    fn = lib.ulplab_drive_counted if counted else lib.ulplab_drive
    fn.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_long, ctypes.c_void_p,
                   ctypes.c_void_p, ctypes.c_uint32, ctypes.c_void_p]
    fn.restype = None
    return fn


def _traced(name: str, make_kernel: Callable[[], Callable[[np.ndarray], np.ndarray]],
            head: Callable[[], str], variant: str) -> Callable[..., None]:
    """The C function ``name`` of a kernel built from ``make_kernel()`` (traced only when the
    build is not cached)."""
    spec = (name, make_kernel, head)
    return buffer_function(library(name[7:], variant, lambda: _traced_source(spec)), name)


def _address(fn: Callable[..., None] | None) -> int | None:
    return None if fn is None else ctypes.cast(fn, ctypes.c_void_p).value


def _in_fast_mode(func: str, impl: Callable[[np.ndarray], np.ndarray]) -> Callable[[np.ndarray],
                                                                                  np.ndarray]:
    from ulplab.kernels.core import rounding

    bound = registry.get(func).entry()["bound"]

    def run(x: np.ndarray) -> np.ndarray:
        with rounding("fast", bound):
            return impl(x)
    return run


FIRST_PASSES = ("float64", "float32")
"""The float32 runner's first passes: ``float64``, the kernel's float64 first pass
(``ulplab.export.fast64``) where it has one, else its float32 one; ``float32``, always the
float32 one (the kernel's ``first_pass``, or the kernel in the ``fast`` rounding mode)."""


def check_first_pass(first_pass: str) -> str:
    if first_pass not in FIRST_PASSES:
        raise UsageError(f"unknown first pass {first_pass!r}; valid: {', '.join(FIRST_PASSES)}")
    return first_pass


FAST64_FLAGS: dict[str, tuple[str, ...]] = {
    "avx512": ("-mprefer-vector-width=512", "-mtune=icelake-server"),
    "avx2": ("-mtune=haswell",),
}
"""Tuning flags of the float64 first passes' builds, beside the variant's: instruction choice
only, the arithmetic is the same IEEE operations (no contraction, no fast-math). The default
tuning of -march=x86-64-v3/v4 uses 256-bit vectors and emulates the table gathers with scalar
loads; with these the tables are read by vgatherqpd and AVX-512 builds use 512-bit vectors
(measured on an AVX-512 Xeon, exp's float64 pass on 2048 floats in cache: 0.91 ns per element
with -march=x86-64-v4 alone, 0.59 with these; AVX2 build 1.27 and 1.10)."""


GATHER_FLAG = "-mgather"
"""Added to the x86 float64 passes' flags where the compiler takes it (``fast64_flags``): gcc
13.2 and later turn table gathers off in their Intel tunings (the Downfall/GDS microcode makes
vgather slower) and load each table entry on its own instead, which is slower still for these
loops. Measured on the lent machine's 16-core Xeon (gcc 13.3), each float64 pass on 4,096
inputs in [-4, 4] in cache, one thread, without and with it: exp 1.26 and 0.62 ns per element,
tanh 1.25 and 0.91, gelu 3.3 and 2.3, log 1.50 and 1.24. gcc 12 has no such option and gathers
with -mtune=icelake-server already."""


@cache
def _accepts(cc: str, flag: str) -> bool:
    """Whether the compiler ``cc`` compiles an empty C file with ``flag`` (and no warning)."""
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "probe.c"
        src.write_text("int ulplab_probe;\n")
        res = subprocess.run([cc, flag, "-Werror", "-c", str(src), "-o", str(Path(tmp) / "p.o")],
                             capture_output=True, text=True, check=False)
    return res.returncode == 0


def fast64_flags(variant: str) -> tuple[str, ...]:
    """``FAST64_FLAGS[variant]``, and ``GATHER_FLAG`` for an x86 variant where the compiler
    takes it."""
    flags = FAST64_FLAGS.get(variant, ())
    if variant in X86_ONLY and _accepts(compiler(), GATHER_FLAG):
        flags = (*flags, GATHER_FLAG)
    return flags


def _fast64_library(func: str, variant: str) -> Path:
    """The shared library of ``func``'s float64 first pass (``ulplab.export.fast64``), built
    with ``fast64_flags``."""
    from ulplab.export import fast64

    return library(f"{func}_fast64", variant, lambda: fast64.source(func),
                   extra_flags=fast64_flags(variant))


@cache
def _fast64(func: str, variant: str) -> Callable[..., None]:
    """The C function of ``func``'s float64 first pass."""
    from ulplab.export import fast64

    return buffer_function(_fast64_library(func, variant), fast64.symbol(func))


def set_fast64_tables(func: str, variant: str, permutes: int) -> int:
    """For a pass whose ``variant`` build holds two loops (``fast64.two_loops``: the avx512
    builds of ``fast64.AVX512_PATHS``, the avx2 builds of ``fast64.AVX2_PATHS``): from now on,
    in this process, run the loop the vendor AMD gets (``permutes`` = 1: the tables read by
    permutes, or tanh's rational function, ``fast64.amd_loop``), gcc's loop with gathers (0),
    or the default (-1: the processor's vendor chooses, except that log's and softplus's
    avx512 builds run their float32 lanes everywhere, ``fast64.amd_everywhere``); returns the
    choice in effect
    (1 or 0). The bits are the same either way (both are proved); the proofs and tests sweep
    both."""
    from ulplab.export import fast64

    if (not fast64.two_loops(func, variant) or type(permutes) is not int
            or permutes not in (-1, 0, 1)):
        valid = ", ".join([*(f"{f} on avx512" for f in fast64.AVX512_PATHS),
                           *(f"{f} on avx2" for f in fast64.AVX2_PATHS)])
        raise UsageError(f"no choice of tables for {func!r} ({variant}, {permutes!r}); "
                         f"valid: {valid}; -1, 0 or 1")
    fn = getattr(ctypes.CDLL(str(_fast64_library(func, variant))), f"ulplab_{func}_fast64_tables")
    fn.argtypes = [ctypes.c_int]
    fn.restype = ctypes.c_int
    return int(fn(permutes))


PassSpec = tuple[str, Callable[[], Callable[[np.ndarray], np.ndarray]], Callable[[], str]]


def _float32_pass_specs(func: str) -> tuple[list[PassSpec], int]:
    """The traced C functions of ``func``'s float32 first pass, as (name, kernel maker,
    header maker), and the bound below which the second one (the fast path) runs: the
    kernel's ``first_pass`` where it has one, else the kernel and its fast path in the ``fast``
    rounding mode with the kernel's bound."""
    from ulplab.export.source import c_name, header

    k = registry.get(func)
    if k.first_pass:
        return [(c_name(func) + "_first_pass", lambda: k.entry()["first_pass"],
                 lambda: header(func, "c") + "\nFirst pass of the compiled float32 runner "
                 "(ulplab.export.native): KERNELS' first_pass.")], 0  # large inputs: pass 2
    name = c_name(func) + "_fast_mode"

    def head() -> str:
        return header(func, "c") + ("\nFirst pass of the compiled float32 runner "
                                    "(ulplab.export.native): the fast rounding mode.")

    specs: list[PassSpec] = [(name, lambda: _in_fast_mode(func, k.entry()["impl"]), head)]
    below = k.fast_path_below
    if below is not None:
        specs.append((name + "_below", lambda: _in_fast_mode(func, k.entry()["fast_path"][1]),
                      lambda: head() + f"\nFast path: inputs with |x| encoded below "
                      f"0x{below:08x} only."))
    return specs, below or 0


def _traced_source(spec: PassSpec) -> str:
    from ulplab.export.emit_c import emit_c
    from ulplab.export.trace import trace

    name, make_kernel, head = spec
    return emit_c(trace(make_kernel()), name, head(), dialect="c")


@cache
def float32_pass_sha256(func: str) -> str:
    """The SHA-256 of the C source of ``func``'s float32 first pass (its functions' sources,
    joined by NUL): what a proof of the runner with that pass names (the runner proofs of
    ``benchmarks/verify_native.py --runner``). Traces the kernel: seconds."""
    specs, _ = _float32_pass_specs(func)
    return hashlib.sha256("\0".join(_traced_source(s) for s in specs).encode()).hexdigest()


@cache
def _float32_passes(func: str, variant: str, first_pass: str = "float64") -> tuple[
        Callable[..., None], int, Callable[..., None] | None]:
    """(main, below, fast) of the float32 entry point's first pass: the kernel's float64 first
    pass where ``first_pass`` is ``float64`` and it has one (``ulplab.export.fast64``); else
    its float32 first pass (``_float32_pass_specs``)."""
    from ulplab.export import fast64

    check_first_pass(first_pass)
    if first_pass == "float64" and func in fast64.FUNCTIONS:
        return _fast64(func, variant), 0, None
    specs, below = _float32_pass_specs(func)
    built = [buffer_function(library(spec[0][7:], variant, lambda spec=spec: _traced_source(spec)),
                             spec[0]) for spec in specs]
    return built[0], below, built[1] if len(built) > 1 else None


@cache
def _fast_entry(func: str, variant: str) -> tuple[int, Callable[..., None]] | None:
    """(B, C function) of the round-to-odd fast path of ``func`` for inputs below B, or None if
    it has none (the float32 runner's are in ``_float32_passes``)."""
    from ulplab.export.source import c_name, header

    k = registry.get(func)
    below = k.fast_path_below
    if below is None:
        return None
    return below, _traced(c_name(func, "odd") + "_fast", lambda: k.entry()["fast_path"][1],
                          lambda: header(func, "c", "odd") + "\nFast path: inputs with |x| "
                          f"encoded below 0x{below:08x} only.", variant)


LOOKUP = """
#include <stdint.h>
/* out[i] = tab[idx[i]]: the exact lookup of det's narrow formats (2^16 or 2^8 entries). Kept
   scalar: gcc's vectorized form of this gather (16-bit loads assembled into vectors) took twice
   as long (2^24 bfloat16 values, one thread: 20.3 ms against 10.3, AVX-512 build). */
#if defined(__GNUC__) && !defined(__clang__)
#define UL_SCALAR __attribute__((optimize("no-tree-vectorize")))
#else
#define UL_SCALAR
#endif
UL_SCALAR void ulplab_lookup16(const uint16_t *restrict tab, const uint16_t *restrict idx,
                     uint16_t *restrict out, long n) {
    for (long i = 0; i < n; i++) out[i] = tab[idx[i]];
}
UL_SCALAR void ulplab_lookup8(const uint8_t *restrict tab, const uint8_t *restrict idx,
                    uint8_t *restrict out, long n) {
    for (long i = 0; i < n; i++) out[i] = tab[idx[i]];
}
/* The same for 16-bit entries by the CPU's 32-bit gather (AVX2: 8 a vector, AVX-512: 16): each
   lane reads tab[idx] and tab[idx + 1] as one little-endian 32-bit word and keeps its low half,
   so `tab` must hold 2^16 + 1 entries (the caller pads the table); the scalar loop elsewhere,
   on AMD processors (ul_lookup_gathers) and for the tail. One load a lane instead of the
   scalar loop's two (index and entry).
   Measured on the project's 2-core Intel Xeon VM (AVX-512), one thread, bfloat16 indices of
   uniform values in [-8, 8], ns an element, scalar against this: AVX-512 build 0.44-0.51
   against 0.27-0.30 on 2^24 indices, 0.27 against 0.19 on 2^16 (in cache); AVX2 build 0.53
   against 0.31 on 2^24, 0.28 against 0.19-0.20 on 2^16 (with one gather an iteration and a
   16-byte store, 0.51-0.55 and 0.29: two and a 32-byte store are what made it pay; on AVX-512
   two gained nothing). */
#if defined(__GNUC__) && (defined(__AVX2__) || defined(__AVX512F__))
#include <immintrin.h>
/* the gathers on Intel processors; AMD's are slower than the scalar loop here (2-core AMD EPYC
   VM, family 26, AVX-512 build, one thread, ns an element, scalar against gathers: bfloat16
   indices of uniform values in [-8, 8] 0.25 against 0.35 on 2^24, 0.26 against 0.37 on 2^16;
   random indices 0.38-0.42 against 0.39-0.40) */
static int ul_lookup_chosen = -1;
/* 1: gathers, 0: the scalar loop, -1: the processor's choice again; returns the choice now in
   effect (the tests run both) */
int ulplab_lookup_gathers(int gathers) {
    if (gathers < 0) {
        __builtin_cpu_init();
        gathers = !__builtin_cpu_is("amd");
    }
    __atomic_store_n(&ul_lookup_chosen, gathers, __ATOMIC_RELAXED);
    return gathers;
}
static int ul_lookup_gathers(void) {
    const int g = __atomic_load_n(&ul_lookup_chosen, __ATOMIC_RELAXED);
    return g < 0 ? ulplab_lookup_gathers(-1) : g;
}
#endif
UL_SCALAR void ulplab_lookup16_padded(const uint16_t *restrict tab,
                                      const uint16_t *restrict idx, uint16_t *restrict out,
                                      long n) {
    long i = 0;
#if defined(__GNUC__) && defined(__AVX512F__) && defined(__AVX512BW__)
    if (ul_lookup_gathers())
    for (; i + 16 <= n; i += 16) {
        const __m512i ix = _mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)(idx + i)));
        const __m512i v = _mm512_i32gather_epi32(ix, (const void *)tab, 2);
        _mm256_storeu_si256((__m256i *)(out + i), _mm512_cvtepi32_epi16(v));
    }
#elif defined(__GNUC__) && defined(__AVX2__)
    /* two gathers an iteration, packed into one 32-byte store (packus works within 128-bit
       lanes: the permute puts the four 64-bit quarters back in order) */
    const __m256i low = _mm256_set1_epi32(0xFFFF);
    if (ul_lookup_gathers())
    for (; i + 16 <= n; i += 16) {
        const __m256i i0 = _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(idx + i)));
        const __m256i i1 = _mm256_cvtepu16_epi32(
            _mm_loadu_si128((const __m128i *)(idx + i + 8)));
        const __m256i v0 = _mm256_and_si256(_mm256_i32gather_epi32((const int *)tab, i0, 2),
                                            low);
        const __m256i v1 = _mm256_and_si256(_mm256_i32gather_epi32((const int *)tab, i1, 2),
                                            low);
        _mm256_storeu_si256((__m256i *)(out + i),
                            _mm256_permute4x64_epi64(_mm256_packus_epi32(v0, v1), 0xD8));
    }
#endif
    for (; i < n; i++) out[i] = tab[idx[i]];
}
"""


@cache
def _lookup_lib() -> ctypes.CDLL | None:
    try:
        lib = ctypes.CDLL(str(build_source("lookup", LOOKUP)))
    except (RuntimeError, OSError):
        return None
    for fn in (lib.ulplab_lookup16, lib.ulplab_lookup8, lib.ulplab_lookup16_padded):
        fn.argtypes = [ctypes.c_void_p] * 3 + [ctypes.c_long]
        fn.restype = None
    return lib


LOOKUP_PADDED_FROM = 1 << 16
"""From this many 16-bit indices on, ``lookup`` copies the table once into one of 2^16 + 1
entries and runs ``ulplab_lookup16_padded`` (the CPU's 32-bit gather where the build has AVX2
or AVX-512 and the processor is not an AMD one, ``set_lookup_gathers``; the copy, 128 KiB,
costs a few microseconds)."""


def set_lookup_gathers(gathers: int) -> int | None:
    """From now on, in this process, run ``ulplab_lookup16_padded``'s gathers (1), its scalar
    loop (0) or the processor's choice (-1, the default: the scalar loop on AMD processors,
    whose gathers were slower there, the gathers elsewhere); returns the choice in effect, or
    None where the lookup library has no gathers (no AVX2 build, or no compiler). The same
    results either way (tested)."""
    if type(gathers) is not int or gathers not in (-1, 0, 1):
        raise UsageError(f"no lookup choice {gathers!r}; valid: -1, 0 or 1")
    lib = _lookup_lib()
    fn = getattr(lib, "ulplab_lookup_gathers", None) if lib is not None else None
    if fn is None:
        return None
    fn.argtypes = [ctypes.c_int]
    fn.restype = ctypes.c_int
    return int(fn(gathers))


def lookup(table: np.ndarray, index: np.ndarray, threads: int | None = None) -> np.ndarray:
    """``table[index]`` (index's shape) for a uint16 table of 2^16 entries and uint16 indices,
    or uint8 of 2^8 and uint8: a C loop over the two buffers (``np.take`` first widens every
    index to intp, about three times slower on 2^24 bfloat16 values; from
    ``LOOKUP_PADDED_FROM`` 16-bit indices on, the gather loop on a padded copy of the table),
    on ``threads`` threads
    (``resolve_threads``; one below ``2 * MIN_PER_THREAD_LOOKUP`` indices); ``np.take`` where
    no compiler is. A strided, misaligned or non-native-order index is copied once."""
    count = resolve_threads(threads)
    idx = c_contiguous(index)
    lib = _lookup_lib()
    wide = table.dtype == np.uint16
    if (lib is None or table.dtype != idx.dtype or table.size != (65536 if wide else 256)
            or table.dtype not in (np.uint16, np.uint8)):
        return np.take(table, idx)
    tab = c_contiguous(table)
    out = np.empty_like(idx)
    fn = lib.ulplab_lookup16 if wide else lib.ulplab_lookup8
    if wide and idx.size >= LOOKUP_PADDED_FROM:  # the gather loop reads one entry past each
        tab = np.concatenate([tab, tab[:1]])
        fn = lib.ulplab_lookup16_padded
    size = idx.itemsize
    t_at, i_at, o_at = data_address(tab), data_address(idx), data_address(out)

    def work(lo: int, hi: int) -> None:
        fn(t_at, i_at + lo * size, o_at + lo * size, hi - lo)

    pool = _pool_lib()

    def pooled(grain: int, used: int) -> None:
        pool.ulplab_pool_lookup(_address(fn), t_at, i_at, o_at, size, idx.size, grain, used)

    run_pooled(work, pooled if pool else None, idx.size, count, MIN_PER_THREAD_LOOKUP,
               item_bytes=size)
    return out


_FLOAT32 = np.dtype(np.float32)


def data_address(a: np.ndarray) -> int:
    """The address of the first element of the C-contiguous array ``a``: through the buffer
    protocol where ``a`` is writeable and not empty (0.23 us a call on the 2-core EPYC VM),
    else ``a.ctypes.data`` (0.77 us: it builds a helper object each time). A det call reads
    two of them."""
    if a.flags.writeable and a.size:
        return ctypes.addressof(ctypes.c_char.from_buffer(a))
    return a.ctypes.data


def c_contiguous(x: object) -> np.ndarray:
    """``x`` as an aligned, C-contiguous array of its dtype: ``x`` itself when it is one (two
    attribute tests; ``np.require`` costs about 2 us a call even when it copies nothing), else
    ``np.require``'s copy (a non-native byte order is kept: the caller reads the bits)."""
    if type(x) is np.ndarray and x.flags.carray:
        return x
    return np.require(np.asarray(x), requirements=["C", "A"])


def float32_input(x: object) -> np.ndarray:
    """``x`` as an aligned, C-contiguous, native-order float32 array of its own shape (0-d
    stays 0-d): ``x`` itself when it is one, else one copy (strided, transposed, misaligned,
    big-endian or another dtype). An ndarray that already is one is returned after three
    attribute tests (``np.require`` costs microseconds per call even when it copies nothing)."""
    if type(x) is np.ndarray and x.dtype == _FLOAT32 and x.flags.carray:
        return x
    return np.require(np.asarray(x), np.float32, ["C", "A"])


def float32_output(xs: np.ndarray, out: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """(input, output) for a kernel writing ``xs``'s results into ``out``: a new array where
    ``out`` is None; ``out`` checked (a ``UsageError`` unless it is a writeable, aligned,
    C-contiguous float32 array of xs's shape); and ``xs`` copied where ``out`` overlaps it
    other than exactly (shifted: a slice's or chunk's results would overwrite inputs still to
    be read; ``out`` = ``xs`` exactly is safe, each slice and chunk reading its inputs before
    writing them)."""
    if out is None:
        return xs, np.empty_like(xs)
    if (not isinstance(out, np.ndarray) or out.dtype != np.float32 or out.shape != xs.shape
            or not out.flags.c_contiguous or not out.flags.aligned or not out.flags.writeable):
        raise UsageError("out must be a writeable, aligned, C-contiguous float32 array of x's "
                         "shape")
    if np.may_share_memory(out, xs) and out.ctypes.data != xs.ctypes.data:
        xs = xs.copy()
    return xs, out


def kernel(func: str, variant: str | None = None, rounding: str = "float32",
           first_pass: str = "float64") -> NativeKernel:
    """``f(x, out=None, threads=None)``: ``func``'s det kernel compiled for ``variant`` (default:
    the best this CPU runs), in ``rounding`` ("odd" or "float32": the two passes of the module
    docstring). ``x`` is read in place when it is an aligned C-contiguous native float32 array
    (otherwise one float32 copy is made: ``float32_input``); the result goes into ``out`` (a
    writeable, aligned, C-contiguous float32 array of x's shape; may be x itself, or overlap it)
    or a new array of x's shape. ``threads``: see ``resolve_threads`` (default: every core, or
    ``$ULPLAB_NUM_THREADS``; one thread below ``2 * MIN_PER_THREAD`` elements); the bits do not
    depend on it. ``first_pass`` (float32 rounding only): ``FIRST_PASSES``; the bits do not
    depend on it either."""
    from ulplab.export.source import check_rounding

    check_rounding(rounding)
    check_first_pass(first_pass)
    from ulplab.export import fast64

    registry.get(func)
    variant = variant or best_variant()
    drive = _driver(variant, rounding == "float32" and first_pass == "float64"
                    and func in fast64.COUNTED)
    if rounding == "odd":
        fast = _fast_entry(func, variant)
        main, below, first_fast, fix = (_entry(func, variant, "odd"), *(fast or (0, None)),
                                        None)
    else:
        main, below, first_fast = _float32_passes(func, variant, first_pass)
        fix = _entry(func, variant, rounding)
    args = (_address(main), _address(first_fast), below, _address(fix))
    pool, drive_at = _pool_lib(), _address(drive)

    def run(x: np.ndarray, out: np.ndarray | None = None,
            threads: int | None = None) -> np.ndarray:
        count = resolve_threads(threads)
        xs, out = float32_output(float32_input(x), out)
        x_at, out_at = data_address(xs), data_address(out)
        if xs.size < 2 * MIN_PER_THREAD:  # run_pooled's one-thread case for short x, direct
            drive(x_at, out_at, xs.size, *args)
            return out

        def work(lo: int, hi: int) -> None:
            drive(x_at + 4 * lo, out_at + 4 * lo, hi - lo, *args)

        def pooled(grain: int, used: int) -> None:
            pool.ulplab_pool_drive(drive_at, x_at, out_at, xs.size, grain, used, *args)

        run_pooled(work, pooled if pool else None, xs.size, count, MIN_PER_THREAD,
                   item_bytes=4)
        return out

    run.__name__ = f"ulplab_{func}_native" + ("" if rounding == "float32" else f"_{rounding}")
    return run


__all__ = [
    "CHUNK",
    "FAST64_FLAGS",
    "FIRST_PASSES",
    "GATHER_FLAG",
    "HUGE_PAGE",
    "LOOKUP_PADDED_FROM",
    "MIN_PER_THREAD",
    "MIN_PER_THREAD_LOOKUP",
    "POOL",
    "POOL_PIECES",
    "POOL_SPIN_NS",
    "SUBCHUNK",
    "SUBCHUNK_AMD",
    "THREADS_ENV",
    "VARIANTS",
    "array_function",
    "best_variant",
    "buffer_function",
    "build",
    "build_source",
    "c_contiguous",
    "cached_library",
    "check_first_pass",
    "check_threads",
    "cpu_count",
    "data_address",
    "env_threads",
    "fast64_flags",
    "float32_input",
    "float32_output",
    "kernel",
    "lookup",
    "pool_grain",
    "resolve_threads",
    "run_pooled",
    "run_sliced",
    "runnable_variants",
    "set_fast64_tables",
    "set_lookup_gathers",
    "slice_bounds",
]
