"""The Tenstorrent models, TT Accurate and TT Fast (and TT Fast (tt-llk)): their constants are the
source's literals and packed table words, and their values follow the hardware's formulas.
"""

import numpy as np
import pytest

from ulplab.methods import get_method
from ulplab.methods.gelu import tt

f32 = np.float32


def test_tt_fast_decodes_to_the_notes_table():
    slopes = [0.1927490234375, 0.493896484375, 0.61865234375, 0.60986328125, 0.5400390625, 0.5]
    intercepts = [-0.00010442733764648438, -0.160400390625, -0.279541015625, -0.263427734375,
                  -0.119384765625, 0.0]
    assert tt.TT_FAST_SLOPES.tolist() == slopes
    assert tt.TT_FAST_INTERCEPTS.tolist() == intercepts
    assert not np.signbit(tt.TT_FAST_INTERCEPTS[5])


def test_lut16_decoding_rules():
    assert tt.lut16_to_float(0x7C00) == 0.0  # exponent 31 is zero on this hardware, not inf
    assert tt.lut16_to_float(0x0000) == 2.0**-15  # exponent 0: no subnormals, no zero
    assert tt.lut16_to_float(0x3C00) == 1.0
    assert tt.lut16_to_float(0x86D8) == float(np.float16(np.uint16(0x86D8).view(np.float16)))
    with pytest.raises(ValueError):
        tt.lut16_to_float(0x10000)


def test_tt_fast_values():
    x = np.array([1.0, -1.0, 2.0, -3.0, -100.0, 3.0, 1e30], dtype=f32)
    y = get_method("gelu", "TT Fast (tt-llk)")(x)
    assert y[0] == f32(0.5) + (f32(0.61865234375) - f32(0.279541015625))
    assert abs(y[0] - 0.839111) < 1e-6 and abs(y[1] + 0.160889) < 1e-6
    assert abs(y[2] - 1.960693) < 1e-6
    assert y[3] == 0 and y[4] == 0  # 0.5x + 0.5|x|: the top segment flushes negatives to 0
    assert y[5] == 3.0 and y[6] == f32(1e30)
    # no x==0 branch in the kernel: at 0 it returns the first intercept
    assert get_method("gelu", "TT Fast (tt-llk)")(np.zeros(1, f32))[0] == tt.TT_FAST_INTERCEPTS[0]
    # the seed's form copies the sign of x onto s|x| + c: x itself for x <= -3
    improved = get_method("gelu", "TT Fast (improved)")(x)
    assert improved[4] == -100.0 and improved[0] == y[0]
    # the seed's own: its 4-digit decimals, sign(x) (A|x| + B) with sign(0) = 1
    seed = get_method("gelu", "TT Fast")
    assert seed(x)[4] == -100.0
    a, b = tt.SEED_TT_FAST_SLOPES[2], tt.SEED_TT_FAST_INTERCEPTS[2]
    assert seed(x)[0] == f32(0.5) + (a + b)  # x = 1: fma(A, 1, B) = A + B, then one more rounding
    assert tt.SEED_TT_FAST_SLOPES.tolist() == [f32(v) for v in (0.1928, 0.4939, 0.6189, 0.6099,
                                                                0.5402, 0.5)]
    tiny = seed(np.array([1e-20, -1e-20], dtype=f32))
    assert tiny[0] == tt.SEED_TT_FAST_INTERCEPTS[0] and tiny[1] == -tt.SEED_TT_FAST_INTERCEPTS[0]


def test_tt_accurate_coefficients_are_the_source_literals_in_float32():
    source = [2.98325768482e-05, 0.499174645395, 0.398579460781, 0.00244542739174,
              -0.0656369476513, -0.00208478037614, 0.0092074331601, 0.000768340223025,
              -0.000862052441087, -0.000138391838381, 4.25116466215e-05, 1.19076782913e-05,
              -2.29754133825e-07, -3.74540617693e-07, -4.59055119276e-08, -1.81205228163e-09]
    assert [float(c) for c in tt.TT_ACCURATE_COEFFS] == [float(f32(c)) for c in source]


def test_tt_accurate_values():
    x = np.array([1.0, -1.0, -5.5, -5.50001, 3.0, 2.99, 1e-30, -1e-30], dtype=f32)
    y = get_method("gelu", "TT Accurate")(x)
    assert abs(y[0] - 0.841537) < 2e-6 and abs(y[1] + 0.158817) < 2e-6
    # at -5.5 the terms reach about 230 and cancel to 3e-4: float32 FMA Horner (-3.14e-4) is
    # within float32 rounding of float64 Horner on the same float32 coefficients (-3.64e-4)
    r64 = 0.0
    for c in reversed(tt.TT_ACCURATE_COEFFS):
        r64 = r64 * -5.5 + float(c)
    assert y[2] < 0 and abs(y[2] - r64) < 1e-4
    assert y[3] == 0 and not np.signbit(y[3])  # the seed's (and the hardware's) +0
    assert y[4] == 3.0 and y[5] != f32(2.99)
    # the "floor value" defect: tiny inputs give about c0 with the sign of x
    assert y[6] == tt.TT_ACCURATE_COEFFS[0] and y[7] == -tt.TT_ACCURATE_COEFFS[0]
    # the improved variant differs in the sign of zero results only: -0 below -5.5 and at -0
    z = np.array([-5.50001, -0.0, 0.0, -100.0], dtype=f32)
    yi = get_method("gelu", "TT Accurate (improved)")(z)
    assert np.array_equal(np.signbit(yi), [True, True, False, True]) and np.all(yi == 0)
    assert not np.any(np.signbit(get_method("gelu", "TT Accurate")(z)))
    xs = np.linspace(-6.0, 3.5, 2001, dtype=f32)
    assert np.array_equal(get_method("gelu", "TT Accurate (improved)")(xs),
                          get_method("gelu", "TT Accurate")(xs))  # equal as numbers
