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
