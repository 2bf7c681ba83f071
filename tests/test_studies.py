"""The analysis studies (ulplab.studies): their results, not only that they run."""

import argparse
import json

import numpy as np
import pytest

from ulplab.formats import get_format, round_to_format
from ulplab.kit import horner
from ulplab.kit.count import count_ops
from ulplab.methods import get_method, methods_for
from ulplab.oracle.table import oracle_table
from ulplab.studies import RENDERERS, STUDIES, run_study
from ulplab.studies.coefficients import coefficient_tuples, find_tuple
from ulplab.studies.common import got_bits, step_float32
from ulplab.studies.diagnose import DEFAULT_POINTS, point_bits
from ulplab.sweep import analyze

BF16 = get_format("bfloat16")


@pytest.fixture(scope="module")
def diag():
    return run_study("diagnose", "bfloat16")


def test_registry_names_and_renderers():
    assert set(STUDIES) == set(RENDERERS)
    assert {"diagnose", "regression", "derivative", "denormal", "quantization", "fma",
            "sensitivity", "cost-model", "sanity"} <= set(STUDIES)
    with pytest.raises(ValueError, match="unknown study"):
        run_study("nope")


def test_diagnose_oracle_column_is_the_oracle_table(diag):
    table = oracle_table("gelu", BF16, progress=False)
    assert [p["label"] for p in diag["inputs"]] == list(DEFAULT_POINTS)
    for p in diag["inputs"]:
        b = int(p["hex"], 16)
        assert p["oracle"]["hex"] == f"0x{int(table[b]):04x}"
    by = {p["label"]: p for p in diag["inputs"]}
    assert by["2.78125"]["oracle"]["hex"] == "0x4032"  # the exact positive saturation
    assert by["-13.5625"]["oracle"]["hex"] == "0x8000"  # the exact zero threshold
    assert by["-inf"]["oracle"]["hex"] == "0x8000"


def test_diagnose_method_results(diag):
    rows = {m["method"]: m for m in diag["methods"]}
    assert set(rows) == {m.name for m in methods_for("gelu")}
    labels = [p["label"] for p in diag["inputs"]]
    tt = dict(zip(labels, rows["TT Accurate"]["results"], strict=True))
    assert tt["-min_subnormal"]["ulp"] == 14330  # the c0 floor defect, the seed's max
    lut = dict(zip(labels, rows["B3 Erf Poly"]["results"], strict=True))
    assert lut["-7.65625"]["ulp"] == 87  # the tail LUT's worst input
    naive = dict(zip(labels, rows["f32-naive"]["results"], strict=True))
    assert naive["-inf"]["nonfinite_mismatch"]  # -inf * 0 = NaN
    assert not naive["nan"]["nonfinite_mismatch"] and naive["nan"]["ulp"] == -1
    b, v = point_bits("-3.5", BF16)
    assert b == 0xC060 and v == -3.5


def test_regression_inputs_and_verdicts():
    res = run_study("regression", "bfloat16")
    assert res["inputs"] >= 50
    for key in ("saturation", "tail", "lut_r5", "spline_c1", "tt"):
        assert res["input_sources"].get(key, 0) > 0, key
    rows = {r["method"]: r for r in res["methods"]}
    for m in methods_for("gelu"):
        r = rows[m.name]
        claim = m.claims.get("bfloat16")
        if claim is not None:
            assert r["claim_max_ulp"] == claim.max_ulp
            assert r["passed"] == (r["max_ulp"] <= claim.max_ulp and
                                   r["nonfinite_mismatches"] == 0)
    assert rows["B3 Erf Poly"]["max_ulp"] == 87  # -7.65625 is a tail-LUT knot neighbour
    assert rows["f32-naive"]["failures"] == 1 and not rows["f32-naive"]["passed"]


def test_regression_includes_saturation_threshold_neighbours():
    from ulplab.studies.regression import regression_inputs

    src = regression_inputs(BF16)
    for p in (0x4031, 0x4032, 0x4033, 0xC158, 0xC159, 0xC15A):
        assert p in src


def test_derivative_reports_the_procedure_and_its_floor():
    res = run_study("derivative", "bfloat16")
    assert "central difference" in res["procedure"]
    rows = {r["method"]: r for r in res["methods"]}
    floor = rows["exact GELU (float32)"]["max_rel_error"]
    assert floor < 2e-3
    assert rows["B3 Pure (improved)"]["max_rel_error"] < 5e-3
    # the seed's 5-term Taylor series jumps at |z| = 1 (measured 0.262): the derivative shows it
    assert rows["B3 Pure"]["max_rel_error"] > 0.2
    # the x >= 3 -> x switch of D2 is a jump: its difference quotient is far off there
    assert rows["D2 Pure"]["max_abs_error"] > 0.1 and rows["D2 Pure"]["max_abs_at"] == 3.0
    assert rows["B1 Sigmoid"]["max_rel_error"] > 1.0


def test_denormal_matches_analyze():
    names = ["TT Accurate", "TT Fast", "B3 Pure"]
    res = STUDIES["denormal"]("bfloat16", methods=names)
    assert res["policies"] == ["ieee", "daz", "ftz", "daz-ftz"]
    rows = {r["method"]: r["policies"] for r in res["methods"]}
    for policy in ("ieee", "daz", "daz-ftz"):
        a = analyze([get_method("gelu", n) for n in names], "gelu", BF16, denormals=policy,
                    progress=False)
        for m in a["methods"]:
            assert rows[m["method"]][policy]["max_ulp"] == m["max_ulp"]
            assert rows[m["method"]][policy]["mean_ulp"] == pytest.approx(m["mean_ulp"])
    assert rows["TT Accurate"]["ieee"]["max_ulp"] == 14330
    assert rows["TT Accurate"]["daz"]["subnormal_inputs_max"] == 0


def test_quantization_changes_coefficients_and_results():
    res = STUDIES["quantization"]("bfloat16", methods=["TT Accurate", "R2 Rational",
                                                        "E4 Hermite"])
    rows = {r["tuple"]: r for r in res["tuples"]}
    tt = rows["TT Accurate: TT_ACCURATE_COEFFS"]
    assert tt["storage"]["bfloat16"]["changed"] == 16
    assert tt["storage"]["float16"]["became_zero"] == 1  # c15 = -1.8e-9 underflows
    r2q = rows["R2 Rational: R2_Q"]["methods"][0]
    assert r2q["method"] == "R2 Rational"
    assert r2q["float32"]["max_ulp"] == 87 and r2q["bfloat16"]["max_ulp"] > 1000
    assert rows["R2 Rational: ASYMPTOTIC"]["storage"]["bfloat16"]["changed"] == 0
    # the blend polynomial is a parameter like any other (a closure once hid it from the study)
    assert rows["E4 Hermite: BLEND"]["methods"][0]["method"] == "E4 Hermite"
    # the registered method is untouched by the rebuilt ones
    m = get_method("gelu", "R2 Rational")
    assert all(isinstance(v, np.float32) for v in m.params.R2_Q)
    assert m.claims["bfloat16"].max_ulp == 87


def test_coefficient_tuples_and_rebuild():
    labels = {c.label for c in coefficient_tuples()}
    assert {"B3 Pure: ERF_TAYLOR", "TT Accurate: TT_ACCURATE_COEFFS", "R2 Rational: R2_P",
            "B3 Pure: EXP_TAYLOR"} <= labels
    # every built GELU method declares parameters; every polynomial method a scheme
    for m in methods_for("gelu"):
        if m.family not in ("baseline", "deterministic"):
            assert m.params is not None and m.build is not None, m.name
    c = find_tuple("R4 Pure: TANH_P")
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
    res = STUDIES["fma"]("float16", methods=["TT Accurate", "B1 Sigmoid"])
    rows = {r["method"]: r["schemes"] for r in res["methods"]}
    tt = rows["TT Accurate"]
    assert tt["horner-fma"]["max_ulp"] == get_method("gelu", "TT Accurate").claims[
        "float16"].max_ulp
    assert tt["horner-fma"]["differs_from_registered"] == 0  # the registered kernel itself
    assert tt["horner-fma"]["max_ulp"] != tt["horner"]["max_ulp"]
    assert tt["horner"]["differs_from_registered"] > 0
    assert tt["estrin-fma"]["differs_from_registered"] > 0
    # B1's only polynomials are the exp's and the asymptotic series in its tail LUT's far end
    assert "B1 Sigmoid" in rows


def test_fma_study_covers_every_polynomial_method():
    res = STUDIES["fma"]("bfloat16", methods=["TT Accurate", "A1 Pure", "TT Fast"])
    rows = {r["method"]: r["schemes"] for r in res["methods"]}
    assert set(rows) == {"TT Accurate", "A1 Pure"}  # TT Fast evaluates no polynomial
    tt = rows["TT Accurate"]
    assert tt["horner-fma"]["max_ulp"] == tt["horner"]["max_ulp"] == 14330
    assert tt["horner"]["differs_from_registered"] > 0
    assert rows["A1 Pure"]["horner"]["differs_from_registered"] > 0


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
    a1 = rows["A1 Pure: A1_Q"]
    assert a1["base"]["max_ulp"] == 5
    # measured: moving q3..q6 by 4 or 16 float32 ulps raises A1 Pure's max by 1 or 2
    assert max(c["worst_delta_max"] for c in a1["coefficients"]) == 2
    assert {c["worst_delta_max"] for c in rows["R4 Pure: TANH_P"]["coefficients"]} == {0}


def test_op_counts_are_traced():
    x8 = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]
    assert count_ops(lambda v: horner(v, x8)) == {"fma": 7}
    assert count_ops(lambda v: horner(v, x8, use_fma=False)) == {"mul": 7, "add": 7}
    tt = get_method("gelu", "TT Accurate")
    assert tt.ops["fma"] == 15  # the source's 15 SFPMADs
    plain = tt.rebuild(SCHEME="horner").ops
    assert "fma" not in plain and plain["mul"] == 15 and plain["add"] == 15
    f3 = get_method("gelu", "F3 Pure")  # both continued fractions, the tail's 1/x^2, and Phi
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


@pytest.mark.parametrize("fmt", ["bfloat16", "float8_e4m3fn", "float8_e5m2"])
def test_sanity_all_checks_pass(fmt):
    res = run_study("sanity", fmt)
    assert res["all_passed"], [c for c in res["checks"] if not c["passed"]]
    assert len(res["checks"]) == 8


def test_renderers_and_json(tmp_path):
    from ulplab.report import write_json

    res = run_study("cost-model", "bfloat16")
    assert RENDERERS["cost-model"](res)
    p = tmp_path / "c.json"
    write_json(p, res)
    assert json.loads(p.read_text())["study"] == "cost-model"


def test_cli_study_subcommand(tmp_path, capsys):
    from ulplab.cli.study import add_parser
    from ulplab.errors import UsageError

    parser = argparse.ArgumentParser(prog="ulplab")
    sub = parser.add_subparsers(dest="command", required=True)
    add_parser(sub)
    out = tmp_path / "s.json"
    args = parser.parse_args(["study", "sanity", "--format", "float8_e5m2", "--json", str(out)])
    assert args.run(args) == 0
    assert json.loads(out.read_text())["all_passed"] is True
    assert "sanity" in capsys.readouterr().out
    with pytest.raises(UsageError):
        bad = parser.parse_args(["study", "nope"])
        bad.run(bad)


def test_diagnose_on_float8_reads_unrepresentable_points():
    fmt = get_format("float8_e4m3fn")
    res = run_study("diagnose", "float8_e4m3fn", points=["-7.65625", "inf"])
    first = res["inputs"][0]
    assert first["read_as"] is not None
    assert first["hex"] == f"0x{int(round_to_format(np.array([-7.65625]), fmt)[0]):02x}"


def test_study_names_in_the_parser_match_the_registry():
    from ulplab.cli.study import NAMES
    from ulplab.studies import STUDIES

    assert tuple(STUDIES) == NAMES
