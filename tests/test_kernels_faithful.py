"""Deterministic kernels: special values, faithful float32, one code path for any length.

Exhaustive 0-ULP checks on every bfloat16/float16/fp8 input are the registered claims of each
``det`` method (tests/test_methods.py); the float32-guard check is there too.
"""

import numpy as np
import pytest

from kernel_checks import assert_exact_or_faithful
from ulplab.formats import get_format
from ulplab.inputs import float32_between, float32_random
from ulplab.kernels import exp as kexp
from ulplab.methods import all_methods
from ulplab.oracle.fast32 import correctly_rounded32
from ulplab.ulp import ulp_distance

F32 = get_format("float32")
DET = [m for m in all_methods() if m.name == "det-odd"]  # faithful float32
SPECIAL_BITS = np.array([0x00000000, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00001,
                         0x7F800001, 0x00000001, 0x80000001, 0x007FFFFF, 0x00800000, 0x7F7FFFFF,
                         0xFF7FFFFF, 0x3F800000, 0xBF800000, 0x40000000, 0xC0000000, 0x3F000000,
                         0x42B17217, 0x42B17218, 0xC2CFF1B4, 0xC2CFF1B5, 0x43000000, 0xC3160000,
                         0xC3150000, 0x33800000, 0xB3800000], np.uint32)


def _id(m):
    return m.function


@pytest.mark.parametrize("method", DET, ids=_id)
def test_special_values_exact_or_faithful(method):
    assert_exact_or_faithful(method.function, method, SPECIAL_BITS)


@pytest.mark.parametrize("method", DET, ids=_id)
def test_float32_results_are_faithful(method):
    xs = np.concatenate([float32_random(100_000, seed=11),
                         float32_between(-128.0, 128.0, 60_000, seed=12),
                         float32_between(-1e-3, 1e-3, 20_000, seed=13)])
    # the float32 oracle's fast path (float64 with a proven bound, Arb for the rest: the same
    # results as oracle.table.evaluate, cross-checked in test_exhaustive), 10-50x faster here
    truth, _ = correctly_rounded32(method.function, xs)
    got = method(xs).view(np.uint32)
    u = ulp_distance(got, truth, F32)
    bad = (u > 1) | ((u < 0) & (got != truth) & ~(np.isnan(xs) & (got == 0x7FC00000)))
    assert not bad.any(), [(hex(b), hex(g), hex(t)) for b, g, t in
                           zip(xs.view(np.uint32)[bad][:5], got[bad][:5], truth[bad][:5],
                               strict=True)]


@pytest.mark.parametrize("method", DET, ids=_id)
def test_one_element_and_long_arrays_give_the_same_bits(method):
    xs = float32_random(4096, seed=5)
    long = method(xs).view(np.uint32)
    single = np.array([method(xs[i:i + 1]).view(np.uint32)[0] for i in range(0, 4096, 97)])
    assert np.array_equal(single, long[::97])


def test_exp_constants_regenerate():
    got = kexp.split_constants()
    for name, value in got.items():
        assert float(getattr(kexp, name)) == value, name
    hi, lo = kexp.two_pow_table()
    assert np.array_equal(hi, kexp.T_HI) and np.array_equal(lo, kexp.T_LO)


def test_exp2_ties_and_exact_powers():
    xs = np.array([-134.0, -133.0, 0.0, 10.0, -149.0, -150.0], np.float32)
    assert list(kexp.exp2(xs)) == [2.0**-134, 2.0**-133, 1.0, 1024.0, 2.0**-149, 2.0**-149]


@pytest.mark.parametrize("method", DET, ids=_id)
def test_float32_faithful_on_a_million_random_patterns(method):
    """Calling the method runs the compiled kernel, whose bits are the NumPy kernel's
    (tests/test_native.py: golden hashes, and the methods' own comparison)."""
    from ulplab.analysis.faithful import faithful_check

    res = faithful_check(method.function, method, 1_000_000, seed=21)
    assert res["unfaithful"] == 0, res


@pytest.mark.slow
@pytest.mark.parametrize("method", DET, ids=_id)
def test_float32_faithful_on_a_hundred_million_random_patterns(method):
    from ulplab.analysis.faithful import faithful_check

    assert faithful_check(method.function, method.impl, 100_000_000)["unfaithful"] == 0
