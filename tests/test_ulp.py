"""Two independent ULP calculators, checked against each other and against known indices."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ulplab.formats import FORMATS, all_patterns, get_format, is_finite, next_up, to_values
from ulplab.ulp import NO_INDEX, ordinal_bitwise, ordinal_sorted, ulp_distance

BF16 = get_format("bfloat16")


@pytest.mark.parametrize("ftz", [False, True])
def test_calculators_agree_on_every_pattern(small_format, ftz):
    fmt = small_format
    bits = all_patterns(fmt)
    np.testing.assert_array_equal(ordinal_bitwise(bits, fmt, ftz), ordinal_sorted(bits, fmt, ftz))


@pytest.mark.parametrize("ftz", [False, True])
def test_adjacent_values_are_one_ulp_apart(small_format, ftz):
    fmt = small_format
    bits = all_patterns(fmt)
    vals = to_values(bits, fmt)
    finite = bits[np.isfinite(vals)]
    up = next_up(finite, fmt)
    keep = is_finite(up, fmt)
    if ftz:  # subnormals collapse onto zero: compare normals and zero only
        mag = finite.astype(np.int64) & fmt.mag_mask
        keep &= (mag == 0) | (mag >= fmt.min_normal_bits)
        keep &= (up.astype(np.int64) & fmt.mag_mask) >= fmt.min_normal_bits
    a, b = finite[keep], up[keep]
    for calc in ("bitwise", "sorted"):
        d = ulp_distance(a, b, fmt, ftz, calc)
        assert np.all(d == 1)  # nextUp(-0) is the smallest subnormal, never +0


def test_random_pairs_agree(small_format):
    fmt = small_format
    rng = np.random.default_rng(7)
    a = rng.integers(0, fmt.n_patterns, 100_000).astype(fmt.uint)
    b = rng.integers(0, fmt.n_patterns, 100_000).astype(fmt.uint)
    for ftz in (False, True):
        np.testing.assert_array_equal(ulp_distance(a, b, fmt, ftz, "bitwise"),
                                      ulp_distance(a, b, fmt, ftz, "sorted"))


def test_seed_index_layout_under_ftz():
    # the tanh diagnostic's layout, shifted so that zero is index 0 (theirs: 32512)
    pats = np.array([0xFF7F, 0x8080, 0x0000, 0x8000, 0x0080, 0x7F7F, 0x0001, 0x807F], np.uint16)
    idx = ordinal_bitwise(pats, BF16, ftz=True)
    assert list(idx + 32512) == [0, 32511, 32512, 32512, 32513, 65024, 32512, 32512]


def test_signed_zeros_share_an_index_and_specials_have_none():
    z = np.array([0x0000, 0x8000], np.uint16)
    assert ulp_distance(z[:1], z[1:], BF16)[0] == 0
    specials = np.array([0x7F80, 0xFF80, 0x7FC0], np.uint16)
    assert (ordinal_bitwise(specials, BF16) == NO_INDEX).all()
    assert (ordinal_sorted(specials, BF16) == NO_INDEX).all()


def test_smallest_normal_is_one_step_from_zero_under_ftz():
    d = ulp_distance(np.array([0x0080], np.uint16), np.array([0x0000], np.uint16), BF16, ftz=True)
    assert d[0] == 1
    d = ulp_distance(np.array([0x0080], np.uint16), np.array([0x0000], np.uint16), BF16)
    assert d[0] == 128


@given(st.integers(0, 2**31 - 2), st.integers(0, 2**31 - 2))
def test_float32_bitwise_matches_counting_with_nextafter_for_near_pairs(a, k):
    fmt = FORMATS["float32"]
    k = k % 50
    x = np.array([a], np.uint32).view(np.float32)
    if not np.isfinite(x[0]):
        return
    y = x.copy()
    with np.errstate(over="ignore"):
        for _ in range(k):
            y = np.nextafter(y, np.float32(np.inf))
    if not np.isfinite(y[0]):
        return
    d = ulp_distance(x.view(np.uint32), y.view(np.uint32), fmt)
    assert d[0] == k
