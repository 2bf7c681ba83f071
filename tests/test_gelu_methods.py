"""The GELU methods of the seed research: their constants, tables and results.

Claims (max/mean ULP per format) and the float32 guard are checked for every method by
tests/test_methods.py; this file checks what those cannot: that each constant is what its
source says, that tables and fitted coefficients regenerate, and special values.
"""

import math

import mpmath
import numpy as np
import pytest

from ulplab.methods import get_method, methods_for
from ulplab.methods.gelu import erf_b3, lut_r5, tail, tt
from ulplab.methods.gelu.seed_table import SEED_BF16, seed_figures

f32 = np.float32

RESEARCH = [m for m in methods_for("gelu") if m.family not in ("baseline", "deterministic")]


def _ids(m):
    return m.name


def test_every_seed_method_is_registered_with_its_seed_figure():
    names = {m.name for m in RESEARCH}
    assert set(SEED_BF16) <= names  # the seed's 38 names, each meaning the seed's method
    for m in RESEARCH:
        assert m.seed == seed_figures(m.name), m.name
        if not m.seed:  # a variant of a seed method says what it changes
            assert m.note, m.name


def test_every_method_has_claims_and_traced_ops():
    for m in RESEARCH:
        assert {"bfloat16", "float16"} <= set(m.claims), m.name
        assert m.ops, m.name


# --- TT Fast: the packed words decode to the table of the research notes -----------------------

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
    # the seed's model copies the sign of x onto s|x| + c: x itself for x <= -3
    seed = get_method("gelu", "TT Fast")(x)
    assert seed[4] == -100.0 and seed[0] == y[0]


# --- TT Accurate ---------------------------------------------------------------------------------

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
    assert y[3] == 0 and np.signbit(y[3])
    assert y[4] == 3.0 and y[5] != f32(2.99)
    # the "floor value" defect: tiny inputs give about c0 with the sign of x
    assert y[6] == tt.TT_ACCURATE_COEFFS[0] and y[7] == -tt.TT_ACCURATE_COEFFS[0]


# --- special values, every research method -------------------------------------------------------

TINY = np.float32(np.uint32(1).view(np.float32))  # smallest float32 subnormal
BIG = np.finfo(np.float32).max


@pytest.mark.parametrize("method", RESEARCH, ids=_ids)
def test_special_values(method):
    x = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, BIG, -BIG, 1e30, -1e30], dtype=f32)
    y = method(x)
    assert y.dtype == np.float32 and y.shape == x.shape
    assert np.isnan(y[0])
    assert y[1] == np.inf
    assert y[2] == 0 and np.signbit(y[2])  # gelu(-inf) = -0
    assert y[5] == BIG and y[7] == f32(1e30)
    if method.name == "TT Fast":  # the seed's sign copy: x itself for x <= -3 (its defect)
        assert y[6] == -BIG and y[8] == f32(-1e30)
        return
    assert y[6] == 0 and y[8] == 0
    if method.name.startswith("TT Fast"):
        return  # no zero branch in the hardware: see test_tt_fast_values
    assert y[3] == 0 and not np.signbit(y[3])
    assert y[4] == 0 and np.signbit(y[4])


# E9's coefficients are bfloat16: its constant term is 0x1.f2p-1, not 1, so tiny inputs give
# 0.486 x (a 2.7% bias its module documents and its registered claims include)
@pytest.mark.parametrize("method", [m for m in RESEARCH if m.family != "tenstorrent"
                                    and m.name != "E9 Remez BF16"], ids=_ids)
def test_subnormal_inputs_give_half_of_x(method):
    x = np.array([TINY, -TINY, 2 * TINY, 1e-39, -1e-39, 1e-20, -1e-20], dtype=f32)
    y = method(x)
    # gelu(x) = x/2 + x^2/sqrt(2 pi) + ...: within one float32 rounding of x/2
    assert np.all(np.abs(y - 0.5 * x) <= np.abs(0.5 * x) * 2.0**-23 + TINY)
    assert np.array_equal(np.signbit(y), np.signbit(x))


# --- tables, coefficients and the shared exp -----------------------------------------------------

def test_taylor_coefficients_regenerate():
    assert tail.taylor_exp_coeffs() == tail.EXP_TAYLOR
    assert erf_b3.erf_taylor_coeffs() == erf_b3.ERF_TAYLOR


def test_refitted_as_coefficients_regenerate():
    coeffs, err = erf_b3.fit_as_coeffs()
    assert err < 2e-5
    np.testing.assert_allclose(coeffs, np.array(erf_b3.AS_COEFFS), rtol=1e-5)


def test_exp_neg_is_within_two_float32_ulps():
    u = np.linspace(0.0, 87.0, 3001, dtype=f32)
    got = tail.exp_neg(u)
    ref = np.array([float(mpmath.exp(-mpmath.mpf(float(v)))) for v in u])
    ulp = np.spacing(ref.astype(f32)).astype(np.float64)
    assert np.all(np.abs(got - ref) <= 2 * ulp)
    edge = tail.exp_neg(np.array([np.inf, np.nan, 0.0, 103.0, 1e30], dtype=f32))
    assert edge[0] == 0 and np.isnan(edge[1]) and edge[2] == 1 and edge[4] == 0
    assert 0 < edge[3] < 1e-44


def test_phi_table_and_tail_lut_are_exact_values_rounded_once():
    assert lut_r5.PHI_TABLE.size == 513 and lut_r5.R5_HI == 3.0
    assert lut_r5.PHI_TABLE[384] == f32(0.5)  # x = -9 + 384 * 3/128 = 0
    for i in (0, 100, 256, 500, 512):
        x = -9.0 + i * 0.0234375
        exact = mpmath.erfc(-mpmath.mpf(x) / mpmath.sqrt(2)) / 2
        assert lut_r5.PHI_TABLE[i] == f32(float(exact))
    assert tail.TAIL_COARSE[-1] == f32(float(tail.gelu_exact(-3.5)))
    assert tail.TAIL_FINE[0] == f32(float(tail.gelu_exact(-8.3125)))
    assert tail.TAIL_LUT_BYTES == 4 * 25


def test_good_methods_follow_gelu_closely():
    x = np.linspace(-13.0, 2.75, 4001, dtype=f32)  # D2 saturates from 3: x -> x
    ref = np.array([float(tail.gelu_exact(float(v))) for v in x])
    # B3: refitted erfc (2e-5); D2: 4-term series from -5 (105/5^8 = 2.7e-4); R5: linear
    # interpolation of Phi (about 6.9e-5 x^2 relative) and the series from -4.25
    for name, tol in (("B3 Pure (improved)", 5e-5), ("D2 Pure", 3e-4),
                      ("R5 Pure (improved)", 2e-3)):
        m = next(m for m in RESEARCH if m.name == name)
        y = m(x).astype(np.float64)
        rel = np.abs(y - ref) / np.maximum(np.abs(ref), 1e-37)
        assert rel.max() < tol, (name, rel.max())


def test_asymptotic_tail_series():
    x = np.array([-5.0, -8.3125, -12.0], dtype=f32)
    got = tail.asymptotic_tail(x).astype(np.float64)
    for xi, g in zip(x, got, strict=True):
        exact = float(tail.gelu_exact(float(xi)))
        assert abs(g / exact - 1) < 105 / float(xi) ** 8 + 1e-5
        assert math.copysign(1, g) == -1
