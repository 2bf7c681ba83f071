"""The analysis studies (ulplab.studies): their results, not only that they run."""

import argparse
import json

import numpy as np
import pytest

from ulplab.formats import EXHAUSTIVE_FORMATS, get_format, round_to_format
from ulplab.methods import get_method, methods_for
from ulplab.oracle.table import oracle_table
from ulplab.studies import RENDERERS, STUDIES, run_study
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
    for key in ("saturation", "declared thresholds", "declared knots", "table knots"):
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


def test_regression_probes_what_a_method_declares(monkeypatch):
    import dataclasses

    from ulplab.methods import get_method
    from ulplab.studies import regression

    # a renamed method with knots nobody else has: its own points, under its own name
    r3 = get_method("gelu", "R3 PWL")
    ks = (0.3125, 1.0, 2.0)
    moved = dataclasses.replace(r3.rebuild(SEED_R3_BREAKS=ks), name="R3 moved")
    assert regression.method_points(moved)["SEED_R3_BREAKS"] == ("declared knots", list(ks))
    before = regression.regression_inputs(BF16)
    registered = list(methods_for("gelu"))
    monkeypatch.setattr(regression, "gelu_methods", lambda names=None: [*registered, moved])
    after = regression.regression_inputs(BF16)
    p = 0x3EA0  # 0.3125 in bfloat16
    label = "R3 moved: SEED_R3_BREAKS"
    assert label in after[p] and label not in before.get(p, [])
    # the tables' knots: every knot of R5's Phi table, with the methods that read it
    assert "R5 LUT (improved): PHI_TABLE" in after[0xC010]  # -2.25 = -9 + 288 h
    # and thresholds: the seed's D2 Pure tail at -3
    assert "D2 Pure: TAIL_START" in after[0xC040]


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


@pytest.mark.parametrize("fmt", EXHAUSTIVE_FORMATS)  # every format the registry measures
def test_sanity_all_checks_pass(fmt):
    res = run_study("sanity", fmt)
    assert res["all_passed"], [c for c in res["checks"] if not c["passed"]]
    assert len(res["checks"]) == 8


def test_renderers_and_json(tmp_path):
    from ulplab.files import write_json

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


def test_denormal_policy_reads_a_negative_subnormal_as_plus_zero_in_fnuz():
    """float8_e4m3fnuz has no -0 (0x80 is its NaN): DAZ maps -subnormals to f(+0), not f(NaN)."""
    from ulplab.formats import all_patterns, get_format
    from ulplab.studies.denormal import policy_outputs

    f = get_format("float8_e4m3fnuz")
    identity = all_patterns(f).astype(f.uint)  # a "method" returning its input's pattern
    out = policy_outputs(identity, f, "daz")
    assert out[0x81] == out[0x01] == 0x00 and out[0x80] == 0x80
