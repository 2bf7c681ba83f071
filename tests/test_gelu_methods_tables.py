"""GELU methods built on tables and knots: C1 (Hermite spline), D4 (piecewise-uniform Phi table),
D3 (Phi table with a correction), R3 (exponent-indexed GELU table): knot placement, table layout
and entries (each the exact value rounded once), interpolation tolerances.

Claims and the float32 guard of every method: tests/test_methods.py; the committed tables against
the oracle: tests/test_studies_more.py (verify-knots).
"""

import itertools
import math

import numpy as np
import pytest

from ulplab.methods import get_method
from ulplab.methods.gelu import lut_d3, lut_d4, pwl_r3, spline_c1, tail

f32 = np.float32


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


@pytest.mark.parametrize(("spline", "name"), [(spline_c1.PURE_SPLINE, "C1 Pure (improved)"),
                                              (spline_c1.LUT_SPLINE, "C1 Spline (improved)")])
def test_spline_values_at_knots(spline, name):
    p = get_method("gelu", name).params
    assert np.array_equal(p.SPLINE_KNOTS, spline.knot_array)  # the method declares its spline
    x = spline.knot_array
    got = spline_c1.phi_spline(x, p)
    exact = np.array([float(tail.phi_cdf_exact(float(v))) for v in x], dtype=f32)
    np.testing.assert_array_equal(got, exact)  # t = 0 at the left knot, c0 = Phi rounded once
    assert spline.coeffs[0, 0] == f32(float(tail.phi_cdf_exact(spline.lo)))
    assert spline_c1.phi_spline(np.zeros(1, f32), p)[0] == 0.5


def segment_steps_expected():
    return (2.0**-6,) * 4 + (2.0**-5,) * 2 + (2.0**-4,) * 2 + (2.0**-3,)


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


def test_d4_interpolation_meets_tolerance():
    x = np.linspace(-3.5, 0.0, 2001, dtype=f32)
    p = get_method("gelu", "D4 Non-uniform (improved)").params
    got = lut_d4.phi_d4(x, p).astype(np.float64)
    exact = np.array([float(tail.phi_cdf_exact(float(v))) for v in x])
    assert np.max(np.abs(got / exact - 1)) < lut_d4.LUT_TOL + 1e-6
    # at the knots the table values themselves
    kn = np.array(lut_d4.KNOTS, dtype=f32)
    p = get_method("gelu", "D4 Non-uniform (improved)").params
    np.testing.assert_array_equal(lut_d4.phi_d4(kn, p), lut_d4.TABLE)


def test_d3_table_and_correction():
    assert lut_d3.TABLE.size == 33 and lut_d3.TABLE[16] == 0.5
    assert lut_d3.CORR_ERROR < 3.5e-4
    c2, c3, _ = lut_d3.correction_coeffs()
    np.testing.assert_array_equal(c2, lut_d3.CORR_C2)
    np.testing.assert_array_equal(c3, lut_d3.CORR_C3)
    # the correction vanishes at the knots: Phi there is the table value
    x = np.arange(-4.0, 4.0, 0.25, dtype=f32)
    p = get_method("gelu", "D3 LUT+Corr (improved)").params
    np.testing.assert_array_equal(lut_d3.phi_d3(x, p), lut_d3.TABLE[:-1])
    # C2 follows the curvature: -Phi''(mid) h^2 / 2 = mid phi(mid) h^2/2, sign of the midpoint
    mids = -4.0 + 0.25 * (np.arange(32) + 0.5)
    assert np.all(np.sign(lut_d3.CORR_C2) == np.sign(mids))


def test_d3_seed_constants():
    # gelu_implementations.cpp:2020-2031, 2058 (c2bf7bb): 32 decimals of Phi on [-4, 4] at step
    # 8/31, two of them 0.5, and the correction x (0.02 - 0.005 x^2)/(1 + 0.5 x^2)
    assert lut_d3.SEED_PHI.size == 32 and lut_d3.SEED_PHI[15] == lut_d3.SEED_PHI[16] == 0.5
    assert lut_d3.SEED_PHI[0] == f32(0.0000317) and lut_d3.SEED_PHI[-1] == 1.0
    assert f32(8.0) / f32(31.0) == lut_d3.SEED_STEP
    assert (f32(0.02), f32(0.005)) == lut_d3.SEED_CORR
    # tiny inputs: the interpolation between the two 0.5 knots is 0.5, the correction 0.02 x
    m = get_method("gelu", "D3 LUT+Corr")
    x = np.array([1e-20, -1e-20], dtype=f32)
    np.testing.assert_array_equal(m(x), x * (f32(0.5) + (x * f32(0.02)) / f32(1.0)))


def test_pwl_knots_and_tables():
    ks = pwl_r3.knots()
    assert len(ks) == pwl_r3.POS_TABLE.size == pwl_r3.NEG_TABLE.size == 26 * 16 + 1
    assert ks[0] == 2.0**-24 and ks[-1] == 4.0 and ks[16] == 2.0**-23 and ks[-2] == 3.875
    for i in (0, 100, 400, 416):
        assert pwl_r3.POS_TABLE[i] == f32(float(tail.gelu_exact(ks[i])))
        assert pwl_r3.NEG_TABLE[i] == f32(float(tail.gelu_exact(-ks[i])))
    # at a knot the interpolation returns the table value itself
    x = np.array([1.0, -1.0, 2.5, -3.125, 0.375], dtype=f32)
    y = pwl_r3.pwl_core(x, get_method("gelu", "R3 PWL (improved)").params)
    assert y[0] == f32(float(tail.gelu_exact(1.0)))
    assert y[1] == f32(float(tail.gelu_exact(-1.0)))
    assert y[2] == f32(float(tail.gelu_exact(2.5)))
    assert y[3] == f32(float(tail.gelu_exact(-3.125)))
    assert y[4] == f32(float(tail.gelu_exact(0.375)))
    small = np.array([2.0**-25, -(2.0**-30)], dtype=f32)
    p = get_method("gelu", "R3 PWL (improved)").params
    assert np.array_equal(pwl_r3.pwl_core(small, p), 0.5 * small)
