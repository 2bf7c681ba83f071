"""The GELU analysis studies calibrate, verify-knots, inverse, softmax-unit, epss, range-scale:
their results, not only that they run."""

import numpy as np
import pytest
from flint import arb, ctx

from ulplab.formats import get_format
from ulplab.methods.gelu import tail
from ulplab.oracle.table import evaluate
from ulplab.studies import RENDERERS, STUDIES, run_study
from ulplab.studies.common import patched
from ulplab.studies.verify_knots import certified_bits, phi_ball, phi_bits

BF16 = get_format("bfloat16")
NEW = ("calibrate", "verify-knots", "inverse", "softmax-unit", "epss", "range-scale")


@pytest.fixture(scope="module")
def results():
    return {}


def _run(results, name):
    if name not in results:
        results[name] = run_study(name, "bfloat16")
    return results[name]


def test_registered_with_renderers():
    for name in NEW:
        assert name in STUDIES and name in RENDERERS


# ------------------------------------------------------------------ certified rounding
def test_certified_phi_is_correctly_rounded():
    prec = ctx.prec
    # Phi(0) = 1/2 exactly
    assert phi_bits([0.0])[0] == np.float32(0.5).view(np.uint32)
    # GELU through Arb equals the oracle at float32 inputs
    xs = [-3.5, -0.7518, 1.25, -8.3125, 2.0**-20]
    for x in xs:
        x = float(np.float32(x))
        b = certified_bits(lambda x=x: arb(x) * phi_ball(x))
        assert b == int(evaluate("gelu", np.array([x]), "float32")[0])
    # an exact value is rounded once: 1 + 2^-24 is a float32 midpoint (ties to even -> 1.0)
    assert certified_bits(lambda: arb(1) + arb(2) ** -24) == np.float32(1).view(np.uint32)
    assert certified_bits(lambda: arb(1) + arb(2) ** -24 + arb(2) ** -60) == \
        np.nextafter(np.float32(1), np.float32(2)).view(np.uint32)
    assert ctx.prec == prec  # restored


# ------------------------------------------------------------------ calibrate
def test_calibrate_recomputes_the_tail_table(results):
    res = _run(results, "calibrate")
    assert res["knots"] == tail.TAIL_COARSE.size + tail.TAIL_FINE.size == 25
    committed = np.concatenate([tail.TAIL_COARSE, tail.TAIL_FINE]).view(np.uint32)
    knots = [e["knot"] for e in res["entries"]]
    assert knots[:19] == [-8 + 0.25 * i for i in range(19)]
    assert knots[19:] == [-8.3125 + 0.0625 * i for i in range(6)]
    oracle = evaluate("gelu", np.array(knots), "float32").astype(np.uint32)
    diff = int((committed != oracle).sum())
    assert res["bits_differ"] == diff  # exactly as recomputed (0: the table is built from mpmath)
    for e, c, o in zip(res["entries"], committed, oracle, strict=True):
        assert e["committed_hex"] == f"0x{int(c):08x}" and e["oracle_hex"] == f"0x{int(o):08x}"
        assert e["bits_equal"] == (c == o) and (e["ulp_float32"] == 0) == (c == o)
        assert e["arb_agrees"]
    assert res["arb_disagreements"] == 0 and res["bfloat16_differ"] == 0
    # the seed's hand-typed constants: -3.5 close, -8.25 and -8.3125 far off (wrong order)
    seed = {s["knot"]: s for s in res["seed_decimals"]}
    assert seed[-3.5]["relative_error"] < 1e-6
    assert seed[-8.25]["relative_error"] > 0.2 and seed[-8.3125]["relative_error"] > 0.1


def test_calibrate_sees_a_changed_entry():
    bad = tail.TAIL_COARSE.copy()
    bad[3] = np.nextafter(bad[3], np.float32(0))  # one float32 ulp toward zero
    with patched(tail, "TAIL_COARSE", bad):
        res = STUDIES["calibrate"]("bfloat16")
    assert res["bits_differ"] == 1 and res["max_ulp_float32"] == 1
    e = res["entries"][3]
    assert not e["bits_equal"] and e["ulp_float32"] == 1  # negative values: toward 0 is +1
    assert e["knot"] == -7.25


# ------------------------------------------------------------------ verify-knots
def test_verify_knots_finds_no_mismatch(results):
    res = _run(results, "verify-knots")
    names = {r["table"] for r in res["tables"]}
    assert {"tail.TAIL_COARSE", "tail.TAIL_FINE", "lut_r5.PHI_TABLE", "lut_d3.TABLE",
            "lut_d4.TABLE", "pwl_r3.POS_TABLE", "pwl_r3.NEG_TABLE",
            "spline_c1.PURE_SPLINE c0", "spline_c1.LUT_SPLINE c0"} <= names
    sizes = {r["table"]: r["entries"] for r in res["tables"]}
    assert sizes["lut_r5.PHI_TABLE"] == 513 and sizes["lut_d4.TABLE"] == 163
    assert sizes["pwl_r3.POS_TABLE"] == 417 and sizes["spline_c1.PURE_SPLINE c0"] == 32
    # every table is built from mpmath and rounded once: all entries are correctly rounded
    assert res["total_mismatches"] == 0
    assert all(r["max_ulp"] == 0 and r["mismatch_list"] == [] for r in res["tables"])
    # every other float32 array of the GELU modules is accounted for
    assert all(not a["why"].startswith("NOT CLASSIFIED") for a in res["other_arrays"])


def test_verify_knots_lists_a_real_mismatch():
    from ulplab.methods.gelu import lut_r5

    bad = lut_r5.PHI_TABLE.copy()
    bad[100] = np.nextafter(bad[100], np.float32(1))
    bad[400] = np.nextafter(np.nextafter(bad[400], np.float32(0)), np.float32(0))
    with patched(lut_r5, "PHI_TABLE", bad):
        res = STUDIES["verify-knots"]("bfloat16", tables=["lut_r5.PHI_TABLE"])
    (r,) = res["tables"]
    assert r["mismatches"] == 2 and r["max_ulp"] == 2
    got = {m["index"]: m for m in r["mismatch_list"]}
    assert got[100]["ulp"] == 1 and got[400]["ulp"] == -2
    assert got[100]["knot"] == -9 + 100 * 0.0234375
    assert got[100]["correct"] == f"0x{int(lut_r5.PHI_TABLE.view(np.uint32)[100]):08x}"
    assert len(RENDERERS["verify-knots"](res)) == 3  # the mismatch table is shown


# ------------------------------------------------------------------ inverse
def test_inverse_round_trips(results):
    res = _run(results, "inverse")
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
def test_softmax_unit(results):
    res = _run(results, "softmax-unit")
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


# ------------------------------------------------------------------ epss
def test_epss_non_increasing_with_budget(results):
    res = _run(results, "epss")
    for kind in ("pwl", "hermite"):
        k = res["kinds"][kind]
        maxes = [k["start"]["max_ulp"], *(r["max_ulp"] for r in k["budgets"])]
        assert maxes == sorted(maxes, reverse=True) and k["monotone"]
        assert [r["knots"] for r in k["budgets"]] == [16, 32, 64]
        for r in k["budgets"]:
            assert len(r["knot_list"]) == r["knots"]
            assert r["knot_list"][0] == -8.0 and r["knot_list"][-1] == 3.0
            assert r["max_ulp"] <= r["uniform"]["max_ulp"]  # refinement beats uniform knots
    assert res["kinds"]["pwl"]["budgets"][-1]["max_ulp"] < 30
    assert res["kinds"]["hermite"]["budgets"][-1]["max_ulp"] <= 2


def test_epss_runs_fast():
    import time

    t = time.perf_counter()
    STUDIES["epss"]("bfloat16")
    assert time.perf_counter() - t < 10.0


# ------------------------------------------------------------------ range-scale
def test_range_scale(results):
    res = _run(results, "range-scale")
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


def test_renderers_of_new_studies(results):
    for name in NEW:
        assert RENDERERS[name](_run(results, name))
