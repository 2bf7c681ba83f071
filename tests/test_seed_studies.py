"""The studies held against the seed's analysis modes (docs/seed-studies.md): each study's note
naming the seed mode appears under its tables, and the seed's way, where a study offers it
(``as_seed=True``, ``ulplab study NAME --seed``), gives the figures the seed's C++ printed."""

import argparse
import io

import pytest
from rich.console import Console

from ulplab.studies import RENDERERS, run_study


def rendered(name: str, res: dict) -> str:
    con = Console(record=True, width=400, file=io.StringIO())
    for table in RENDERERS[name](res):
        con.print(table)
    return con.export_text()


# The seed's --diagnose (its C++ built from gelu_implementations.cpp, run on this machine):
# ULP at its 33 points, in its order (0, 0.001, ..., 8, -0.001, ..., -8), for four of its
# 22 methods.
SEED_DIAGNOSE_ULP = {
    "A1 Poly-7": (0, 0, 1, 14, 24, 5, 13, 6, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 18, 123, 314,
                  499, 710, 930, 1211, 1547, 0, 0, 0, 0, 0),
    "E4 Hermite": (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1,
                   4, 22, 54, 0, 0, 0, 0, 0),
    "F3 Pure": (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3, 2, 11, 8,
                2, 0, 0, 0, 0, 0, 0),
    "R3 PWL": (0, 50, 62, 49, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 97, 89, 64, 0, 0, 143,
               1, 233, 518, 0, 0, 0, 0, 0, 0),
}


def test_diagnose_seed_way_reproduces_the_seed_and_says_so():
    res = run_study("diagnose", "bfloat16", as_seed=True,
                    methods=list(SEED_DIAGNOSE_ULP))
    assert [p["hex"] for p in res["inputs"]][:4] == ["0x0000", "0x3a83", "0x3c24", "0x3dcd"]
    assert res["metric"] == "seed"
    for row in res["methods"]:
        assert tuple(r["ulp"] for r in row["results"]) == SEED_DIAGNOSE_ULP[row["method"]]
    assert "seed --diagnose: these are its points" in rendered("diagnose", res)
    default = run_study("diagnose", "bfloat16", methods=["A1 Poly-7"])
    assert "seed --diagnose: --seed runs its 33 points" in rendered("diagnose", default)


def test_cli_seed_flag_is_refused_by_a_study_without_a_seed_way():
    from ulplab.cli.study import add_parser
    from ulplab.errors import UsageError

    parser = argparse.ArgumentParser(prog="ulplab")
    add_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["study", "cost-model", "--seed"])
    with pytest.raises(UsageError, match="no --seed variant"):
        args.run(args)


# The seed's --regression table: (max ULP, failures) at its 50 points, bound 100.
SEED_REGRESSION = {
    "A1 Poly-7": (1547, 7), "A1 Poly-9": (1403, 7), "A1 Pure": (710, 4), "B1 Sigmoid": (1068, 5),
    "B1v2 Sigmoid": (625, 6), "B3 Erf Poly": (87, 0), "B3 Pure": (1, 0), "C1 Spline": (35, 0),
    "C1 Pure": (35, 0), "D2 LUT+Erf": (87, 0), "D2 Pure": (1, 0), "E4 Hermite": (57, 0),
    "E9 Remez BF16": (710, 4), "F3 CF Erf": (87, 0), "F3 Pure": (11, 0), "R1 Poly-9": (1312, 4),
    "R2 Rational": (1139, 4), "R3 PWL": (832, 3), "R4 Tanh": (166, 3), "R4 Pure": (1, 0),
    "R5 LUT": (12, 0), "R5 Pure": (1, 0),
}


def test_regression_seed_way_reproduces_the_seed_table_and_says_so():
    res = run_study("regression", "bfloat16", as_seed=True)
    assert {r["method"]: (r["max_ulp"], r["failures"]) for r in res["methods"]} == SEED_REGRESSION
    assert "seed --regression: its 50 points" in rendered("regression", res)
    default = run_study("regression", "bfloat16", methods=["B3 Pure"])
    assert "seed --regression: other question" in rendered("regression", default)


# Each study with a note, run small (a narrow format or few methods) so that each run is fast;
# the note names the seed mode and carries the evidence that makes it a seed defect or another
# question (a figure from the seed's printout, or what its source does).
NOTED = [
    ("calibrate", {}, "seed --calibrate: its 24 knots", "duplicate names"),
    ("cost-model", {"methods": ["A1 Poly-7"]}, "seed --cost-model:", "hand-typed"),
    ("denormal", {"fmt": "float8_e4m3fn", "methods": ["B3 Pure"]}, "seed --denormal:",
     "-1.02e-18"),
    ("derivative", {"fmt": "float8_e4m3fn", "methods": ["B3 Pure"]}, "seed --derivative:",
     "1.0625 at x = 2"),
    ("fma", {"fmt": "float8_e4m3fn", "methods": ["A1 Pure"]}, "seed --fma:", "31325 ULP"),
    ("inverse", {"fmt": "float8_e4m3fn"}, "seed (none):", "no analysis mode"),
    ("quantization", {"fmt": "float8_e4m3fn", "methods": ["A1 Pure"]}, "seed --quantization:",
     "Same for now"),
    ("range-scale", {"fmt": "float8_e4m3fn"}, "seed --range-scale:", "1130 / 1.7232"),
    ("sanity", {"fmt": "float8_e4m3fn"}, "seed --sanity:", "+100 ULP"),
    ("sensitivity", {"fmt": "float8_e4m3fn", "tuples": ["R4 Pure: SEED_TANH_P"], "steps": [1]},
     "seed --sensitivity:", "Placeholder"),
    ("softmax-unit", {"vectors": 4}, "seed --softmax-unit:", "1130 / 1.3046"),
    ("verify-knots", {}, "seed --verify-knots:", "8.5e-8"),
    ("epss", {"fmt": "float8_e4m3fn", "budgets": [16]}, "seed --epss:", "832 ULP at -3.4844"),
]


@pytest.mark.parametrize(("name", "opts", "head", "evidence"), NOTED, ids=[n[0] for n in NOTED])
def test_study_note_names_the_seed_mode_and_its_evidence(name, opts, head, evidence):
    opts = dict(opts)
    text = " ".join(rendered(name, run_study(name, opts.pop("fmt", "bfloat16"), **opts)).split())
    assert head in text
    assert evidence in text
