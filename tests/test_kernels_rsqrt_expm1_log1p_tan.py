"""The rsqrt, expm1, log1p and tan kernels (and tanh_grad, gelu_grad, the derivatives): special
values by encoding (C99 Annex F), tiny inputs decided on the bits, exact cases, random and hard
float32 inputs against the oracle's round-to-odd, and every narrow-format input in the three
directed rounding modes.

The exhaustive 0-ULP claims (nearest-even) and the float32-guard check are in
tests/test_methods.py; faithfulness on 10^6 random float32 inputs in
tests/test_kernels_faithful.py; same bits on every export backend and the golden hashes in
tests/test_export.py.
"""

import numpy as np
import pytest

from kernel_checks import (
    assert_round_to_odd,
    assert_special_table,
    bits,
    directed_mismatches,
    trig_hard_bits,
)
from ulplab.kernels import expm1 as kexpm1
from ulplab.kernels import gelu_grad as kgelu_grad
from ulplab.kernels import log1p as klog1p
from ulplab.kernels import rsqrt as krsqrt
from ulplab.kernels import tan as ktan
from ulplab.kernels import tanh_grad as ktanh_grad
from ulplab.methods import all_methods

QNAN, INF, NINF = 0x7FC00000, 0x7F800000, 0xFF800000
f32 = np.float32
KERNELS = {"rsqrt": krsqrt.rsqrt, "expm1": kexpm1.expm1, "log1p": klog1p.log1p,
           "tan": ktan.tan, "tanh_grad": ktanh_grad.tanh_grad, "gelu_grad": kgelu_grad.gelu_grad}
NAN_INPUTS = [(0x7FC00000, QNAN), (0xFFC00001, QNAN), (0x7F800001, QNAN), (0xFFFFFFFF, QNAN)]

SPECIALS = {
    "rsqrt": [  # C99 F.10.4.5 for sqrt, then 1/x
        (0x00000000, INF), (0x80000000, NINF), (INF, 0x00000000), (NINF, QNAN),
        (0xBF800000, QNAN), (0x80000001, QNAN), (0xFF7FFFFF, QNAN),
        (0x3F800000, 0x3F800000), (0x40800000, 0x3F000000), (0x3E800000, 0x40000000),
        (0x00000001, 0x64B504F3),  # 2^-149: 2^74.5, odd, not exact
        *NAN_INPUTS,
    ],
    "expm1": [  # C99 F.9.3.3
        (0x00000000, 0x00000000), (0x80000000, 0x80000000), (INF, INF), (NINF, 0xBF800000),
        (0x00000001, 0x00000001), (0x80000001, 0x80000001),  # ±2^-149: odd, kept
        (0x00000002, 0x00000003), (0x80000002, 0x80000001),  # even: the neighbour toward +inf
        (0x32FFFFFF, 0x32FFFFFF), (0x32FFFFFE, 0x32FFFFFF), (0xB2FFFFFE, 0xB2FFFFFD),
        (0x42B17217, 0x7F7FFF85), (0x42B17218, INF), (0x7F7FFFFF, INF),  # overflow
        (0xC1900000, 0xBF7FFFFF), (0xC1900001, 0xBF7FFFFF), (0xFF7FFFFF, 0xBF7FFFFF),
        *NAN_INPUTS,
    ],
    "log1p": [  # C99 F.9.3.9
        (0x00000000, 0x00000000), (0x80000000, 0x80000000), (0xBF800000, NINF), (INF, INF),
        (0xBF800001, QNAN), (NINF, QNAN), (0xFF7FFFFF, QNAN),
        (0x00000001, 0x00000001), (0x80000001, 0x80000001),  # ±2^-149: odd, kept
        (0x00000002, 0x00000001), (0x80000002, 0x80000003),  # even: the neighbour toward -inf
        (0x32FFFFFF, 0x32FFFFFF), (0x32FFFFFE, 0x32FFFFFD), (0xB2FFFFFE, 0xB2FFFFFF),
        *NAN_INPUTS,
    ],
    "tan": [  # C99 F.9.1.7
        (0x00000000, 0x00000000), (0x80000000, 0x80000000), (INF, QNAN), (NINF, QNAN),
        (0x00000001, 0x00000001), (0x80000001, 0x80000001),  # ±2^-149: odd, kept
        (0x00000002, 0x00000003), (0x80000002, 0x80000003),  # even: one step away from zero
        (0x397FFFFF, 0x397FFFFF), (0xB97FFFFE, 0xB97FFFFF),
        *NAN_INPUTS,
    ],
    "tanh_grad": [  # even; 1 at ±0, +0 at ±inf, just below 1 for tiny x, 2^-149 far out
        (0x00000000, 0x3F800000), (0x80000000, 0x3F800000), (INF, 0x00000000),
        (NINF, 0x00000000), (0x00000001, 0x3F7FFFFF), (0x38FFFFFF, 0x3F7FFFFF),
        (0xB8FFFFFF, 0x3F7FFFFF), (0x42800000, 0x00000001), (0xC2800001, 0x00000001),
        (0x7F7FFFFF, 0x00000001), (0xFF7FFFFF, 0x00000001),
        *NAN_INPUTS,
    ],
    "gelu_grad": [  # 1/2 at ±0, the limits at ±inf, just off 1/2 for tiny x, saturations
        (0x00000000, 0x3F000000), (0x80000000, 0x3F000000), (INF, 0x3F800000),
        (NINF, 0x80000000), (0x00000001, 0x3F000001), (0x80000001, 0x3EFFFFFF),
        (0x307FFFFF, 0x3F000001), (0xB07FFFFF, 0x3EFFFFFF), (0x41100000, 0x3F800001),
        (0x7F7FFFFF, 0x3F800001), (0xC16C0001, 0x80000001), (0xFF7FFFFF, 0x80000001),
        *NAN_INPUTS,
    ],
}


def _random_and_edges(seed):
    rng = np.random.default_rng(seed)
    return np.concatenate([
        rng.integers(0, 2**32, 20_000, dtype=np.uint64).astype(np.uint32).view(f32),
        rng.integers(1, 0x00800000, 2000, dtype=np.uint32).view(f32),  # subnormal inputs
        rng.uniform(-4, 4, 4000).astype(f32),
        np.array([0x00000001, 0x007FFFFF, 0x00800000, 0x00800001, 0x7F7FFFFF, 0x3F7FFFFF,
                  0x3F800001, 0x407FFFFF, 0x33000000, 0x32FFFFFF, 0x00000004,
                  0x7F000000], np.uint32).view(f32),
    ])


def test_rsqrt_special_values():
    assert_special_table(krsqrt.rsqrt, SPECIALS["rsqrt"])


def test_rsqrt_of_every_power_of_four_is_exact_and_other_results_are_not():
    ks = np.arange(-74, 64)
    xs = np.ldexp(np.ones(ks.size, f32), 2 * ks).astype(f32)  # subnormal 4^k included
    assert np.array_equal(krsqrt.rsqrt(xs), np.ldexp(np.ones(ks.size, f32), -ks).astype(f32))
    z = np.arange(0x3F800001, 0x3F810000, dtype=np.uint32).view(f32)  # just above 1
    assert np.all(krsqrt.rsqrt_parts(z)[1] != 0)


def test_rsqrt_split_is_exact_for_subnormal_and_normal_inputs():
    rng = np.random.default_rng(4)
    xs = np.concatenate([rng.integers(1, 0x7F800000, 100_000, dtype=np.uint32).view(f32),
                         np.arange(1, 4096, dtype=np.uint32).view(f32)])
    z, k = krsqrt._split(xs)
    assert np.all((z >= 1) & (z < 4))
    assert np.array_equal(np.ldexp(z.astype(np.float64), 2 * k), xs.astype(np.float64))


def test_expm1_special_values():
    assert_special_table(kexpm1.expm1, SPECIALS["expm1"])


def test_expm1_constants_regenerate():
    for name, value in kexpm1.split_constants().items():
        lit = kexpm1.Q[int(name[1]) - 1] if name in ("Q1", "Q2", "Q3") else getattr(kexpm1, name)
        assert float(lit) == value, name


def test_expm1_near_zero_and_near_the_thresholds_against_the_oracle():
    rng = np.random.default_rng(32)
    xs = np.concatenate([
        rng.integers(0x33000000, 0x3C000000, 5000, dtype=np.uint32).view(f32),  # 2^-25 .. 2^-7
        np.arange(0x3C300000, 0x3C340000, 64, dtype=np.uint32).view(f32),  # around ln2/128
        rng.uniform(-0.02, 0.02, 5000).astype(f32), rng.uniform(-18, -16, 2000).astype(f32),
        rng.uniform(86, 88.8, 2000).astype(f32),
    ])
    assert_round_to_odd("expm1", kexpm1.expm1, np.concatenate([xs, -xs[:5000]]))


def test_log1p_special_values():
    assert_special_table(klog1p.log1p, SPECIALS["log1p"])


def test_log1p_near_zero_near_minus_one_and_huge_against_the_oracle():
    rng = np.random.default_rng(33)
    xs = np.concatenate([
        rng.integers(0x33000000, 0x3F000000, 8000, dtype=np.uint32).view(f32),  # 2^-25 .. 1/2
        rng.uniform(-0.35, 0.45, 4000).astype(f32),  # k = 0 and its edges
        np.arange(0xBF7FF000, 0xBF800000, 8, dtype=np.uint32).view(f32),  # just above -1
        rng.integers(0x5D000000, 0x7F800000, 3000, dtype=np.uint32).view(f32),  # around 2^60
        np.array([0x5D800000, 0x5D800001, 0x5D7FFFFF, 0x4B800000, 0x4B7FFFFF], np.uint32)
        .view(f32),
    ])
    assert_round_to_odd("log1p", klog1p.log1p, np.concatenate([xs, -xs[:12000]]))


def test_tan_special_values():
    assert_special_table(ktan.tan, SPECIALS["tan"])


def test_tan_hard_reductions_and_poles_against_the_oracle():
    """The hardest reductions of trig.py (x closest to multiples of pi/2, where tan is largest
    or smallest), both sides of the Cody-Waite limit, and the float32 around pi/2, pi, 3pi/2."""
    rng = np.random.default_rng(34)
    near = np.concatenate([np.arange(b - 40, b + 40, dtype=np.uint32) for b in
                           (0x3FC90FDB, 0x40490FDB, 0x4096CBE4, 0x45800000, 0x397FFFF0)])
    xs = np.concatenate([trig_hard_bits().view(f32), near.view(f32),
                         rng.uniform(4000, 4200, 2000).astype(f32),
                         rng.uniform(-2, 2, 4000).astype(f32)])
    assert_round_to_odd("tan", ktan.tan, np.concatenate([xs, -xs]))


def test_tanh_grad_special_values_and_evenness():
    assert_special_table(ktanh_grad.tanh_grad, SPECIALS["tanh_grad"])
    xs = np.random.default_rng(35).integers(0, 0x7F800000, 50_000, dtype=np.uint32).view(f32)
    assert np.array_equal(bits(ktanh_grad.tanh_grad(xs)), bits(ktanh_grad.tanh_grad(-xs)))


def test_tanh_grad_around_its_switches_against_the_oracle():
    """Around 2^-13 (tiny), 1/2 .. 4, 20 (1 - sigma taken as 1), 52.7 (below 2^-150) and 64."""
    rng = np.random.default_rng(36)
    xs = np.concatenate([rng.uniform(lo, hi, 1500).astype(f32) for lo, hi in
                         ((2.0**-13, 2.0**-10), (0.5, 4.0), (19.5, 20.5), (50.0, 55.0),
                          (63.0, 65.0))])
    assert_round_to_odd("tanh_grad", ktanh_grad.tanh_grad, np.concatenate([xs, -xs]))


def test_gelu_grad_special_values():
    assert_special_table(kgelu_grad.gelu_grad, SPECIALS["gelu_grad"])


def test_gelu_grad_constants_regenerate():
    for name, value in kgelu_grad.split_constants().items():
        assert float(getattr(kgelu_grad, name)) == value, name


def test_gelu_grad_around_its_switches_against_the_oracle():
    """Around |x| = 1/sqrt2 (series / erfcx), 9, 14.75, the erfcx pieces, and 2^-30."""
    rng = np.random.default_rng(37)
    xs = np.concatenate([rng.uniform(lo, hi, 1500).astype(f32) for lo, hi in
                         ((0.6, 0.8), (8.5, 9.5), (14.0, 14.76), (0.5, 14.0), (2.0**-30, 0.01))])
    assert_round_to_odd("gelu_grad", kgelu_grad.gelu_grad, np.concatenate([xs, -xs]))


def test_gelu_grad_is_faithful_next_to_its_sign_change():
    """The 6,000 float32 nearest to the zero at x = -0.7517915: within 1 ulp of the correctly
    rounded value (the cancellation there leaves fewer bits: 1 of them is not the round-to-odd,
    measured)."""
    from ulplab.formats import get_format, to_values
    from ulplab.oracle.table import evaluate
    from ulplab.ulp import ulp_distance

    f32fmt = get_format("float32")
    r = int(f32(-0.7517915).view(np.uint32))
    xs = np.arange(r - 3000, r + 3000, dtype=np.uint32).view(f32)
    truth = evaluate("gelu_grad", to_values(bits(xs), f32fmt), f32fmt)
    u = ulp_distance(bits(kgelu_grad.gelu_grad(xs)), truth, f32fmt)
    assert u.min() >= 0 and u.max() <= 1


@pytest.mark.parametrize("name", sorted(KERNELS))
def test_round_to_odd_against_the_oracle(name):
    assert_round_to_odd(name, KERNELS[name], _random_and_edges(31))


@pytest.mark.parametrize("name", sorted(KERNELS))
def test_special_values_are_the_round_to_odd_truth(name):
    xs = np.array([b for b, _ in SPECIALS[name]], np.uint32).view(f32)
    assert_round_to_odd(name, KERNELS[name], xs[~np.isnan(xs)])
    assert np.all(bits(KERNELS[name](xs[np.isnan(xs)])) == QNAN)


DET = {m.function: m for m in all_methods() if m.name == "det-odd"}


@pytest.mark.parametrize("mode", ["toward-zero", "up", "down"])
@pytest.mark.parametrize("fmt", ["bfloat16", "float16", "float8_e4m3fn", "float8_e5m2"])
@pytest.mark.parametrize("name", sorted(KERNELS))
def test_directed_rounding_of_the_round_to_odd_output_is_correct(name, fmt, mode):
    """The round-to-odd float32 output rounded toward zero, up or down to a narrow format equals
    the true value rounded the same way, on every input (round-to-odd is exact for any rounding
    to a format with at least two fewer significand bits)."""
    bad = directed_mismatches(DET[name], fmt, mode)
    assert bad.size == 0, [hex(b) for b in bad[:8]]


# The double-float h + l that each kernel hands to its round-to-odd, against mpmath at 150 bits
# on a sample: bound (log2 of the relative error) and measured worst (seed 5, this sample).
PRECISION = {"rsqrt": -46.0, "log1p": -46.0, "expm1": -46.5, "tan": -45.5}  # measured -46.3,
# -46.3, -47.0, -45.8


def _sample(name, rng):
    if name == "rsqrt":
        return rng.uniform(1, 4, 3000).astype(f32)  # z of x = z 4^k
    lo, hi = {"log1p": (-0.99, 3.0), "expm1": (-17.9, 88.0), "tan": (-10.0, 10.0)}[name]
    xs = np.concatenate([rng.uniform(lo, hi, 2000).astype(f32),
                         rng.uniform(-0.02, 0.02, 1000).astype(f32),
                         rng.integers(0x39800000, 0x3F000000, 1000, dtype=np.uint32).view(f32)])
    return xs[np.abs(xs) >= 2.0**-12]  # not the tiny inputs, decided without h + l


@pytest.mark.parametrize("name", sorted(PRECISION))
def test_double_float_before_the_rounding_against_mpmath(name, monkeypatch):
    from mpmath import mp, mpf

    from ulplab.kernels import core

    rng = np.random.default_rng(5)
    xs = _sample(name, rng)
    seen = {}

    def record(hi, low, m=None):
        seen["hlm"] = (hi.copy(), low.copy(), None if m is None else m.copy())
        return core.round_to_odd(hi, low) if m is None else core.round_to_odd_scaled(hi, low, m)

    mod = {"rsqrt": krsqrt, "log1p": klog1p, "expm1": kexpm1, "tan": ktan}[name]
    monkeypatch.setattr(mod, "round_result_scaled" if name == "expm1" else "round_result",
                        record)
    if name == "rsqrt":
        seen["hlm"] = (*krsqrt.rsqrt_parts(xs), None)
    else:
        KERNELS[name](xs)
    h, lo, m = seen["hlm"]
    ref = {"rsqrt": lambda v: 1 / mp.sqrt(v), "log1p": mp.log1p, "expm1": mp.expm1,
           "tan": mp.tan}[name]
    worst = -999.0
    with mp.workprec(150):
        for i, x in enumerate(xs):
            got = (mpf(float(h[i])) + mpf(float(lo[i]))) * (1 if m is None else
                                                            mpf(2) ** int(m[i]))
            t = ref(mpf(float(x)))
            if got != t:
                worst = max(worst, float(mp.log(abs((got - t) / t), 2)))
    assert worst <= PRECISION[name], worst
