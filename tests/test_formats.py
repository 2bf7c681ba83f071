"""Formats: value-space counts, classification, neighbours, and rounding done once."""

from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from conftest import assert_bits_equal
from ulplab.formats import (
    FORMATS,
    ROUNDING_MODES,
    Kind,
    all_patterns,
    classify,
    counts,
    flush_subnormals,
    get_format,
    negate,
    next_down,
    next_up,
    round_dyadic,
    round_fraction,
    round_to_format,
    round_value,
    to_values,
)

BF16 = get_format("bfloat16")


def test_bfloat16_value_space_counts():
    c = counts(BF16)
    assert (c["patterns"], c["finite"], c["distinct_finite"]) == (65536, 65280, 65279)
    ftz = counts(BF16, ftz=True)
    assert (ftz["distinct_finite"], ftz["subnormal"]) == (65025, 254)


def test_counts_match_classification(small_format):
    fmt = small_format
    kinds = classify(all_patterns(fmt), fmt)
    c = counts(fmt)
    assert np.count_nonzero(kinds == Kind.SUBNORMAL) == c["subnormal"]
    assert np.count_nonzero(kinds == Kind.NAN) == c["nan"]
    assert np.count_nonzero(kinds == Kind.INF) == c["inf"]
    assert np.count_nonzero(kinds <= Kind.NORMAL) == c["finite"]
    vals = to_values(all_patterns(fmt), fmt)
    assert np.unique(vals[np.isfinite(vals)]).size == c["distinct_finite"]


def test_classification_agrees_with_ml_dtypes(small_format):
    fmt = small_format
    vals = to_values(all_patterns(fmt), fmt)
    kinds = classify(all_patterns(fmt), fmt)
    np.testing.assert_array_equal(kinds == Kind.NAN, np.isnan(vals))
    np.testing.assert_array_equal(kinds == Kind.INF, np.isinf(vals))
    np.testing.assert_array_equal(kinds == Kind.ZERO, vals == 0)
    sub = (vals != 0) & (np.abs(vals) < fmt.min_normal)
    np.testing.assert_array_equal(kinds == Kind.SUBNORMAL, sub)
    top = float(to_values(np.array([fmt.max_bits]), fmt)[0])
    assert top == float(ml_dtypes.finfo(fmt.dtype).max)


def test_next_up_is_the_next_value_exhaustive(small_format):
    fmt = small_format
    bits = all_patterns(fmt)
    vals = to_values(bits, fmt)
    finite = np.isfinite(vals)
    distinct = np.unique(vals[finite])
    up = to_values(next_up(bits, fmt), fmt)
    down = to_values(next_down(bits, fmt), fmt)
    inner = finite & (vals < distinct[-1])
    idx = np.searchsorted(distinct, vals[inner])
    np.testing.assert_array_equal(up[inner], distinct[idx + 1])
    inner = finite & (vals > distinct[0])
    idx = np.searchsorted(distinct, vals[inner])
    np.testing.assert_array_equal(down[inner], distinct[idx - 1])
    top = to_values(next_up(np.array([fmt.max_bits]), fmt), fmt)[0]
    assert np.isinf(top) if fmt.has_inf else np.isnan(top)
    lowest = bits[finite][np.argmin(vals[finite])]
    bottom = to_values(next_down(np.array([lowest]), fmt), fmt)[0]
    assert np.isinf(bottom) if fmt.has_inf else np.isnan(bottom)  # e8m0fnu: none below 2**-127
    assert np.isnan(up[np.isnan(vals)]).all() and np.isnan(down[np.isnan(vals)]).all()


def test_traits_agree_with_every_ml_dtypes_encoding(small_format):
    """The traits (read from a few casts in spec.py) against the decoding of every pattern."""
    fmt = small_format
    with np.errstate(invalid="ignore"):
        vals = all_patterns(fmt).view(fmt.dtype).astype(np.float64)
    assert vals.size == 2 ** fmt.bits == fmt.n_patterns  # float4_e2m1fn: 16, not 256
    assert fmt.signed == bool(np.any(vals < 0))
    assert fmt.has_zero == bool(np.any(vals == 0))
    assert fmt.has_neg_zero == bool(np.any((vals == 0) & np.signbit(vals)))
    assert fmt.has_inf == bool(np.any(np.isinf(vals)))
    assert fmt.has_nan == bool(np.any(np.isnan(vals)))
    finite = vals[np.isfinite(vals)]
    assert fmt.max_value == finite.max() and fmt.min_subnormal == finite[finite > 0].min()
    assert fmt.min_normal == float(ml_dtypes.finfo(fmt.dtype).smallest_normal)
    with np.errstate(over="ignore"):  # beyond the largest value: ml_dtypes' overflow rule
        beyond = np.array([fmt.max_value * 2, -fmt.max_value * 2], np.float32).astype(fmt.dtype)
    beyond = beyond.astype(np.float64)
    rule = {"inf": np.isinf(beyond).all(), "nan": np.isnan(beyond[:1]).all(),
            "saturate": np.array_equal(np.abs(beyond), [fmt.max_value] * 2)}
    assert [r for r, holds in rule.items() if holds] == [fmt.overflow]


def test_negation(small_format):
    fmt = small_format
    bits = all_patterns(fmt)
    vals = to_values(bits, fmt)
    neg = to_values(negate(bits, fmt), fmt)
    ok = ~np.isnan(vals)
    if fmt.signed:
        np.testing.assert_array_equal(neg[ok], -vals[ok])
        np.testing.assert_array_equal(np.signbit(neg[ok]), ~np.signbit(vals[ok]) &
                                      ((vals[ok] != 0) | fmt.has_neg_zero))
    else:
        assert np.isnan(neg).all()  # e8m0fnu: no negative values


@given(st.integers(0, 2**32 - 1))
@example(0x7F7FFFFF)
@example(0x80000001)
@example(0x80000000)
@example(0x7F800001)  # a signalling NaN
def test_next_up_float32_matches_nextafter(b):
    fmt = FORMATS["float32"]
    x = np.array([b], np.uint32).view(np.float32)
    got = next_up(np.array([b], np.uint32), fmt).view(np.float32)
    with np.errstate(over="ignore", invalid="ignore"):  # a signalling NaN raises invalid
        want = np.nextafter(x, np.float32(np.inf))
    if np.isnan(x[0]):
        assert np.isnan(got[0])
    else:
        assert got[0] == want[0] or (got[0] == 0 and want[0] == 0)


def test_float64_double_rounding_trap_is_avoided():
    v = 1 + 2.0**-8 + 2.0**-40
    assert int(np.array([v]).astype(ml_dtypes.bfloat16).view(np.uint16)[0]) == 0x3F80  # the trap
    assert int(round_to_format(np.array([v]), BF16)[0]) == 0x3F81
    assert round_value(Fraction(v), BF16) == 0x3F81


def _midpoints_and_neighbours(fmt):
    vals = np.unique(to_values(all_patterns(fmt), fmt))
    vals = vals[np.isfinite(vals)].astype(np.float32)
    mids = ((vals[:-1].astype(np.float64) + vals[1:]) / 2).astype(np.float32)  # exact
    with np.errstate(over="ignore"):
        return np.concatenate([vals, mids, np.nextafter(mids, np.float32(np.inf)),
                               np.nextafter(mids, np.float32(-np.inf))])


def test_nearest_even_matches_ml_dtypes_float32_cast(small_format):
    fmt = small_format
    rng = np.random.default_rng(1)
    rnd = rng.integers(0, 2**32, 200_000, dtype=np.uint64).astype(np.uint32).view(np.float32)
    xs = np.concatenate([_midpoints_and_neighbours(fmt), rnd,
                         np.array([np.inf, -np.inf, np.nan, 0.0, -0.0], np.float32)])
    with np.errstate(invalid="ignore", over="ignore"):
        want = xs.astype(fmt.dtype).view(fmt.uint)
    got = round_to_format(xs, fmt)
    nan = np.isnan(to_values(want, fmt)) | np.isnan(xs)  # ml_dtypes casts NaN to -0 in fn4/6
    if not fmt.has_zero:
        # ml_dtypes rounds a float32 subnormal above the smallest value up (measured in 0.6.0:
        # 0x00400001..0x007fffff -> float8_e8m0fnu 0x01, where 1.25 * 2**-127 is nearer 0x00);
        # ulplab rounds them to nearest, as test_vector_and_exact_rounding_agree checks.
        rounds_up = (np.abs(xs) < 2.0**-126) & (xs > fmt.min_normal)
        assert np.all(to_values(want[rounds_up], fmt) == 2.0 ** (fmt.emin + 1))
        nan |= rounds_up
    assert_bits_equal(got[~nan], want[~nan], fmt, xs[~nan])
    assert np.isnan(to_values(got[nan & np.isnan(xs)], fmt)).all()


@given(st.floats(allow_nan=False, allow_infinity=False, width=64),
       st.sampled_from(sorted(FORMATS)))
@example(464.0, "float8_e4m3fn")
@example(465.0, "float8_e4m3fn")
@example(-2.0**-134, "bfloat16")
@example(3.3961775292304958e38, "bfloat16")  # max + half ulp: the tie goes to inf
@example(2.0**-1074, "float16")
@example(-0.0, "bfloat16")
@example(-0.0, "float8_e4m3fnuz")
@example(-1e-30, "float8_e5m2fnuz")
@example(0.75, "float8_e8m0fnu")  # a tie with precision 1: up
@example(2.0**-140, "float8_e8m0fnu")  # below the smallest value, no zero
@example(-1.0, "float8_e8m0fnu")
@example(1e10, "float4_e2m1fn")
def test_vector_and_exact_rounding_agree(x, name):
    fmt = FORMATS[name]
    exact = round_fraction(Fraction(x), fmt)
    if x == 0 and np.signbit(x):  # a Fraction has no -0: the sign of the zero comes from x
        exact = round_dyadic(True, 0, 0, fmt)
    for mode, want in zip(ROUNDING_MODES, exact, strict=True):
        got = int(round_to_format(np.array([x]), fmt, mode)[0])
        assert got == want, (mode, x.hex(), hex(got), hex(want))


@given(st.fractions(), st.sampled_from(sorted(FORMATS)))
@example(Fraction(7), "float4_e2m1fn")
@example(Fraction(1, 2**130), "float8_e8m0fnu")
def test_directed_modes_bracket_the_value(q, name):
    fmt = FORMATS[name]
    rn, rz, ru, rd = (to_values(np.array([b]), fmt)[0] for b in round_fraction(q, fmt))
    saturated = fmt.max_value if fmt.overflow == "saturate" else np.nan  # no value beyond
    lo = -np.inf if np.isnan(rd) or rd == -saturated else rd
    hi = np.inf if np.isnan(ru) or ru == saturated else ru
    assert lo <= q <= hi
    assert rz == (rd if q >= 0 else ru) or np.isnan(rz)
    assert rn in (rd, ru) or np.isnan(rn)


def test_overflow_rules():
    e4 = FORMATS["float8_e4m3fn"]
    xs = np.array([448.0, 449.0, 464.0, 465.0, -500.0, np.inf])
    assert [hex(b) for b in round_to_format(xs, e4)] == ["0x7e", "0x7e", "0x7e", "0x7f", "0xff",
                                                          "0x7f"]
    assert int(round_to_format(np.array([1e6]), e4, "toward-zero")[0]) == 0x7E
    big = np.array([1e39, -1e39])
    assert [hex(b) for b in round_to_format(big, BF16)] == ["0x7f80", "0xff80"]
    assert [hex(b) for b in round_to_format(big, BF16, "toward-zero")] == ["0x7f7f", "0xff7f"]
    assert [hex(b) for b in round_to_format(big, BF16, "up")] == ["0x7f80", "0xff7f"]
    assert [hex(b) for b in round_to_format(big, BF16, "down")] == ["0x7f7f", "0xff80"]


def test_fnuz_has_one_zero_and_its_nan_at_0x80():
    """The reported bug: +1e10 rounded to 0x00, -0.0 became 0x80 (the NaN), classified ZERO."""
    fnuz = FORMATS["float8_e4m3fnuz"]
    xs = np.array([1e10, -1e10, -0.0, -1e-30, np.inf, np.nan])
    assert [hex(b) for b in round_to_format(xs, fnuz)] == ["0x80", "0x80", "0x0", "0x0", "0x80",
                                                           "0x80"]
    assert classify(np.array([0x80, 0x00]), fnuz).tolist() == [Kind.NAN, Kind.ZERO]
    assert hex(next_up(np.array([0x81]), fnuz)[0]) == "0x0"  # -min subnormal -> the one zero
    assert hex(next_down(np.array([0x00]), fnuz)[0]) == "0x81"


def test_saturating_formats_have_no_nan_and_no_inf():
    e2m1 = FORMATS["float4_e2m1fn"]
    assert counts(e2m1)["patterns"] == 16 and counts(e2m1)["nan"] == 0
    xs = np.array([1e10, -np.inf, 5.0, 7.0, np.nan])  # 5: a tie between 4 and 6, to even
    assert [hex(b) for b in round_to_format(xs, e2m1)] == ["0x7", "0xf", "0x6", "0x7", "0x10"]
    assert np.isnan(to_values(np.array([0x10]), e2m1)[0])  # ulplab's marker: no such value
    assert round_value(Fraction(7), e2m1, "up") == 0x7  # saturates even upward


def test_e8m0_powers_of_two_only():
    e8m0 = FORMATS["float8_e8m0fnu"]
    xs = np.array([1.0, 0.75, 1.5, 3.0, 0.0, -1.0, 2.0**-140, 2.0**127 * 1.5, np.inf])
    assert [hex(b) for b in round_to_format(xs, e8m0)] == [
        "0x7f", "0x7f", "0x80", "0x81", "0xff", "0xff", "0x0", "0xff", "0xff"]
    assert round_fraction(Fraction(1, 2**140), e8m0) == (0x00, 0xFF, 0x00, 0xFF)
    assert hex(next_down(np.array([0x00]), e8m0)[0]) == "0xff"


def test_signed_zero_and_canonical_nan():
    xs = np.array([-0.0, -1e-300, 1e-300, np.nan])
    assert [hex(b) for b in round_to_format(xs, BF16)] == ["0x8000", "0x8000", "0x0", "0x7fc0"]
    assert [hex(b) for b in round_to_format(xs, BF16, "down")] == ["0x8000", "0x8001", "0x0",
                                                                   "0x7fc0"]


def test_flush_subnormals(small_format):
    fmt = small_format
    bits = all_patterns(fmt)
    flushed = flush_subnormals(bits, fmt)
    kinds = classify(bits, fmt)
    assert not np.any(classify(flushed, fmt) == Kind.SUBNORMAL)
    sub = kinds == Kind.SUBNORMAL
    assert np.all(classify(flushed[sub], fmt) == Kind.ZERO)
    sign_kept = np.signbit(to_values(bits[sub], fmt)) & fmt.has_neg_zero  # fnuz: +0 only
    np.testing.assert_array_equal(np.signbit(to_values(flushed[sub], fmt)), sign_kept)
    np.testing.assert_array_equal(flushed[~sub], bits[~sub])


def test_float32_round_to_odd_keeps_two_bits_beyond_every_small_format(small_format):
    """The det kernels' claim (methods/det.py): a float32 round-to-odd result rounds correctly to
    a format whose every quantum is at least 4 float32 quanta, subnormals included."""
    f32 = FORMATS["float32"]
    assert small_format.precision + 2 <= f32.precision
    smallest_quantum = small_format.emin - small_format.precision + 1
    assert smallest_quantum >= f32.emin - f32.precision + 1 + 2
    assert small_format.max_value < f32.max_value


def test_unknown_format_names_the_choices():
    with pytest.raises(ValueError, match="valid: bfloat16, float16"):
        get_format("bf16x")
