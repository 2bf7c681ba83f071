"""The kernels built on exp: sigmoid, silu, softplus (logistic), tanh, gelu_tanh (tanh), erf, gelu
(erf). Special values by encoding, exact cases, tiny and saturating inputs whose correction term
underflows (checked against the oracle after rounding to every narrow format), and the committed
constants against their regeneration.

The exhaustive 0-ULP claims on bfloat16/float16/fp8 and the float32-guard check are in
tests/test_methods.py; faithfulness on random float32 inputs is in tests/test_kernels_faithful.py.
"""

import numpy as np
import pytest

from kernel_checks import assert_round_to_odd
from ulplab.formats import EXHAUSTIVE_FORMATS, get_format, round_to_format, to_values
from ulplab.inputs import float32_between, float32_random
from ulplab.kernels import erf as kerf
from ulplab.kernels import exp as kexp
from ulplab.kernels import logistic as klog
from ulplab.kernels import tanh as ktanh
from ulplab.oracle.table import evaluate
from ulplab.oracle.ziv import correctly_rounded
from ulplab.ulp import ulp_distance

F32 = get_format("float32")
NARROW = EXHAUSTIVE_FORMATS  # every format narrower than float32
KERNELS = {"sigmoid": klog.sigmoid, "silu": klog.silu, "softplus": klog.softplus,
           "tanh": ktanh.tanh, "gelu_tanh": ktanh.gelu_tanh, "erf": kerf.erf, "gelu": kerf.gelu}
NAN, INF = 0x7FC00000, 0x7F800000
TINY, NTINY = 0x00000001, 0x80000001  # ±2^-149
ONE, NONE, HALF = 0x3F800000, 0xBF800000, 0x3F000000

# input bits -> expected output bits, per kernel (exact results and thresholds)
SPECIAL = {
    "sigmoid": {0x7FC00000: NAN, 0xFFC00001: NAN, 0x7F800001: NAN, INF: ONE, 0xFF800000: 0,
                0: HALF, 0x80000000: HALF, 0xC2D00000: TINY, 0xFF7FFFFF: TINY},
    "silu": {0x7FC00000: NAN, 0xFFC00001: NAN, INF: INF, 0xFF800000: 0x80000000, 0: 0,
             0x80000000: 0x80000000, 0xC2E00000: NTINY, 0xFF7FFFFF: NTINY,
             0x7F7FFFFF: 0x7F7FFFFF},
    "softplus": {0x7FC00000: NAN, 0xFFC00001: NAN, INF: INF, 0xFF800000: 0, 0xC2D00000: TINY,
                 0xFF7FFFFF: TINY, 0x7F7FFFFF: 0x7F7FFFFF},
    "tanh": {0x7FC00000: NAN, 0xFFC00001: NAN, INF: ONE, 0xFF800000: NONE, 0: 0,
             0x80000000: 0x80000000},
    "gelu_tanh": {0x7FC00000: NAN, 0xFFC00001: NAN, INF: INF, 0xFF800000: 0x80000000, 0: 0,
                  0x80000000: 0x80000000, 0xC1400000: NTINY, 0xFF7FFFFF: NTINY,
                  0x7F7FFFFF: 0x7F7FFFFF},
    "erf": {0x7FC00000: NAN, 0xFFC00001: NAN, INF: ONE, 0xFF800000: NONE, 0: 0,
            0x80000000: 0x80000000},
    "gelu": {0x7FC00000: NAN, 0xFFC00001: NAN, INF: INF, 0xFF800000: 0x80000000, 0: 0,
             0x80000000: 0x80000000, 0xC1700000: NTINY, 0xFF7FFFFF: NTINY,
             0x7F7FFFFF: 0x7F7FFFFF},
}


def _run(name, xs):
    return KERNELS[name](np.asarray(xs, np.float32)).view(np.uint32)


@pytest.mark.parametrize("name", sorted(SPECIAL))
def test_special_values_table(name):
    table = SPECIAL[name]
    xbits = np.array(list(table), np.uint32)
    got = _run(name, xbits.view(np.float32))
    want = np.array(list(table.values()), np.uint32)
    assert np.array_equal(got, want), [(hex(x), hex(g), hex(w)) for x, g, w in
                                       zip(xbits, got, want, strict=True) if g != w]


@pytest.mark.parametrize("name", sorted(SPECIAL))
def test_special_values_agree_with_the_oracle(name):
    xbits = np.array(list(SPECIAL[name]), np.uint32)
    truth = evaluate(name, to_values(xbits, F32), F32)
    got = _run(name, xbits.view(np.float32))
    nan = np.isnan(to_values(truth, F32))
    assert np.all(got[nan] == NAN)
    u = ulp_distance(got[~nan], truth[~nan], F32)
    ok = ((u >= 0) & (u <= 1)) | (got[~nan] == truth[~nan])
    assert np.all(ok), [hex(b) for b in xbits[~nan][~ok]]


def _hard_inputs():
    """Tiny inputs (subnormal midpoints of the narrow formats, 2^-30 neighbours), inputs around
    the region and saturation thresholds, and both signs."""
    ks = np.arange(-149, -20, dtype=np.float64)
    base = np.concatenate([2.0**ks, 3 * 2.0**(ks - 1), 2.0**-30 * np.array([0.999, 1.0, 1.001]),
                           [2.0**-3, 0.12499999, 0.125, 0.5, 0.49999997, 0.50000006, 1.0, 2.0,
                            3.0, 4.0, 4.5, 5.5, 7.5, 8.0, 8.000001, 9.0, 9.000001, 10.5, 11.0,
                            14.0, 14.5, 15.0, 17.0, 20.0, 20.000002, 30.0, 40.0, 87.0, 88.7,
                            100.0, 103.0, 104.0, 108.0, 110.0, 1e10, 3e38]])
    xs = np.concatenate([base, -base]).astype(np.float32)
    return xs


def _round_to_odd_truth(name, xs):
    """The float32 round-to-odd of f(x) from the oracle: f(x) itself when the directed roundings
    agree (exact), else whichever of the two neighbours has an odd significand."""
    vals = to_values(xs.view(np.uint32), F32)
    down, up = evaluate(name, vals, F32, "down"), evaluate(name, vals, F32, "up")
    return np.where((down == up) | ((down & 1) == 1), down, up)


@pytest.mark.parametrize("name", sorted(KERNELS))
def test_hard_inputs_give_the_exact_round_to_odd(name):
    """For float32 inputs whose corrections underflow or saturate (the sign of the correction
    decides the midpoint cases: silu(2^-149) = 2^-150 + ..., gelu(2^-133) ...), the kernel returns
    exactly the round-to-odd of f(x), so its nearest-even rounding to bfloat16, float16 and both
    fp8 formats is correct (Boldo & Melquiond); checked directly for the narrow formats too."""
    xs = _hard_inputs()
    y = KERNELS[name](xs)
    truth = _round_to_odd_truth(name, xs)
    # just below the smallest normal: checked by test_round_to_odd_just_below_the_smallest_normal
    boundary = (truth & np.uint32(0x7FFFFFFF)) == 0x007FFFFF
    bad = (y.view(np.uint32) != truth) & ~boundary
    assert not bad.any(), [(float(x).hex(), hex(g), hex(t)) for x, g, t in
                           zip(xs[bad][:5], y.view(np.uint32)[bad][:5], truth[bad][:5],
                               strict=True)]
    for fmt_name in NARROW:
        fmt = get_format(fmt_name)
        assert np.array_equal(round_to_format(y.astype(np.float64), fmt),
                              round_to_format(truth.view(np.float32).astype(np.float64), fmt))


def test_round_to_odd_just_below_the_smallest_normal():
    """silu, gelu, gelu_tanh at x = -2^-125 (x/2 = -2^-126, the positive correction toward zero)
    and tanh(±2^-126): the value lies just inside the subnormal range, so its round-to-odd is
    the largest subnormal ±0x007FFFFF, not ±2^-126 (at x = +2^-125 the value is above 2^-126:
    0x00800001). The kernels pass hi = ±2^23, m = -149 and a tiny lo toward zero to
    round_to_odd_scaled; this checks the core's handling of that boundary."""
    x = np.array([2.0**-125, -(2.0**-125)], np.float32)
    for name in ("silu", "gelu", "gelu_tanh"):
        assert list(_run(name, x)) == [0x00800001, 0x807FFFFF], name
        assert np.array_equal(_run(name, x), _round_to_odd_truth(name, x)), name
    x = np.array([2.0**-126, -(2.0**-126)], np.float32)
    assert list(_run("tanh", x)) == [0x007FFFFF, 0x807FFFFF]


def test_tiny_midpoint_cases():
    """silu, gelu and gelu_tanh at x = ±2^-149: x/2 is the float32 midpoint ±2^-150 and the
    positive correction (x^2/4, x^2/sqrt(2 pi), ...) moves the value toward +inf; the round-to-odd
    result is ±2^-149, never a flushed zero. At x = ±2^-133, x/2 is a bfloat16 midpoint."""
    x = np.array([2.0**-149, -(2.0**-149)], np.float32)
    for name in ("silu", "gelu", "gelu_tanh"):
        got = _run(name, x)
        assert list(got) == [TINY, NTINY], name
    # bfloat16: x = 2^-133 (a bfloat16 input), x/2 is a bfloat16 midpoint: the positive
    # correction sends gelu(2^-133) up to 2^-133 and gelu(-2^-133) to -0
    x = np.array([2.0**-133, -(2.0**-133)], np.float32)
    bf = get_format("bfloat16")
    for name in ("silu", "gelu", "gelu_tanh"):
        got = round_to_format(KERNELS[name](x).astype(np.float64), bf)
        want = [correctly_rounded(name, float(v), bf)[0] for v in x]
        assert list(got) == want == [0x0001, 0x8000], name
    # sigmoid(±tiny) = 0.5 ± tiny: the odd neighbours of 0.5
    assert list(_run("sigmoid", np.array([2.0**-149, -(2.0**-149)]))) == [0x3F000001, 0x3EFFFFFF]
    # tanh(2^-148) = 2^-148 - tiny: round-to-odd 2^-149; erf(2^-149) = 2/sqrt(pi) 2^-149 -> 2^-149
    assert list(_run("tanh", np.array([2.0**-148]))) == [TINY]
    assert list(_run("erf", np.array([2.0**-149, 2.0**-148]))) == [TINY, 0x3]


def test_saturation_keeps_the_sticky_bit():
    """Just below 1 (tanh, erf, sigmoid) and just below x (silu, gelu, gelu_tanh): the result is
    the odd neighbour below, never the anchor itself."""
    xs = np.array([20.0, 50.0, 104.0, 1e30], np.float32)
    for name in ("tanh", "erf", "sigmoid"):
        assert np.all(_run(name, xs) == 0x3F7FFFFF), name
    for name in ("tanh", "erf"):
        assert np.all(_run(name, -xs) == 0xBF7FFFFF), name
    for name in ("silu", "gelu", "gelu_tanh"):
        big = np.array([16.0, 1024.0, 2.0**100], np.float32)
        assert np.all(_run(name, big) == big.view(np.uint32) - 1), name
    # softplus(x) = x + tiny above x: the odd neighbour above an even x
    big = np.array([32.0, 1024.0, 2.0**100], np.float32)
    assert np.all(_run("softplus", big) == big.view(np.uint32) + 1)


def test_exact_cases():
    z = np.array([0.0, -0.0], np.float32)
    for name in ("tanh", "erf", "gelu", "gelu_tanh", "silu"):
        assert list(_run(name, z)) == [0, 0x80000000], name
    assert list(_run("sigmoid", z)) == [HALF, HALF]


def test_odd_kernels_are_odd():
    rng = np.random.default_rng(3)
    xs = np.concatenate([rng.uniform(0, 12, 3000), 2.0 ** rng.uniform(-149, 0, 3000)])
    xs = xs.astype(np.float32)
    for name in ("tanh", "erf"):
        assert np.array_equal(KERNELS[name](-xs), -KERNELS[name](xs)), name


def test_logistic_constants_regenerate():
    assert klog.taylor_constants()["L1P"] == tuple(float(c) for c in klog.L1P)
    hi, lo = klog.log_table()
    assert np.array_equal(hi, klog.LOG_HI) and np.array_equal(lo, klog.LOG_LO)


def test_tanh_constants_regenerate():
    for name, value in ktanh.constants().items():
        cur = getattr(ktanh, name)
        cur = tuple(float(c) for c in cur) if isinstance(cur, tuple) else float(cur)
        assert cur == value, name


def test_erf_fits_regenerate():
    from ulplab.analysis.kernel_tables import erf_tables

    for name, value in erf_tables().items():
        cur = np.asarray(getattr(kerf, name), np.float32).reshape(value.shape)
        assert np.array_equal(cur, value), name


def test_dd_div_and_exp_neg_parts_beyond_exp_range():
    """e^-z for 100 < z <= 200 comes from squaring e^(-z/2): check it against mpmath."""
    from mpmath import mp, mpf

    z = np.array([100.5, 103.0, 110.0, 150.0, 200.0], np.float32)
    h, lw, m = klog.exp_neg_parts(z)
    with mp.workprec(100):
        for zi, hi, lo, mi in zip(z, h, lw, m, strict=True):
            v = (mpf(float(hi)) + mpf(float(lo))) * mpf(2) ** int(mi)
            assert abs(v / mp.exp(-mpf(float(zi))) - 1) < mpf(2) ** -34
    q, ql = klog.dd_div(np.float32([1.0]), np.float32([0.0]), np.float32([3.0]),
                        np.float32([0.0]))
    with mp.workprec(100):
        assert abs(mpf(float(q[0])) + mpf(float(ql[0])) - mpf(1) / 3) < mpf(2) ** -46


@pytest.mark.parametrize(("name", "lo", "hi"), [("exp", -104.0, 89.0), ("exp2", -150.0, 128.0)])
def test_exp_and_exp2_give_the_exact_round_to_odd(name, lo, hi):
    """exp and exp2 themselves (the kernels the family is built on): the round-to-odd of the true
    value on random patterns and over their whole finite range, subnormal results included. A
    result 1 ULP off on a quarter of the inputs passed every other check of this file."""
    xs = np.concatenate([float32_random(3000, seed=41), float32_between(lo, hi, 6000, seed=42),
                         float32_between(-0.01, 0.01, 1000, seed=43)])
    assert_round_to_odd(name, getattr(kexp, name), xs)
