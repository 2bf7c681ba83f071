"""The float64 first passes of the compiled float32 runner (ulplab.export.fast64): on every build
variant this machine runs, the runner gives the float32 entry point's bits on the hard-case
sets and 10^6 random inputs; what the float64 pass keeps is the correctly rounded result, it
flags few ordinary inputs, its loop vectorizes, its tables are what they say, and the registry
holds a proof over all 2^32 inputs for the pass as it is now."""

import ctypes
import platform
import re
import shutil
import subprocess
from fractions import Fraction
from pathlib import Path

import mpmath
import numpy as np
import pytest

from ulplab.errors import UsageError
from ulplab.export import fast64, native
from ulplab.export.fast64 import tables
from ulplab.kernels import registry
from ulplab.kernels.core import FLAG_NAN
from ulplab.kernels.golden import SEED, input_sets

CC = shutil.which("cc") or shutil.which("gcc")
pytestmark = pytest.mark.skipif(CC is None, reason="no C compiler on this machine")

VARIANTS = ("avx512", "avx2", "portable")
"""The build variants a proof covers (O0 is a check of the optimizer, not a variant to run)."""

CASES = [(f, v) for f in fast64.FUNCTIONS for v in VARIANTS]

ORDINARY = {  # the benchmark's ranges (benchmarks/bench_native.py)
    "exp": lambda rng, n: rng.uniform(-80, 80, n),
    "log": lambda rng, n: 10.0 ** rng.uniform(-30, 30, n),
    "tanh": lambda rng, n: rng.uniform(-8, 8, n),
    "sin": lambda rng, n: rng.uniform(-100, 100, n),
    "cos": lambda rng, n: rng.uniform(-100, 100, n),
    "sigmoid": lambda rng, n: rng.uniform(-8, 8, n),
    "silu": lambda rng, n: rng.uniform(-8, 8, n),
    "softplus": lambda rng, n: rng.uniform(-8, 8, n),
    "gelu": lambda rng, n: rng.uniform(-8, 8, n),
    "erf": lambda rng, n: rng.uniform(-8, 8, n),
    "exp2": lambda rng, n: rng.uniform(-100, 100, n),
    "log2": lambda rng, n: 10.0 ** rng.uniform(-30, 30, n),
    "tan": lambda rng, n: rng.uniform(-100, 100, n),
    "rsqrt": lambda rng, n: 10.0 ** rng.uniform(-30, 30, n),
    "tanh_grad": lambda rng, n: rng.uniform(-8, 8, n),
    "gelu_tanh": lambda rng, n: rng.uniform(-8, 8, n),
    "expm1": lambda rng, n: rng.uniform(-80, 80, n),
    "log1p": lambda rng, n: 10.0 ** rng.uniform(-30, 30, n),
    "gelu_grad": lambda rng, n: rng.uniform(-8, 8, n),
}


def runnable(variant: str) -> None:
    """Skip unless this machine runs ``variant`` (read from its CPU flags, capped by
    ULPLAB_MAX_ISA): the tests do not assume AVX-512 or AVX2."""
    if variant not in native.runnable_variants():
        pytest.skip(f"this CPU cannot run the {variant} build")


def x86_gcc() -> None:
    """Skip unless this is an x86-64 machine with gcc: the compile-only tests below pass x86
    -march flags and read gcc's reports (they need no AVX2 or AVX-512 to run)."""
    if platform.machine().lower() not in ("x86_64", "amd64"):
        pytest.skip("x86 compile flags: not an x86-64 machine")
    version = subprocess.run([CC, "--version"], capture_output=True, text=True).stdout
    if "Free Software Foundation" not in version:
        pytest.skip("the reports and flags checked here are gcc's")


def one_pass(func: str, x: np.ndarray) -> np.ndarray:
    """The float32 entry point's one-pass build (the reference the runner must reproduce)."""
    out = np.empty_like(x)
    native._entry(func, native.best_variant())(x.ctypes.data, out.ctypes.data, x.size)
    return out


def hard_cases(samples: int = 10**6) -> np.ndarray:
    """Every input set of ``ulplab.kernels.golden.input_sets`` (every bfloat16, float16 and
    narrower pattern, specials, powers of two and their neighbours) and ``samples`` random
    float32 patterns of another seed than the golden hash's."""
    return np.concatenate(list(input_sets(samples, SEED + 20).values()))


def show(x: np.ndarray, got: np.ndarray, want: np.ndarray) -> str:
    bad = np.flatnonzero(got.view(np.uint32) != want.view(np.uint32))[:5]
    return "; ".join(f"x={float(x[i]).hex()} (0x{int(x.view(np.uint32)[i]):08x}) "
                     f"got {float(got[i]).hex()} want {float(want[i]).hex()}" for i in bad)


@pytest.mark.parametrize(("func", "variant"), CASES)
def test_runner_gives_the_entry_points_bits(func, variant):
    """The runner with the float64 first pass, threads on, against the one-pass float32 entry
    point: the hard-case sets and 10^6 random patterns, every bit."""
    runnable(variant)
    x = hard_cases()
    got = native.kernel(func, variant)(x, threads=2)
    want = one_pass(func, x)
    assert np.array_equal(got.view(np.uint32), want.view(np.uint32)), show(x, got, want)


@pytest.mark.parametrize(("func", "variant"), CASES)
def test_what_the_float64_pass_keeps_is_correctly_rounded(func, variant):
    """The float64 pass alone: every lane it does not flag holds the entry point's result (the
    infinities included: tanh keeps its +-1), NaN inputs are flagged, and most lanes are
    kept."""
    runnable(variant)
    x = hard_cases(1 << 16)
    out = np.empty_like(x)
    native._fast64(func, variant)(x.ctypes.data, out.ctypes.data, x.size)
    bits = out.view(np.uint32)
    flagged = (bits & np.uint32(0x7FFFFFFF)) == FLAG_NAN
    want = one_pass(func, x)
    assert np.array_equal(bits[~flagged], want.view(np.uint32)[~flagged]), \
        show(x[~flagged], out[~flagged], want[~flagged])
    assert np.all(flagged[np.isnan(x)])
    assert flagged.mean() < 0.6


def float64_pass(func: str, variant: str, x: np.ndarray) -> np.ndarray:
    """The float64 pass alone on ``x`` (flagged lanes hold FLAG_NAN)."""
    out = np.empty_like(x)
    native._fast64(func, variant)(x.ctypes.data, out.ctypes.data, x.size)
    return out


def f32(*values: float) -> np.ndarray:
    return np.array(values, np.float32)


KEPT_AS = {  # func: (inputs, the result the float64 pass keeps for each)
    "sigmoid": (f32(np.inf, 3e38, 104.5, 20.0, 0.0, -0.0), f32(1, 1, 1, 1, 0.5, 0.5)),
    "silu": (f32(3e38, 1e5, 104.5), None),  # silu(x) = x for x > 104, kept
    "softplus": (f32(3e38, 1e5, 104.5), None),  # softplus(x) = x for x > 104
}

FLAGGED = {  # inputs the float64 pass must leave to the second pass
    "sigmoid": f32(np.nan, -np.inf, -3e38, -104.5, -88.0),
    "silu": f32(np.nan, -np.nan, -np.inf, -3e38, -104.5, -92.0, 0.0, -0.0, np.inf),
    # (+inf: the float64 loops flag it, softplus's float32 lanes keep +inf, x itself)
    "softplus": f32(np.nan, -np.inf, -3e38, -104.5, -88.0),
}


@pytest.mark.parametrize("func", sorted(KEPT_AS))
@pytest.mark.parametrize("variant", VARIANTS)
def test_the_clamps_keep_and_flag_what_they_should(func, variant):
    """sigmoid, silu and softplus clamp their exp argument to [-104, 104]: the pass keeps the
    results that the clamp does not change (1 for sigmoid, x for silu and softplus beyond
    104, 0.5 at +-0) and flags the others (NaN, the far negative side, the infinite sums)."""
    runnable(variant)
    x, want = KEPT_AS[func]
    got = float64_pass(func, variant, x)
    assert np.array_equal(got.view(np.uint32), (x if want is None else want).view(np.uint32)), \
        (func, got)
    bad = float64_pass(func, variant, FLAGGED[func]).view(np.uint32) & np.uint32(0x7FFFFFFF)
    assert np.all(bad == FLAG_NAN), (func, bad)
    if func == "softplus":  # +inf: flagged by the float64 loops, kept (+inf) by the lanes
        got = float64_pass(func, variant, f32(np.inf)).view(np.uint32)[0]
        assert got in (FLAG_NAN, 0x7F800000), hex(got)


SEAMS = {  # where an evaluation changes regime: the clamp, rounding to 1 or x, subnormal
    # results, and for softplus where u = 1 + exp(-|x|) crosses 1 + 2^-8 (the subintervals
    # with invc = 1 end: |x| = 8 ln2), 1.375 (k = 0 -> 1) and 1 + 2^-53 (u = 1, log1p(E) = c)
    "sigmoid": (104.0, -104.0, 17.3, -87.3, 2.0**-24),
    "silu": (104.0, -104.0, 17.3, -87.3, -92.0, 2.0**-24),
    "softplus": (104.0, -104.0, 0.98, -0.98, 5.545, -5.545, 36.7, -36.7, -87.3,
                 # the float32 lanes (AVX-512 on AMD processors): |x| = 64 (beyond: x, or
                 # flagged), u = 1 + E crossing 1 + 2^-5 (|x| = ln 32)
                 64.0, -64.0, 3.4657359, -3.4657359),
}


@pytest.mark.parametrize("func", sorted(SEAMS))
@pytest.mark.parametrize("variant", VARIANTS)
def test_every_input_at_the_seams(func, variant):
    """2^16 consecutive float32 on each side of every seam of the three passes: what the
    float64 pass keeps is the entry point's result, and the runner gives its bits."""
    runnable(variant)
    check_seams(func, variant, SEAMS[func])


def check_seams(func: str, variant: str, values: tuple[float, ...]) -> None:
    """2^16 consecutive float32 on each side of each of ``values``: what ``func``'s float64 pass
    keeps (most of them) is the entry point's result, and the runner gives its bits."""
    base = f32(*values).view(np.uint32).astype(np.int64)
    steps = np.arange(-(1 << 16), 1 << 16)
    x = (base[:, None] + steps).ravel().astype(np.uint32).view(np.float32)
    got = float64_pass(func, variant, x)
    want = one_pass(func, x)
    kept = (got.view(np.uint32) & np.uint32(0x7FFFFFFF)) != FLAG_NAN
    assert kept.mean() > 0.5
    assert np.array_equal(got.view(np.uint32)[kept], want.view(np.uint32)[kept]), \
        show(x[kept], got[kept], want[kept])
    full = native.kernel(func, variant)(x, threads=1)
    assert np.array_equal(full.view(np.uint32), want.view(np.uint32)), show(x, full, want)


@pytest.mark.parametrize(("func", "variant"), CASES)
def test_few_ordinary_inputs_are_flagged(func, variant):
    """Below 1e-3 of the benchmark's inputs go to the second pass (measured on 2^24 of them,
    avx512 build, 2026-11-26: exp 0, log 1.5e-5, tanh 1.5e-5, sin 2.6e-6, cos 4.5e-6, sigmoid
    0, silu 6.0e-8, softplus 1.6e-5, gelu 2.7e-5, erf 1.5e-6; log, sin, cos, gelu, softplus and
    tanh take looser error bounds since that day, which flag about 2 ERR / 2^29 of them; the
    nine passes added later that day, on 2^20 to 2^24 of them: exp2 0, log2 1.5e-5, expm1
    1.0e-6, log1p 1.0e-5, tan 3.8e-6, rsqrt 0, gelu_tanh 3.8e-6, tanh_grad 0, gelu_grad
    7.2e-6)."""
    runnable(variant)
    x = ORDINARY[func](np.random.default_rng(3), 1 << 20).astype(np.float32)
    out = np.empty_like(x)
    native._fast64(func, variant)(x.ctypes.data, out.ctypes.data, x.size)
    flagged = np.count_nonzero((out.view(np.uint32) & np.uint32(0x7FFFFFFF)) == FLAG_NAN)
    assert flagged < 1e-3 * x.size


@pytest.mark.parametrize("func", fast64.FUNCTIONS)
def test_either_first_pass_gives_the_same_bits(func):
    x = hard_cases(1 << 16)
    a = native.kernel(func, first_pass="float64")(x)
    b = native.kernel(func, first_pass="float32")(x)
    assert np.array_equal(a.view(np.uint32), b.view(np.uint32)), show(x, a, b)


@pytest.mark.parametrize(("func", "march", "variant", "width"), [
    # exp's (and exp2's) float32 lanes are written for AVX-512 and AVX2 registers, not left to
    # gcc (test_exp_lanes_read_their_tables_by_permutes)
    *((func, march, variant, width) for func in fast64.FUNCTIONS
      if func not in fast64.FLOAT32_LANES
      for march, variant, width in (("x86-64-v3", "avx2", 32), ("x86-64-v4", "avx512", 64)))])
def test_the_float64_loop_vectorizes(func, march, variant, width, tmp_path):
    """gcc vectorizes the float64 pass's loop, with the runner's flags and fast64_flags:
    32-byte vectors for AVX2, 64-byte for AVX-512 (compiling only: any x86 gcc)."""
    x86_gcc()
    text = fast64.source(func)
    src = tmp_path / f"{func}.c"
    src.write_text(text)
    # the first loop over the inputs: the float64 loop
    loop_line = next(i for i, line in enumerate(text.splitlines(), 1)
                     if line.strip() == "for (long i = 0; i < n; i++) {")
    res = subprocess.run([CC, *native.BASE_FLAGS[:4], f"-march={march}",
                          *native.fast64_flags(variant), "-fopt-info-vec", "-c", str(src),
                          "-o", str(tmp_path / "k.o")],
                         capture_output=True, text=True, check=True)
    assert re.search(rf"{func}\.c:{loop_line}:\d+: optimized: loop vectorized using {width} "
                     "byte vectors", res.stderr), res.stderr[-2000:]


@pytest.mark.parametrize("func", fast64.FUNCTIONS)
def test_the_portable_float64_loop_vectorizes(func, tmp_path):
    """The portable build (x86-64's baseline, SSE2) vectorizes the float64 loop too, in 16-byte
    vectors: its tests run on 32-bit lanes (``ROUND_NORMAL``, ``ROUND_RANGE32``), as SSE2 has
    no 64-bit comparison; with the 64-bit tests of before 2026-11-26 these loops ran scalar,
    2 to 2.6 times slower (compiling only: any x86 gcc)."""
    x86_gcc()
    text = fast64.source(func)
    src = tmp_path / f"{func}.c"
    src.write_text(text)
    # the last loop over all the inputs: exp's portable loop comes after its float32 lanes
    loop_line = max(i for i, line in enumerate(text.splitlines(), 1)
                    if line.strip() == "for (long i = 0; i < n; i++) {")
    res = subprocess.run([CC, *native.BASE_FLAGS[:4], *native.fast64_flags("portable"),
                          "-fopt-info-vec", "-c", str(src), "-o", str(tmp_path / "k.o")],
                         capture_output=True, text=True, check=True)
    assert re.search(rf"{func}\.c:{loop_line}:\d+: optimized: loop vectorized using 16 "
                     "byte vectors", res.stderr), res.stderr[-2000:]


def test_exp_table_is_the_nearest_float64():
    text = tables.exp_table()
    body = text[text.index("{") + 1:text.index("}")]
    values = [float.fromhex(v) for v in body.replace("\n", " ").split(",")]
    assert len(values) == 64 and values[0] == 1.0
    with mpmath.workprec(200):
        for j in (1, 17, 32, 63):
            exact = mpmath.mpf(2) ** (mpmath.mpf(j) / 64)
            err = abs(mpmath.mpf(values[j]) - exact)
            assert err <= mpmath.mpf(2) ** -53  # half an ulp of a number in [1, 2)


@pytest.mark.parametrize(("bits", "bound"), [(5, Fraction(1, 32)), (7, Fraction(1, 128)),
                                             (8, Fraction(1, 256))])
def test_log_table_makes_r_exact_and_small(bits, bound):
    """invc has at most 21 significant bits (z invc exact for 24-bit z); z invc - 1 stays
    within 2^-5 (32 subintervals: log's avx512 build, whose degree-8 polynomial's truncation
    bound needs it), 2^-7 (128) or 2^-8 (256, log's and softplus's generic loops: their
    degree-5 polynomials' truncation bound needs it) on each whole subinterval; the two next to
    1 have invc = 1, logc = 0."""
    text = tables.log_tables(bits)
    invc_text = text[text.index("{") + 1:text.index("}")]
    invc = [float.fromhex(v) for v in invc_text.replace("\n", " ").split(",")]
    assert len(invc) == 1 << bits
    worst = Fraction(0)
    for i, c in enumerate(invc):
        assert Fraction(c).denominator.bit_length() - 1 <= tables.LOG_INVC_BITS + 1
        lo, hi = tables.log_subinterval(i, bits)
        worst = max(worst, abs(Fraction(lo) * Fraction(c) - 1),
                    abs(Fraction(hi) * Fraction(c) - 1))
    assert worst <= bound
    ones = [i for i, c in enumerate(invc) if c == 1.0]
    assert [tables.log_subinterval(i, bits)[0] for i in ones] == [1 - 2.0 ** -(bits + 1), 1.0]


def test_log_error_bound_leaves_the_rounding_test_a_margin():
    """The terms of log's analysis (ulplab.export.fast64.log) from its tables: away from the
    subintervals next to 1, |r| < 2^-9 + 2^-21 and |logc| <= 2 |log x| where k = 0; the
    truncation bound of the degree-5 polynomial on |r| < 2^-8 is below 2^-42.56, 2.9 times
    below ERR units of 2^-53."""
    from ulplab.export.fast64 import log

    text = tables.log_tables(log.BITS)
    body = text[text.index("ul_log_logc"):]
    logc = [float.fromhex(v) for v in body[body.index("{") + 1:body.index("}")]
            .replace("\n", " ").split(",")]
    invc_text = text[text.index("{") + 1:text.index("}")]
    invc = [float.fromhex(v) for v in invc_text.replace("\n", " ").split(",")]
    for i, (c, lc) in enumerate(zip(invc, logc, strict=True)):
        lo, hi = tables.log_subinterval(i, log.BITS)
        if c == 1.0:
            continue
        r = max(abs(lo * c - 1), abs(hi * c - 1))
        assert r < 2.0**-9 + 2.0**-21, i
        nearest = min(abs(np.log(lo)), abs(np.log(hi)))  # |log x| for k = 0
        assert abs(lc) <= 2 * nearest, i
    r = 2.0**-8
    truncation = r**5 / 6 / (1 - r) / (1 - r / 2)
    assert np.log2(truncation + 2.0**-52.9) < -42.56
    assert 2.9 * (truncation + 2.0**-52.9) * 2.0**53 < log.ERR


def test_log_avx512_error_bound_leaves_the_rounding_test_a_margin():
    """The terms of the analysis of log's float64 permute loop (32 subintervals, degree 8: what
    log2's and log1p's avx512 builds run on AMD processors) from its tables: away
    from the subintervals next to 1, |r| < 2^-6.06 and |logc| <= 1.51 |log x| where k = 0;
    next to 1, |r| <= 2^-6 below and < 2^-5 above; the truncation bound of the
    degree-8 polynomial on |r| < 2^-5, with the roundings, is below 2^-43.09, 4.2 times below
    ERR units of 2^-53."""
    from ulplab.export.fast64 import log

    text = tables.log_tables(log.AVX512_BITS, "ul_log5")
    body = text[text.index("ul_log5_logc"):]
    logc = [float.fromhex(v) for v in body[body.index("{") + 1:body.index("}")]
            .replace("\n", " ").split(",")]
    invc_text = text[text.index("{") + 1:text.index("}")]
    invc = [float.fromhex(v) for v in invc_text.replace("\n", " ").split(",")]
    assert len(invc) == 32 and len(log.AVX512_TAYLOR) == 7  # c2..c8: degree 8
    near_one = []
    for i, (c, lc) in enumerate(zip(invc, logc, strict=True)):
        lo, hi = tables.log_subinterval(i, log.AVX512_BITS)
        r = max(abs(Fraction(lo) * Fraction(c) - 1), abs(Fraction(hi) * Fraction(c) - 1))
        if c == 1.0:
            near_one.append((lo, hi, r))
            continue
        assert r < 2.0**-6.06, i
        nearest = min(abs(np.log(lo)), abs(np.log(hi)))  # |log x| for k = 0
        assert abs(lc) <= 1.51 * nearest, i
    assert near_one == [(1 - 2.0**-6, 1.0, 2.0**-6), (1.0, 1 + 2.0**-5, 2.0**-5)]
    r = 2.0**-5  # the upper end is excluded: |r| < 2^-5
    truncation = r**8 / 9 / (1 - r) / (1 - r / 2)
    assert np.log2(truncation + 2.0**-52.9) < -43.09
    assert 4.2 * (truncation + 2.0**-52.9) * 2.0**53 < log.ERR


def test_log_float32_tables_make_r_and_hi_exact():
    """The tables of log's float32 lanes (``tables.log_pairs32``): for every float32 z of
    [0.6875, 1.375), z invc - 1 is a float32 (so the lanes' one fmaf is exact) within the
    subinterval's |r|max (< 2^-5.6 away from 1); each lh is a multiple of 2^-16 and |ll| <=
    2^-17 with lh + ll within 2^-42 of -log(invc); L1 is a multiple of 2^-16 and k L1 + lh a
    float32 for every k of a normal input (-126..128), so hi is exact; L1 + L2 is ln2 within
    2^-44."""
    invc, lh, ll, l1, l2 = tables.log_pairs32()
    assert len(invc) == len(lh) == len(ll) == 32
    lo_bits, hi_bits = (int(np.float32(v).view(np.uint32)) for v in (0.6875, 1.375))
    u = np.arange(lo_bits, hi_bits, dtype=np.uint32)
    z = u.view(np.float32).astype(np.float64)
    i = (u - np.uint32(lo_bits)) >> np.uint32(18)
    r = z * np.array(invc)[i] - 1  # exact in float64: 24 + 7 bits
    assert np.array_equal(r.astype(np.float32).astype(np.float64), r)
    rmax = np.array([tables.log_invc32(j)[2] for j in range(32)])
    assert (np.abs(r) <= rmax[i]).all() and np.abs(r).max() == rmax.max()
    assert np.log2(max(m for j, m in enumerate(rmax) if invc[j] != 1.0)) < -5.6
    assert (Fraction(l1) * 2**16).denominator == 1
    with mpmath.workprec(200):
        assert abs(mpmath.mpf(l1) + mpmath.mpf(l2) - mpmath.log(2)) < mpmath.mpf(2) ** -44
        for c, h, lw in zip(invc, lh, ll, strict=True):
            assert (Fraction(h) * 2**16).denominator == 1 and abs(lw) <= 2.0**-17
            err = abs(mpmath.mpf(h) + mpmath.mpf(lw) + mpmath.log(mpmath.mpf(c)))
            assert err <= mpmath.mpf(2) ** -42
            for k in range(-126, 129):
                assert float(np.float32(k * l1 + h)) == k * l1 + h


def test_log_float32_lanes_error_bound_leaves_the_rounding_test_a_margin():
    """The bound of log's float32 lanes (``log.lanes32_bound``: 2^-32.79 next to 1, 2^-33.34
    elsewhere for k = 0, 2^-37.08 for k = +-1, 2^-37.99 for the other k) below the rounding
    test's B: 2^-32 |log x| for k = 0 (a margin of 1.7), 2^-36 elsewhere (2.1); the test's
    constants are those B's."""
    from ulplab.export.fast64 import log

    bound = log.lanes32_bound()
    assert bound["near"][0] < -32.78 and bound["k0"][0] < -33.33
    assert bound["k1"][0] < -37.07 and bound["k"][0] < -37.99
    assert 1.7 * 2 ** max(bound["near"][0], bound["k0"][0]) < log.LANES32_BETA_K0
    assert 2.1 * 2 ** max(bound["k1"][0], bound["k"][0]) < log.LANES32_BETA
    source = fast64.source("log")
    for beta in (log.LANES32_BETA, log.LANES32_BETA_K0):
        assert f"_mm512_set1_epi32({log.lanes32_threshold(beta)})" in source
    assert log.lanes32_threshold(2.0**-36) == 0x3F7FE000 - 0x3F800000 - (24 << 23)


EXP_TABLES = ("    __m512 hi[4], lo[4];\n"
              "    for (int t = 0; t < 4; t++) {\n"
              "        hi[t] = _mm512_loadu_ps(ul_exp32_hi + 16 * t);\n"
              "        lo[t] = _mm512_loadu_ps(ul_exp32_lo + 16 * t);\n    }\n", "hi, lo")

AVX512_LANES_TABLES = {  # func: the C that loads its float32 lanes' tables, and their names
    "exp": EXP_TABLES,
    "exp2": EXP_TABLES,
    "log": ("    const __m512 t[6] = {\n"
           "        _mm512_loadu_ps(ul_log32_invc), _mm512_loadu_ps(ul_log32_invc + 16),\n"
           "        _mm512_loadu_ps(ul_log32_lh), _mm512_loadu_ps(ul_log32_lh + 16),\n"
           "        _mm512_loadu_ps(ul_log32_ll), _mm512_loadu_ps(ul_log32_ll + 16)};\n", "t"),
    "softplus": ("    __m512 t[14];\n"
                "    for (int j = 0; j < 4; j++) {\n"
                "        t[j] = _mm512_loadu_ps(ul_exp32_hi + 16 * j);\n"
                "        t[4 + j] = _mm512_loadu_ps(ul_exp32_lo + 16 * j);\n    }\n"
                "    for (int j = 0; j < 2; j++) {\n"
                "        t[8 + j] = _mm512_loadu_ps(ul_log32_invc + 16 * j);\n"
                "        t[10 + j] = _mm512_loadu_ps(ul_log32_lh + 16 * j);\n"
                "        t[12 + j] = _mm512_loadu_ps(ul_log32_ll + 16 * j);\n    }\n", "t"),
}


def test_the_avx512_lanes_tables_are_these():
    assert set(AVX512_LANES_TABLES) == set(fast64.AVX512_LANES) | set(fast64.FLOAT32_LANES)


def lanes_harness(func: str, head: str, setup: str, step: int, call: str, variant: str):
    """``ul_lanes(x, y, n, count)``: the C ``head`` (tables and lanes), then a loop over n
    inputs ``step`` at a time (``keep``, the mask of the inputs left, for 16) after ``setup``,
    writing what ``call`` returns for each block to `count`; built for ``variant``."""
    keep = ("        const long left = n - i;\n"
            "        const __mmask16 keep = left >= 16 ? (__mmask16)0xFFFF\n"
            "                                          : (__mmask16)((1u << left) - 1u);\n"
            if step == 16 else "")
    src = (fast64.COMMON + head + "void ul_lanes(const float *restrict x, float *restrict y, "
           "long n,\n              uint32_t *restrict count) {\n" + setup
           + f"    for (long i = 0; i < n; i += {step}) {{\n{keep}"
           f"        count[i / {step}] = {call};\n    }}\n}}\n")
    return lanes_function(f"{func}_lanes32_x{step}_test", src, variant)


def avx512_lanes32_x16(func: str):
    """``func``'s AVX-512 float32 lanes (its ``LANES32_AVX512``: ``fast64.AVX512_LANES`` and
    ``fast64.FLOAT32_LANES``) alone over n inputs, 16 at a time (the last block masked, as in
    the pass), writing the mask of the lanes each block flagged to `count`; avx512."""
    mod = fast64.module(func)
    setup, tables_at = AVX512_LANES_TABLES[func]
    return lanes_harness(func, mod.tables() + "#include <immintrin.h>\n" + fast64.SCHEDULE
                         + mod.LANES32_AVX512, setup, 16,
                         f"ul_{func}_lanes32_x16(x + i, y + i, keep, {tables_at})", "avx512")


def run_blocks(fn, x: np.ndarray, width: int) -> tuple[np.ndarray, np.ndarray]:
    """(what the lanes harness ``fn`` writes, the flag masks of its blocks of ``width``) on
    ``x``."""
    got = np.empty_like(x)
    masks = np.zeros((x.size + width - 1) // width, dtype=np.uint32)
    fn(x.ctypes.data, got.ctypes.data, x.size, masks.ctypes.data)
    return got, masks


def run_x16(func: str, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``run_blocks`` of ``avx512_lanes32_x16(func)``."""
    return run_blocks(avx512_lanes32_x16(func), x, 16)


def run_log_x16(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return run_x16("log", x)


def test_log_float32_lanes_keep_correct_results_and_flag_few():
    """What log's float32 lanes keep is the entry point's result (hard cases, random bit
    patterns, log-uniform inputs); they flag every input that is not a positive normal
    number; and a share of ordinary inputs set by the rounding test's B: measured on 2^24
    inputs, 5.3e-4 of log-uniform [1e-30, 1e30] (B = 2^-36 |log x|: k != 0 almost everywhere)
    and 3.9e-3 of uniform [0.5, 2] (half of it k = 0, B = 2^-32): a less accurate evaluation
    flags more, a wrong test fewer; each block returns the mask of the lanes it flagged."""
    runnable("avx512")
    rng = np.random.default_rng(19)
    for x, (fewest, most) in ((np.exp(rng.uniform(-69, 69, 1 << 20)), (4.5e-4, 6.5e-4)),
                              (rng.uniform(0.5, 2, 1 << 20), (3.3e-3, 4.5e-3))):
        x = x.astype(np.float32)
        got, masks = run_log_x16(x)
        flagged = got.view(np.uint32) == FLAG_NAN
        assert fewest < flagged.mean() < most, flagged.mean()
        assert np.array_equal(masks, flag_masks(flagged, 16))
        want = one_pass("log", x)
        assert np.array_equal(got.view(np.uint32)[~flagged], want.view(np.uint32)[~flagged])
    x = np.concatenate([hard_cases(1 << 16), rng.integers(0, 1 << 32, 1 << 18, dtype=np.uint64)
                        .astype(np.uint32).view(np.float32)])
    got, _ = run_log_x16(x)
    flagged = got.view(np.uint32) == FLAG_NAN
    want = one_pass("log", x)
    assert np.array_equal(got.view(np.uint32)[~flagged], want.view(np.uint32)[~flagged]), \
        show(x[~flagged], got[~flagged], want[~flagged])
    bits = x.view(np.uint32)
    assert flagged[(bits < 0x00800000) | (bits >= 0x7F800000)].all()


def test_softplus_float32_lanes_error_bound_leaves_the_rounding_test_a_margin():
    """The bound of softplus's float32 lanes relative to log1p(E) (``softplus.lanes32_bound``:
    2^-32.47 next to 1, 2^-33.49 for k = 0 elsewhere, 2^-35.47 for k = 1, each with exp's
    lanes' 2^-36.21 for E) below the rounding test's B = beta g2: 1.5 2^-32 next to 1, 1.5
    2^-33 for k = 0 elsewhere, 1.5 2^-35 for k = 1, margins above 2 (g2 is log1p(E) within
    2^-11); the C holds those betas and H's margin of 2^-20."""
    from ulplab.export.fast64 import log, softplus

    bound = softplus.lanes32_bound()
    assert bound["near"][0] < -32.47 and bound["k0"][0] < -33.48 and bound["k1"][0] < -35.46
    assert 2 * 2 ** bound["near"][0] < softplus.LANES32_BETA_NEAR * (1 - 2.0**-11)
    assert 2 * 2 ** bound["k0"][0] < softplus.LANES32_BETA * (1 - 2.0**-11)
    assert 2 * 2 ** bound["k1"][0] < softplus.LANES32_BETA_K1 * (1 - 2.0**-11)
    source = fast64.source("softplus")
    for beta in (softplus.LANES32_BETA, softplus.LANES32_BETA_NEAR, softplus.LANES32_BETA_K1):
        assert f"_mm512_set1_ps({beta.hex()}f)" in source
    assert f"_mm512_set1_epi32({log.lanes32_threshold(2.0**-45)})" in source


SOFTPLUS_SHARES = {  # an input range: the share of it the lanes flag (measured on 2^24)
    (-8, 8): (2.7e-3, 3.8e-3),  # 3.2e-3: most of it below -3.47 (B = 1.5 2^-32 log1p(E))
    (-1, 1): (6.5e-4, 1.05e-3),  # 8.5e-4 (k = 1: B = 1.5 2^-35 log1p(E))
}


def test_softplus_float32_lanes_keep_correct_results_and_flag_few():
    """What softplus's float32 lanes keep is the entry point's result (hard cases, random bit
    patterns, ordinary inputs); they keep x for x > 64 (+inf included) and flag x < -64 and
    NaN; and a share of ordinary inputs set by B (``SOFTPLUS_SHARES``: 3.2e-3 of [-8, 8], 8.5e-4
    of [-1, 1], 3.8e-3 of [-20, 20], measured on 2^24): a less accurate evaluation flags more,
    a wrong test fewer."""
    runnable("avx512")
    rng = np.random.default_rng(23)
    for (lo, hi), (fewest, most) in SOFTPLUS_SHARES.items():
        x = rng.uniform(lo, hi, 1 << 20).astype(np.float32)
        got, masks = run_x16("softplus", x)
        flagged = got.view(np.uint32) == FLAG_NAN
        assert fewest < flagged.mean() < most, ((lo, hi), flagged.mean())
        assert np.array_equal(masks, flag_masks(flagged, 16))
        want = one_pass("softplus", x)
        assert np.array_equal(got.view(np.uint32)[~flagged], want.view(np.uint32)[~flagged])
    x = np.concatenate([hard_cases(1 << 16), rng.integers(0, 1 << 32, 1 << 18, dtype=np.uint64)
                        .astype(np.uint32).view(np.float32), f32(np.inf, 64.0, -64.0)])
    got, _ = run_x16("softplus", x)
    flagged = got.view(np.uint32) == FLAG_NAN
    want = one_pass("softplus", x)
    assert np.array_equal(got.view(np.uint32)[~flagged], want.view(np.uint32)[~flagged]), \
        show(x[~flagged], got[~flagged], want[~flagged])
    bits = x.view(np.uint32)
    assert flagged[(bits > 0xC2800000) | ((bits & 0x7FFFFFFF) > 0x7F800000)].all()
    big = (bits > 0x42800000) & (bits <= 0x7F800000)
    assert np.array_equal(got.view(np.uint32)[big], bits[big]) and big.any()


@pytest.mark.parametrize("func", fast64.COUNTED)
@pytest.mark.parametrize("variant", VARIANTS)
def test_the_counted_passes_return_how_many_they_left_flagged(func, variant, tables_by):
    """A pass in ``fast64.COUNTED`` returns exactly how many of its results are FLAG_NAN, or -1
    from a loop that does not count (``fast64.counts``: the portable builds of exp and exp2,
    the gather loops of log's, softplus's and tanh's two-loop builds, sin's and cos's avx512
    and portable builds): the runner (``ulplab_drive_counted``) does
    not look at a chunk whose calls returned 0, so a count below the truth would leave a flag
    in the output. On hard cases, random bit patterns and ordinary inputs, whole and in short
    calls."""
    runnable(variant)
    fn = ctypes.CDLL(str(native._fast64_library(func, variant)))[fast64.symbol(func)]
    fn.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_long]
    fn.restype = ctypes.c_long
    rng = np.random.default_rng(29)
    x = np.concatenate([hard_cases(1 << 14), rng.integers(0, 1 << 32, 1 << 16, dtype=np.uint64)
                        .astype(np.uint32).view(np.float32),
                        ORDINARY[func](rng, 1 << 16).astype(np.float32)])
    loops = [1, 0] if fast64.two_loops(func, variant) else [None]
    for permutes in loops:
        if permutes is not None:
            tables_by(func, permutes, variant)
        counts = set()
        for lo, hi in ((0, x.size), *((i, i + 37) for i in range(0, 2000, 37))):
            y = np.empty(hi - lo, np.float32)
            xs = np.ascontiguousarray(x[lo:hi])
            got = fn(xs.ctypes.data, y.ctypes.data, xs.size)
            flagged = int(np.count_nonzero(y.view(np.uint32) == FLAG_NAN))
            assert got in (flagged, -1), (func, variant, permutes, lo, got, flagged)
            counts.add(got == -1)
        assert counts == {not fast64.counts(func, variant, permutes == 1)}, \
            (func, variant, permutes)


def test_the_benchmark_forces_the_loops_it_names(tables_by, monkeypatch):
    """``benchmarks/bench_native.py --loops``/``--lookup`` (for timing the other loop on a
    lent machine): its choice is set and recorded."""
    import importlib.util

    benchmarks = Path(__file__).parent.parent / "benchmarks"
    monkeypatch.syspath_prepend(str(benchmarks))
    spec = importlib.util.spec_from_file_location("bench_native", benchmarks / "bench_native.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    assert bench.choose_loops("vendor", "vendor") == {}
    try:
        assert bench.choose_loops("gathers", "scalar") == {"avx512_loops": "gathers",
                                                           "lookup": "scalar"}
        assert not bench.permute_loop("log", "avx512")
        for func in fast64.AVX512_PATHS:
            tables_by(func, 0)  # restored to the processor's choice after the test
    finally:
        native.set_lookup_gathers(-1)


def test_the_two_loop_passes_are_these():
    assert {f for f in fast64.FUNCTIONS if hasattr(fast64.module(f), "AVX512")} | {"tanh"} == \
        set(fast64.AVX512_PATHS)
    assert hasattr(fast64.module("tanh"), "RATIONAL") and fast64.AVX2_PATHS == ("tanh",)
    assert {(f, v) for f in fast64.FUNCTIONS for v in ("avx512", "avx2", "portable")
            if fast64.two_loops(f, v)} == {
        *((f, "avx512") for f in ("log", "tanh", "softplus", "log2", "log1p")),
        ("tanh", "avx2")}
    assert fast64.amd_loop("tanh") == "rational" and fast64.amd_loop("log") == "permutes"


def test_the_default_loop_asks_the_vendor_except_where_amd_everywhere():
    """Read from the C, so that it holds whatever the host's vendor: log's and softplus's
    avx512 choice defaults to their float32 lanes without asking the processor, the other
    two-loop passes ask ``__builtin_cpu_is("amd")``."""
    everywhere = {f for f in fast64.AVX512_PATHS if fast64.amd_everywhere(f, "avx512")}
    assert everywhere == {"log", "softplus"} == set(fast64.AVX512_LANES)
    for func in fast64.AVX512_PATHS:
        # tanh's source holds its own choice (tanh._CHOICE: one for its avx512 and avx2 builds)
        c = fast64.source(func) if func == "tanh" else fast64.avx512_choice(func)
        asks = '__builtin_cpu_is("amd")' in c
        assert asks == (func not in everywhere), func
        assert ("if (permutes < 0) permutes = 1;" in c) == (func in everywhere), func
        assert c in fast64.source(func)
    assert not fast64.amd_everywhere("tanh", "avx2")


@pytest.fixture
def tables_by(request):
    """``set(func, permutes, variant="avx512")`` forces the loop of ``func``'s two-loop build
    (1: the AMD loop, 0: gathers); the processor's choice is restored after the test."""
    forced = []

    def choose(func: str, permutes: int, variant: str = "avx512") -> None:
        native.set_fast64_tables(func, variant, permutes)
        forced.append((func, variant))

    yield choose
    for func, variant in forced:
        native.set_fast64_tables(func, variant, -1)


TWO_LOOPS = [(f, "avx512") for f in fast64.AVX512_PATHS] + [(f, "avx2")
                                                            for f in fast64.AVX2_PATHS]


@pytest.mark.parametrize(("func", "variant"), TWO_LOOPS)
@pytest.mark.parametrize("permutes", [1, 0])
def test_the_two_loop_passes_mask_their_tail(func, variant, permutes, tables_by):
    """The two-loop builds' loops (the AMD one: float64 lanes 8 or 4 a register, or float32
    lanes 16 a register, 1 to 4 registers an iteration, the last inputs under a mask; and
    gcc's): for every n from 1 to 80 and every start, what they write is what they write for
    the same inputs in a longer call, and nothing past n is touched."""
    runnable(variant)
    tables_by(func, permutes, variant)
    fn = native._fast64(func, variant)
    rng = np.random.default_rng(13)
    x = np.concatenate([hard_cases(1 << 10),
                        rng.integers(0, 1 << 32, 1 << 10, dtype=np.uint64)
                        .astype(np.uint32).view(np.float32)])
    want = np.empty_like(x)
    fn(x.ctypes.data, want.ctypes.data, x.size)
    for start in range(8):
        for n in range(1, 81):
            xs = np.ascontiguousarray(x[start:start + n])
            got = np.full(n + 8, 1.5, dtype=np.float32)
            fn(xs.ctypes.data, got.ctypes.data, n)
            assert np.array_equal(got[:n].view(np.uint32),
                                  want[start:start + n].view(np.uint32))
            assert (got[n:] == 1.5).all()


@pytest.mark.parametrize(("func", "variant"), TWO_LOOPS)
def test_both_loops_keep_correct_results(func, variant, tables_by):
    """Each loop of a two-loop build keeps the entry point's result wherever it does not flag,
    on the hard cases and 2^16 random bit patterns, and flags few ordinary inputs; the loop
    that runs by default is the processor's choice: the AMD loop on an AMD processor, the
    gathers elsewhere (read from /proc/cpuinfo where it exists), except that log's and
    softplus's avx512 builds run their float32 lanes on every processor."""
    runnable(variant)
    rng = np.random.default_rng(17)
    x = np.concatenate([hard_cases(1 << 14),
                        rng.integers(0, 1 << 32, 1 << 16, dtype=np.uint64)
                        .astype(np.uint32).view(np.float32)])
    want = one_pass(func, x)
    fn = native._fast64(func, variant)
    for permutes in (1, 0):
        tables_by(func, permutes, variant)
        got = np.empty_like(x)
        fn(x.ctypes.data, got.ctypes.data, x.size)
        kept = got.view(np.uint32) != FLAG_NAN
        assert np.array_equal(got.view(np.uint32)[kept], want.view(np.uint32)[kept]), \
            show(x[kept], got[kept], want[kept])
        ordinary = ORDINARY[func](rng, 1 << 16).astype(np.float32)
        fn(ordinary.ctypes.data, got.ctypes.data, ordinary.size)
        assert (got.view(np.uint32)[:ordinary.size] == FLAG_NAN).mean() < 1e-3
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.is_file():
        amd = "AuthenticAMD" in cpuinfo.read_text()
        everywhere = fast64.amd_everywhere(func, variant)
        assert everywhere == (variant == "avx512" and func in ("log", "softplus"))
        assert native.set_fast64_tables(func, variant, -1) == int(amd or everywhere)


def test_sin_half_polynomial_is_the_fit_it_names_and_leaves_a_margin():
    """sin's and cos's passes' P (``sin.SIN_HALF``) is what its docstring's Remez fit gives,
    each coefficient rounded to the nearest float64; within 2^-43.478 of (sin r - r)/r^3
    (``half_fit_error``); relative to sin r at |r| = pi/2 + 2^-34, with r's own error and the
    roundings, below 2^-41.4, which ERR_HALF covers five times (in units of 2^-53). The
    reduction's two parts (``sin.pio2_parts``): P1 = pi/2 to 36 significant bits (``m P1``
    exact for |m| < 2^17) and R = pi/2 - P1 to nearest, within 2^-92.8 of the rest; with the
    closest float32 to a multiple of pi/2 (2^-27.83 from it) r's relative error stays below
    2^-46.4."""
    from ulplab.export.fast64 import sin
    from ulplab.fit.remez import remez

    def f(y):
        r = mpmath.sqrt(y)
        return mpmath.mpf(-1) / 6 if y == 0 else (mpmath.sin(r) - r) / (y * r)

    with mpmath.workprec(160):
        fit = remez(f, mpmath.mpf(0), (mpmath.pi / 2 + mpmath.mpf(2) ** -30) ** 2,
                    list(range(6)))
    assert [float(c).hex() for c in fit.coefficients] == \
        [float.fromhex(c).hex() for c in sin.SIN_HALF]
    error = sin.half_fit_error()
    assert 2.0**-43.48 < error < 2.0**-43.47
    reach = np.pi / 2 + 2.0**-34
    p1, rest = sin.pio2_parts()
    assert p1 == float.fromhex("0x1.921fb54440000p+0") and p1 * 2.0**35 == int(p1 * 2.0**35)
    with mpmath.workprec(300):
        gap = abs(mpmath.pi / 2 - mpmath.mpf(p1) - mpmath.mpf(rest))
        assert 0 < gap < mpmath.mpf(2) ** -92.8
        # |m| < 2^17 times the gap, the second FMA's rounding, and without an FMA instruction
        # m R's (|m R| < 2^-21.5), over r >= 2^-27.83
        r_error = (2**17 * gap + mpmath.mpf(2) ** -75) / mpmath.mpf(2) ** -27.83 + 2.0**-53
        assert r_error < mpmath.mpf(2) ** -46.4
        assert abs(rest) * 2**17 < 2.0**-21.5
    bound = error * reach**2 * (reach / np.sin(reach)) + 2.0**-46.4 + 2.0**-52.5
    assert bound < 2.0**-41.4 and 5 * bound * 2.0**53 < sin.ERR_HALF


@pytest.mark.parametrize(("func", "bound"), [("sin", 2.0**-45.55), ("cos", 2.0**-51.6)])
def test_sin_cos_polynomials_are_within_their_bounds(func, bound):
    """tan's r + r^3 P(r^2) and 1 + r^2 Q(r^2) (``sin.SIN``, ``sin.COS``: the fitted
    float64 coefficients, evaluated exactly) against mpmath at 1,000 points of (0, pi/4 +
    2^-40]: the relative approximation errors of the analysis (2^-45.58 and 2^-51.61 measured
    at 20,000 points by ``benchmarks/fit_fast64.py sincos``); a polynomial one coefficient
    short fails by orders of magnitude."""
    from ulplab.export.fast64 import sin

    row = sin.SIN if func == "sin" else sin.COS
    with mpmath.workprec(160):
        reach = mpmath.pi / 4 + mpmath.mpf(2) ** -40
        coefficients = [mpmath.mpf(v) for v in reversed(row)]
        worst = mpmath.mpf(0)
        for i in range(1, 1001):
            r = reach * i / 1000
            q = mpmath.polyval(coefficients, r * r)
            got = r + r**3 * q if func == "sin" else 1 + r * r * q
            want = mpmath.sin(r) if func == "sin" else mpmath.cos(r)
            worst = max(worst, abs(got - want) / abs(want))
    assert worst < bound
    assert worst > bound / 4  # the claim is measured, not slack
    assert sin.ERR > 5 * 2.0**-45.5 * 2.0**53  # tan's ERR


def test_unknown_names_are_usage_errors():
    with pytest.raises(UsageError, match="no float64 first pass for 'softmax'"):
        fast64.source("softmax")
    with pytest.raises(UsageError, match="unknown first pass 'float16'"):
        native.kernel("exp", first_pass="float16")
    # the choice of an avx512 loop: only for the two-loop passes, on avx512, -1, 0 or 1
    for args in (("exp", "avx512", 1), ("log", "avx2", 1), ("log", "avx512", 2),
                 ("log", "avx512", True), ("log", "avx512", "1"), ("nope", "avx512", 0),
                 ("tanh", "portable", 1), ("tanh", "avx2", None), (["tanh"], "avx2", 1)):
        with pytest.raises(UsageError, match="no choice of tables"):
            native.set_fast64_tables(*args)


def test_the_registry_holds_a_proof_for_the_pass_as_it_is_now():
    """Every float64 pass is proved on all 2^32 inputs for every build variant
    (benchmarks/verify_native.py --fast64, read by python -m ulplab.analysis.kernel_registry
    --write --fast64-record ...), for the current kernel and the current C source: an edit of
    either needs a new sweep."""
    for func in fast64.FUNCTIONS:
        k = registry.get(func)
        for variant in VARIANTS:
            proof = k.fast64_proofs.get(variant)
            assert proof is not None, (func, variant)
            assert proof.holds_for(k.golden["float32"], fast64.source_sha256(func)), \
                (func, variant, proof)


def test_the_registry_generator_reads_only_full_sweeps(tmp_path):
    """kernel_registry --fast64-record: a sweep of 2^32 inputs becomes a proof with its golden
    hash and source SHA-256; a partial sweep is left out; a missing file is a UsageError."""
    import json

    from ulplab.analysis.kernel_registry import fast64_proofs

    full = {"golden": "a" * 64, "fast64_source_sha256": "b" * 64, "inputs": 2**32,
            "mismatches": 0, "flagged": 7, "seconds": 1.5, "threads": 2,
            "date": "2026-11-25T20:00:00Z"}
    record = tmp_path / "proofs.json"
    record.write_text(json.dumps({"kernels": {"exp": {"avx2": full,
                                                      "portable": {**full, "inputs": 2**20}}}}))
    proofs = fast64_proofs("exp", record)
    assert list(proofs) == ["avx2"]
    proof = registry.Fast64Proof("avx2", **proofs["avx2"])
    assert proof.holds_for("a" * 64, "b" * 64)
    assert not proof.holds_for("a" * 64, "c" * 64)
    assert fast64_proofs("log", record) == {}
    with pytest.raises(UsageError, match="cannot read"):
        fast64_proofs("exp", tmp_path / "missing.json")


TANH_SEAMS = {  # x: where tanh's float64 pass changes regime
    9.25: "the clamp (CLAMP = 0x41140000)",
    9.011: "tanh rounds to 1 above 9.0109",
    1 / 256: "k = 0 -> 1 (the table's first step)",
    132 / 128 - 1 / 256: "the bound's worst case: k = 132, h = -1/256",
    4 + 1 / 256: "k = 512 -> 513",
    9.25 - 1 / 256: "k = 1183 -> 1184, the table's last entry",
    2.0**-27: "below it t = rho = |x| exactly",
    2.0**-12: "tanh(x) rounds to x below about 2^-11.7",
}


@pytest.mark.parametrize("variant", VARIANTS)
def test_tanh_every_input_at_the_seams(variant):
    """2^16 consecutive float32 on each side of every seam of tanh's float64 pass, both signs:
    what the pass keeps is the entry point's result and it keeps most of them, and the runner
    gives the entry point's bits; at 2^-126 every input below (zero and the subnormals) is
    flagged and the normal ones above are kept but near midpoints."""
    runnable(variant)
    steps = np.arange(-(1 << 16), 1 << 16)
    for value, where in TANH_SEAMS.items():
        base = f32(value, -value).view(np.uint32).astype(np.int64)
        x = (base[:, None] + steps).ravel().astype(np.uint32).view(np.float32)
        got = float64_pass("tanh", variant, x)
        want = one_pass("tanh", x)
        kept = (got.view(np.uint32) & np.uint32(0x7FFFFFFF)) != FLAG_NAN
        assert kept.mean() > 0.999, (where, kept.mean())
        assert np.array_equal(got.view(np.uint32)[kept], want.view(np.uint32)[kept]), \
            (where, show(x[kept], got[kept], want[kept]))
        full = native.kernel("tanh", variant)(x, threads=1)
        assert np.array_equal(full.view(np.uint32), want.view(np.uint32)), \
            (where, show(x, full, want))
    x = (np.int64(0x00800000) + steps).astype(np.uint32).view(np.float32)  # 2^-126
    x = np.concatenate([x, -x])
    flagged = (float64_pass("tanh", variant, x).view(np.uint32)
               & np.uint32(0x7FFFFFFF)) == FLAG_NAN
    below = np.abs(x) < np.float32(2.0**-126)
    assert np.all(flagged[below])
    assert np.count_nonzero(flagged[~below]) < 1e-3 * np.count_nonzero(~below)


def test_tanh_table_is_the_nearest_float64():
    """ul_tanh_tab[k] = tanh(k/128) within half an ulp, k = 0..1184; the last index is
    128 times the clamp, so every clamped input reads inside the table."""
    from ulplab.export.fast64 import tanh

    text = tanh.tables()
    body = text[text.index("{") + 1:text.index("}")]
    values = [float.fromhex(v) for v in body.replace("\n", " ").split(",")]
    clamp = float(np.uint32(tanh.CLAMP).view(np.float32))
    assert clamp == 9.25 and len(values) == tanh.LAST + 1 == round(clamp * tanh.STEPS) + 1
    assert values[0] == 0.0
    with mpmath.workprec(200):
        for k in (1, 2, 127, 128, 600, 1183, 1184):
            exact = mpmath.tanh(mpmath.mpf(k) / tanh.STEPS)
            half_ulp = mpmath.mpf(2) ** (mpmath.floor(mpmath.log(exact, 2)) - 53)
            assert abs(mpmath.mpf(values[k]) - exact) <= half_ulp, k


def test_tanh_error_bound_leaves_the_rounding_test_a_margin():
    """The error analysis of tanh's float64 pass (its module docstring: below 2^-42.4 at
    k = 132, h = -2^-8) evaluated again: ERR covers the bound, in units in the last place of
    the float64 result, five times."""
    from ulplab.export.fast64 import tanh

    bound, k, h = tanh.relative_error_bound()
    assert 2.0**-42.5 < bound < 2.0**-42.4 and (k, h) == (132, -2.0**-8)
    assert 5 * bound * 2.0**53 < tanh.ERR


def test_tanh_rational_is_the_fit_it_names():
    """``tanh.RATIONAL_P`` and ``RATIONAL_Q`` are what their docstrings' rational Remez fit
    gives, each coefficient rounded to the nearest float64, and the rounded rational function
    is within 2^-39.07 of tanh(a)/a relative on [0, 9.25] (measured 2^-39.0708); every
    coefficient is positive (the analysis of Horner's roundings needs it) and Q(0) = 1."""
    from ulplab.export.fast64 import tanh
    from ulplab.fit.rational import rational_remez

    with mpmath.workprec(128):
        fit = rational_remez(tanh._rational_target, 0, mpmath.mpf(tanh.RATIONAL_REACH) ** 2,
                             *tanh.RATIONAL_DEGREES)
    assert [float(c).hex() for c in fit.p] == [float.fromhex(c).hex() for c in tanh.RATIONAL_P]
    assert [float(c).hex() for c in fit.q] == [float.fromhex(c).hex() for c in tanh.RATIONAL_Q]
    assert 2.0**-39.075 < tanh.rational_fit_error() < 2.0**-39.065
    coefficients = [float.fromhex(c) for c in tanh.RATIONAL_P + tanh.RATIONAL_Q]
    assert all(c > 0 for c in coefficients) and float.fromhex(tanh.RATIONAL_Q[0]) == 1.0


def test_tanh_rational_error_bound_leaves_the_rounding_test_a_margin():
    """The AMD loop's error analysis (``tanh.rational_error_bound``: below 2^-39.06) evaluated
    again: ERR_RATIONAL covers it four times, in units in the last place of the float64
    result, and is a power of two (the loop's midpoint test is a bit test)."""
    from ulplab.export.fast64 import tanh

    bound = tanh.rational_error_bound()
    assert 2.0**-39.07 < bound < 2.0**-39.05
    assert 4 * bound * 2.0**53 < tanh.ERR_RATIONAL < 1 << 27
    assert tanh.ERR_RATIONAL & (tanh.ERR_RATIONAL - 1) == 0


def test_tanh_rational_values_are_within_the_bound():
    """The AMD loop's float64 value t = a P(a^2) / Q(a^2), each operation of the C rounded to
    nearest float64 as the loop does (an FMA rounded once: exact rationals), against mpmath's
    tanh on 3,000 inputs in (0, 9.25] (a third below 2^-4): the relative error lies below
    ``rational_error_bound`` and above 2^-39.5 (the fit's error shows: the claim is
    measured)."""
    from fractions import Fraction

    from ulplab.export.fast64 import tanh

    def fma(a: float, b: float, c: float) -> float:
        return float(Fraction(a) * Fraction(b) + Fraction(c))

    def horner(z: float, coefficients: list[str]) -> float:
        acc = float.fromhex(coefficients[-1])
        for c in reversed(coefficients[:-1]):
            acc = fma(z, acc, float.fromhex(c))
        return acc

    rng = np.random.default_rng(41)
    inputs = np.concatenate([rng.uniform(0, 9.25, 2000), 2.0 ** rng.uniform(-30, -4, 1000)])
    worst = 0.0
    with mpmath.workprec(100):
        for a in inputs.astype(np.float32).astype(np.float64):
            z = a * a
            t = (a * horner(z, tanh.RATIONAL_P)) / horner(z, tanh.RATIONAL_Q)
            worst = max(worst, float(abs(mpmath.mpf(t) / mpmath.tanh(mpmath.mpf(a)) - 1)))
    assert 2.0**-39.5 < worst < tanh.rational_error_bound()


LANES = {  # func: (the largest |x| bits the float32 lanes keep, an ordinary range up to it,
    # the share of flags measured on 2^24 of each of [-10, 10] and that range, with a margin)
    "exp": (0x42AE0000, (-87, 87), (4e-4, 6e-4)),  # 87: 4.9e-4 and 4.9e-4
    "exp2": (0x42FA0000, (-125, 125), (3.5e-4, 6e-4)),  # 125: 5.1e-4 and 4.4e-4
}
"""The passes with float32 lanes (``fast64.FLOAT32_LANES``): exp's, and exp2's made from them."""


def lanes32(variant: str, func: str = "exp"):
    """``func``'s float32 lanes alone (its ``LANES32`` in a loop of its own), built for
    ``variant``."""
    mod = fast64.module(func)
    src = (fast64.COMMON + mod.tables() + mod.LANES32
           + "void ul_lanes(const float *restrict x, float *restrict y, long n) {\n"
           "    for (long i = 0; i < n; i++) {\n"
           f"        const uint32_t b = ul_{func}_lanes32(x[i]);\n"
           "        memcpy(y + i, &b, 4);\n    }\n}\n")
    return native.buffer_function(native.build_source(f"{func}_lanes32_test", src, variant),
                                  "ul_lanes")


def test_the_lanes_table_covers_the_float32_lanes():
    assert set(LANES) == set(fast64.FLOAT32_LANES)


@pytest.mark.parametrize("func", sorted(LANES))
@pytest.mark.parametrize("variant", ("avx512", "avx2"))
def test_exp_float32_lanes_keep_correct_results_and_flag_few(variant, func):
    """What exp's float32 lanes (and exp2's, the same with its own reduction) keep is the entry
    point's result; they flag |x| > 87 (125 for exp2), NaN and the infinities, and 5e-4 of
    ordinary inputs (the analysis: B0/H = 2^-11; measured 4.9e-4 on 2^24 uniform inputs in
    [-10, 10] and in [-87, 87]; exp2 5.1e-4 in [-10, 10] and 4.4e-4 in [-125, 125], where the
    large inputs' reduced arguments take fewer values): a less accurate evaluation (a larger
    bound) flags more, a wrong test fewer."""
    runnable(variant)
    lanes = lanes32(variant, func)
    widest, ordinary, (fewest, most) = LANES[func]
    rng = np.random.default_rng(7)
    for lo, hi in ((-10, 10), ordinary):
        x = rng.uniform(lo, hi, 1 << 20).astype(np.float32)
        got = np.empty_like(x)
        lanes(x.ctypes.data, got.ctypes.data, x.size)
        flagged = got.view(np.uint32) == FLAG_NAN
        assert fewest < flagged.mean() < most, flagged.mean()
        want = one_pass(func, x)
        assert np.array_equal(got.view(np.uint32)[~flagged], want.view(np.uint32)[~flagged])
    def run(x: np.ndarray) -> np.ndarray:
        got = np.empty_like(x)
        lanes(x.ctypes.data, got.ctypes.data, x.size)
        return got

    check_lanes_on_hard_cases(func, run, widest)


def check_lanes_on_hard_cases(func: str, run, widest: int) -> None:
    """What ``run`` (float32 lanes on an array) keeps of the hard cases is the entry point's
    result, and it flags every input above ``widest`` (|x|'s bits)."""
    x = hard_cases(1 << 16)
    got = run(x)
    flagged = got.view(np.uint32) == FLAG_NAN
    want = one_pass(func, x)
    assert np.array_equal(got.view(np.uint32)[~flagged], want.view(np.uint32)[~flagged]), \
        show(x[~flagged], got[~flagged], want[~flagged])
    wide = (x.view(np.uint32) & np.uint32(0x7FFFFFFF)) > np.uint32(widest)
    assert flagged[wide].all() and wide.any()


@pytest.mark.parametrize(("march", "lanes"), [(None, False), ("x86-64-v3", True),
                                              ("x86-64-v4", True)])
def test_exp_float32_lanes_only_where_there_is_an_fma(march, lanes, tmp_path):
    """The avx2 and avx512 builds compile the float32 lanes (fmaf is an instruction there); the
    portable build the float64 loop alone (its fmaf would be glibc's software one)."""
    x86_gcc()
    src = tmp_path / "exp.c"
    src.write_text(fast64.source("exp"))
    flags = [] if march is None else [f"-march={march}"]
    res = subprocess.run([CC, "-E", *flags, str(src)], capture_output=True, text=True,
                         check=True)
    body = res.stdout[res.stdout.index("ulplab_exp_fast64"):]
    # the avx512 build's entry calls ul_exp_lanes_x16 (its loop of float32 lanes)
    assert ("ul_exp_lanes32" in body or "ul_exp_lanes_x16" in body) is lanes


def test_exp_float32_table_is_the_nearest_pair():
    """ul_exp32_hi[j] is 2^(j/64) rounded to the nearest float32, and hi + lo is within 2^-49
    of it; ln2/64's float32 is a multiple of 2^-27 (so is k L1: r1 exact)."""
    text = tables.exp_table32()

    def array(name: str) -> list[float]:
        body = text[text.index(name):]
        body = body[body.index("{") + 1:body.index("}")]
        return [float.fromhex(v.strip().rstrip("f")) for v in body.split(",")]

    hi, lo = array("ul_exp32_hi"), array("ul_exp32_lo")
    assert len(hi) == len(lo) == 64 and hi[0] == 1.0 and lo[0] == 0.0
    with mpmath.workprec(200):
        for j in range(64):
            exact = mpmath.mpf(2) ** (mpmath.mpf(j) / 64)
            assert np.float32(hi[j]) == hi[j] and np.float32(lo[j]) == lo[j]
            assert abs(mpmath.mpf(hi[j]) - exact) <= mpmath.mpf(2) ** -24
            assert abs(mpmath.mpf(hi[j]) + mpmath.mpf(lo[j]) - exact) <= mpmath.mpf(2) ** -49
    l1 = text[text.index("UL_LN2_64_F ="):].split("=")[1].split(";")[0].strip().rstrip("f")
    assert (Fraction(float.fromhex(l1)) * 2**27).denominator == 1


def test_the_pass_says_what_it_evaluates_in():
    """The builds with an FMA instruction are the variants that need the CPU's fma flag."""
    fma = {v for v, (_, need) in native.VARIANTS.items() if "fma" in need}
    assert fma == {"avx512", "avx2"}
    assert fast64.description("exp", True) == "float32 lanes, then float64"
    assert fast64.description("exp", False) == "float64"
    assert fast64.description("log", True) == "float64"
    assert fast64.description("log", True, permutes=True) == "float32 lanes, then float64"
    assert fast64.description("log2", True, permutes=True) == "float64"
    with pytest.raises(UsageError):
        fast64.description("softmax", True)


@pytest.mark.parametrize(("variant", "funcs"), [("avx512", ("tanh", "softplus")),
                                               ("avx2", ("tanh", "log"))])
def test_the_x86_passes_read_their_tables_by_gathers(variant, funcs, tmp_path):
    """The x86 float64 passes' tables are read by vgather instructions: gcc 13.2 and later
    leave gathers out of their Intel tunings unless told (-mgather: fast64_flags adds it where
    the compiler takes it), and their element-by-element loads made exp's pass twice as slow
    on a 16-core Xeon (native.GATHER_FLAG); compiling only: any x86 gcc. (log's, log2's,
    log1p's and softplus's avx512 builds also hold a loop with permutes, tanh's avx512 and
    avx2 builds one without a table: the tests below.)"""
    for func in funcs:
        assert "vgatherqpd" in pass_assembly(func, variant, tmp_path), func
    assert native.fast64_flags("portable") == native.FAST64_FLAGS.get("portable", ())


def pass_assembly(func: str, variant: str, tmp_path: Path) -> str:
    """The assembly gcc makes of ``func``'s float64 pass with ``variant``'s flags."""
    x86_gcc()
    src = tmp_path / f"{func}.c"
    src.write_text(fast64.source(func))
    asm = tmp_path / f"{func}.s"
    subprocess.run([CC, *native.BASE_FLAGS[:4], *native.VARIANTS[variant][0],
                    *native.fast64_flags(variant), "-S", str(src), "-o", str(asm)], check=True)
    return asm.read_text()


@pytest.mark.parametrize("func", [f for f in fast64.AVX512_PATHS if f != "tanh"])
@pytest.mark.parametrize(("variant", "permutes"), [("avx512", True), ("avx2", False)])
def test_the_avx512_passes_read_their_tables_by_permutes(func, variant, permutes, tmp_path):
    """log's and softplus's avx512 builds hold a loop that reads 32-entry float32 tables by
    permutes of registers (their float32 lanes: ``fast64.AVX512_LANES``) beside gcc's loop with
    gathers, log2's and log1p's a float64 loop that reads its two 32-entry tables so; the avx2
    builds only gather (compiling only)."""
    text = pass_assembly(func, variant, tmp_path)
    kind = "ps" if func in fast64.AVX512_LANES else "pd"
    assert (f"vpermt2{kind}" in text or f"vpermi2{kind}" in text) is permutes
    assert "vgatherqpd" in text


@pytest.mark.parametrize(("variant", "register"), [("avx512", "zmm"), ("avx2", "ymm"),
                                                  ("portable", None)])
def test_tanh_amd_loop_divides_and_the_other_gathers(variant, register, tmp_path):
    """tanh's avx512 and avx2 builds hold the rational function's loop (one vdivpd a register
    of float64 lanes, no table) beside gcc's loop with the table's gathers; the portable build
    has the table's loop alone, without gathers (compiling only)."""
    text = pass_assembly("tanh", variant, tmp_path)
    divisions = re.findall(r"vdivpd\s[^\n]*%(\w)mm", text)
    if register is None:
        assert "ulplab_tanh_fast64_tables" not in text and "vgatherqpd" not in text
        assert not any(r in ("y", "z") for r in divisions)
    else:
        assert register[0] in divisions and "ulplab_tanh_fast64_tables" in text
        assert "vgatherqpd" in text


@pytest.mark.parametrize(("variant", "permute"), [("avx512", ("vpermt2ps", "vpermi2ps")),
                                                 ("avx2", ("vpermps",))])
def test_exp_lanes_read_their_tables_by_permutes(variant, permute, tmp_path):
    """exp's float32 lanes in the avx512 build (``exp.LANES32_AVX512``) read the 64-entry table
    by permutes of two registers, not by 16-lane gathers (32 loads per 16 elements, which held
    the loop back); in the avx2 build (``exp.LANES32_AVX2``) the two 8-entry tables by permutes
    of one register, not by gathers (compiling only)."""
    text = pass_assembly("exp", variant, tmp_path)
    assert any(p in text for p in permute)
    assert "vgatherdps" not in text


def lanes_inputs(func: str, seed: int, hard: int, each: int) -> np.ndarray:
    """Inputs for the float32 lanes' tests: ``hard`` hard cases, then ``each`` random bit
    patterns and ``each`` uniform inputs a little beyond the lanes' ordinary range."""
    rng = np.random.default_rng(seed)
    lo, hi = LANES[func][1]
    return np.concatenate([hard_cases(hard),
                           rng.integers(0, 1 << 32, each, dtype=np.uint64)
                           .astype(np.uint32).view(np.float32),
                           rng.uniform(lo - 3, hi + 3, each).astype(np.float32)])


def lanes_function(name: str, src: str, variant: str):
    """``ul_lanes(x, y, n, count)`` of the C ``src`` built for ``variant``."""
    fn = ctypes.CDLL(str(native.build_source(name, src, variant))).ul_lanes
    fn.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_long, ctypes.c_void_p]
    fn.restype = None
    return fn


def check_blocks(got: np.ndarray, want: np.ndarray, flagged: np.ndarray, masks: np.ndarray,
                 n: int, width: int) -> None:
    """The first n lanes written are ``want``'s, nothing past them (1.5 there) is touched, and
    each block of ``width`` returns the bit mask of the lanes it flagged."""
    assert np.array_equal(got[:n].view(np.uint32), want[:n].view(np.uint32))
    assert (got[n:] == 1.5).all()
    assert np.array_equal(masks, flag_masks(flagged[:n], width))


def flag_masks(flagged: np.ndarray, width: int) -> np.ndarray:
    """The bit masks (lane j: bit j) of the blocks of ``width`` of the booleans ``flagged`` (the
    last block padded with False)."""
    pad = np.zeros(-(-flagged.size // width) * width, dtype=np.uint64)
    pad[:flagged.size] = flagged
    return (pad.reshape(-1, width) << np.arange(width, dtype=np.uint64)).sum(axis=1).astype(
        np.uint32)


@pytest.mark.parametrize("func", sorted(LANES))
def test_exp_avx512_lanes_are_the_generic_lanes_bit_for_bit(func):
    """The AVX-512 float32 lanes (exp's, and exp2's) give ``LANES32``'s bits, flags included,
    lane for lane, and return the mask of the lanes each block of 16 flagged; a tail of 1 to 15
    inputs is read and written under a mask (nothing past it is touched)."""
    runnable("avx512")
    generic, x16 = lanes32("avx512", func), avx512_lanes32_x16(func)
    x = lanes_inputs(func, 11, 1 << 16, 1 << 18)
    want = np.empty_like(x)
    generic(x.ctypes.data, want.ctypes.data, x.size)
    flagged = want.view(np.uint32) == FLAG_NAN
    assert 0.001 < flagged.mean() < 0.9
    for n in (x.size, *range(1, 40)):
        got = np.full(n + 16, 1.5, dtype=np.float32)
        count = np.zeros((n + 15) // 16, dtype=np.uint32)
        x16(x.ctypes.data, got.ctypes.data, n, count.ctypes.data)
        check_blocks(got, want, flagged, count, n, 16)


def lanes32_x8(func: str = "exp"):
    """``func``'s AVX2 float32 lanes (its ``LANES32_AVX2``) alone over n inputs, 8 at a time (the
    last block masked, as in the pass), writing the mask of the lanes each block flagged to
    `count`; built for avx2."""
    mod = fast64.module(func)
    setup = ("    const __m256 t[4] = {\n"
             "        _mm256_loadu_ps(ul_exp32_a_hi), _mm256_loadu_ps(ul_exp32_a_lo),\n"
             "        _mm256_loadu_ps(ul_exp32_b_hi), _mm256_loadu_ps(ul_exp32_b_lo)};\n")
    return lanes_harness(func, mod.tables() + mod.LANES32_AVX2, setup, 8,
                         f"ul_{func}_lanes32_x8(x + i, y + i, n - i, t)", "avx2")


def run_x8(func: str, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``run_blocks`` of ``lanes32_x8(func)``."""
    return run_blocks(lanes32_x8(func), x, 8)


@pytest.mark.parametrize("func", sorted(LANES))
def test_exp_avx2_lanes_keep_correct_results_and_flag_few(func):
    """exp's AVX2 float32 lanes (and exp2's), whose 2^(j/64) is the product of two 8-entry pairs
    (a table error of 2^-47.30 where the 64-entry pairs have 2^-49: the analysis' budget 2^-35.92
    against B0 = 2^-35): what they keep is the entry point's result, they flag |x| > 87 (125),
    NaN and the infinities and, measured on 2^24 uniform inputs, exp 5.0e-4 of [-10, 10] and
    of [-87, 87], exp2 5.1e-4 of [-10, 10] and 4.4e-4 of [-125, 125] (the 64-entry lanes' shares
    within 2e-6: the budget stays below B0, whose share the test flags); a less accurate
    product flags more, a wrong test fewer."""
    runnable("avx2")
    widest, ordinary, (fewest, most) = LANES[func]
    rng = np.random.default_rng(7)
    for lo, hi in ((-10, 10), ordinary):
        x = rng.uniform(lo, hi, 1 << 20).astype(np.float32)
        got, count = run_x8(func, x)
        flagged = got.view(np.uint32) == FLAG_NAN
        assert fewest < flagged.mean() < most, flagged.mean()
        assert np.array_equal(count, flag_masks(flagged, 8))
        want = one_pass(func, x)
        assert np.array_equal(got.view(np.uint32)[~flagged], want.view(np.uint32)[~flagged])
    check_lanes_on_hard_cases(func, lambda x: run_x8(func, x)[0], widest)


@pytest.mark.parametrize("func", sorted(LANES))
def test_exp_avx2_lanes_mask_their_tail_and_count_their_flags(func):
    """A tail of 1 to 7 inputs is read and written under a mask (nothing past it is touched,
    and what the lanes write does not depend on where the tail starts), and each block returns
    the mask of the lanes it flagged."""
    runnable("avx2")
    x = lanes_inputs(func, 12, 1 << 12, 1 << 12)
    want, _ = run_x8(func, x)
    flagged = want.view(np.uint32) == FLAG_NAN
    assert 0.001 < flagged.mean() < 0.9
    fn = lanes32_x8(func)
    for start in range(8):
        for n in range(1, 40):
            got = np.full(n + 8, 1.5, dtype=np.float32)
            count = np.zeros((n + 7) // 8, dtype=np.uint32)
            xs = np.ascontiguousarray(x[start:start + n])
            fn(xs.ctypes.data, got.ctypes.data, n, count.ctypes.data)
            check_blocks(got, want[start:], flagged[start:], count, n, 8)


def test_exp_split_table_is_the_nearest_pairs_and_its_products_are_bounded():
    """The avx2 lanes' two tables: each hi is 2^(a/8) (2^(b/64)) rounded to the nearest float32
    and hi + lo within 2^-48 of it; the 64 products th + tl as the lanes compute them
    (``tables.exp_split_products``, float32 roundings simulated exactly) are 2^(j/64) within
    2^-47.30 relative, |tl| <= 2^-22.89 th (the figures of exp's analysis); th + tl = 1
    exactly at j = 0 (exp(0) = 1 is kept); the budget of exp's analysis with them is below
    B0 = 2^-35 by a margin of 1.89."""
    ahs, als, bhs, bls = tables.exp_pairs32_split()
    with mpmath.workprec(200):
        for den, his, los in ((8, ahs, als), (64, bhs, bls)):
            for i in range(8):
                exact = mpmath.mpf(2) ** (mpmath.mpf(i) / den)
                assert np.float32(his[i]) == his[i] and np.float32(los[i]) == los[i]
                assert abs(mpmath.mpf(his[i]) - exact) <= mpmath.mpf(2) ** -24
                assert abs(mpmath.mpf(his[i]) + mpmath.mpf(los[i]) - exact) <= \
                    mpmath.mpf(2) ** -48
    err, size = tables.exp_split_bounds()
    assert -47.31 < err < -47.29 and -22.90 < size < -22.88
    assert tables.exp_split_products()[0] == (1.0, 0.0)
    th_max = max(th for th, _ in tables.exp_split_products())
    cq = 2.0**-22 + 2.0**-16.05  # |c| + |q| (exp's analysis)
    budget = (2.0**-36.88 + 4 * 2.0**-40 + 2.0**size * th_max * cq + 2.0**err * th_max)
    assert 1.85 < 2.0**-35 / budget < 1.95


def test_a_flag_the_compiler_refuses_is_left_out():
    assert native._accepts(native.compiler(), "-O2")
    assert not native._accepts(native.compiler(), "-mno-such-option-ulplab")


DAZ_FTZ = """
#include <xmmintrin.h>
/* the pass run with denormals read as zero and results flushed to zero (MXCSR bits 6 and 15,
   as JAX's CPU runtime sets them), the caller's MXCSR restored after */
void ul_pass_daz_ftz(const float *x, float *y, long n) {
    const unsigned int old = _mm_getcsr();
    _mm_setcsr(old | 0x8040u);
    PASS(x, y, n);
    _mm_setcsr(old);
}
"""


@pytest.mark.parametrize(("func", "variant"), CASES)
def test_what_the_pass_keeps_does_not_depend_on_denormal_modes(func, variant):
    """Under DAZ and FTZ (JAX's CPU runtime) every lane a float64 pass keeps still holds the
    entry point's result (computed in the default mode): no pass keeps a result computed from
    a subnormal unless it is the result for zero (fast64's docstring; rsqrt's first pass kept
    the subnormals' results and gave NaN there, which only the JAX test saw). x86 only (MXCSR);
    on the hard-case sets and 2^14 random subnormal patterns."""
    runnable(variant)
    if platform.machine().lower() not in ("x86_64", "amd64"):
        pytest.skip("MXCSR is x86's")
    src = fast64.source(func) + f"#define PASS {fast64.symbol(func)}\n" + DAZ_FTZ
    lib = native.build_source(f"{func}_daz_ftz_test", src, variant)
    rng = np.random.default_rng(5)
    tiny = (rng.integers(1, 1 << 23, 1 << 14, dtype=np.uint32)
            | (rng.integers(0, 2, 1 << 14, dtype=np.uint32) << np.uint32(31)))
    x = np.concatenate([hard_cases(1 << 16), tiny.view(np.float32)])
    out = np.empty_like(x)
    native.buffer_function(lib, "ul_pass_daz_ftz")(x.ctypes.data, out.ctypes.data, x.size)
    bits = out.view(np.uint32)
    kept = (bits & np.uint32(0x7FFFFFFF)) != FLAG_NAN
    want = one_pass(func, x).view(np.uint32)
    assert np.array_equal(bits[kept], want[kept]), \
        show(x[kept], out[kept], want.view(np.float32)[kept])
    subnormal = (x.view(np.uint32) & np.uint32(0x7FFFFFFF)) - np.uint32(1) < np.uint32(0x007FFFFF)
    assert subnormal.sum() >= 1 << 14


AVX2_STEPS = ("gelu", "erf", "gelu_grad", "sin", "cos")
"""The passes with an AVX2 step (``fast64.avx2``): the piecewise ones load their tables' rows
whole; sin's and cos's (no table) run four blocks of 8 an iteration."""


def test_the_avx2_steps_are_these_passes():
    """Every pass whose avx2 build has the step says so in its source, and no other does."""
    have = {f for f in fast64.FUNCTIONS if "#ifdef UL_AVX2_ROWS" in fast64.source(f)}
    assert have == set(AVX2_STEPS)


STEPS = [(f, "avx2") for f in AVX2_STEPS] + [(f, "avx512") for f in fast64.COUNTING_STEPS]
"""Each pass's build with a step before gcc's loop (sin's and cos's avx512 builds too:
``sin.AVX512_GUARD``)."""


@pytest.mark.parametrize(("func", "variant"), STEPS)
def test_the_steps_are_the_generic_loop_bit_for_bit(func, variant):
    """The AVX2 step (8 inputs a block, rows loaded whole, or sin's and cos's four blocks an
    iteration) and sin's and cos's AVX-512 step (16 a block) give the generic loop's bits,
    flags included, on hard cases, random bit patterns and the benchmark's range, for every
    length from 1 to 40 and 63 to 72 (the step's tail left to the loop) and write nothing
    past n."""
    runnable(variant)
    src = "#define UL_GENERIC_ONLY 1\n" + fast64.source(func)
    generic = native.buffer_function(
        native.build_source(f"{func}_generic_test", src, variant), fast64.symbol(func))
    step = native._fast64(func, variant)
    rng = np.random.default_rng(23)
    x = np.concatenate([hard_cases(1 << 16),
                        rng.integers(0, 1 << 32, 1 << 18, dtype=np.uint64)
                        .astype(np.uint32).view(np.float32),
                        ORDINARY[func](rng, 1 << 18).astype(np.float32)])
    want = np.empty_like(x)
    generic(x.ctypes.data, want.ctypes.data, x.size)
    assert 0.0005 < (want.view(np.uint32) == FLAG_NAN).mean() < 0.9
    for n in (x.size, *range(1, 41), *range(63, 73)):
        got = np.full(n + 8, 1.5, dtype=np.float32)
        step(x.ctypes.data, got.ctypes.data, n)
        assert np.array_equal(got[:n].view(np.uint32), want[:n].view(np.uint32)), \
            show(x[:n], got[:n], want[:n])
        assert (got[n:] == 1.5).all()


@pytest.mark.parametrize(("variant", "step"), [("avx2", True), ("avx512", False),
                                              ("portable", False)])
def test_the_avx2_step_is_built_in_the_avx2_build_only(variant, step, tmp_path):
    """The passes with an AVX2 step (gelu, erf, gelu_grad, sin, cos) compile it (``UL_AVX2_ROWS``)
    with the avx2 build's flags and with no other build's; ``UL_GENERIC_ONLY`` leaves it out
    (what the bit-for-bit test above compares against). Read from the preprocessor's macros,
    not from the assembly, so no compiler version's instruction choice decides it (compiling
    only)."""
    x86_gcc()
    for func in AVX2_STEPS:
        for generic_only in (False, True):
            src = tmp_path / f"{func}.c"
            src.write_text(("#define UL_GENERIC_ONLY 1\n" if generic_only else "")
                           + fast64.source(func))
            macros = subprocess.run([CC, *native.BASE_FLAGS[:4], *native.VARIANTS[variant][0],
                                     *native.fast64_flags(variant), "-E", "-dM", str(src)],
                                    capture_output=True, text=True, check=True).stdout
            assert ("#define UL_AVX2_ROWS 1" in macros) is (step and not generic_only), func
            avx512_step = (variant == "avx512" and func in fast64.COUNTING_STEPS
                           and not generic_only)
            assert ("#define UL_AVX512_STEP 1" in macros) is avx512_step, func
