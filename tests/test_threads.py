"""det on several threads (ulplab.export.native's slices and pool): the bits do not depend on the
thread count (float32 both roundings, the narrow formats' lookup, softmax, NumPy and PyTorch);
the slicing arithmetic holds past 2^31 elements; the foreign call releases the GIL; bad thread
counts are one-line errors naming ``threads`` or ``ULPLAB_NUM_THREADS``."""

import ctypes
import itertools
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from ulplab import det
from ulplab.errors import ArgumentTypeError, UsageError
from ulplab.export import native

CC = shutil.which("cc") or shutil.which("gcc")
pytestmark = pytest.mark.skipif(CC is None, reason="no C compiler on this machine")

N = (1 << 20) + 12_345  # 2^20+ elements, not a multiple of CHUNK
THREADS = (1, 2, 3, 7)


def random_float32(n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32).view(np.float32)


def u32(a) -> np.ndarray:
    return np.asarray(a).view(np.uint32)


@pytest.fixture
def eight_cores(monkeypatch):
    """A machine of 8 cores as the thread cap sees it, so that 3 and 7 threads make 3 and 7
    slices on any host; ULPLAB_NUM_THREADS unset. Yields the list of slice counts of every
    ``run_pooled`` (the C pool: kernels, lookup) and ``run_sliced`` call (the Python pool:
    softmax's rows), a call of one inside the other counted once."""
    monkeypatch.setattr(native, "cpu_count", lambda: 8)
    monkeypatch.delenv(native.THREADS_ENV, raising=False)
    counts: list[int] = []
    depth = [0]

    def counting(real):
        def run(*args, **kwargs):
            depth[0] += 1
            try:
                slices = real(*args, **kwargs)
            finally:
                depth[0] -= 1
            if depth[0] == 0:
                counts.append(slices)
            return slices
        return run

    monkeypatch.setattr(native, "run_sliced", counting(native.run_sliced))
    monkeypatch.setattr(native, "run_pooled", counting(native.run_pooled))
    return counts


# --- the slicing arithmetic --------------------------------------------------------------------

SIZES = [0, 1, native.CHUNK - 1, 2 * native.MIN_PER_THREAD - 1, 2 * native.MIN_PER_THREAD,
         N, 10**7 + 3, 2**31 - 1, 2**31, 2**31 + 5, 2**32 + 2049, 3 * 2**33 + 7, 2**40 + 1]


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("threads", [1, 2, 3, 7, 16, 64])
def test_slices_cover_the_buffer_in_aligned_balanced_pieces(n, threads):
    """No allocation: the bounds for up to 2^40 elements are exact Python integers, contiguous,
    together 0..n, each boundary a multiple of CHUNK, no more slices than threads or than
    n // MIN_PER_THREAD, one below 2 * MIN_PER_THREAD, lengths within one CHUNK of each
    other but for the last (shorter)."""
    bounds = native.slice_bounds(n, threads)
    assert bounds[0][0] == 0 and bounds[-1][1] == n
    assert all(type(v) is int for pair in bounds for v in pair)
    assert all(a[1] == b[0] for a, b in itertools.pairwise(bounds))
    assert all(lo < hi for lo, hi in bounds) or bounds == [(0, 0)]
    assert all(hi % native.CHUNK == 0 for _, hi in bounds[:-1])
    assert 1 <= len(bounds) <= max(1, min(threads, n // native.MIN_PER_THREAD))
    if n < 2 * native.MIN_PER_THREAD or threads == 1:
        assert bounds == [(0, n)]
    else:
        want = min(threads, n // native.MIN_PER_THREAD)
        assert len(bounds) >= want - 1  # rounding to CHUNK may merge the last two
        lengths = [hi - lo for lo, hi in bounds]
        assert max(lengths) - min(lengths[:-1] or lengths) <= native.CHUNK
        assert lengths[-1] <= lengths[0]


@pytest.mark.parametrize("n", [2**31 + 5, 2**33 + 3])
def test_run_sliced_passes_offsets_past_2_31_untruncated(n, eight_cores):
    """run_sliced hands every slice of a buffer of more than 2^31 elements to its worker as
    exact integers (no array is allocated: the worker records its bounds), and the byte
    offsets the kernel computes from them survive the C driver's ``long`` (64-bit) argument."""
    seen: list[tuple[int, int]] = []
    lock = threading.Lock()

    def work(lo: int, hi: int) -> None:
        with lock:
            seen.append((lo, hi))

    slices = native.run_sliced(work, n, 7)
    assert slices == 7 and sorted(seen) == native.slice_bounds(n, 7)
    assert sum(hi - lo for lo, hi in seen) == n and max(hi for _, hi in seen) == n
    assert ctypes.sizeof(ctypes.c_long) == 8
    drive = native._driver(native.best_variant())
    assert drive.argtypes[2] is ctypes.c_long  # n
    assert ctypes.c_long(n).value == n and ctypes.c_void_p(4 * n + 2**40).value == 4 * n + 2**40


@pytest.mark.parametrize("n", [2 * native.MIN_PER_THREAD, N, 10**7 + 3, 2**31 + 5, 2**33 + 3])
@pytest.mark.parametrize("threads", [2, 3, 7])
def test_run_pooled_gives_the_c_pool_aligned_pieces_past_2_31(n, threads, eight_cores):
    """run_pooled asks the C pool for as many threads as ``slice_bounds`` has slices, and pieces
    of ``pool_grain`` elements: a multiple of CHUNK, about POOL_PIECES a thread, exact Python
    integers past 2^31 (the pool's ``long`` is 64-bit); without running a kernel."""
    asked: list[tuple[int, int]] = []
    count = native.run_pooled(lambda lo, hi: None, lambda g, t: asked.append((g, t)), n, threads)
    assert count == len(native.slice_bounds(n, threads)) > 1
    (grain, t), = asked
    assert t == count and grain % native.CHUNK == 0 and type(grain) is int
    pieces = -(-n // grain)
    assert count * native.POOL_PIECES - count < pieces <= count * native.POOL_PIECES or (
        grain == native.CHUNK)
    assert ctypes.sizeof(ctypes.c_long) == 8


@pytest.mark.parametrize(("n", "threads", "item_bytes", "grain"), [
    (1 << 24, 16, 4, 1 << 19),    # float32 out: 64 MiB on 16 threads, 2 huge pages a piece
    (1 << 24, 16, 2, 1 << 20),    # bfloat16 lookup: one huge page a piece
    (1 << 25, 16, 1, 1 << 21),    # fp8 lookup, 32 MiB
    (1 << 24, 16, 1, 1 << 18),    # fp8, 16 MiB: under a huge page a thread, as before
    (1 << 24, 2, 4, 1 << 21),     # 2 threads: POOL_PIECES a thread already spans 4 pages
    (1 << 22, 16, 2, 1 << 16),    # 8 MiB on 16 threads: under a huge page a thread, as before
    (1 << 24, 16, 0, 1 << 18),    # no element size given: as before
])
def test_pieces_are_whole_huge_pages_of_the_output(n, threads, item_bytes, grain):
    """Where the output holds a huge page a thread, every piece is a whole number of them (two
    threads faulting on one fresh huge page each clear 2 MiB), else POOL_PIECES a thread."""
    assert native.pool_grain(n, threads, native.CHUNK, item_bytes) == grain
    asked: list[tuple[int, int]] = []
    native.run_pooled(lambda lo, hi: None, lambda g, t: asked.append((g, t)), n, threads,
                      item_bytes=item_bytes)
    assert asked == [(grain, threads)]
    if item_bytes and n * item_bytes >= threads * native.HUGE_PAGE:
        assert grain * item_bytes % native.HUGE_PAGE == 0


def test_a_failing_slice_raises_after_every_slice_is_done(eight_cores):
    done: list[int] = []

    def work(lo: int, hi: int) -> None:
        if lo == 0:
            raise RuntimeError("slice 0 failed")
        time.sleep(0.05)
        done.append(lo)

    with pytest.raises(RuntimeError, match="slice 0 failed"):
        native.run_sliced(work, 8 * native.MIN_PER_THREAD, 4)
    assert len(done) == 3  # the other slices had finished before the error came back


# --- thread counts: defaults, caps and errors ----------------------------------------------------

def test_thread_count_defaults_and_cap(monkeypatch):
    monkeypatch.setattr(native, "cpu_count", lambda: 4)
    monkeypatch.delenv(native.THREADS_ENV, raising=False)
    assert native.resolve_threads() == 4 and native.resolve_threads(2) == 2
    assert native.resolve_threads(1000) == 4  # more than the cores: accepted, capped
    assert native.resolve_threads(np.int64(3)) == 3
    assert native.resolve_threads(None, default=2) == 2  # torch's count
    monkeypatch.setenv(native.THREADS_ENV, "3")
    assert native.resolve_threads() == 3 and native.resolve_threads(None, default=2) == 3
    assert native.resolve_threads(1) == 1  # threads= wins over the variable
    monkeypatch.setenv(native.THREADS_ENV, " 99 ")
    assert native.resolve_threads() == 4
    monkeypatch.setenv(native.THREADS_ENV, "")
    assert native.resolve_threads() == 4


BAD_THREADS = [(0, UsageError), (-1, UsageError), (True, ArgumentTypeError),
               (False, ArgumentTypeError), (1.5, ArgumentTypeError), (2.0, ArgumentTypeError),
               ("2", ArgumentTypeError), ([2], ArgumentTypeError)]


@pytest.mark.parametrize(("bad", "error"), BAD_THREADS)
def test_bad_threads_are_usage_errors_naming_threads(bad, error):
    x = np.ones(10, np.float32)
    kern = det.float32_kernel("exp")
    calls = [lambda: det.exp(x, threads=bad), lambda: det.apply("sin", x, threads=bad),
             lambda: det.sincos(x, threads=bad), lambda: kern(x, threads=bad),
             lambda: det.softmax(x, threads=bad),
             lambda: det.gelu(x.astype(ml_dtypes.bfloat16), threads=bad),
             lambda: native.lookup(np.arange(256, dtype=np.uint8), np.ones(3, np.uint8), bad)]
    for call in calls:
        with pytest.raises(error, match=r"^threads must be a positive whole number of threads"):
            call()
    assert issubclass(error, UsageError)


@pytest.mark.parametrize("value", ["0", "-2", "abc", "1.5", "true", "2 threads"])
def test_a_bad_environment_variable_is_a_usage_error_naming_it(value, monkeypatch):
    monkeypatch.setenv(native.THREADS_ENV, value)
    x = np.ones(10, np.float32)
    for call in (lambda: det.exp(x), lambda: det.float32_kernel("exp")(x),
                 lambda: det.softmax(x)):
        with pytest.raises(UsageError, match=f"^ULPLAB_NUM_THREADS={value!r}: expected a "
                                             "positive whole number of threads$"):
            call()
    assert det.exp(x, threads=1).dtype == np.float32  # threads= does not read the variable


# --- the bits do not depend on the thread count ---------------------------------------------------

@pytest.mark.parametrize("rounding", det.ROUNDINGS)
@pytest.mark.parametrize("func", ["exp", "log", "sin", "gelu", "tanh"])
def test_float32_bits_do_not_depend_on_threads(func, rounding, eight_cores):
    """2^20 + 12345 random bit patterns (odd size), threads 1, 2, 3, 7 (7 slices really run:
    the cap is patched to 8 cores), a new output, a given ``out``, and ``out is x``."""
    x = random_float32(N, 21)
    kern = det.float32_kernel(func, rounding)
    want = u32(kern(x, threads=1))
    for threads in THREADS:
        del eight_cores[:]
        got = kern(x, threads=threads)
        assert eight_cores == [threads] and np.array_equal(u32(got), want), threads
        out = np.full_like(x, np.nan)
        assert kern(x, out, threads=threads) is out and np.array_equal(u32(out), want)
        y = x.copy()
        assert kern(y, y, threads=threads) is y and np.array_equal(u32(y), want), threads
        assert np.array_equal(u32(det.apply(func, x, rounding, threads=threads)), want)


@pytest.mark.parametrize("fmt", ["bfloat16", "float16", "float8_e4m3fn"])
def test_narrow_lookup_bits_do_not_depend_on_threads(fmt, eight_cores):
    """The exact lookup of the narrow formats, split over threads (the C gather over slices):
    NumPy arrays and PyTorch CPU tensors."""
    torch = pytest.importorskip("torch")
    dtype = np.dtype(getattr(ml_dtypes, fmt, fmt))
    carrier = np.uint16 if dtype.itemsize == 2 else np.uint8
    n = 4 * native.MIN_PER_THREAD_LOOKUP + 333
    x = np.random.default_rng(8).integers(0, 256**dtype.itemsize, n, dtype=np.uint64)
    x = x.astype(carrier).view(dtype)
    want = det.silu(x, threads=1).view(carrier)
    for threads in THREADS:
        del eight_cores[:]
        assert np.array_equal(det.silu(x, threads=threads).view(carrier), want), threads
        assert eight_cores == [min(threads, 4)]  # at most n // MIN_PER_THREAD_LOOKUP slices
    tdtype = getattr(torch, fmt, None)
    if isinstance(tdtype, torch.dtype):
        t = torch.from_numpy(x.view(np.int16 if carrier is np.uint16 else np.uint8).copy())
        t = t.view(tdtype)
        for threads in THREADS:
            got = det.silu(t, threads=threads)
            assert got.dtype == tdtype
            got_bits = got.view(torch.int16 if carrier is np.uint16 else torch.uint8).numpy()
            assert np.array_equal(got_bits.view(carrier), want), threads


def test_torch_tensors_use_torchs_thread_count(eight_cores):
    """A float32 PyTorch tensor runs on torch.get_num_threads() threads unless threads= or
    ULPLAB_NUM_THREADS says otherwise; the bits are the NumPy array's."""
    torch = pytest.importorskip("torch")
    x = random_float32(N, 5)
    want = u32(det.exp(x, threads=1))
    before = torch.get_num_threads()
    try:
        for torch_threads in (1, 3):
            torch.set_num_threads(torch_threads)
            del eight_cores[:]
            got = det.exp(torch.from_numpy(x.copy()))
            assert eight_cores == [torch_threads] and np.array_equal(u32(got.numpy()), want)
        del eight_cores[:]
        det.exp(torch.from_numpy(x.copy()), threads=2)
        assert eight_cores == [2]
    finally:
        torch.set_num_threads(before)


def test_numpy_arrays_use_every_core_or_the_variable(eight_cores, monkeypatch):
    x = random_float32(N, 6)
    det.exp(x)
    assert eight_cores == [8]
    monkeypatch.setenv(native.THREADS_ENV, "3")
    det.exp(x)
    assert eight_cores == [8, 3]
    # below the threshold: one thread, the calling one, without the pool (the kernel calls
    # the driver itself: run_pooled and its closures cost 0.5 us of a 4 us call)
    det.exp(x[: 2 * native.MIN_PER_THREAD - 1])
    assert eight_cores == [8, 3]
    det.apply("gelu", x[:100].astype(ml_dtypes.bfloat16))  # the lookup: through run_pooled
    assert eight_cores == [8, 3, 1]


def test_softmax_bits_do_not_depend_on_threads(eight_cores):
    """Rows split over threads (many rows) or the exp alone (one long row): the reduction order
    within a row is fixed, so the bits are those of one thread, in NumPy and PyTorch."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(12)
    for shape in ((4096, 67), (3, 50_001), (1, 300_001)):
        x = (rng.standard_normal(shape) * 10).astype(np.float32)
        want = u32(det.softmax(x, threads=1))
        for threads in (2, 3, 7):
            del eight_cores[:]
            assert np.array_equal(u32(det.softmax(x, threads=threads)), want), (shape, threads)
            assert max(eight_cores) > 1  # something ran on several threads
            got = det.softmax(torch.from_numpy(x.copy()), threads=threads)
            assert np.array_equal(u32(got.numpy()), want), (shape, threads)


# --- the GIL, the pool, fork ---------------------------------------------------------------------

def _longest_stall(call) -> tuple[float, float]:
    """(seconds ``call()`` took in this thread, the longest time within it during which a Python
    thread counting in a loop made no progress)."""
    stamps: list[float] = []
    stop = threading.Event()

    def count() -> None:
        while not stop.is_set():
            for _ in range(1000):
                pass
            stamps.append(time.perf_counter())

    ticker = threading.Thread(target=count)
    ticker.start()
    try:
        while len(stamps) < 10:  # the counting thread is running
            time.sleep(0.001)
        t0 = time.perf_counter()
        call()
        t1 = time.perf_counter()
    finally:
        stop.set()
        ticker.join()
    points = [t0, *(t for t in stamps if t0 < t < t1), t1]
    return t1 - t0, max(b - a for a, b in itertools.pairwise(points))


def test_the_foreign_call_releases_the_gil():
    """A Python thread keeps counting while long det calls (one thread, 2^24 elements, ten
    calls: exp's pass takes about 4 ms a call since its float32 lanes, less than the
    interpreter's switch interval, so one call alone can end before the other thread is
    scheduled) run: it never stalls for half the time. A foreign call that holds the GIL
    (``usleep`` through ``ctypes.PyDLL``) for as long stalls it for most of the call: the check
    tells the two apart."""
    x = np.random.default_rng(2).uniform(-80, 80, 1 << 24).astype(np.float32)
    kern = det.float32_kernel("exp")
    kern(x, threads=1)
    usleep = ctypes.PyDLL(None).usleep
    elapsed, stall = _longest_stall(lambda: [kern(x, threads=1) for _ in range(10)])
    assert stall < elapsed / 2, (stall, elapsed)
    held, held_stall = _longest_stall(lambda: usleep(int(elapsed * 1e6)))
    assert held_stall > held / 2, (held_stall, held)


def test_slices_run_on_the_c_pool(eight_cores):
    """Three slices: two C workers started (named ulplab-det where Linux names threads), no
    Python thread of the old pool."""
    lib = native._pool_lib()
    assert lib is not None
    x = random_float32(N, 3)
    det.exp(x, threads=3)
    assert eight_cores == [3] and lib.ulplab_pool_workers() >= 2
    tasks = Path("/proc/self/task")
    if tasks.is_dir():
        names = [(t / "comm").read_text().strip() for t in tasks.iterdir()]
        assert names.count("ulplab-det") >= 2, names


def test_without_the_c_pool_the_python_pool_runs_the_slices(eight_cores, monkeypatch):
    """Where the pool's library cannot be built, kernels and lookup run their slices on the
    Python pool: the same bits, the same slice counts."""
    x = random_float32(N, 31)
    want = u32(native.kernel("tanh")(x, threads=1))
    idx = x.view(np.uint16)[: 4 * native.MIN_PER_THREAD_LOOKUP]
    table = np.arange(1 << 16, dtype=np.uint16)[::-1].copy()
    monkeypatch.setattr(native, "_pool_lib", lambda: None)
    kern = native.kernel("tanh")
    for threads in (2, 3):
        del eight_cores[:]
        assert np.array_equal(u32(kern(x, threads=threads)), want)
        assert np.array_equal(native.lookup(table, idx, threads), table[idx])
        assert eight_cores == [threads, threads]


def test_the_pools_condition_variable_branch(eight_cores, monkeypatch):
    """The pool's branch for systems without futexes (a condition variable), built here with
    ``__linux__`` undefined: the same bits on 2 to 8 threads, with workers awake and asleep."""
    import hashlib

    path = native.library("pool-condvar", "portable", lambda: native.POOL,
                          hashlib.sha256(native.POOL.encode()).hexdigest(),
                          ("-pthread", "-U__linux__"))
    lib = ctypes.CDLL(str(path))
    real = native._pool_lib()
    for name in ("ulplab_pool_drive", "ulplab_pool_lookup", "ulplab_pool_workers"):
        getattr(lib, name).argtypes = getattr(real, name).argtypes
        getattr(lib, name).restype = ctypes.c_long
    monkeypatch.setattr(native, "_pool_lib", lambda: lib)
    kern = native.kernel("exp")
    x = random_float32(N, 41)
    want = u32(kern(x, threads=1))
    for threads in (2, 3, 8, 2):
        for idle in (0.0, 0.002):  # 2 ms: past the spin, the workers sleep
            time.sleep(idle)
            assert np.array_equal(u32(kern(x, threads=threads)), want), (threads, idle)
    assert lib.ulplab_pool_workers() == 7


_WAKE_PROBE = """
import sys, threading, time
import numpy as np
from ulplab.export import native
native.cpu_count = lambda: 8
kern = native.kernel("exp")
x = np.random.default_rng(1).uniform(-90, 90, 1 << 20).astype(np.float32)
want = kern(x, threads=1).view(np.uint32)
sizes = [2 * native.MIN_PER_THREAD, 5 * native.MIN_PER_THREAD + 7, 1 << 20]
def caller(seed, bad):
    rng = np.random.default_rng(seed)
    for i in range(60):
        n = sizes[i % 3]
        threads = int(rng.integers(2, 9))
        if i % 4 == 0:  # idle past the spin: the workers sleep and must be woken
            time.sleep(native.POOL_SPIN_NS * 4e-9)
        if not np.array_equal(kern(x[:n], threads=threads).view(np.uint32), want[:n]):
            bad.append((seed, i))
bad = []
callers = [threading.Thread(target=caller, args=(s, bad)) for s in range(4)]
for t in callers:
    t.start()
for t in callers:
    t.join()
print("bad", len(bad), "workers", native._pool_lib().ulplab_pool_workers())
"""


def test_concurrent_callers_and_sleeping_workers_neither_hang_nor_mix_jobs():
    """Four Python threads call one kernel 60 times each, 2 to 8 threads a call, sizes from two
    slices to 2^20 elements, every fourth call after an idle spell longer than the workers'
    spin (so they sleep and are woken): every result is one thread's bits, and it all ends (a
    lost wake-up would hang: the probe runs in a child with a time limit)."""
    res = subprocess.run([sys.executable, "-c", _WAKE_PROBE], capture_output=True, text=True,
                         timeout=300)
    assert res.returncode == 0, res.stderr[-2000:]
    assert res.stdout.split() == ["bad", "0", "workers", "7"], res.stdout


_FORK_PROBE = """
import os, sys
import numpy as np
from ulplab.export import native
native.cpu_count = lambda: 4
kern = native.kernel("exp")
x = np.linspace(-80, 80, 1 << 18, dtype=np.float32)
want = kern(x, threads=1).view(np.uint32)
assert np.array_equal(kern(x, threads=4).view(np.uint32), want)  # the parent's pool exists
tab = np.arange(1 << 16, dtype=np.uint16)[::-1].copy()
idx = x.view(np.uint16)[: 1 << 19]
assert np.array_equal(native.lookup(tab, idx, 4), tab[idx])
pid = os.fork()
if pid == 0:
    ok = np.array_equal(kern(x, threads=4).view(np.uint32), want)
    ok = ok and np.array_equal(native.lookup(tab, idx, 4), tab[idx])
    os._exit(0 if ok else 3)
_, status = os.waitpid(pid, 0)
print("child", os.waitstatus_to_exitcode(status))
"""


@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="no fork on this system")
def test_a_forked_child_gets_its_own_pool():
    """A child forked after a threaded call has none of its parent's pool threads; its own
    threaded calls start a new pool instead of waiting forever on the inherited one."""
    res = subprocess.run([sys.executable, "-c", _FORK_PROBE], capture_output=True, text=True,
                         timeout=120)
    assert res.returncode == 0, res.stderr[-2000:]
    assert res.stdout.strip() == "child 0"


def test_jax_arrays_take_threads_too(eight_cores):
    """A float32 JAX array (eager and under jit) runs the compiled kernel on ``threads`` threads
    inside its callback; the bits are those of one thread."""
    jax = pytest.importorskip("jax")
    x = random_float32(N, 13)
    want = u32(det.tanh(x, threads=1))
    for threads in (2, 7):
        del eight_cores[:]
        assert np.array_equal(u32(det.tanh(jax.numpy.asarray(x), threads=threads)), want)
        assert eight_cores == [threads]
        jitted = jax.jit(lambda v, t=threads: det.tanh(v, threads=t))
        assert np.array_equal(u32(jitted(jax.numpy.asarray(x))), want)
