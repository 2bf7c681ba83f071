"""Batch A GELU methods (F3, R4, C1, E4, F2, D4, B4, D3): constants, tables, knots and results.

Claims and the float32 guard are checked for every registered method by tests/test_methods.py;
this file checks special values, that fitted constants and tables regenerate, the properties
of knots and quadrature rules, and known values against mpmath.
"""

import itertools
import math

import mpmath
import numpy as np
import pytest

from ulplab.methods import get_method
from ulplab.methods.gelu import (
    blend_e4,
    cf_f3,
    lut_d3,
    lut_d4,
    quadrature_f2,
    rational_b4,
    spline_c1,
    tail,
    tanh_r4,
)
from ulplab.methods.params import evaluate_poly

f32 = np.float32
NAMES = ["F3 Pure", "F3 CF Erf", "R4 Pure", "R4 Tanh", "C1 Pure", "C1 Spline", "E4 Hermite",
         "E4v3 Quintic", "E4v2 Wide", "F2 Quadrature", "D4 Non-uniform", "B4 Rational",
         "D3 LUT+Corr"]
TINY = np.float32(np.uint32(1).view(np.float32))
BIG = np.finfo(np.float32).max


def _gelu64(x):
    return np.array([float(tail.gelu_exact(float(v))) for v in x])


@pytest.mark.parametrize("name", NAMES)
def test_special_values(name):
    m = get_method("gelu", name)
    x = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, BIG, -BIG, 1e30, -1e30, TINY, -TINY,
                  1e-39, -1e-20], dtype=f32)
    y = m(x)
    assert y.dtype == np.float32 and y.shape == x.shape
    assert np.isnan(y[0]) and y[1] == np.inf
    assert y[2] == 0 and np.signbit(y[2])
    assert y[3] == 0 and not np.signbit(y[3]) and y[4] == 0 and np.signbit(y[4])
    assert y[5] == BIG and y[7] == f32(1e30)
    assert y[6] == 0 and y[8] == 0
    small = x[9:]
    assert np.all(np.abs(y[9:] - 0.5 * small) <= np.abs(0.5 * small) * 2.0**-23 + TINY)
    assert np.array_equal(np.signbit(y[9:]), np.signbit(small))
    # the input NaN's payload is returned
    nan = np.array([0x7FC12345], dtype=np.uint32).view(np.float32)
    assert m(nan).view(np.uint32)[0] == 0x7FC12345


@pytest.mark.parametrize(("name", "tol"), [
    ("F3 Pure", 2e-5), ("F2 Quadrature", 2e-5), ("C1 Pure", 1.1e-3), ("E4 Hermite", 1e-3),
    ("E4v3 Quintic", 1e-3), ("E4v2 Wide", 1.2e-3), ("B4 Rational", 5e-5), ("D3 LUT+Corr", 1.7e-3),
])
def test_accurate_methods_follow_gelu(name, tol):
    x = np.linspace(-13.0, 6.0, 3001, dtype=f32)
    ref = _gelu64(x)
    y = get_method("gelu", name)(x).astype(np.float64)
    rel = np.abs(y - ref) / np.maximum(np.abs(ref), 1e-37)
    assert rel.max() < tol, (name, rel.max(), x[np.argmax(rel)])


def test_known_values():
    x = np.array([-1.0, 1.0, -3.0, 2.0], dtype=f32)
    expected = [-0.15865525393145707, 0.8413447460685429, -0.004049694008704063,
                1.9544997361036416]
    for name in ("F3 Pure", "F2 Quadrature", "C1 Pure", "E4 Hermite", "B4 Rational",
                 "D3 LUT+Corr", "D4 Non-uniform"):
        y = get_method("gelu", name)(x)
        np.testing.assert_allclose(y, expected, rtol=2e-5)
    # the tanh form: Hendrycks & Gimpel's formula, not GELU (-0.158808 at x = -1)
    y = get_method("gelu", "R4 Pure")(np.array([-1.0, 1.0], dtype=f32))
    tf = [0.5 * v * (1 + math.tanh(math.sqrt(2 / math.pi) * (v + 0.044715 * v**3)))
          for v in (-1.0, 1.0)]
    np.testing.assert_allclose(y, tf, rtol=1e-6)


# --- F3: continued fractions -------------------------------------------------------------------

def test_cf_truncation_is_below_float32_rounding():
    e_erf, e_erfc = cf_f3.truncation_errors()
    assert e_erf < 6e-8 and e_erfc < 3e-8


def test_cf_phi_values():
    x = np.array([0.0, -0.5, -2.0, -2.5, 2.5, -8.0], dtype=f32)
    got = cf_f3.phi_cf(x, get_method("gelu", "F3 Pure").params).astype(np.float64)
    exact = [float(tail.phi_cdf_exact(float(v))) for v in x]
    assert got[0] == 0.5
    # x = -2 uses 1/2 - erf/2: Phi(-2) = 0.023, about 5 bits of cancellation
    np.testing.assert_allclose(got, exact, rtol=1e-5)


# --- R4: rational tanh -------------------------------------------------------------------------

def test_tanh_rational_regenerates():
    p, q, err = tanh_r4.fit_tanh_rational()
    assert err < 3e-8
    np.testing.assert_allclose(np.array(p, float), np.array(tanh_r4.TANH_P, float), rtol=1e-5)
    np.testing.assert_allclose(np.array(q, float), np.array(tanh_r4.TANH_Q, float), rtol=1e-5)


def test_tanh_rational_accuracy_and_saturation():
    z = np.linspace(0.0, 12.0, 4801, dtype=f32)
    t = tanh_r4.tanh_rational(z, get_method("gelu", "R4 Pure").params).astype(np.float64)
    assert np.max(np.abs(t - np.tanh(z.astype(np.float64)))) < 2e-5  # 1 - tanh(6) beyond 6
    assert np.max(np.abs(t - np.tanh(z.astype(np.float64)))[z < 6]) < 2.5e-7  # fit 2.2e-8 + float32
    assert np.all(t <= 1.0) and np.all(np.diff(t) >= -3e-7)  # monotone up to float32 rounding
    assert f32(0.044715 * math.sqrt(2 / math.pi)) == tanh_r4.TANH_B
    assert f32(math.sqrt(2 / math.pi)) == tanh_r4.TANH_A


# --- C1: knots and Hermite coefficients --------------------------------------------------------

@pytest.mark.parametrize("spline", [spline_c1.PURE_SPLINE, spline_c1.LUT_SPLINE])
def test_spline_knots(spline):
    k = spline.knots
    assert k[0] == spline.lo and k[-1] == 0.0
    assert len(k) == (33 if spline.lo == -4.25 else 21)
    steps = np.diff(k)
    assert np.all(steps > 0)
    assert all(math.log2(h) == round(math.log2(h)) for h in steps)  # powers of two
    assert spline.knots == spline_c1.place_knots(spline.lo)
    # every segment meets the tolerance, and the Fritsch-Carlson condition holds
    for a, b in itertools.pairwise(k):
        assert spline_c1.hermite_rel_error(a, b) < spline_c1.SPLINE_TOL
        delta = (spline_c1._phi64(b) - spline_c1._phi64(a)) / (b - a)
        alpha, beta = spline_c1._pdf64(a) / delta, spline_c1._pdf64(b) / delta
        assert alpha**2 + beta**2 <= 9


@pytest.mark.parametrize("spline", [spline_c1.PURE_SPLINE, spline_c1.LUT_SPLINE])
def test_spline_values_at_knots(spline):
    x = spline.knot_array
    got = spline.phi_neg(x)
    exact = np.array([float(tail.phi_cdf_exact(float(v))) for v in x], dtype=f32)
    np.testing.assert_array_equal(got, exact)  # t = 0 at the left knot, c0 = Phi rounded once
    assert spline.coeffs[0, 0] == f32(float(tail.phi_cdf_exact(spline.lo)))
    assert spline.phi(np.zeros(1, f32))[0] == 0.5


# --- E4: blending ------------------------------------------------------------------------------

@pytest.mark.parametrize("coeffs", [blend_e4.SMOOTHSTEP, blend_e4.SMOOTHERSTEP])
def test_blend_weights(coeffs):
    t = np.array([0.0, 0.5, 1.0], dtype=f32)
    assert evaluate_poly("horner-fma", t, coeffs).tolist() == [0.0, 0.5, 1.0]
    d = np.polynomial.polynomial.polyder(np.array(coeffs, float))
    assert np.polynomial.polynomial.polyval(0.0, d) == 0 == np.polynomial.polynomial.polyval(1, d)
    tt = np.linspace(0, 1, 101, dtype=f32)
    assert np.all(np.diff(evaluate_poly("horner-fma", tt, coeffs)) >= 0)


def test_blend_is_core_and_tail_at_the_window_ends():
    m = get_method("gelu", "E4v2 Wide")
    a, b = blend_e4.E4V2_WINDOW
    x = np.array([a, b, a - 0.5, b + 0.5], dtype=f32)
    y = m(x)
    tl = tail.asymptotic_tail(x)
    core = x * blend_e4.erf_b3.phi_b3(x)
    assert y[0] == tl[0] and y[2] == tl[2]
    assert y[1] == core[1] and y[3] == core[3]


# --- F2: Gaussian quadrature -------------------------------------------------------------------

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
    y = get_method("gelu", "F2 Quadrature")(x)
    assert y[0] < 0 and y[0] > -1e-38
    assert np.all(y[1:] == 0) and np.all(np.signbit(y))
    exact = float(mpmath.mpf(-13.0) * mpmath.erfc(13 / mpmath.sqrt(2)) / 2)
    got = float(get_method("gelu", "F2 Quadrature")(np.array([-13.0], dtype=f32))[0])
    assert abs(got / exact - 1) < 1e-4


# --- D4: piecewise-uniform table ---------------------------------------------------------------

def test_d4_table_layout():
    assert segment_steps_expected() == lut_d4.STEPS
    assert sum(lut_d4.COUNTS) == 162 and lut_d4.TABLE.size == 163
    assert lut_d4.KNOTS[0] == -3.5 and lut_d4.KNOTS[-1] == 0.0
    assert np.all(np.diff(lut_d4.KNOTS) > 0)
    # every segment boundary is a knot, reached from its segment's base index
    for j, b in enumerate(lut_d4.BREAKPOINTS[:-1]):
        assert lut_d4.KNOTS[lut_d4.SEG_BASE[j]] == b
    for k in (0, 40, 128, 162):
        assert lut_d4.TABLE[k] == f32(float(tail.phi_cdf_exact(lut_d4.KNOTS[k])))
    assert lut_d4.TABLE[-1] == 0.5


def segment_steps_expected():
    return (2.0**-6,) * 4 + (2.0**-5,) * 2 + (2.0**-4,) * 2 + (2.0**-3,)


def test_d4_interpolation_meets_tolerance():
    x = np.linspace(-3.5, 0.0, 2001, dtype=f32)
    got = lut_d4.phi_d4(x, get_method("gelu", "D4 Non-uniform").params).astype(np.float64)
    exact = np.array([float(tail.phi_cdf_exact(float(v))) for v in x])
    assert np.max(np.abs(got / exact - 1)) < lut_d4.LUT_TOL + 1e-6
    # at the knots the table values themselves
    kn = np.array(lut_d4.KNOTS, dtype=f32)
    p = get_method("gelu", "D4 Non-uniform").params
    np.testing.assert_array_equal(lut_d4.phi_d4(kn, p), lut_d4.TABLE)


# --- B4: rational erf --------------------------------------------------------------------------

def test_b4_rational_regenerates():
    p, q, err = rational_b4.fit_erf_rational()
    assert err < 6e-8
    np.testing.assert_allclose(np.array(p, float), np.array(rational_b4.ERF_P, float), rtol=1e-5)
    np.testing.assert_allclose(np.array(q, float), np.array(rational_b4.ERF_Q, float), rtol=1e-5)
    assert abs(rational_b4.ERF_P[0] / (2 / math.sqrt(math.pi)) - 1) < 1e-6  # about erf'(0)


def test_b4_phi_values():
    x = np.array([0.0, -0.5, -1.4, 1.4, -1.5, -5.0], dtype=f32)
    got = rational_b4.phi_b4(x, get_method("gelu", "B4 Rational").params).astype(np.float64)
    exact = [float(tail.phi_cdf_exact(float(v))) for v in x]
    assert got[0] == 0.5
    np.testing.assert_allclose(got, exact, rtol=3e-5)


# --- D3: LUT + correction ----------------------------------------------------------------------

def test_d3_table_and_correction():
    assert lut_d3.TABLE.size == 33 and lut_d3.TABLE[16] == 0.5
    assert lut_d3.CORR_ERROR < 3.5e-4
    c2, c3, _ = lut_d3.correction_coeffs()
    np.testing.assert_array_equal(c2, lut_d3.CORR_C2)
    np.testing.assert_array_equal(c3, lut_d3.CORR_C3)
    # the correction vanishes at the knots: Phi there is the table value
    x = np.arange(-4.0, 4.0, 0.25, dtype=f32)
    p = get_method("gelu", "D3 LUT+Corr").params
    np.testing.assert_array_equal(lut_d3.phi_d3(x, p), lut_d3.TABLE[:-1])
    # C2 follows the curvature: -Phi''(mid) h^2 / 2 = mid phi(mid) h^2/2, sign of the midpoint
    mids = -4.0 + 0.25 * (np.arange(32) + 0.5)
    assert np.all(np.sign(lut_d3.CORR_C2) == np.sign(mids))
