"""The log, log2, sin and cos kernels (and sincos): exact cases, C99 Annex F special values,
constants and tables that regenerate, the reductions, and results checked against the oracle.

"Round-to-odd exact" below means: the float32 result is the round-to-odd of the true value (the
odd one of the two float32 neighbours, or the value itself when it is a float32), read from the
oracle's directed roundings. Every kernel returns that whenever its double-float is closer than
its distance to a float32 (about 2^-46 relative, far below what these inputs come near).
"""

import numpy as np
import pytest

from kernel_checks import assert_round_to_odd as _assert_round_to_odd
from kernel_checks import assert_special_table as _special_table
from kernel_checks import bits as _bits
from kernel_checks import trig_hard_bits
from ulplab.kernels import log as klog
from ulplab.kernels import reduction as kred
from ulplab.kernels import trig as ktrig
from ulplab.kit import fma, run_guarded

QNAN = 0x7FC00000
f32 = np.float32


# ---------------------------------------------------------------- log, log2

LOG_SPECIALS = [  # C99 F.9.3.7 / F.9.3.10: (input bits, result bits)
    (0x00000000, 0xFF800000),  # log(+0) = -inf
    (0x80000000, 0xFF800000),  # log(-0) = -inf
    (0x3F800000, 0x00000000),  # log(1) = +0
    (0x7F800000, 0x7F800000),  # log(+inf) = +inf
    (0xFF800000, QNAN),  # log(-inf) invalid
    (0xBF800000, QNAN),  # log(x < 0) invalid
    (0x80000001, QNAN),  # log(negative subnormal) invalid
    (0xFF7FFFFF, QNAN),
    (0x7FC00000, QNAN),  # NaN in, canonical NaN out
    (0xFFC00001, QNAN),
    (0x7F800001, QNAN),  # signalling NaN
]


@pytest.mark.parametrize("fn", [klog.log, klog.log2], ids=["log", "log2"])
def test_log_special_values(fn):
    _special_table(fn, LOG_SPECIALS)


def test_log2_of_every_power_of_two_is_exact():
    ks = np.arange(-149, 128)
    xs = np.ldexp(np.ones(ks.size, f32), ks).astype(f32)  # subnormal powers included
    got = klog.log2(xs)
    assert np.array_equal(got, ks.astype(f32))
    assert _bits(klog.log2(np.array([1.0], f32)))[0] == 0  # +0, not -0


def test_log_constants_and_table_regenerate():
    got = klog.split_constants()
    for name, value in got.items():
        lit = klog.P[int(name[1])] if name[0] == "P" and name != "P0_LO" else getattr(klog, name)
        assert float(lit) == value, name
    invc, hi, lo = klog.log_table()
    assert np.array_equal(invc, klog.INVC)
    assert np.array_equal(hi, klog.LOGC_HI) and np.array_equal(lo, klog.LOGC_LO)
    assert klog.INVC[(0x3F800000 - klog.OFF) >> 16] == 1 and klog.LOGC_HI[76] == 0


def test_log_reduction_is_exact_for_every_significand():
    """r = fma(z, invc, -1) is exact for all 2^23 encodings z of [0x1.67p-1, 0x1.67p+0)."""
    b = np.arange(klog.OFF, klog.OFF + 2**23, dtype=np.uint32)
    z = b.view(f32)
    invc = klog.INVC[(b - np.uint32(klog.OFF)) >> 16]
    r = fma(z, invc, np.full_like(z, f32(-1.0)))
    exact = z.astype(np.float64) * invc.astype(np.float64) - 1.0  # 32-bit product: exact
    assert np.array_equal(r.astype(np.float64), exact)
    assert np.abs(exact).max() < 2.0**-7


@pytest.mark.parametrize("function", ["log", "log2"])
def test_log_round_to_odd_against_the_oracle(function):
    rng = np.random.default_rng(7)
    xs = np.concatenate([
        rng.integers(1, 0x7F800000, 6000, dtype=np.uint32).view(f32),  # whole range
        rng.integers(1, 0x00800000, 1000, dtype=np.uint32).view(f32),  # subnormal inputs
        (1 + rng.uniform(-2.0**-7, 2.0**-6, 3000)).astype(f32),  # around 1
        np.arange(0x3F7FFF00, 0x3F800100, dtype=np.uint32).view(f32),  # nearest to 1
        np.array([0x00000001, 0x007FFFFF, 0x00800000, 0x7F7FFFFF, 0x3F338000, 0x3FB37FFF],
                 np.uint32).view(f32),
    ])
    _assert_round_to_odd(function, getattr(klog, function), xs)


# ---------------------------------------------------------------- sin, cos, sincos

SIN_SPECIALS = [  # C99 F.9.1.6
    (0x00000000, 0x00000000), (0x80000000, 0x80000000),  # sin(±0) = ±0
    (0x7F800000, QNAN), (0xFF800000, QNAN),  # sin(±inf) invalid
    (0x7FC00000, QNAN), (0xFFC00001, QNAN), (0x7F800001, QNAN),
    (0x00000001, 0x00000001), (0x80000001, 0x80000001),  # sin(±2^-149): odd, kept
    (0x00000002, 0x00000001), (0x80000002, 0x80000001),  # sin(2^-148): just below, odd
]
COS_SPECIALS = [  # C99 F.9.1.5
    (0x00000000, 0x3F800000), (0x80000000, 0x3F800000),  # cos(±0) = 1
    (0x7F800000, QNAN), (0xFF800000, QNAN),
    (0x7FC00000, QNAN), (0xFFC00001, QNAN), (0x7F800001, QNAN),
    (0x00000001, 0x3F7FFFFF), (0x39800000, 0x3F7FFFFF),  # cos(tiny) just below 1
]


def test_sin_special_values():
    _special_table(ktrig.sin, SIN_SPECIALS)


def test_cos_special_values():
    _special_table(ktrig.cos, COS_SPECIALS)


HARD = trig_hard_bits()


@pytest.mark.parametrize("function", ["sin", "cos"])
def test_trig_huge_and_hard_reductions_against_the_oracle(function):
    xs = HARD.view(f32)
    _assert_round_to_odd(function, getattr(ktrig, function), np.concatenate([xs, -xs]))


@pytest.mark.parametrize("function", ["sin", "cos"])
def test_trig_round_to_odd_against_the_oracle(function):
    rng = np.random.default_rng(8)
    xs = np.concatenate([
        rng.integers(0, 0x7F800000, 6000, dtype=np.uint32).view(f32),
        rng.uniform(-8, 8, 3000).astype(f32),
        rng.uniform(4000, 4200, 1000).astype(f32),  # both sides of the Cody-Waite limit
        rng.integers(1, 0x39800000, 1000, dtype=np.uint32).view(f32),  # tiny, subnormal
    ])
    xs = np.concatenate([xs, -xs[:5000]])
    _assert_round_to_odd(function, getattr(ktrig, function), xs)


def test_sincos_equals_sin_and_cos_bitwise():
    rng = np.random.default_rng(9)
    xs = np.concatenate([rng.integers(0, 2**32, 50_000, dtype=np.uint64).astype(np.uint32)
                         .view(f32), HARD.view(f32), -HARD.view(f32),
                         np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45], f32)])
    s, c = ktrig.sincos(xs)
    assert np.array_equal(_bits(s), _bits(ktrig.sin(xs)))
    assert np.array_equal(_bits(c), _bits(ktrig.cos(xs)))
    gs = run_guarded(lambda v: ktrig.sincos(v)[0], xs)
    gc = run_guarded(lambda v: ktrig.sincos(v)[1], xs)
    assert np.array_equal(_bits(gs), _bits(s)) and np.array_equal(_bits(gc), _bits(c))


def test_trig_constants_and_tables_regenerate():
    for name, value in ktrig.split_constants().items():
        assert float(getattr(ktrig, name)) == value, name
    assert ktrig.two_over_pi_hex() == ktrig.TWO_OVER_PI_HEX
    for got, lit in zip(ktrig.sincos_table(),
                        (ktrig.SIN_HI, ktrig.SIN_LO, ktrig.COS_HI, ktrig.COS_LO), strict=True):
        assert np.array_equal(got, lit)
    # 102 entries reach |j| = rint(128 (pi/4)(1 + 2^-10)) = 101 (Cody-Waite's q may miss the
    # nearest integer by 2^-11.4 at most, so |r| <= pi/4 (1 + 2^-10))
    assert 1 + int(np.rint(128 * np.pi / 4 * (1 + 2.0**-10))) == ktrig.N_TABLE


def test_cody_waite_and_payne_hanek_agree():
    """Where both apply (2^-7 <= |x| < 2^12) the two reductions give the same sin and cos to
    2^-44 (checked offline on every float32 of that range; here on a sample)."""
    rng = np.random.default_rng(10)
    x = rng.integers(f32(2.0**-7).view(np.uint32), f32(4096.0).view(np.uint32), 200_000,
                     dtype=np.uint32).view(f32)
    x = np.concatenate([x, -x[:1000], HARD.view(f32)[[4, 10, 13, 18]]])
    with np.errstate(all="ignore"):
        cw, ph = kred.cody_waite_pio2(x), kred.payne_hanek_pio2(x)
        for shift in (0, 1):
            h1, l1 = ktrig.combine_quadrant(cw[0] + shift, *ktrig._tables_and_t(cw[1], cw[2]))
            h2, l2 = ktrig.combine_quadrant(ph[0] + shift, *ktrig._tables_and_t(ph[1], ph[2]))
            d = (h1.astype(np.float64) - h2) + (l1.astype(np.float64) - l2)
            assert np.all(np.abs(d) <= 2.0**-44 * np.abs(h2.astype(np.float64)))


def test_payne_hanek_quadrant_and_remainder():
    """x = q pi/2 + r exactly for huge x: the remainder against mpmath at 400 bits."""
    from mpmath import mp, mpf
    xs = np.concatenate([HARD.view(f32)[:20], np.array([3.4028235e38, -1e30, 8192.0], f32)])
    q, rh, rl = kred.payne_hanek_pio2(xs)
    with mp.workprec(400):
        for x, qi, a, b in zip(xs, q, rh, rl, strict=True):
            t = mpf(float(x)) * 2 / mp.pi
            n = mp.nint(t)
            assert int(n - qi) % 4 == 0
            r = (t - n) * mp.pi / 2
            assert abs(mpf(float(a)) + mpf(float(b)) - r) <= abs(r) * mpf(2) ** -46
