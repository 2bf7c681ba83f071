"""GELU methods of the tanh and sigmoid forms: R4 (rational tanh), B1 (algebraic sigmoids), H3 (Pade
exp in the tanh form), H2 (the softmax unit's PWL exp): their constants and exps.

Claims and the float32 guard of every method: tests/test_methods.py.
"""

import math

import mpmath
import numpy as np

from ulplab.methods import get_method
from ulplab.methods.gelu import softex_h3, softmax_h2, tail, tanh_r4

f32 = np.float32


def test_tanh_rational_regenerates():
    p, q, err = tanh_r4.fit_tanh_rational()
    assert err < 3e-8
    np.testing.assert_allclose(np.array(p, float), np.array(tanh_r4.TANH_P, float), rtol=1e-5)
    np.testing.assert_allclose(np.array(q, float), np.array(tanh_r4.TANH_Q, float), rtol=1e-5)


def test_tanh_rational_accuracy_and_saturation():
    z = np.linspace(0.0, 12.0, 4801, dtype=f32)
    t = tanh_r4.tanh_rational(z, get_method("gelu", "R4 Pure (improved)").params).astype(np.float64)
    assert np.max(np.abs(t - np.tanh(z.astype(np.float64)))) < 2e-5  # 1 - tanh(6) beyond 6
    assert np.max(np.abs(t - np.tanh(z.astype(np.float64)))[z < 6]) < 2.5e-7  # fit 2.2e-8 + float32
    assert np.all(t <= 1.0) and np.all(np.diff(t) >= -3e-7)  # monotone up to float32 rounding
    assert f32(0.044715 * math.sqrt(2 / math.pi)) == tanh_r4.TANH_B
    assert f32(math.sqrt(2 / math.pi)) == tanh_r4.TANH_A


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
