"""GELU methods of polynomials and rationals: A1, E9 (direct polynomials), A3 (Chebyshev), A4
(continued fraction), R1 (odd polynomial), E3 (range-scaled), R2 (rational), C2 (piecewise
rational): fitted constants regenerate, constant terms, exactness of their literals.

Claims and the float32 guard of every method: tests/test_methods.py.
"""

import math

import numpy as np
import pytest

from ulplab.formats import get_format, round_to_format, to_values
from ulplab.methods import get_method
from ulplab.methods.gelu import piecewise_c2, poly_a, poly_r1, rangescale_e3, rational_r2, tail

f32 = np.float32
# the seed's A1/E9 (x Q(x), Q(0) = 1/2), A3 (c_0 = 1/2, the other even terms 0) and A4 too;
# E9 (improved)'s bfloat16 constant term is not 1/2
EXACT_AT_ZERO = ["A1 Pure (improved)", "A1 Poly-9 (improved)", "A1 Poly-7 (improved)",
                 "A3 Chebyshev (improved)", "A4 Cont.Frac (improved)", "R1 Poly-9",
                 "R1 Poly-9 (improved)", "E3 Range-Scale", "E3 Range-Scale (improved)",
                 "A1 Pure", "A1 Poly-9", "A1 Poly-7",
                 "E9 Remez BF16", "A3 Chebyshev", "A4 Cont.Frac"]


@pytest.mark.parametrize("name", EXACT_AT_ZERO)
def test_tiny_inputs_give_half(name):
    # Phi(0) = 1/2 exactly: GELU(x) = x/2 for tiny x, in float32 already
    x = np.array([1e-20, -1e-20, 2.0**-100, 1e-30], dtype=f32)
    assert np.array_equal(get_method("gelu", name)(x), x * f32(0.5))


def test_e9_tiny_inputs_carry_its_constant_term():
    x = np.array([1e-20, -1e-20], dtype=f32)
    assert np.array_equal(get_method("gelu", "E9 Remez BF16 (improved)")(x), x * poly_a.E9_BF16[0])


@pytest.mark.parametrize("name", ["A3 Chebyshev (improved)", "A4 Cont.Frac (improved)",
                                  "E3 Range-Scale (improved)"])
def test_accurate_cores_exact_in_bfloat16_up_to_one_ulp(name):
    bf = get_format("bfloat16")
    bits = np.arange(1 << 16, dtype=np.uint16)
    x = to_values(bits, bf)
    x = x[np.isfinite(x) & (x >= -3.5) & (x < 3.0) & (x != 0)].astype(f32)
    y = round_to_format(get_method("gelu", name)(x), bf)
    ref = round_to_format(np.array([float(tail.gelu_exact(float(v))) for v in x], dtype=f32), bf)
    yi, ri = y.astype(np.int64), ref.astype(np.int64)
    assert np.all(np.abs(yi - ri) <= 1)


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


def test_c2_coefficients_regenerate_and_half_at_zero():
    rows, errs = piecewise_c2.fit_c2()
    np.testing.assert_allclose(rows, piecewise_c2.C2_COEFFS, rtol=1e-4, atol=1e-7)
    assert max(errs) < 3.5e-3
    assert piecewise_c2.C2_COEFFS[1, 0] == 0.5 and piecewise_c2.C2_COEFFS[2, 0] == 0.5
    x = np.array([1e-20, -1e-20], dtype=f32)
    p = get_method("gelu", "C2 Piecewise (improved)").params
    assert np.array_equal(piecewise_c2.c2_core(x, p), 0.5 * x)


def test_r2_coefficients_regenerate():
    p, q, err = rational_r2.fit_r2()
    assert err < 1.4e-5
    np.testing.assert_allclose(p, np.array(rational_r2.R2_P), rtol=1e-4)
    np.testing.assert_allclose(q, np.array(rational_r2.R2_Q[1:]), rtol=1e-4)
    assert abs(rational_r2.R2_P[0] - 1 / math.sqrt(2 * math.pi)) < 1e-4  # slope of Phi at 0
