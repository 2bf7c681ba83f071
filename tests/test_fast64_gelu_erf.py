"""The float64 first passes of det gelu and det erf (ulplab.export.fast64.gelu, .erf) where the
generic tests of tests/test_fast64.py do not reach: the thresholds of their selects (read back
from the float32 entry point's own outputs), the clamp, the piece boundaries of their tables,
the tails' fixed results, the flag rate on the benchmark's inputs, and the tables' accuracy."""

import shutil

import mpmath
import numpy as np
import pytest

from test_fast64 import one_pass, runnable, show
from ulplab.export import fast64, native
from ulplab.kernels.core import FLAG_NAN

pytestmark = pytest.mark.skipif(shutil.which("cc") is None and shutil.which("gcc") is None,
                                reason="no C compiler on this machine")

VARIANTS = ("avx512", "avx2", "portable")
FUNCS = [f for f in ("gelu", "erf") if f in fast64.FUNCTIONS]




def float64_pass(func: str, variant: str, x: np.ndarray) -> np.ndarray:
    """The float64 pass alone (flagged lanes hold FLAG_NAN)."""
    out = np.empty_like(x)
    native._fast64(func, variant)(x.ctypes.data, out.ctypes.data, x.size)
    return out


def flagged(out: np.ndarray) -> np.ndarray:
    return (out.view(np.uint32) & np.uint32(0x7FFFFFFF)) == FLAG_NAN


def bits(*values: int) -> np.ndarray:
    return np.array(values, np.uint32).view(np.float32)


def around(centres: np.ndarray, half: int) -> np.ndarray:
    """``half`` consecutive float32 bit patterns on each side of each of ``centres``."""
    base = centres.astype(np.float32).view(np.uint32).astype(np.int64)
    steps = np.arange(-half, half)
    return (base[:, None] + steps).ravel().astype(np.uint32).view(np.float32)


THRESHOLDS = {  # func: {bit pattern: what the float32 entry point does beyond it}
    # gelu: 0x40AB1ED8 = 5.347515, the largest float32 whose gelu is not x itself (the pass
    # selects x above it); 0xC165B274 = -14.356068, the negative float32 of largest magnitude
    # whose gelu does not round to -0 (the pass selects -0 beyond it)
    "gelu": {0x40AB1ED8: "x", 0xC165B274: "-0"},
    # erf: 0x407AD444 = 3.9192057, the largest float32 whose erf does not round to 1 (the
    # pass selects +-1 beyond it)
    "erf": {0x407AD444: "1", 0xC07AD444: "-1"},
}

SEAMS = {  # func: float32 values where an evaluation changes regime, each with its negative
    # gelu: the clamp of |x| (14.375), subnormal results (-13.146), the first, some middle and
    # the last piece boundaries (k/256 + 1/512) and the ends of the two tails
    "gelu": (14.375, 13.146, 1 / 512, 3 / 512, 1.0 + 1 / 512, 5.0 + 1 / 512, 8.0 + 1 / 512,
             14.375 - 1 / 512, 5.347515, 14.356068),
    # erf: the clamp of |x| (3.921875), the first, some middle and the last piece boundaries
    # (k/512 + 1/1024), erf's tail
    "erf": (3.921875, 1 / 1024, 3 / 1024, 1.0 + 1 / 1024, 2.0 + 1 / 1024, 3.921875 - 1 / 1024,
            3.9192057),
}

@pytest.mark.parametrize("func", FUNCS)
def test_the_thresholds_are_the_entry_points(func):
    """Each select's threshold is where the entry point's result becomes fixed: the pattern
    itself does not give the tail's value, the next one and one far beyond do."""
    for pattern, tail in THRESHOLDS[func].items():
        x = bits(pattern, pattern + 1, pattern + 0x01000000, (pattern & 0x80000000) | 0x7F800000)
        want = {"x": x[1:], "-0": bits(*[0x80000000] * 3), "1": np.ones(3, np.float32),
                "-1": -np.ones(3, np.float32)}[tail]
        got = one_pass(func, x)
        assert got.view(np.uint32)[0] != want.view(np.uint32)[0], (func, hex(pattern))
        assert np.array_equal(got[1:].view(np.uint32), want.view(np.uint32)), (func, got)


@pytest.mark.parametrize("func", FUNCS)
@pytest.mark.parametrize("variant", VARIANTS)
def test_every_input_at_the_thresholds_and_seams(func, variant):
    """2^16 consecutive float32 on each side of every threshold and seam, both signs: what the
    float64 pass keeps is the entry point's result, and the runner gives its bits."""
    runnable(variant)
    centres = np.array(SEAMS[func], np.float32)
    thresholds = np.array(list(THRESHOLDS[func]), np.uint32).view(np.float32)
    x = around(np.concatenate([centres, -centres, thresholds]), 1 << 16)
    got = float64_pass(func, variant, x)
    want = one_pass(func, x)
    kept = ~flagged(got)
    assert kept.mean() > 0.5
    assert np.array_equal(got.view(np.uint32)[kept], want.view(np.uint32)[kept]), \
        show(x[kept], got[kept], want[kept])
    full = native.kernel(func, variant)(x, threads=1)
    assert np.array_equal(full.view(np.uint32), want.view(np.uint32)), show(x, full, want)


@pytest.mark.parametrize("func", FUNCS)
@pytest.mark.parametrize("variant", VARIANTS)
def test_every_piece_boundary(func, variant):
    """2^8 consecutive float32 on each side of every boundary between two pieces of the table
    (where the index nearest(u / width) changes), both signs: the float64 pass keeps only the
    entry point's results."""
    runnable(variant)
    module = fast64.module(func)
    edges = (np.arange(module.PIECES - 1) + 0.5) * module.WIDTH
    x = around(np.concatenate([edges, -edges]), 1 << 8)
    got = float64_pass(func, variant, x)
    want = one_pass(func, x)
    kept = ~flagged(got)
    assert kept.mean() > 0.9
    assert np.array_equal(got.view(np.uint32)[kept], want.view(np.uint32)[kept]), \
        show(x[kept], got[kept], want[kept])


TAILS = {  # func: (inputs, the result the float64 pass keeps for each)
    "gelu": (np.array([np.inf, 3e38, 100.0, 14.5, 6.0, -np.inf, -3e38, -100.0, -14.5],
                      np.float32),
             np.array([np.inf, 3e38, 100.0, 14.5, 6.0, -0.0, -0.0, -0.0, -0.0], np.float32)),
    "erf": (np.array([np.inf, 3e38, 4.0, 3.92, -np.inf, -3e38, -4.0, -3.92], np.float32),
            np.array([1, 1, 1, 1, -1, -1, -1, -1], np.float32)),
}

FLAGGED = {  # inputs the float64 pass must leave to the second pass
    "gelu": np.array([np.nan, -np.nan, 0.0, -0.0, 1e-40, -1e-40, -13.5, -14.0], np.float32),
    "erf": np.array([np.nan, -np.nan, 0.0, -0.0, 1e-45, -1e-45, 1e-39, -1e-39], np.float32),
}


@pytest.mark.parametrize("func", FUNCS)
@pytest.mark.parametrize("variant", VARIANTS)
def test_the_tails_are_kept_and_the_specials_flagged(func, variant):
    """The tails' fixed results are selects (kept, not flagged: +-inf included), and NaN, zero
    and the results outside float32's normal range are flagged."""
    runnable(variant)
    x, want = TAILS[func]
    got = float64_pass(func, variant, x)
    assert np.array_equal(got.view(np.uint32), want.view(np.uint32)), (func, got)
    assert np.array_equal(one_pass(func, x).view(np.uint32), want.view(np.uint32))
    assert np.all(flagged(float64_pass(func, variant, FLAGGED[func]))), func


@pytest.mark.parametrize("func", FUNCS)
@pytest.mark.parametrize("variant", VARIANTS)
def test_few_of_the_benchmarks_inputs_are_flagged(func, variant):
    """Few of the benchmark's inputs (benchmarks/bench_native.py: uniform on [-8, 8]) go to the
    second pass: gelu about 2 ERR / 2^29 = 3.1e-5 (its rounding test's bound, ERR = 8192),
    erf below 1e-5 (measured on 2^24 of them, every variant alike: erf 1.1e-6)."""
    runnable(variant)
    x = np.random.default_rng(3).uniform(-8, 8, 1 << 20).astype(np.float32)
    rate = np.count_nonzero(flagged(float64_pass(func, variant, x))) / x.size
    assert rate < {"gelu": 6e-5, "erf": 1e-5}[func], rate


def table(func: str) -> np.ndarray:
    module = fast64.module(func)
    values = [float.fromhex(v) for v in module.COEFFICIENTS.split()]
    return np.array(values).reshape(module.PIECES, module.DEGREE + 1)


def target(func: str, c: mpmath.mpf, t: mpmath.mpf) -> mpmath.mpf:
    """What the piece centred on c approximates at u = c + t: for gelu exp(-c^2/2) R(u) =
    erfc(u/sqrt2) exp(t (2c + t)/2), for erf erf(u)/u."""
    u = c + t
    if func == "gelu":
        return mpmath.erfc(u / mpmath.sqrt(2)) * mpmath.exp(t * (2 * c + t) / 2)
    return mpmath.erf(u) / u if u else 2 / mpmath.sqrt(mpmath.pi)


BOUND = {"gelu": 2.0**-41.95, "erf": 2.0**-46.3}
"""The tables' relative approximation error claimed in each module's docstring, rounded up."""


@pytest.mark.parametrize("func", FUNCS)
def test_the_tables_approximate_their_function(func):
    """Every 16th piece (and the last), at 33 points across it, each polynomial (float64
    coefficients, evaluated exactly) within the claimed relative error of the function (mpmath
    at 160 bits)."""
    rows = table(func)
    width = mpmath.mpf(fast64.module(func).WIDTH)
    with mpmath.workprec(160):
        for k in [*range(0, len(rows), 16), len(rows) - 1]:
            lo = mpmath.mpf(0) if k == 0 else -width / 2
            for i in range(33):
                t = lo + (width / 2 - lo) * i / 32
                p = mpmath.polyval([mpmath.mpf(float(c)) for c in reversed(rows[k])], t)
                v = target(func, k * width, t)
                assert abs(p - v) <= BOUND[func] * abs(v), (func, k, float(t))
