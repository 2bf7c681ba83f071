"""The float64 first passes of exp2, log2, tan, rsqrt, tanh_grad, gelu_tanh, expm1, log1p and
gelu_grad (ulplab.export.fast64): every input on each side of each seam (where an evaluation changes
regime or a test on x's bits draws a line), the inputs each pass must keep (exact results,
results a clamp leaves unchanged) and those it must flag, and their constants against mpmath.
The generic checks (the runner's bits on the hard-case sets, the kept lanes correctly rounded,
few ordinary inputs flagged, vectorization, the registry's proof) are in test_fast64.py."""

import mpmath
import numpy as np
import pytest

from test_fast64 import VARIANTS, check_seams, f32, float64_pass, one_pass, runnable, show
from ulplab.export import native
from ulplab.kernels.core import FLAG_NAN

SEAMS = {  # func: values around which 2^16 consecutive float32 on each side are checked
    "exp2": (150.0, -150.0, 128.0, -126.0, 1 / 128, -1 / 128, 2.0**-24),
    "log2": (1.0, 0.6875, 1.375, 1.0 - 2.0**-9, 1.0 + 2.0**-8, 2.0**-126, 2.0**127),
    "tan": (np.pi / 4, np.pi / 2, 3 * np.pi / 4, 252.898, 2.0**17, 2.0**-25, 2.0**-126),
    "rsqrt": (1.0, 4.0, 2.0**-126, 2.0**-140, 2.0**127),
    "tanh_grad": (44.0, -44.0, 2.0**-12, 1.0, 17.0),
    "gelu_tanh": (10.0, -10.0, 2.0**-123, -(2.0**-123), 5.0, -5.0, 0.75, -0.75),
    "expm1": (88.72283, 104.0, -104.0, 2.0**-25, -(2.0**-25), 0.0054152, -0.0054152, -17.33),
    "log1p": (2.0**-25, -(2.0**-25), -1.0, 2.0**52, -(2.0**-9), 2.0**-8, 0.375, -0.3125),
    "gelu_grad": (13.0, -13.0, -0.7517915, 0.7517915, 5.9101605, -14.541348, 2.0**-29),
}


@pytest.mark.parametrize("func", sorted(SEAMS))
@pytest.mark.parametrize("variant", VARIANTS)
def test_every_input_at_the_seams(func, variant):
    """What the float64 pass keeps is the entry point's result, and the runner gives its bits,
    on 2^17 consecutive float32 around each seam."""
    runnable(variant)
    check_seams(func, variant, SEAMS[func])


POWERS = 2.0 ** np.arange(-126, 128)

KEPT = {  # func: (inputs the pass must keep, the results it keeps for them)
    "exp2": (f32(*range(-126, 128)), f32(*POWERS)),
    "log2": (f32(*POWERS), f32(*range(-126, 128))),
    "rsqrt": (f32(*(4.0 ** np.arange(-63, 64))), f32(*(2.0 ** -np.arange(-63, 64)))),
    "tanh_grad": (f32(0.0, -0.0, 1e-45, -1e-45, 2.0**-126), f32(1, 1, 1, 1, 1)),
    "gelu_tanh": (f32(3e38, 1e5, 10.5, 11.0), f32(3e38, 1e5, 10.5, 11.0)),
    "expm1": (f32(0.0, -0.0, 1e-45, -1e-45, 89.0, np.inf, -104.5, -np.inf, -3e38),
              f32(0.0, -0.0, 1e-45, -1e-45, np.inf, np.inf, -1, -1, -1)),
    "log1p": (f32(0.0, -0.0, 1e-45, -1e-45, 2.0**-26), f32(0.0, -0.0, 1e-45, -1e-45, 2.0**-26)),
    "gelu_grad": (f32(0.0, -0.0, 1e-45, 20.0, 3e38, np.inf, -15.0, -3e38, -np.inf),
                  f32(0.5, 0.5, 0.5, 1, 1, 1, -0.0, -0.0, -0.0)),
}

FLAGGED = {  # func: inputs the pass must leave to the second pass
    "exp2": f32(np.nan, np.inf, -np.inf, 150.5, -150.5, 128.0, -127.0, -149.0),
    "log2": f32(np.nan, np.inf, -np.inf, 0.0, -0.0, -1.0, 1e-45, 2.0**-127),
    "tan": f32(np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-45, 2.0**17 + 1, -3e38),
    "rsqrt": f32(np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, -1.0, -1e-45, 1e-45, 2.0**-127),
    "tanh_grad": f32(np.nan, np.inf, -np.inf, 44.5, -44.5, 1e30),
    "gelu_tanh": f32(np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-40, -10.5, -3e38),
    "expm1": f32(np.nan, -np.nan),
    "log1p": f32(np.nan, -np.nan, np.inf, -np.inf, -1.0, -2.0, -3e38),
    "gelu_grad": f32(np.nan, -np.nan, -13.5, -14.0),
}


@pytest.mark.parametrize("func", sorted(SEAMS))
@pytest.mark.parametrize("variant", VARIANTS)
def test_the_pass_keeps_and_flags_what_it_should(func, variant):
    """Exact results (2^k, log2(2^k) = k, 1/sqrt(4^k), tanh'(0) = 1) and the results a clamp
    or a select leaves unchanged (gelu_tanh(x) = x beyond 10; expm1 and log1p of |x| < 2^-25
    is x, expm1 is +inf beyond 88.72283 and -1 below -104, gelu_grad is 1/2 at 0, 1 beyond 13 and
    -0 below -14.541348) are kept and right; NaN, the
    infinities, the results outside the normal range and the inputs beyond each pass's reach
    are flagged."""
    runnable(variant)
    if func in KEPT:
        x, want = KEPT[func]
        got = float64_pass(func, variant, x)
        assert np.array_equal(got.view(np.uint32), want.view(np.uint32)), \
            show(x, got, want)
        assert np.array_equal(want.view(np.uint32), one_pass(func, x).view(np.uint32))
    bits = float64_pass(func, variant, FLAGGED[func]).view(np.uint32) & np.uint32(0x7FFFFFFF)
    assert np.all(bits == FLAG_NAN), (func, bits)


def nearest(value: mpmath.mpf) -> float:
    with mpmath.workprec(53):
        return float(+value)


def test_the_constants_are_the_nearest_float64():
    """exp2's Taylor coefficients ln2^i/i! and gelu_tanh's 2 sqrt(2/pi) and 2 sqrt(2/pi)
    0.044715, each the nearest float64 of its exact value (mpmath at 200 bits)."""
    from ulplab.export import fast64
    from ulplab.export.fast64 import exp2, gelu_tanh

    with mpmath.workprec(200):
        ln2 = mpmath.log(2)
        assert [nearest(ln2**i / mpmath.factorial(i)) for i in range(1, 6)] == exp2.TAYLOR
        a = 2 * mpmath.sqrt(2 / mpmath.pi)
        assert nearest(a) == gelu_tanh.A
        assert nearest(a * mpmath.mpf("0.044715")) == gelu_tanh.B
        assert "UL_INVLN2 = " + nearest(1 / ln2).hex() in fast64.source("log2")


def test_the_bounds_in_the_analyses_hold_on_samples():
    """The float64 value each pass rounds lies within its stated relative bound of the exact
    value (mpmath at 100 bits) on 2,000 random inputs in the benchmark's ranges, portable build
    excluded (the avx512 and avx2 builds this machine runs, which give the same values; their
    steps left out): exp2 2^-51.2, log2 2^-42.55, tan
    2^-45.4, rsqrt 2^-52.4, tanh_grad 2^-49.8, gelu_tanh 2^-44.2, expm1 2^-45.43, log1p
    2^-42.55, gelu_grad 2^-43.9, sin and cos 2^-41.4 (their one polynomial) — and each of these
    bounds, in units in the last place, is below half the pass's ERR (sin's and cos's
    ERR_HALF). The float64 value is read back
    by a build of the pass that stores it instead of rounding it."""
    from ulplab.export import fast64

    bounds = {"exp2": 2.0**-51.2, "log2": 2.0**-42.55, "tan": 2.0**-45.4,
              "rsqrt": 2.0**-52.4, "tanh_grad": 2.0**-49.8, "gelu_tanh": 2.0**-44.2,
              "expm1": 2.0**-45.43, "log1p": 2.0**-42.55, "gelu_grad": 2.0**-43.9,
              "sin": 2.0**-41.4, "cos": 2.0**-41.4}
    exact = {
        "exp2": lambda v: mpmath.mpf(2) ** v, "log2": lambda v: mpmath.log(v, 2),
        "tan": mpmath.tan, "rsqrt": lambda v: 1 / mpmath.sqrt(v), "sin": mpmath.sin,
        "cos": mpmath.cos,
        "tanh_grad": lambda v: 1 / mpmath.cosh(v) ** 2,
        "expm1": mpmath.expm1, "log1p": mpmath.log1p,
        "gelu_grad": lambda v: mpmath.ncdf(v) + v * mpmath.npdf(v),
        # x/2 (1 + tanh u) as x/(1 + exp(-2u)): no cancellation where tanh u is near -1
        "gelu_tanh": lambda v: v / (1 + mpmath.exp(-2 * mpmath.sqrt(2 / mpmath.pi) * (
            v + mpmath.mpf("0.044715") * v**3))),
    }
    ranges = {"exp2": (-100, 100), "log2": None, "tan": (-100, 100), "rsqrt": None,
              "tanh_grad": (-8, 8), "gelu_tanh": (-8, 8), "expm1": (-80, 80), "log1p": None,
              "gelu_grad": (-8, 8), "sin": (-100, 100), "cos": (-100, 100)}
    rng = np.random.default_rng(11)
    variants = [v for v in ("avx512", "avx2") if v in native.runnable_variants()]
    for func, bound in bounds.items():
        module = fast64.module(func)
        assert bound * 2.0**53 * 2 < getattr(module, "ERR_HALF", getattr(module, "ERR", 0)), func
        lo_hi = ranges[func]
        x = (rng.uniform(*lo_hi, 2000) if lo_hi else 10.0 ** rng.uniform(-30, 30, 2000)
             ).astype(np.float32)
        ys = [raw_values(func, variant, x) for variant in variants]
        assert all(np.array_equal(y.view(np.uint64), ys[0].view(np.uint64)) for y in ys), func
        with mpmath.workprec(100):
            worst = max(abs(mpmath.mpf(float(t)) / exact[func](mpmath.mpf(float(v))) - 1)
                        for v, t in zip(x, ys[0], strict=True))
        assert worst < bound, (func, float(mpmath.log(worst, 2)))


def raw_values(func: str, variant: str, x: np.ndarray) -> np.ndarray:
    """The float64 value each lane of ``func``'s float64 evaluation rounds: the pass's C built
    with its rounding test replaced by a store of that value into a float64 array (for exp2,
    whose float32 lanes run first, and for log, whose avx512 build may, their float64
    evaluation ``ul_FUNC_lanes64`` on every input)."""
    import ctypes

    from ulplab.export import fast64

    text = fast64.source(func)
    lanes = f"static inline uint32_t ul_{func}_lanes64(" in text
    entry = f"long ulplab_{func}_fast64(" if func in fast64.COUNTED else \
        f"void ulplab_{func}_fast64("
    at = text.index(f"static inline uint32_t ul_{func}_lanes64(" if lanes else entry)
    index = "ul_raw_i" if lanes else "i"
    # UL_GENERIC_ONLY: the AVX2 steps (gelu_grad's, sin's, cos's) and sin's and cos's AVX-512
    # step (the same values, their own midpoint tests) are left out, so every input goes
    # through the macros below
    src = ("#define UL_GENERIC_ONLY 1\n" + text[:at]
           + "static double *ul_raw;\nstatic long ul_raw_i;\n"
           "void ul_raw_to(double *p) { ul_raw = p; }\n"
           f"#define ul_round_normal_or_flag(v_, b_, e_, s_) (ul_raw[{index}] = (v_), 0u)\n"
           f"#define ul_round_or_flag32(v_, b_, e_) (ul_raw[{index}] = (v_), 0u)\n" + text[at:])
    if lanes:
        src += (f"void raw_{func}(const float *restrict x, float *restrict y, long n) {{\n"
                f"    for (long i = 0; i < n; i++) {{ ul_raw_i = i; y[i] = 0; "
                f"ul_{func}_lanes64(x[i]); }}\n}}\n")
    lib = native.build_source(f"raw_{func}_test", src, variant)
    if fast64.two_loops(func, variant):
        # the generic loop (the macros above store its values; the loop with permutes has
        # intrinsics of its own: its bound is checked from its tables, tests/test_fast64.py)
        getattr(ctypes.CDLL(str(lib)), f"ulplab_{func}_fast64_tables")(0)
    out = np.empty(x.size, np.float64)
    ignored = np.empty_like(x)
    setter = ctypes.CDLL(str(lib)).ul_raw_to
    setter.argtypes = [ctypes.c_void_p]
    setter(out.ctypes.data)
    native.buffer_function(lib, f"raw_{func}" if lanes else f"ulplab_{func}_fast64")(
        x.ctypes.data, ignored.ctypes.data, x.size)
    return out
