"""Batch B GELU methods: sigmoid (B1), SoftEx (H3), GELU-Softmax (H2), PWL (R3), piecewise
rational (C2), rational (R2). Claims and the float32 guard are tested for every method by
tests/test_methods.py; here: special values, known values, tables and fitted constants."""

import math

import mpmath
import numpy as np
import pytest

from ulplab.methods import get_method
from ulplab.methods.gelu import piecewise_c2, pwl_r3, rational_r2, softex_h3, softmax_h2, tail

f32 = np.float32
NAMES = ["B1 Pure", "B1 Sigmoid", "B1v2 Sigmoid", "H3 Pure", "H3 SoftEx", "H2 GELU-Softmax",
         "R3 PWL", "C2 Piecewise", "R2 Rational"]
TINY = np.float32(np.uint32(1).view(np.float32))
BIG = np.finfo(np.float32).max


@pytest.mark.parametrize("name", NAMES)
def test_special_values(name):
    m = get_method("gelu", name)
    x = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, BIG, -BIG, TINY, -TINY, 3.0, 100.0],
                 dtype=f32)
    y = m(x)
    assert y.dtype == np.float32
    assert np.isnan(y[0]) and y[1] == np.inf
    assert y[2] == 0 and np.signbit(y[2])
    assert y[3] == 0 and not np.signbit(y[3])
    assert y[4] == 0 and np.signbit(y[4])
    assert y[5] == BIG and y[6] == 0 and y[10] == 100.0
    assert y[7] == 0.5 * TINY or y[7] == 0  # half the smallest subnormal rounds to even (0)
    assert np.signbit(y[8])
    assert abs(y[9] - 3.0) < 0.005  # GELU(3) = 2.99595


def _rel_err(name, x):
    y = get_method("gelu", name)(x).astype(np.float64)
    ref = np.array([float(tail.gelu_exact(float(v))) for v in x])
    return np.abs(y - ref) / np.abs(ref)


def test_accurate_cores_follow_gelu():
    x = np.linspace(-3.5, 2.9, 1201, dtype=f32)
    x = x[x != 0]
    # R2: minimax rational 1.3e-5, plus the float32 cancellation in 1/2 + x P/Q near -3.5
    # (2^-25 absolute against Phi = 2.3e-4); C2: 3.5e-3; R3: 16 segments an octave
    for name, tol in (("R2 Rational", 5e-4), ("C2 Piecewise", 4e-3), ("R3 PWL", 3e-2)):
        assert _rel_err(name, x).max() < tol, name
    xh = x[x > -2.5]  # H3: the tanh form's own error, up to 3e-2 at -2.5
    assert _rel_err("H3 Pure", xh).max() < 0.05


def test_sigmoid_known_values():
    x = np.array([1.0, -1.0], dtype=f32)
    b1 = get_method("gelu", "B1 Sigmoid")(x)
    z = f32(1.702)
    assert b1[0] == f32(0.5) + f32(0.5) * (z / (f32(1.0) + z))  # x sigma(1.702) at x = 1
    assert abs(b1[1] + (0.5 - 0.5 * 1.702 / 2.702)) < 1e-6
    b1v2 = get_method("gelu", "B1v2 Sigmoid")(x)
    assert abs(b1v2[0] - (0.5 + 0.5 * 1.702 / math.sqrt(1 + 1.702**2))) < 1e-6
    # B1 Pure (improved) hands over to the asymptotic series below -1.75, the seed's below -3
    xp = np.array([-1.8, -2.5], dtype=f32)
    assert np.array_equal(get_method("gelu", "B1 Pure (improved)")(xp), tail.asymptotic_tail(xp))
    assert not np.array_equal(get_method("gelu", "B1 Pure")(xp), tail.asymptotic_tail(xp))


def test_pade_exp_is_accurate():
    w = np.linspace(-80.0, 80.0, 4001, dtype=f32)
    got = softex_h3.pade_exp(w).astype(np.float64)
    ref = np.array([float(mpmath.exp(float(v))) for v in w])
    assert np.max(np.abs(got / ref - 1)) < 1e-5  # Pade [2/2] on |r| <= ln2/2: r^5/720
    edge = softex_h3.pade_exp(np.array([0.0, -np.inf, np.inf, np.nan], dtype=f32))
    assert edge[0] == 1 and edge[1] == 0 and edge[2] == np.inf and np.isnan(edge[3])


def test_pwl_exp_table_and_accuracy():
    t = softmax_h2.EXP2_TABLE
    assert t.size == 9 and t[0] == 1 and t[8] == 2 and t[4] == f32(math.sqrt(2))
    w = np.linspace(-60.0, 60.0, 4001, dtype=f32)
    got = softmax_h2.pwl_exp(w).astype(np.float64)
    ref = np.array([float(mpmath.exp(float(v))) for v in w])
    rel = got / ref - 1
    assert rel.max() < 9.5e-4 and rel.min() > -1e-5  # chords of a convex function lie above
    assert softmax_h2.pwl_exp(np.array([0.0], dtype=f32))[0] == 1


def test_pwl_knots_and_tables():
    ks = pwl_r3.knots()
    assert len(ks) == pwl_r3.POS_TABLE.size == pwl_r3.NEG_TABLE.size == 26 * 16 + 1
    assert ks[0] == 2.0**-24 and ks[-1] == 4.0 and ks[16] == 2.0**-23 and ks[-2] == 3.875
    for i in (0, 100, 400, 416):
        assert pwl_r3.POS_TABLE[i] == f32(float(tail.gelu_exact(ks[i])))
        assert pwl_r3.NEG_TABLE[i] == f32(float(tail.gelu_exact(-ks[i])))
    # at a knot the interpolation returns the table value itself
    x = np.array([1.0, -1.0, 2.5, -3.125, 0.375], dtype=f32)
    y = pwl_r3.pwl_core(x, get_method("gelu", "R3 PWL").params)
    assert y[0] == f32(float(tail.gelu_exact(1.0)))
    assert y[1] == f32(float(tail.gelu_exact(-1.0)))
    assert y[2] == f32(float(tail.gelu_exact(2.5)))
    assert y[3] == f32(float(tail.gelu_exact(-3.125)))
    assert y[4] == f32(float(tail.gelu_exact(0.375)))
    small = np.array([2.0**-25, -(2.0**-30)], dtype=f32)
    assert np.array_equal(pwl_r3.pwl_core(small, get_method("gelu", "R3 PWL").params), 0.5 * small)


def test_c2_coefficients_regenerate_and_half_at_zero():
    rows, errs = piecewise_c2.fit_c2()
    np.testing.assert_allclose(rows, piecewise_c2.C2_COEFFS, rtol=1e-4, atol=1e-7)
    assert max(errs) < 3.5e-3
    assert piecewise_c2.C2_COEFFS[1, 0] == 0.5 and piecewise_c2.C2_COEFFS[2, 0] == 0.5
    x = np.array([1e-20, -1e-20], dtype=f32)
    p = get_method("gelu", "C2 Piecewise").params
    assert np.array_equal(piecewise_c2.c2_core(x, p), 0.5 * x)


def test_r2_coefficients_regenerate():
    p, q, err = rational_r2.fit_r2()
    assert err < 1.4e-5
    np.testing.assert_allclose(p, np.array(rational_r2.R2_P), rtol=1e-4)
    np.testing.assert_allclose(q, np.array(rational_r2.R2_Q[1:]), rtol=1e-4)
    assert abs(rational_r2.R2_P[0] - 1 / math.sqrt(2 * math.pi)) < 1e-4  # slope of Phi at 0
