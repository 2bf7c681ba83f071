"""The studies of a method's pieces: inverse (GELU^-1 by Newton on B3's core), softmax-unit (the
H2 PWL exp against the other exps), range-scale (E3's scaling rebuilt with other s)."""

import numpy as np
import pytest

from ulplab.formats import get_format
from ulplab.studies import RENDERERS, STUDIES

BF16 = get_format("bfloat16")
STUDIES_HERE = ("inverse", "softmax-unit", "range-scale")


def test_renderers(bf16_study):
    for name in STUDIES_HERE:
        assert name in STUDIES and RENDERERS[name](bf16_study(name))


# ------------------------------------------------------------------ inverse
def test_inverse_round_trips(bf16_study):
    res = bf16_study("inverse")
    assert res["x_min"] == pytest.approx(-0.7517915246935645, abs=1e-15)
    assert res["lowest_input"] == -0.75  # the next bfloat16 below is past x_min
    a = res["float32_y"]
    # the inverse of B3 Pure's own float32 output returns every bfloat16 x exactly
    assert a["exact"] == res["inputs"] and a["max_ulp"] == 0
    assert a["not_converged"] == 0 and a["max_iterations"] <= 12
    s = res["stored_y"]
    # with y stored in bfloat16: exact on most of the branch; the rest is where y is shared
    assert s["exact_fraction"] > 0.98 and s["not_converged"] == 0
    assert s["exact"] + s["inexact"] == res["inputs"]
    assert s["inexact_unambiguous"] <= 2 and s["max_ulp_unambiguous"] <= 1
    assert 0 < s["max_ulp"] < 16
    lo, hi = s["ambiguous_x_range"]
    assert lo == -0.75 and hi < 1.0  # GELU' < 1 there: neighbouring x share a stored y


def test_inverse_newton_on_chosen_values():
    from ulplab.studies.inverse import X_MIN32, gelu32, newton_inverse

    x = np.array([0.0, 1e-30, -1e-30, -0.25, 0.5, 2.0, 100.0, 3e38, -0.75], dtype=np.float32)
    xr, iters, conv = newton_inverse(gelu32(x))
    assert conv.all()
    np.testing.assert_array_equal(xr[:8], x[:8])
    assert abs(float(xr[8]) + 0.75) < 1e-3 and (xr >= X_MIN32).all()
    assert iters[6] == 0 and iters[7] == 0  # GELU(x) = x in float32 there: x0 = y is the root


# ------------------------------------------------------------------ softmax-unit
def test_softmax_unit(bf16_study):
    res = bf16_study("softmax-unit")
    assert res["outputs"] == 64000
    assert res["exact_sum_max_deviation"] < 1e-30  # the exact softmax sums to 1
    rows = {r["exp"]: r for r in res["units"]}
    assert set(rows) == {"H2 PWL exp", "Pure exp (tail.exp_neg)", "exact exp (float32)"}
    exact = rows["exact exp (float32)"]
    assert exact["exp_max_ulp"] == 0 and exact["exp_max_ulp_float32"] == 0
    assert exact["max_ulp"] <= 1 and exact["exact_fraction"] > 0.999
    h2 = rows["H2 PWL exp"]
    # 8-segment PWL 2^f: 9.4e-4 relative, under a bfloat16 ulp but thousands of float32 ulps
    assert h2["exp_max_ulp"] == 1 and h2["exp_exhaustive"]["max_ulp"] == 1
    assert h2["exp_max_ulp_float32"] > 1000
    assert h2["max_ulp"] >= exact["max_ulp"] and h2["mean_ulp"] > exact["mean_ulp"]
    for r in rows.values():
        assert r["max_sum_deviation"] < 1e-5


def test_softmax_exact_rows_sum_to_one():
    from ulplab.studies.softmax_unit import exact_softmax, inputs

    f32 = get_format("float32")
    x = inputs(BF16, vectors=3, length=8)
    ex = exact_softmax(x, (f32,))
    p = ex["softmax"]["float32"].view(np.float32).astype(np.float64)
    want = np.exp(x - x.max(axis=1, keepdims=True))
    want /= want.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(p, want, rtol=1e-6)
    assert ex["sum_deviation"] < 1e-30


# ------------------------------------------------------------------ range-scale
def test_range_scale(bf16_study):
    res = bf16_study("range-scale")
    rows = {v["variant"]: v for v in res["variants"]}
    reg = rows["s = 2 (registered)"]
    assert reg["max_ulp"] == 87 and reg["differs_from_registered"] == 0
    # a power-of-two scale is exact: the unscaled kernel is the same computation
    for name in ("unscaled (s = 1)", "s = 4 converted"):
        assert rows[name]["float32_differs"] == 0 and rows[name]["differs_from_registered"] == 0
    # a non-power-of-two scale changes float32 outputs by a few ulps, not bfloat16 results
    assert rows["s = 3 converted"]["float32_differs"] > 0
    assert rows["s = 3 converted"]["float32_max_ulp_from_registered"] <= 8
    # bfloat16 coefficients: the same loss at s = 1 and s = 2 (same significands)
    b2, b1 = rows["s = 2, bfloat16 coeffs"], rows["s = 1, bfloat16 coeffs"]
    assert b2["differs_from_registered"] == b1["differs_from_registered"] > 0
    assert b2["regions"] == b1["regions"]
    assert rows["unscaled (s = 1)"]["dynamic_range"] > 100 * reg["dynamic_range"]
    # only x >= 0 is scaled: the negative regions never change
    for v in res["variants"]:
        assert v["regions"]["core_neg"] == reg["regions"]["core_neg"]
        assert v["regions"]["tail_neg"] == reg["regions"]["tail_neg"]
