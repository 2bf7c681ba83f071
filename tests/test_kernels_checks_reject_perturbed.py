"""Tests of the tests: the shared kernel checks of tests/kernel_checks.py reject a kernel made
1 ULP worse (a result moved to its float32 neighbour, away from zero) on some inputs, and a
kernel 5 ULP off, and accept the kernel itself on the same inputs."""

import dataclasses

import numpy as np
import pytest

from kernel_checks import (
    assert_correctly_rounded32,
    assert_exact_or_faithful,
    assert_round_to_odd,
    assert_special_table,
    directed_mismatches,
)
from ulplab.inputs import float32_between, float32_random
from ulplab.kernels import exp as kexp
from ulplab.kernels import registry
from ulplab.methods import get_method

f32 = np.float32
EVERY = None
# exp's specials (NaN, +-inf, +-0, the overflow and underflow edges) and a few exact and
# ordinary inputs
SPECIAL = np.array([0x7FC00000, 0xFFC00001, 0x7F800000, 0xFF800000, 0x00000000, 0x80000000,
                    0x42B17217, 0x42B17218, 0xC2CFF1B4, 0xC2CFF1B5, 0x3F800000, 0xBF800000,
                    0x00000001, 0x33800000, 0x40490FDB], np.uint32)


def worse_by(kernel, ulps=1, where=EVERY):
    """``kernel`` with each finite result below FLT_MAX moved ``ulps`` float32 patterns away from
    zero, on the inputs whose bits 20-21 are 01 (``where="some"``: a quarter of them) or on
    every input."""
    def perturbed(x):
        y = np.asarray(kernel(x)).view(np.uint32).copy()
        xb = np.asarray(x, f32).view(np.uint32)
        hit = (y & np.uint32(0x7FFFFFFF)) < np.uint32(0x7F7FFFFF - ulps)
        if where == "some":
            hit &= ((xb >> np.uint32(20)) & np.uint32(3)) == np.uint32(1)
        y[hit] += np.uint32(ulps)
        return y.view(f32)

    return perturbed


def random_inputs():
    return np.concatenate([float32_random(4000, seed=31), float32_between(-90, 90, 4000, seed=32)])


def test_round_to_odd_check():
    xs = random_inputs()
    assert_round_to_odd("exp", kexp.exp, xs)
    with pytest.raises(AssertionError):
        assert_round_to_odd("exp", worse_by(kexp.exp, where="some"), xs)


def test_exact_or_faithful_check():
    assert_exact_or_faithful("exp", kexp.exp, SPECIAL)
    # 1 ULP: wrong where exp is exact (exp(0) = 1) even though faithful elsewhere
    with pytest.raises(AssertionError):
        assert_exact_or_faithful("exp", worse_by(kexp.exp), SPECIAL)
    with pytest.raises(AssertionError):  # 5 ULP off on inputs where nothing is infinite
        assert_exact_or_faithful("exp", worse_by(kexp.exp, 5), SPECIAL[10:])

    def finite_at_overflow(x):  # FLT_MAX where exp overflows: ULP distance undefined
        y = kexp.exp(x)
        return np.where(np.isposinf(y), np.float32(3.4028235e38), y)

    with pytest.raises(AssertionError):
        assert_exact_or_faithful("exp", finite_at_overflow, SPECIAL)


def test_special_table_check():
    xs = SPECIAL.view(f32)
    table = list(zip(SPECIAL.tolist(), kexp.exp(xs).view(np.uint32).tolist(), strict=True))
    assert_special_table(kexp.exp, table)
    with pytest.raises(AssertionError):
        assert_special_table(worse_by(kexp.exp), table)


def test_directed_rounding_check():
    """On the round-to-odd kernel, the check's subject."""
    odd = dataclasses.replace(get_method("exp", "det"), impl=kexp.exp, compiled=None,
                              takes="float32")
    assert directed_mismatches(odd, "float8_e4m3fn", "up").size == 0
    # exp(0) = 1 exactly: 1 + 2^-23 rounds up to 1.125
    worse = dataclasses.replace(odd, impl=worse_by(kexp.exp))
    assert {0x00, 0x80} <= set(directed_mismatches(worse, "float8_e4m3fn", "up").tolist())


def test_correctly_rounded32_check():
    b = random_inputs().view(np.uint32)
    entry = registry.get("exp").impl("float32")
    assert_correctly_rounded32("exp", b, entry=entry)
    with pytest.raises(AssertionError):
        assert_correctly_rounded32("exp", b, entry=worse_by(entry, where="some"))
