"""GELU methods against GELU computed by mpmath at sample points: each family within the relative
error its construction gives (fit error, interpolation error, series truncation), and known
values. The exhaustive figures are the claims (tests/test_methods.py).
"""

import math

import numpy as np
import pytest

from ulplab.methods import get_method
from ulplab.methods.gelu import poly_a, tail

f32 = np.float32


def _gelu64(x):
    return np.array([float(tail.gelu_exact(float(v))) for v in x])


def _rel_err(name, x):
    y = get_method("gelu", name)(x).astype(np.float64)
    ref = _gelu64(x)
    return np.abs(y - ref) / np.abs(ref)


def test_good_methods_follow_gelu_closely():
    x = np.linspace(-13.0, 2.75, 4001, dtype=f32)  # D2 saturates from 3: x -> x
    ref = _gelu64(x)
    # B3: refitted erfc (2e-5); D2: 4-term series from -5 (105/5^8 = 2.7e-4); R5: linear
    # interpolation of Phi (about 6.9e-5 x^2 relative) and the series from -4.25
    for name, tol in (("B3 Pure (improved)", 5e-5), ("D2 Pure (improved)", 3e-4),
                      ("R5 Pure (improved)", 2e-3)):
        y = get_method("gelu", name)(x).astype(np.float64)
        rel = np.abs(y - ref) / np.maximum(np.abs(ref), 1e-37)
        assert rel.max() < tol, (name, rel.max())


@pytest.mark.parametrize(("name", "tol"), [
    ("F3 Pure (improved)", 2e-5), ("F2 Quadrature (improved)", 2e-5),
    ("C1 Pure (improved)", 1.1e-3),
    ("E4 Hermite (improved)", 1e-3), ("E4v3 Quintic (improved)", 1e-3),
    ("E4v2 Wide (improved)", 1.2e-3), ("B4 Rational (improved)", 5e-5),
    ("D3 LUT+Corr (improved)", 1.7e-3),
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
    for name in ("F3 Pure (improved)", "F2 Quadrature (improved)", "C1 Pure (improved)",
                 "E4 Hermite (improved)", "B4 Rational (improved)", "D3 LUT+Corr (improved)",
                 "D4 Non-uniform (improved)"):
        y = get_method("gelu", name)(x)
        np.testing.assert_allclose(y, expected, rtol=2e-5)
    # the tanh form: Hendrycks & Gimpel's formula, not GELU (-0.158808 at x = -1)
    y = get_method("gelu", "R4 Pure (improved)")(np.array([-1.0, 1.0], dtype=f32))
    tf = [0.5 * v * (1 + math.tanh(math.sqrt(2 / math.pi) * (v + 0.044715 * v**3)))
          for v in (-1.0, 1.0)]
    np.testing.assert_allclose(y, tf, rtol=1e-6)


def test_accurate_cores_follow_gelu():
    x = np.linspace(-3.5, 2.9, 1201, dtype=f32)
    x = x[x != 0]
    # R2: minimax rational 1.3e-5, plus the float32 cancellation in 1/2 + x P/Q near -3.5
    # (2^-25 absolute against Phi = 2.3e-4); C2: 3.5e-3; R3: 16 segments an octave
    for name, tol in (("R2 Rational (improved)", 5e-4), ("C2 Piecewise (improved)", 4e-3),
                      ("R3 PWL (improved)", 3e-2)):
        assert _rel_err(name, x).max() < tol, name
    xh = x[x > -2.5]  # H3: the tanh form's own error, up to 3e-2 at -2.5
    assert _rel_err("H3 Pure (improved)", xh).max() < 0.05


def test_cores_follow_gelu_to_their_fitted_error():
    x = np.linspace(-3.5, 2.9, 1301, dtype=f32)
    x = x[x != 0]
    # fitted relative errors of Phi (float32 coefficients): A1 Poly-9 2.34%, A1 Pure 1.91%
    # (on [-3.5, 2.5]), A1 Poly-7 11.5%, E9 4.39% (bfloat16 coefficients), A3 8.3e-4,
    # A4 6.1e-4, R1 5.1%, E3 2.9e-4 / B3 2e-5; plus float32 roundings
    for name, tol in (("A1 Poly-9 (improved)", 0.0245), ("A1 Pure (improved)", 0.02),
                      ("A1 Poly-7 (improved)", 0.12), ("E9 Remez BF16 (improved)", 0.045),
                      ("A3 Chebyshev (improved)", 1e-3), ("A4 Cont.Frac (improved)", 8e-4),
                      ("R1 Poly-9 (improved)", 0.052), ("E3 Range-Scale (improved)", 4e-4)):
        assert _rel_err(name, x).max() < tol, name
    # and the minimax errors are reached (the fits are not looser than they need be)
    assert _rel_err("A1 Poly-9 (improved)", x).max() > 0.02
    assert _rel_err("R1 Poly-9 (improved)", x).max() > 0.04


def test_known_values_of_polynomial_methods():
    x = np.array([1.0, -1.0, -2.0], dtype=f32)
    ref = np.array([0.8413447460685429, -0.15865525393145707, -0.04550026389635842])
    for name, tol in (("A3 Chebyshev (improved)", 1e-3), ("A4 Cont.Frac (improved)", 1e-3),
                      ("E3 Range-Scale (improved)", 1e-3), ("A1 Poly-9 (improved)", 0.025)):
        y = get_method("gelu", name)(x).astype(np.float64)
        assert np.all(np.abs(y - ref) <= tol * np.abs(ref)), name
    # A4 by hand: the fraction evaluated bottom-up at x = 1
    f = poly_a.A4_CF[-1]
    for a in poly_a.A4_CF[-2::-1]:
        f = a / (f32(1.0) + f)
    assert abs(get_method("gelu", "A4 Cont.Frac (improved)")(np.array([1.0], dtype=f32))[0]
               - (f32(0.5) + f)) < 1e-6
