"""Batch C GELU methods: direct polynomials (A1 Pure, A1 Poly-9, A1 Poly-7, E9 Remez BF16),
Chebyshev (A3), continued fraction (A4), saturation + odd polynomial (R1), range-scaled (E3).
Claims and the float32 guard are tested for every method by tests/test_methods.py; here:
special values, known values, fitted constants and their properties."""

import numpy as np
import pytest

from ulplab.formats import get_format, round_to_format, to_values
from ulplab.methods import get_method
from ulplab.methods.gelu import poly_a, poly_r1, rangescale_e3, tail

f32 = np.float32
NAMES = ["A1 Pure", "A1 Poly-9", "A1 Poly-7", "E9 Remez BF16", "A3 Chebyshev", "A4 Cont.Frac",
         "R1 Poly-9", "E3 Range-Scale"]
EXACT_AT_ZERO = [n for n in NAMES if n != "E9 Remez BF16"]
TINY = np.float32(np.uint32(1).view(np.float32))
BIG = np.finfo(np.float32).max


@pytest.mark.parametrize("name", NAMES)
def test_special_values(name):
    m = get_method("gelu", name)
    x = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, BIG, -BIG, TINY, -TINY, 3.0, 100.0, -20.0],
                 dtype=f32)
    y = m(x)
    assert y.dtype == np.float32
    assert np.isnan(y[0]) and y[1] == np.inf
    assert y[2] == 0 and np.signbit(y[2])
    assert y[3] == 0 and not np.signbit(y[3])
    assert y[4] == 0 and np.signbit(y[4])
    assert y[5] == BIG and y[6] == 0 and y[10] == 100.0
    assert np.signbit(y[8]) and y[8] >= -TINY
    assert abs(y[9] - 2.99595) < 0.005  # GELU(3) = 2.99595
    assert y[11] == 0 and np.signbit(y[11])  # GELU(-20) = -1.1e-87 underflows to -0


def test_nan_payload_kept():
    nan = np.array([np.uint32(0x7FC01234)], dtype=np.uint32).view(f32)
    for name in NAMES:
        assert get_method("gelu", name)(nan).view(np.uint32)[0] == 0x7FC01234, name


@pytest.mark.parametrize("name", EXACT_AT_ZERO)
def test_tiny_inputs_give_half(name):
    # Phi(0) = 1/2 exactly: GELU(x) = x/2 for tiny x, in float32 already
    x = np.array([1e-20, -1e-20, 2.0**-100, 1e-30], dtype=f32)
    assert np.array_equal(get_method("gelu", name)(x), x * f32(0.5))


def test_e9_tiny_inputs_carry_its_constant_term():
    x = np.array([1e-20, -1e-20], dtype=f32)
    assert np.array_equal(get_method("gelu", "E9 Remez BF16")(x), x * poly_a.E9_BF16[0])


def _rel_err(name, x):
    y = get_method("gelu", name)(x).astype(np.float64)
    ref = np.array([float(tail.gelu_exact(float(v))) for v in x])
    return np.abs(y - ref) / np.abs(ref)


def test_cores_follow_gelu_to_their_fitted_error():
    x = np.linspace(-3.5, 2.9, 1301, dtype=f32)
    x = x[x != 0]
    # fitted relative errors of Phi (float32 coefficients): A1 Poly-9 2.34%, A1 Pure 1.91%
    # (on [-3.5, 2.5]), A1 Poly-7 11.5%, E9 4.39% (bfloat16 coefficients), A3 8.3e-4,
    # A4 6.1e-4, R1 5.1%, E3 2.9e-4 / B3 2e-5; plus float32 roundings
    for name, tol in (("A1 Poly-9", 0.0245), ("A1 Pure", 0.02), ("A1 Poly-7", 0.12),
                      ("E9 Remez BF16", 0.045), ("A3 Chebyshev", 1e-3), ("A4 Cont.Frac", 8e-4),
                      ("R1 Poly-9", 0.052), ("E3 Range-Scale", 4e-4)):
        assert _rel_err(name, x).max() < tol, name
    # and the minimax errors are reached (the fits are not looser than they need be)
    assert _rel_err("A1 Poly-9", x).max() > 0.02
    assert _rel_err("R1 Poly-9", x).max() > 0.04


@pytest.mark.parametrize("name", ["A3 Chebyshev", "A4 Cont.Frac", "E3 Range-Scale"])
def test_accurate_cores_exact_in_bfloat16_up_to_one_ulp(name):
    bf = get_format("bfloat16")
    bits = np.arange(1 << 16, dtype=np.uint16)
    x = to_values(bits, bf)
    x = x[np.isfinite(x) & (x >= -3.5) & (x < 3.0) & (x != 0)].astype(f32)
    y = round_to_format(get_method("gelu", name)(x), bf)
    ref = round_to_format(np.array([float(tail.gelu_exact(float(v))) for v in x], dtype=f32), bf)
    yi, ri = y.astype(np.int64), ref.astype(np.int64)
    assert np.all(np.abs(yi - ri) <= 1)


def test_known_values():
    x = np.array([1.0, -1.0, -2.0], dtype=f32)
    ref = np.array([0.8413447460685429, -0.15865525393145707, -0.04550026389635842])
    for name, tol in (("A3 Chebyshev", 1e-3), ("A4 Cont.Frac", 1e-3), ("E3 Range-Scale", 1e-3),
                      ("A1 Poly-9", 0.025)):
        y = get_method("gelu", name)(x).astype(np.float64)
        assert np.all(np.abs(y - ref) <= tol * np.abs(ref)), name
    # A4 by hand: the fraction evaluated bottom-up at x = 1
    f = poly_a.A4_CF[-1]
    for a in poly_a.A4_CF[-2::-1]:
        f = a / (f32(1.0) + f)
    assert abs(get_method("gelu", "A4 Cont.Frac")(np.array([1.0], dtype=f32))[0]
               - (f32(0.5) + f)) < 1e-6


def test_constants_are_exact_literals_of_their_format():
    for c in (*poly_a.A1_POLY9, *poly_a.A1_PURE9, *poly_a.A1_POLY7, *poly_a.A3_CHEB,
              *poly_a.A4_CF, *poly_r1.R1_COEFFS, *rangescale_e3.E3_COEFFS):
        assert isinstance(c, np.float32)
    # E9's coefficients are bfloat16 values (low 16 bits of the float32 zero)
    bits = np.array(poly_a.E9_BF16, dtype=f32).view(np.uint32)
    assert np.all(bits & 0xFFFF == 0)
    assert len(poly_a.A1_POLY9) == 8 and len(poly_a.A1_POLY7) == 6  # degrees 9 and 7 in x
    assert len(poly_a.E9_BF16) == 9 and len(poly_a.A3_CHEB) == 13 and len(poly_a.A4_CF) == 6
    assert float(poly_a.A3_SCALE) == float(f32(1 / 3.25))
    assert float(poly_a.A3_SHIFT) == float(f32(0.25 / 3.25))


def test_chebyshev_series_is_half_at_zero():
    u0 = -(poly_a.A3_LO + poly_a.A3_HI) / (poly_a.A3_HI - poly_a.A3_LO)
    t = poly_a.chebyshev_basis(np.array([u0]), 12)[0]
    assert abs(t @ np.array(poly_a.A3_CHEB, dtype=np.float64) - 0.5) < 1e-7


def test_rational_to_cf_round_trip():
    # a0/(1 + u a1/(1 + u a2)) = a0 (1 + a2 u)/(1 + (a1 + a2) u): [1/1] with known fraction
    a = poly_a.rational_to_cf(np.array([2.0, 2.0 * 0.25]), np.array([0.75]))
    assert np.allclose(a, [2.0, 0.5, 0.25])


def test_fits_regenerate_constants():
    assert poly_a.fit_a1(-3.5, 3.0, 9)[0] == poly_a.A1_POLY9
    assert poly_r1.fit_r1()[0] == poly_r1.R1_COEFFS
    assert rangescale_e3.fit_e3()[0] == rangescale_e3.E3_COEFFS
    assert poly_a.fit_a4()[0] == poly_a.A4_CF
