"""The studies that rebuild methods from their declared parameters (quantization, sensitivity,
fma, range-scale's variants) and the traced operation counts of the cost model."""

import numpy as np
import pytest

from ulplab.formats import get_format
from ulplab.kit import horner
from ulplab.kit.count import count_ops
from ulplab.methods import get_method, methods_for
from ulplab.studies import STUDIES, run_study
from ulplab.studies.coefficients import coefficient_tuples, find_tuple
from ulplab.studies.common import got_bits, step_float32


def test_quantization_changes_coefficients_and_results():
    res = STUDIES["quantization"]("bfloat16", methods=["TT Accurate", "R2 Rational (improved)",
                                                        "E4 Hermite (improved)"])
    assert res["storage"] == ["bfloat16", "float16"]  # the registry's 16-bit formats
    rows = {r["tuple"]: r for r in res["tuples"]}
    tt = rows["TT Accurate: TT_ACCURATE_COEFFS"]
    assert tt["storage"]["bfloat16"]["changed"] == 16
    assert tt["storage"]["float16"]["became_zero"] == 1  # c15 = -1.8e-9 underflows
    r2q = rows["R2 Rational (improved): R2_Q"]["methods"][0]
    assert r2q["method"] == "R2 Rational (improved)"
    assert r2q["float32"]["max_ulp"] == 87 and r2q["bfloat16"]["max_ulp"] > 1000
    assert rows["R2 Rational (improved): ASYMPTOTIC"]["storage"]["bfloat16"]["changed"] == 0
    # the blend polynomial is a parameter like any other (a closure once hid it from the study)
    e4 = rows["E4 Hermite (improved): BLEND"]["methods"][0]
    assert e4["method"] == "E4 Hermite (improved)"
    # the registered method is untouched by the rebuilt ones
    m = get_method("gelu", "R2 Rational (improved)")
    assert all(isinstance(v, np.float32) for v in m.params.R2_Q)
    assert m.claims["bfloat16"].max_ulp == 87


def test_coefficient_tuples_and_rebuild():
    labels = {c.label for c in coefficient_tuples()}
    assert {"B3 Pure (improved): ERF_TAYLOR", "TT Accurate: TT_ACCURATE_COEFFS",
            "R2 Rational (improved): R2_P", "B3 Pure (improved): EXP_TAYLOR"} <= labels
    # every built GELU method declares parameters; every polynomial method a scheme
    for m in methods_for("gelu"):
        if m.family not in ("baseline", "deterministic"):
            assert m.params is not None and m.build is not None, m.name
    c = find_tuple("R4 Pure (improved): TANH_P")
    fmt = get_format("float16")
    base = got_bits(c.method, fmt)
    moved = c.rebuilt([v * 1.125 for v in c.values])
    assert not np.array_equal(got_bits(moved, fmt), base)
    assert np.array_equal(got_bits(c.method, fmt), base)  # the registered one is unchanged
    assert moved.claims == {}  # claims were measured for the registered parameters
    same = c.method.rebuild()
    assert np.array_equal(got_bits(same, fmt), base)
    with pytest.raises(KeyError):
        c.method.rebuild(NOT_A_PARAMETER=1.0)


def test_fma_study():
    res = STUDIES["fma"]("float16", methods=["TT Accurate", "B1 Sigmoid (improved)"])
    rows = {r["method"]: r["schemes"] for r in res["methods"]}
    tt = rows["TT Accurate"]
    assert tt["horner-fma"]["max_ulp"] == get_method("gelu", "TT Accurate").claims[
        "float16"].max_ulp
    assert tt["horner-fma"]["differs_from_registered"] == 0  # the registered kernel itself
    assert tt["horner-fma"]["max_ulp"] != tt["horner"]["max_ulp"]
    assert tt["horner"]["differs_from_registered"] > 0
    assert tt["estrin-fma"]["differs_from_registered"] > 0
    # B1's only polynomials are the exp's and the asymptotic series in its tail LUT's far end
    assert "B1 Sigmoid (improved)" in rows


def test_fma_study_covers_every_polynomial_method():
    res = STUDIES["fma"]("bfloat16", methods=["TT Accurate", "A1 Pure (improved)", "TT Fast"])
    rows = {r["method"]: r["schemes"] for r in res["methods"]}
    assert set(rows) == {"TT Accurate", "A1 Pure (improved)"}  # TT Fast evaluates no polynomial
    tt = rows["TT Accurate"]
    assert tt["horner-fma"]["max_ulp"] == tt["horner"]["max_ulp"] == 14330
    assert tt["horner"]["differs_from_registered"] > 0
    assert rows["A1 Pure (improved)"]["horner"]["differs_from_registered"] > 0


def test_sensitivity_perturbs_by_float32_ulps():
    assert step_float32(1.0, 1) == np.nextafter(np.float32(1), np.float32(2))
    assert step_float32(1.0, -1) == np.nextafter(np.float32(1), np.float32(0))
    assert step_float32(-2.0, 1) == np.nextafter(np.float32(-2), np.float32(0))
    res = STUDIES["sensitivity"]("bfloat16", tuples=["TT Accurate: TT_ACCURATE_COEFFS"],
                                 steps=(-16, 16))
    (t,) = res["tuples"]
    assert t["method"] == "TT Accurate" and len(t["coefficients"]) == 16
    assert t["base"]["max_ulp"] == 14330
    means = {c["perturbed"]["16"]["mean_ulp"] for c in t["coefficients"]}
    assert len(means) > 1  # the perturbations do reach the kernel


def test_sensitivity_default_moves_a_max():
    res = run_study("sensitivity", "bfloat16")
    rows = {t["tuple"]: t for t in res["tuples"]}
    a1 = rows["A1 Pure (improved): A1_Q"]
    assert a1["base"]["max_ulp"] == 5
    # measured: moving q3..q6 by 4 or 16 float32 ulps raises A1 Pure's max by 1 or 2
    assert max(c["worst_delta_max"] for c in a1["coefficients"]) == 2
    assert {c["worst_delta_max"] for c in rows["R4 Pure (improved): TANH_P"]["coefficients"]} == {0}


def test_op_counts_are_traced():
    x8 = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]
    assert count_ops(lambda v: horner(v, x8)) == {"fma": 7}
    assert count_ops(lambda v: horner(v, x8, use_fma=False)) == {"mul": 7, "add": 7}
    tt = get_method("gelu", "TT Accurate")
    assert tt.ops["fma"] == 15  # the source's 15 SFPMADs
    plain = tt.rebuild(SCHEME="horner").ops
    assert "fma" not in plain and plain["mul"] == 15 and plain["add"] == 15
    # both continued fractions, the tail's 1/x^2, and Phi
    f3 = get_method("gelu", "F3 Pure (improved)")
    n = f3.params.N_ERF + f3.params.N_ERFC
    assert f3.ops["div"] == n + 2
    assert f3.rebuild(N_ERF=4).ops["div"] == n - 8 + 2
    naive = get_method("gelu", "f32-naive")
    assert naive.library_calls


def test_cost_model_rows_are_the_traced_counts():
    res = STUDIES["cost-model"]("bfloat16", methods=["TT Accurate", "TT Fast", "B3 Pure"])
    rows = {r["method"]: r for r in res["methods"]}
    for name, r in rows.items():
        m = get_method("gelu", name)
        assert r["ops"] == m.ops and r["total_ops"] == sum(m.ops.values())
        assert r["branches"] == m.ops.get("select", 0)
    assert rows["TT Fast"]["ops"]["lookup"] == 2 and rows["TT Fast"]["ops"]["fma"] == 2
    assert res["methods"][0]["method"] == "TT Fast"  # fewest operations first
