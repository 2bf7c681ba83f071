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
from ulplab.methods.gelu import lut_r5, tail
from ulplab.methods.gelu.seed_table import SEED_BF16, seed_figures

f32 = np.float32

RESEARCH = [m for m in methods_for("gelu") if m.family not in ("baseline", "deterministic",
                                                               "synthesized")]
# ulplab synth's kernels are claimed for their own format only (their float32 output is defined
# up to the format's rounding: tests/test_synth.py holds them to every input of it)
SYNTHESIZED = [m for m in methods_for("gelu") if m.family == "synthesized"]


def _ids(m):
    return m.name


def test_every_seed_method_is_registered_with_its_seed_figure():
    names = {m.name for m in RESEARCH}
    assert set(SEED_BF16) <= names  # the seed's 39 names, each meaning the seed's method
    for m in RESEARCH:
        assert m.seed == seed_figures(m.name), m.name
        if not m.seed:  # a variant of a seed method says what it changes
            assert m.note, m.name


def test_every_method_has_claims_and_traced_ops():
    for m in RESEARCH:
        assert {"bfloat16", "float16"} <= set(m.claims), m.name
        assert m.ops, m.name
    for m in SYNTHESIZED:
        assert len(m.claims) == 1 and m.ops, m.name


# --- TT Fast: the packed words decode to the table of the research notes -----------------------


# --- TT Accurate ---------------------------------------------------------------------------------


# --- special values, every research method -------------------------------------------------------

def seed_plus_zero(method) -> bool:
    """Whether the method gives +0 where GELU underflows, as the seed's code does: the seed's own
    tail (``tail.seed_asymptotic_tail``), or TT Accurate's zero branch as the seed models it."""
    p = method.params
    return p is not None and ("SEED_EXP2_TAYLOR" in p or p.get("SIGNED_ZERO", 1) == 0)


TINY = np.float32(np.uint32(1).view(np.float32))  # smallest float32 subnormal
BIG = np.finfo(np.float32).max


@pytest.mark.parametrize("method", RESEARCH, ids=_ids)
def test_special_values(method):
    x = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, BIG, -BIG, 1e30, -1e30, 3.0, 100.0],
                 dtype=f32)
    y = method(x)
    assert y.dtype == np.float32 and y.shape == x.shape
    assert np.isnan(y[0])
    assert y[1] == np.inf
    assert abs(y[9] - 2.99595) < 0.005 and y[10] == 100.0  # GELU(3) = 2.99595
    nan = np.array([0x7FC12345], dtype=np.uint32).view(f32)
    # the input NaN's payload is returned (the seed's E4 and F3 builds set its sign: E4's flips
    # it, F3's sets it, both tested on the positive NaN here)
    sign = 0x80000000 if method.name in ("E4 Hermite", "E4v3 Quintic", "E4v2 Wide", "F3 Pure",
                                         "F3 CF Erf") else 0
    assert method(nan).view(np.uint32)[0] == 0x7FC12345 | sign
    # the seed's own tail (bit for bit) returns +0 where its exp underflows (x below ~ -14.4),
    # TT Accurate +0 below -5.5; every other method -0, the sign of GELU(x) < 0
    neg_zero_sign = not seed_plus_zero(method)
    if method.name in ("TT Fast", "TT Fast (improved)"):  # the seed's sign: x for x <= -3
        assert y[5] == BIG and y[6] == -BIG and y[8] == f32(-1e30)
        assert y[2] == (-np.inf if method.name == "TT Fast" else 0)  # (improved): -inf -> -0
        return
    assert y[2] == 0 and np.signbit(y[2]) == neg_zero_sign  # gelu(-inf) = -0 (seed: +0)
    assert y[5] == BIG and y[7] == f32(1e30)
    assert y[6] == 0 and y[8] == 0
    if method.name.startswith("TT Fast"):
        return  # no zero branch in the hardware: see test_tt_fast_values
    assert np.signbit(y[6]) == np.signbit(y[8]) == neg_zero_sign
    assert y[3] == 0 and not np.signbit(y[3])
    # the seed's C1 near zero, fma(0.5, x, 0.39894228 x^2), is -0 + +0 = +0 at x = -0, and the
    # seed's TT Accurate returns +0 for x == 0
    assert y[4] == 0 and np.signbit(y[4]) == (method.name not in ("C1 Pure", "C1 Spline",
                                                                   "TT Accurate"))
    y20 = method(np.array([-20.0], dtype=f32))[0]
    assert y20 == 0 and np.signbit(y20) == neg_zero_sign  # GELU(-20) = -1.1e-87 underflows


# E9's coefficients are bfloat16: its constant term is 0x1.f2p-1, not 1, so tiny inputs give
# 0.486 x (a 2.7% bias its module documents and its registered claims include)
# The seed's R3 PWL draws its first segments through (0, 0) and (+-0.5, GELU(+-0.5)): tiny x
# gives 0.691428 x (x > 0) and 0.308572 x (x < 0), the 38% error of its near_zero region;
# the seed's R5 table has no knot at 0 (step 12/511): tiny x gives 0x1.fffffap-2 x (below)
@pytest.mark.parametrize("method", [m for m in RESEARCH if m.family != "tenstorrent" and m.name
                                    not in ("E9 Remez BF16 (improved)", "R3 PWL",
                                            "R5 Pure", "R5 LUT")],
                         ids=_ids)
def test_subnormal_inputs_give_half_of_x(method):
    x = np.array([TINY, -TINY, 2 * TINY, 1e-39, -1e-39, 1e-20, -1e-20], dtype=f32)
    y = method(x)
    # gelu(x) = x/2 + x^2/sqrt(2 pi) + ...: within one float32 rounding of x/2
    assert np.all(np.abs(y - 0.5 * x) <= np.abs(0.5 * x) * 2.0**-23 + TINY)
    assert np.array_equal(np.signbit(y), np.signbit(x))


def test_seed_r3_is_its_first_segment_near_zero():
    # the seed's slopes at 0 are its decimals 0.691428 (x >= 0) and 0.308572 (x < 0): tiny inputs
    # give slope x, the 38% error of its near_zero region
    x = np.array([1e-20, -1e-20, 1e-39, -0.0], dtype=f32)
    y = get_method("gelu", "R3 PWL")(x)
    assert np.array_equal(y, [f32(0.691428) * x[0], f32(0.308572) * x[1],
                              f32(0.691428) * x[2], -0.0])
    assert np.signbit(y[3])


def test_seed_c2_constants_are_its_decimals():
    from ulplab.methods.gelu import piecewise_c2 as c2

    # gelu_implementations.cpp:1710-1725 (c2bf7bb): p0, p1, q1, q2 for x >= 0 and for x < 0
    assert tuple(f32(v) for v in (0.3989423, 0.0293, 0.196, 0.0348)) == c2.SEED_C2_POS
    assert tuple(f32(v) for v in (0.3989423, 0.0412, 0.234, 0.0456)) == c2.SEED_C2_NEG
    # on [-3.5, -3) it blends into the tail LUT's first knot: at -3.5 Phi is that knot / x
    y = get_method("gelu", "C2 Piecewise")(np.array([-3.5], dtype=f32))
    assert y[0] == f32(-3.5) * (tail.SEED_TAIL_MAIN[0] / f32(-3.5))


def test_seed_f2_constants_and_phi_near_zero():
    from ulplab.methods.gelu import quadrature_f2 as f2

    # gelu_implementations.cpp:2158-2165 (c2bf7bb): 8 Gauss-Legendre nodes and weights on [0, 1]
    nodes, weights = np.polynomial.legendre.leggauss(8)
    np.testing.assert_allclose(f2.SEED_GL_NODES, (nodes + 1) / 2, atol=1e-10)
    np.testing.assert_allclose(f2.SEED_GL_WEIGHTS, weights / 2, atol=1e-10)
    # Phi(0+) = 1/2 + 0 in float64: tiny inputs give x/2
    x = np.array([1e-20, -1e-20], dtype=f32)
    np.testing.assert_array_equal(get_method("gelu", "F2 Quadrature")(x), 0.5 * x)


# --- tables, coefficients and the shared exp -----------------------------------------------------


def test_exp_neg_is_within_two_float32_ulps():
    u = np.linspace(0.0, 87.0, 3001, dtype=f32)
    got = tail.exp_neg(u)
    ref = np.array([float(mpmath.exp(-mpmath.mpf(float(v)))) for v in u])
    ulp = np.spacing(ref.astype(f32)).astype(np.float64)
    assert np.all(np.abs(got - ref) <= 2 * ulp)
    edge = tail.exp_neg(np.array([np.inf, np.nan, 0.0, 103.0, 1e30], dtype=f32))
    assert edge[0] == 0 and np.isnan(edge[1]) and edge[2] == 1 and edge[4] == 0
    assert 0 < edge[3] < 1e-44


def test_seed_fast_exp_is_its_cubic_times_exponent_bits():
    from ulplab.methods.params import Params

    p = Params({**tail.PURE_PARAMS, **tail.SEED_EXP_PARAMS})
    assert tail.fit_seed_exp2() == tail.SEED_EXP2  # the constants regenerate
    # normal results: the cubic's relative error (7.5e-5 fitted) plus the rounding of t = -u/ln 2
    # (|t| 2^-24 relative in t): measured 7.71e-5 on this grid
    u = np.linspace(0.0, 87.0, 3001, dtype=f32)
    got = tail.exp_neg(u, p).astype(np.float64)
    ref = np.array([float(mpmath.exp(-mpmath.mpf(float(v)))) for v in u])
    assert np.max(np.abs(got / ref - 1)) < 7.8e-5
    # subnormal results (u up to 103): scaled in two exponent-built factors, not garbage
    us = np.linspace(88.0, 100.0, 49, dtype=f32)
    gs = tail.exp_neg(us, p).astype(np.float64)
    rs = np.array([float(mpmath.exp(-mpmath.mpf(float(v)))) for v in us])
    assert np.all(np.abs(gs - rs) <= 7.8e-5 * rs + 2.0**-149)
    edge = tail.exp_neg(np.array([np.inf, np.nan, 0.0, 1e30], dtype=f32), p)
    assert edge[0] == 0 and np.isnan(edge[1]) and edge[3] == 0
    assert edge[2] == tail.SEED_EXP2[0]  # 2^0 = P(0): the minimax cubic is 0.99993 there
    # every seed method with an exp declares this reading or the seed's own exp (and so uses
    # it); no improved one has the seed's own, and only those that are the seed method as it
    # was read before its bit-for-bit rebuild keep the reading (their notes say so)
    for m in RESEARCH:
        if m.params is not None and "EXP_TAYLOR" in m.params and m.seed:
            assert "SEED_EXP2" in m.params, m.name
        if m.params is not None and "SEED_EXP2_TAYLOR" in m.params:
            assert m.seed and "EXP_TAYLOR" not in m.params, m.name
        if m.name.endswith("(improved)") and m.params is not None:
            assert "SEED_EXP2_TAYLOR" not in m.params, m.name
            if "SEED_EXP2" in m.params:
                assert "minimax cubic in its fast exp" in m.note, m.name


def test_seed_r5_tiny_inputs_interpolate_between_its_knots():
    # knots 383 and 384 of the seed's table straddle 0: Phi there is 1/2 - 3 2^-26, not 1/2
    x = np.array([1e-20, -1e-20, 1e-30], dtype=f32)
    for name in ("R5 Pure", "R5 LUT"):
        m = get_method("gelu", name)
        phi0 = lut_r5.seed_phi_r5(np.zeros(1, dtype=f32), m.params)[0]
        assert phi0 == f32(float.fromhex("0x1.fffffap-2"))
        assert np.array_equal(m(x), x * phi0)


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


def test_asymptotic_tail_series():
    x = np.array([-5.0, -8.3125, -12.0], dtype=f32)
    got = tail.asymptotic_tail(x).astype(np.float64)
    for xi, g in zip(x, got, strict=True):
        exact = float(tail.gelu_exact(float(xi)))
        assert abs(g / exact - 1) < 105 / float(xi) ** 8 + 1e-5
        assert math.copysign(1, g) == -1
