"""GELU methods whose Phi comes from erf/erfc evaluators: B3 and D2 (Taylor series and the A&S
form), B4 (rational erf), F3 (continued fractions), F2 (quadrature), E4 (B3's core blended into the
asymptotic tail). Their constants regenerate, and their Phi and pieces against mpmath.

Claims and the float32 guard of every method: tests/test_methods.py; special values of every
method: tests/test_gelu_methods.py; accuracy at sample points: tests/test_gelu_methods_accuracy.py.
"""

import math

import mpmath
import numpy as np
import pytest

from ulplab.methods import get_method
from ulplab.methods.gelu import blend_e4, cf_f3, erf_b3, quadrature_f2, rational_b4, tail
from ulplab.methods.params import evaluate_poly

f32 = np.float32


def test_taylor_coefficients_regenerate():
    assert tail.taylor_exp_coeffs() == tail.EXP_TAYLOR
    assert erf_b3.erf_taylor_coeffs() == erf_b3.ERF_TAYLOR


def test_refitted_as_coefficients_regenerate():
    coeffs, err = erf_b3.fit_as_coeffs()
    assert err < 2e-5
    np.testing.assert_allclose(coeffs, np.array(erf_b3.AS_COEFFS), rtol=1e-5)


def test_b4_rational_regenerates():
    p, q, err = rational_b4.fit_erf_rational()
    assert err < 6e-8
    np.testing.assert_allclose(np.array(p, float), np.array(rational_b4.ERF_P, float), rtol=1e-5)
    np.testing.assert_allclose(np.array(q, float), np.array(rational_b4.ERF_Q, float), rtol=1e-5)
    assert abs(rational_b4.ERF_P[0] / (2 / math.sqrt(math.pi)) - 1) < 1e-6  # about erf'(0)


def test_b4_phi_values():
    x = np.array([0.0, -0.5, -1.4, 1.4, -1.5, -5.0], dtype=f32)
    p = get_method("gelu", "B4 Rational (improved)").params
    got = rational_b4.phi_b4(x, p).astype(np.float64)
    exact = [float(tail.phi_cdf_exact(float(v))) for v in x]
    assert got[0] == 0.5
    np.testing.assert_allclose(got, exact, rtol=3e-5)


def test_cf_truncation_is_below_float32_rounding():
    e_erf, e_erfc = cf_f3.truncation_errors()
    assert e_erf < 6e-8 and e_erfc < 3e-8


def test_cf_phi_values():
    x = np.array([0.0, -0.5, -2.0, -2.5, 2.5, -8.0], dtype=f32)
    got = cf_f3.phi_cf(x, get_method("gelu", "F3 Pure (improved)").params).astype(np.float64)
    exact = [float(tail.phi_cdf_exact(float(v))) for v in x]
    assert got[0] == 0.5
    # x = -2 uses 1/2 - erf/2: Phi(-2) = 0.023, about 5 bits of cancellation
    np.testing.assert_allclose(got, exact, rtol=1e-5)


@pytest.mark.parametrize("coeffs", [blend_e4.SMOOTHSTEP, blend_e4.SMOOTHERSTEP])
def test_blend_weights(coeffs):
    t = np.array([0.0, 0.5, 1.0], dtype=f32)
    assert evaluate_poly("horner-fma", t, coeffs).tolist() == [0.0, 0.5, 1.0]
    d = np.polynomial.polynomial.polyder(np.array(coeffs, float))
    assert np.polynomial.polynomial.polyval(0.0, d) == 0 == np.polynomial.polynomial.polyval(1, d)
    tt = np.linspace(0, 1, 101, dtype=f32)
    assert np.all(np.diff(evaluate_poly("horner-fma", tt, coeffs)) >= 0)


def test_blend_is_core_and_tail_at_the_window_ends():
    m = get_method("gelu", "E4v2 Wide (improved)")
    a, b = blend_e4.E4V2_WINDOW
    x = np.array([a, b, a - 0.5, b + 0.5], dtype=f32)
    y = m(x)
    tl = tail.asymptotic_tail(x, m.params)
    core = x * blend_e4.erf_b3.phi_b3(x, m.params)
    assert y[0] == tl[0] and y[2] == tl[2]
    assert y[1] == core[1] and y[3] == core[3]
    # the seed's: its own tail up to its window's start -5, its core from the window's end -2 on
    # (E4 Hermite's core is the same, and E4 Hermite blends only on [-4, -3])
    seed = get_method("gelu", "E4v2 Wide")
    a, b = blend_e4.SEED_WINDOWS["E4v2 Wide"]
    x = np.array([a, a - 0.5, b, b + 0.5], dtype=f32)
    y = seed(x)
    tl = tail.seed_asymptotic_tail(x, seed.params)
    assert y[0] == tl[0] and y[1] == tl[1]
    assert np.array_equal(y[2:], get_method("gelu", "E4 Hermite")(x[2:]))


def test_quadrature_rules():
    t = quadrature_f2.gauss_tables()
    assert t["A"].size == 6 and t["B"].size == 8
    inv = 1 / math.sqrt(2 * math.pi)
    assert abs(float(np.sum(t["W"], dtype=np.float64)) - inv) < 1e-7  # int_0^1 phi(0) du
    assert abs(float(np.sum(t["C"], dtype=np.float64)) - inv) < 1e-7  # sqrt(2 pi)/(2 pi)
    assert np.all(t["A"] > 0) and np.all(t["A"] < 0.5) and np.all(t["W"] > 0)
    for k in "ABCW":
        np.testing.assert_array_equal(t[k], getattr(quadrature_f2, {"A": "GL_A", "W": "GL_W",
                                                                   "B": "GH_B", "C": "GH_C"}[k]))


def test_quadrature_truncation():
    e_gl, e_gh = quadrature_f2.truncation_errors()
    assert e_gl < 2e-7 and e_gh < 4e-6


def test_quadrature_deep_tail_has_no_overflow():
    x = np.array([-13.5, -20.0, -1e19, -3e19], dtype=f32)
    y = get_method("gelu", "F2 Quadrature (improved)")(x)
    assert y[0] < 0 and y[0] > -1e-38
    assert np.all(y[1:] == 0) and np.all(np.signbit(y))
    exact = float(mpmath.mpf(-13.0) * mpmath.erfc(13 / mpmath.sqrt(2)) / 2)
    got = float(get_method("gelu", "F2 Quadrature (improved)")(np.array([-13.0], dtype=f32))[0])
    assert abs(got / exact - 1) < 1e-4
