"""The compiled det kernels (ulplab.export.native): every build variant gives the golden bits, the
main loop vectorizes, the build is cached, and NumPy buffers are used in place."""

import ctypes
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from ulplab.errors import UsageError
from ulplab.export import export_source, golden_hash, native
from ulplab.kernels import registry
from ulplab.methods import all_methods

DET = sorted(registry.functions())
GOLDEN = {f: k.golden["odd"] for f, k in registry.kernels().items()}
GOLDEN32 = {f: k.golden["float32"] for f, k in registry.kernels().items()}
CC = shutil.which("cc") or shutil.which("gcc")
pytestmark = pytest.mark.skipif(CC is None, reason="no C compiler on this machine")


@pytest.mark.parametrize("variant", list(native.VARIANTS))
@pytest.mark.parametrize("func", DET)
def test_every_build_variant_gives_the_golden_bits(func, variant):
    if variant not in native.runnable_variants():
        pytest.skip(f"this CPU cannot run the {variant} build")
    assert golden_hash(func, native.kernel(func, variant, "odd")) == GOLDEN[func]


RUNNER_CASES = [(f, native.best_variant()) for f in DET if f in GOLDEN32] + [
    (f, v) for f in ("exp", "sin", "sigmoid") for v in native.VARIANTS
    if v != native.best_variant()]


@pytest.mark.parametrize(("func", "variant"), RUNNER_CASES)
def test_float32_runner_gives_the_golden_bits(func, variant):
    """The two-pass float32 runner: every function on the best build, exp, sin and sigmoid on
    every other variant (each variant builds three libraries per function)."""
    if variant not in native.runnable_variants():
        pytest.skip(f"this CPU cannot run the {variant} build")
    kern = native.kernel(func, variant, "float32")
    assert golden_hash(func, kern, rounding="float32") == GOLDEN32[func]


@pytest.mark.parametrize("march", ["x86-64-v3", "x86-64-v4"])
@pytest.mark.parametrize("func", DET)
def test_the_main_loop_vectorizes(func, march, tmp_path):
    """gcc reports the kernel's loop vectorized with 32-byte (AVX2) or 64-byte (AVX-512)
    vectors: no branch, call or unsupported conversion is left in the body."""
    version = subprocess.run([CC, "--version"], capture_output=True, text=True).stdout
    if "Free Software Foundation" not in version:
        pytest.skip("the vectorization report checked here is gcc's")
    src = tmp_path / f"{func}.c"
    text = export_source(func, "c", "odd")
    src.write_text(text)
    loop_line = text.splitlines().index("    for (long i = 0; i < n; i++) {") + 1
    res = subprocess.run([CC, *native.BASE_FLAGS[:4], f"-march={march}", "-fopt-info-vec",
                          "-c", str(src), "-o", str(tmp_path / "k.o")],
                         capture_output=True, text=True, check=True)
    width = 32 if march == "x86-64-v3" else 64
    assert f"{func}.c:{loop_line}:24: optimized: loop vectorized using {width} byte vectors" \
        in res.stderr, res.stderr[-2000:]


FIRST_PASS = [f for f in DET if registry.get(f).entry().get("first_pass")]


@pytest.mark.parametrize("func", FIRST_PASS)
def test_the_first_pass_loop_vectorizes(func, tmp_path):
    """The float32 runner's first pass (``KERNELS[..]["first_pass"]``) is vectorized by gcc
    with 32-byte vectors, as the kernels are."""
    from ulplab.export.emit_c import emit_c
    from ulplab.export.trace import trace

    version = subprocess.run([CC, "--version"], capture_output=True, text=True).stdout
    if "Free Software Foundation" not in version:
        pytest.skip("the vectorization report checked here is gcc's")
    text = emit_c(trace(registry.get(func).entry()["first_pass"]), f"ulplab_{func}_first",
                  "first pass", dialect="c")
    src = tmp_path / f"{func}.c"
    src.write_text(text)
    loop_line = text.splitlines().index("    for (long i = 0; i < n; i++) {") + 1
    res = subprocess.run([CC, *native.BASE_FLAGS[:4], "-march=x86-64-v3", "-fopt-info-vec",
                          "-c", str(src), "-o", str(tmp_path / "k.o")],
                         capture_output=True, text=True, check=True)
    assert f"{func}.c:{loop_line}:24: optimized: loop vectorized using 32 byte vectors" \
        in res.stderr, res.stderr[-2000:]


def test_buffers_are_used_in_place_and_out_is_checked():
    fn = native.kernel("exp")
    x = np.linspace(-5, 5, 1001, dtype=np.float32)
    want = native.kernel("exp")(x)
    out = np.empty_like(x)
    assert fn(x, out) is out and np.array_equal(out.view(np.uint32), want.view(np.uint32))
    y = x.copy()
    assert fn(y, y) is y and np.array_equal(y.view(np.uint32), want.view(np.uint32))
    strided = np.linspace(-5, 5, 2002, dtype=np.float32)[::2]  # copied once, same bits
    assert np.array_equal(fn(strided).view(np.uint32),
                          fn(np.ascontiguousarray(strided)).view(np.uint32))
    with pytest.raises(UsageError):
        fn(x, np.empty(1001, np.float64))
    with pytest.raises(UsageError):
        fn(x, np.empty(1000, np.float32))


def test_the_build_is_cached_by_source_hash(tmp_path, monkeypatch):
    monkeypatch.setenv("ULPLAB_CACHE_DIR", str(tmp_path))
    first = native.build("exp2", "portable")
    stamp = first.stat().st_mtime_ns
    assert native.build("exp2", "portable") == first and first.stat().st_mtime_ns == stamp
    assert first.parent == tmp_path / "native" and "exp2-portable-" in first.name
    assert not [p for p in first.parent.iterdir() if p.name.startswith(".")]  # no leftovers
    other = native.build("exp2", "O0")
    assert other != first  # flags are part of the key


def test_unknown_variant_is_a_usage_error():
    with pytest.raises(UsageError, match="unknown build variant 'sse9'"):
        native.build("exp", "sse9")


FAST = [f for f in DET if registry.get(f).entry().get("fast_path")]


@pytest.mark.parametrize("func", FAST)
def test_fast_path_runs_give_the_kernel_bits(func):
    """Blocks entirely below the fast path's bound run its build, the others the full one: the
    bits are the NumPy kernel's however the large inputs fall (none, scattered, every block,
    a tail shorter than a block)."""
    from ulplab.export import det_kernel

    below, _ = registry.get(func).entry()["fast_path"]
    rng = np.random.default_rng(5)
    n = 9 * native.CHUNK + 123
    small = rng.uniform(-4000, 4000, n).astype(np.float32)
    big = rng.integers(below, 0x7F800000, n, dtype=np.uint64).astype(np.uint32).view(np.float32)
    edge = np.array([below - 1, below, 0x7FC00000, 0x7F800000], np.uint32).view(np.float32)
    cases = [small, small.copy(), small.copy(), np.where(rng.random(n) < 0.5, small, big)]
    cases[1][[5, 3 * native.CHUNK + 7, n - 1]] = edge[[1, 2, 3]]
    cases[2][:: native.CHUNK] = big[:: native.CHUNK]
    cases[3][-4:] = edge
    for rounding in ("odd", "float32"):
        kern, ref = native.kernel(func, rounding=rounding), det_kernel(func, rounding)
        for x in cases:
            with np.errstate(all="ignore"):
                assert np.array_equal(kern(x).view(np.uint32), ref(x).view(np.uint32)), rounding


def test_det_methods_run_compiled_with_the_numpy_bits():
    """Calling a registered det method runs the compiled kernel (sweeps of det are fast); its
    ``impl`` stays the NumPy kernel (traced, guarded, counted); the bits agree."""
    from ulplab.det import float32_kernel
    from ulplab.export import input_sets

    xs = np.concatenate([v for k, v in input_sets(20_000).items()
                         if k in ("special", "powers_of_two", "random_float32")])
    for m in (m for m in all_methods() if m.name == "det-odd"):
        assert m.compiled is not None and float32_kernel(m.function, "odd").__name__.endswith(
            "_native_odd")
        with np.errstate(all="ignore"):
            assert np.array_equal(m(xs).view(np.uint32), m.impl(xs).view(np.uint32)), m.function


@pytest.mark.parametrize("func", ["exp", "gelu", "expm1"])
def test_the_driver_calls_the_first_pass_a_sub_chunk_at_a_time(func):
    """The driver calls the first pass on ``SUBCHUNK`` inputs at a time (``SUBCHUNK_AMD`` on an
    AMD processor; prefetching the next chunk's inputs between the calls): with flags on both
    sides of every sub-chunk edge of either size and a short tail, the bits are the NumPy entry
    point's."""
    from ulplab.export import det_kernel

    assert native.CHUNK % native.SUBCHUNK_AMD == 0 and native.SUBCHUNK_AMD % native.SUBCHUNK == 0
    assert f"__builtin_cpu_is(\"amd\") ? {native.SUBCHUNK_AMD} : {native.SUBCHUNK}" in \
        native.DRIVER
    rng = np.random.default_rng(5)
    n = 3 * native.CHUNK + native.SUBCHUNK_AMD + 17
    x = rng.uniform(-120, 120, n).astype(np.float32)
    for edge in range(native.SUBCHUNK, n, native.SUBCHUNK):
        x[edge - 1: edge + 1] = np.float32(np.nan)  # flagged by every first pass
    with np.errstate(all="ignore"):
        want = det_kernel(func, "float32")(x).view(np.uint32)
    assert np.array_equal(native.kernel(func)(x, threads=1).view(np.uint32), want)


@pytest.mark.parametrize("func", ["exp", "log", "sin", "sigmoid", "gelu", "expm1"])
def test_float32_runner_fixes_flagged_results_in_every_chunk(func):
    """The two-pass float32 runner on inputs whose first pass flags many results: every
    exception input, subnormal results, results on both sides of a chunk edge, a short tail;
    and out = x. The bits are the NumPy entry point's."""
    from ulplab.export import det_kernel
    from ulplab.kernels import exceptions

    t = exceptions.table(func)
    rng = np.random.default_rng(3)
    n = 3 * native.CHUNK + 17
    x = rng.uniform(-120, 120, n).astype(np.float32)
    keys = t.keys.view(np.float32)
    x[native.CHUNK - 2: native.CHUNK - 2 + min(keys.size, 4)] = keys[:4]
    x[-min(keys.size, 10):] = keys[:10]
    x[:: 97] = np.float32(-100.0)  # exp: a subnormal result
    kern, ref = native.kernel(func, rounding="float32"), det_kernel(func, "float32")
    with np.errstate(all="ignore"):
        want = ref(x).view(np.uint32)
    assert np.array_equal(kern(x).view(np.uint32), want)
    y = x.copy()
    assert np.array_equal(kern(y, y).view(np.uint32), want)


def test_compiled_lookup_is_np_take(monkeypatch):
    """det's narrow-format gather: the C loop gives np.take's values for 16- and 8-bit
    tables, and np.take itself is used for anything else or without a compiler."""
    rng = np.random.default_rng(9)
    for dtype, size in ((np.uint16, 1 << 16), (np.uint8, 1 << 8)):
        tab = rng.integers(0, size, size, dtype=np.uint64).astype(dtype)
        idx = rng.integers(0, size, 100_003, dtype=np.uint64).astype(dtype)
        assert np.array_equal(native.lookup(tab, idx), np.take(tab, idx))
        assert np.array_equal(native.lookup(tab, idx[::3]), np.take(tab, idx[::3]))
    small = np.arange(10, dtype=np.uint16)
    assert np.array_equal(native.lookup(small, np.array([3, 9], np.uint16)), [3, 9])
    monkeypatch.setattr(native, "_lookup_lib", lambda: None)
    assert np.array_equal(native.lookup(tab, idx), np.take(tab, idx))


@pytest.mark.parametrize("variant", native.runnable_variants())
def test_padded_gather_lookup_is_the_table(variant):
    """The 16-bit lookup's gather loop (``ulplab_lookup16_padded``: AVX2 or AVX-512 gathers of
    32-bit entry pairs where the build has them, and the processor is not an AMD one, or
    forced: both are run) gives table[index] for every index, the last entry's included (it
    reads the padding entry), and for lengths that leave a tail for the scalar loop;
    ``lookup`` takes it from ``LOOKUP_PADDED_FROM`` indices on."""
    rng = np.random.default_rng(11)
    tab = rng.integers(0, 1 << 16, 1 << 16, dtype=np.uint64).astype(np.uint16)
    padded = np.concatenate([tab, rng.integers(0, 1 << 16, 1, dtype=np.uint64).astype(np.uint16)])
    lib = ctypes.CDLL(str(native.build_source("lookup", native.LOOKUP, variant)))
    fn = lib.ulplab_lookup16_padded
    fn.argtypes = [ctypes.c_void_p] * 3 + [ctypes.c_long]
    idx = np.concatenate([np.arange(1 << 16, dtype=np.uint16)[::-1],
                          rng.integers(0, 1 << 16, 1021, dtype=np.uint64).astype(np.uint16)])
    choose = getattr(lib, "ulplab_lookup_gathers", None)
    assert (choose is not None) is (variant in native.X86_ONLY)
    for gathers in (1, 0) if choose is not None else (None,):
        if choose is not None:
            assert choose(gathers) == gathers
        for n in (idx.size, idx.size - 5, 15, 7, 0):
            out = np.zeros(n, np.uint16)
            fn(padded.ctypes.data, idx.ctypes.data, out.ctypes.data, n)
            assert np.array_equal(out, tab[idx[:n]]), (variant, gathers, n)
    if choose is not None:
        choose(-1)
    big = rng.integers(0, 1 << 16, native.LOOKUP_PADDED_FROM + 3, dtype=np.uint64)
    big = big.astype(np.uint16)
    big[-1] = 0xFFFF
    assert np.array_equal(native.lookup(tab, big), tab[big])


def test_lookup_gathers_follow_the_vendor_and_refuse_odd_choices():
    """``set_lookup_gathers``: -1 is the processor's choice (the scalar loop on an AMD
    processor, read from /proc/cpuinfo where it exists), 0 and 1 force one; anything else is a
    UsageError (a bool too)."""
    for bad in (2, -2, True, 0.0, "1"):
        with pytest.raises(UsageError):
            native.set_lookup_gathers(bad)
    got = native.set_lookup_gathers(-1)
    if got is None:
        return
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.is_file():
        assert got == int("AuthenticAMD" not in cpuinfo.read_text())
    try:
        assert native.set_lookup_gathers(1) == 1 and native.set_lookup_gathers(0) == 0
    finally:
        native.set_lookup_gathers(-1)


@pytest.mark.parametrize("rounding", ["odd", "float32"])
def test_out_may_overlap_x_shifted_either_way(rounding):
    """out = x, and out a view of x's buffer shifted up or down (several chunks long): the
    results are those of a separate output array."""
    kern = native.kernel("exp", rounding=rounding)
    n = 3 * native.CHUNK + 5
    base = np.random.default_rng(4).uniform(-90, 90, n + 7).astype(np.float32)
    for lo_x, lo_out in ((0, 0), (0, 7), (7, 0), (0, 1), (1, 0)):
        buf = base.copy()
        x, out = buf[lo_x:lo_x + n], buf[lo_out:lo_out + n]
        want = kern(x.copy()).view(np.uint32)
        assert np.array_equal(kern(x, out).view(np.uint32), want), (lo_x, lo_out)


_PROBE = """
import numpy as np
from ulplab import det
x = np.random.default_rng(1).integers(0, 2**32, 50_000, dtype=np.uint64).astype(np.uint32)
y = det.exp(x.view(np.float32))
print(det.float32_kernel("exp").__name__, y.view(np.uint32).sum(dtype=np.uint64))
"""


@pytest.mark.parametrize("damage", ["garbage", "truncated", "manifest"])
def test_a_damaged_cached_library_is_rebuilt_never_loaded(tmp_path, damage):
    """A cached native library whose bytes do not match its manifest's SHA-256 (overwritten,
    truncated, or its manifest damaged) is rebuilt before it is loaded: the process neither
    crashes (loading a damaged shared object can) nor falls back to the slow path."""
    import os
    import sys

    env = {**os.environ, "ULPLAB_CACHE_DIR": str(tmp_path)}
    run = [sys.executable, "-c", _PROBE]
    first = subprocess.run(run, env=env, capture_output=True, text=True, check=True)
    libs = sorted((tmp_path / "native").glob("*.so"))
    assert libs and all(lib.with_suffix(".json").is_file() for lib in libs)
    for lib in libs:
        if damage == "garbage":
            data = bytearray(lib.read_bytes())
            data[len(data) // 3: len(data) // 3 + 4096] = os.urandom(4096)
            lib.write_bytes(bytes(data))
        elif damage == "truncated":
            lib.write_bytes(lib.read_bytes()[: len(lib.read_bytes()) // 2])
        else:
            lib.with_suffix(".json").write_text("{not json")
    again = subprocess.run(run, env=env, capture_output=True, text=True, timeout=600)
    assert again.returncode == 0, again.stderr[-2000:]
    assert again.stdout == first.stdout and "_native" in again.stdout  # same bits, compiled
    assert "failed its SHA-256 check; rebuilding it" in again.stderr
    third = subprocess.run(run, env=env, capture_output=True, text=True, check=True)
    assert third.stdout == first.stdout and "SHA-256" not in third.stderr  # rebuilt, verified


def test_cached_builds_are_found_without_tracing(monkeypatch):
    """A warm cache loads the library without tracing the kernel (the key is the digest of the
    emitting packages' files), so a fresh process's first det call stays light."""
    native.kernel("exp")  # built or loaded
    native._entry.cache_clear()
    native._float32_passes.cache_clear()
    native._driver.cache_clear()

    def no_tracing(*args, **kwargs):
        raise AssertionError("traced although the build is cached")

    import ulplab.export.trace as trace_module

    monkeypatch.setattr(trace_module, "trace", no_tracing)
    x = np.linspace(-5, 5, 1001, dtype=np.float32)
    assert np.array_equal(native.kernel("exp")(x).view(np.uint32),
                          native.kernel("exp", rounding="float32")(x).view(np.uint32))


def test_max_isa_caps_the_build_variant(monkeypatch):
    """ULPLAB_MAX_ISA makes a better machine choose as a lesser one would (the tests run an
    AVX-512 machine as an AVX2 one this way); a name that is no level is a usage error."""
    monkeypatch.setenv("ULPLAB_MAX_ISA", "avx2")
    assert "avx512" not in native.runnable_variants()
    assert native.best_variant() in ("avx2", "portable")
    monkeypatch.setenv("ULPLAB_MAX_ISA", "portable")
    assert native.best_variant() == "portable"
    monkeypatch.setenv("ULPLAB_MAX_ISA", "sse2")
    with pytest.raises(UsageError, match="ULPLAB_MAX_ISA='sse2' is not an ISA level"):
        native.best_variant()


@pytest.mark.parametrize("threads", [2, 3, 7])
@pytest.mark.parametrize("rounding", ["odd", "float32"])
def test_out_may_overlap_x_shifted_with_threads(threads, rounding, monkeypatch):
    """The same on several threads (the cap patched to 8 cores, so 3 and 7 threads make 3 and 7
    slices on any host): out = x, and out shifted by 1 or 7 elements either way across the
    slices' edges give a separate output array's results."""
    monkeypatch.setattr(native, "cpu_count", lambda: 8)
    slices = []
    real = native.run_pooled
    monkeypatch.setattr(native, "run_pooled", lambda *a, **k: slices.append(real(*a, **k)))
    kern = native.kernel("exp", rounding=rounding)
    n = 7 * native.MIN_PER_THREAD + 5
    base = np.random.default_rng(4).uniform(-90, 90, n + 7).astype(np.float32)
    for lo_x, lo_out in ((0, 0), (0, 7), (7, 0), (0, 1), (1, 0)):
        buf = base.copy()
        x, out = buf[lo_x:lo_x + n], buf[lo_out:lo_out + n]
        want = kern(x.copy(), threads=1).view(np.uint32)
        del slices[:]
        assert np.array_equal(kern(x, out, threads=threads).view(np.uint32), want), (lo_x, lo_out)
        assert slices == [threads]


def test_inputs_are_read_in_place_and_other_layouts_copied_once():
    """float32_input: an aligned C-contiguous native float32 array (read-only too) is used as
    it is; a strided, transposed, big-endian, float64 or misaligned one becomes one aligned
    C-contiguous float32 copy with the same values."""
    x = np.linspace(-3, 3, 1000, dtype=np.float32)
    assert native.float32_input(x) is x
    ro = x.copy()
    ro.flags.writeable = False
    assert native.float32_input(ro) is ro
    raw = np.zeros(4 * 1000 + 1, np.uint8)
    misaligned = raw[1:].view(np.float32)
    misaligned[:] = x
    for other in (x[::2], x.reshape(20, 50).T, x.astype(">f4"), x.astype(np.float64),
                  misaligned, x.tolist()):
        got = native.float32_input(other)
        assert got is not other and got.dtype == np.float32 and got.flags.c_contiguous
        assert got.flags.aligned and np.array_equal(got, np.asarray(other, np.float32))


def test_data_address_is_the_first_elements_address():
    """``native.data_address`` (the buffer protocol's address where it can, ``ctypes.data``
    elsewhere) names the first element of writeable, read-only, empty, 0-d and sliced
    C-contiguous arrays of every dtype the runner hands to C, and keeps no reference to the
    array (the ctypes object of the buffer protocol holds one while it lives)."""
    base = np.arange(64, dtype=np.float32)
    ro = base.copy()
    ro.flags.writeable = False
    cases = [base, base[8:40], ro, np.empty(0, np.float32), np.asarray(np.float32(3.0)),
             np.array(2.0, np.float32), base.view(np.uint16), base.view(np.uint8)[3:]]
    for a in cases:
        assert native.data_address(a) == a.ctypes.data, a
    held = np.zeros(16, np.float32)
    before = sys.getrefcount(held)
    kept = ctypes.c_char.from_buffer(held)
    assert sys.getrefcount(held) > before  # what the test would see of a kept object
    del kept
    native.data_address(held)
    assert sys.getrefcount(held) == before


RUNNER_PROVEN: dict[str, set[str]] = {}
"""The runner proofs recorded (benchmarks/verify_native.py --runner, every 2^32 input) for the
kernels without a float64 first pass, by kernel: the build variants proved. None since
2026-11-26: the nine kernels proved so until then (exp2, expm1, log2, log1p, tan, rsqrt,
gelu_tanh, gelu_grad, tanh_grad, all three variants) have float64 passes, proved by the fast64
proofs."""


def test_the_registry_runner_proofs_hold_for_the_passes_as_they_are_now():
    """Each runner proof in the registry names the current kernel (its golden float32 hash) and
    the current float32 first pass (the SHA-256 of its C source): an edit of either needs a new
    sweep. Which kernels and variants are proved is the measured state, RUNNER_PROVEN."""
    from ulplab.export import fast64

    proven: dict[str, set[str]] = {}
    for func in registry.functions():
        k = registry.get(func)
        if k.runner_proofs:
            assert func not in fast64.FUNCTIONS  # their runner is proved by the fast64 proofs
        for variant, proof in k.runner_proofs.items():
            assert proof.holds_for(k.golden["float32"], native.float32_pass_sha256(func)), \
                (func, variant, proof)
            proven.setdefault(func, set()).add(variant)
    assert proven == RUNNER_PROVEN


def test_the_float32_pass_hash_names_the_pass_source():
    """float32_pass_sha256 is the hash of the traced first pass's C: stable, different per
    kernel, and it covers the fast path where the kernel has one."""
    a, b = native.float32_pass_sha256("tan"), native.float32_pass_sha256("exp2")
    assert a != b and len(a) == 64 and a == native.float32_pass_sha256("tan")
    specs, below = native._float32_pass_specs("gelu_tanh")
    assert [s[0] for s in specs] == ["ulplab_gelu_tanh_fast_mode"] and below == 0
    specs, below = native._float32_pass_specs("tan")  # with a fast path below a bound
    assert [s[0] for s in specs] == ["ulplab_tan_fast_mode", "ulplab_tan_fast_mode_below"]
    assert below == registry.get("tan").fast_path_below > 0
