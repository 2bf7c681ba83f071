"""Readable in a terminal: tables fit 80 columns without cutting a figure, progress bars go to
stderr and --quiet silences them; and seed 002's tanh diagnostic, reproduced by one command."""

import io
import json
import re

import numpy as np
import pytest
from rich.console import Console

from conftest import needs
from ulplab.cli.main import main
from ulplab.formats import get_format
from ulplab.methods import methods_for
from ulplab.peers import ordinal_index, report_card
from ulplab.report import analysis_table, console, peers_tables, percent, simple_table
from ulplab.sweep import analyze


def _render(table, width=80):
    con = Console(width=width, record=True, file=io.StringIO(), highlight=False)
    con.print(table)
    return con.export_text()


def _figures(row):
    return [c for c in row if re.fullmatch(r"[-\d.,%]+", c)]


@pytest.mark.smoke
def test_analyze_all_gelu_fits_80_columns_with_every_figure_intact():
    result = analyze(methods_for("gelu"), "gelu", "bfloat16", progress=False)
    text = _render(analysis_table(result))
    assert max(len(line) for line in text.splitlines()) <= 80
    assert "…" not in text and "0..." not in text
    rows: dict[str, list[str]] = {}  # full method name -> its line of figures
    last = None
    for ln in text.splitlines():
        cell = ln.strip()
        if last is not None and cell.startswith("(") and " " not in cell:  # "(improved)"
            rows[f"{last} {cell}"] = [rows[last].pop()]  # a name's suffix on the next line
            last = None
            continue
        name = re.split(r"\s{2,}", cell)[0]
        rows.setdefault(name, []).append(ln)
        last = name
    for m in result["methods"]:
        line = rows[m["method"]][0]
        for fig in (str(m["max_ulp"]), percent(m["exact_fraction"]),
                    percent(m["within1_fraction"])):
            assert fig in line.split(), (fig, line)


def test_details_adds_the_region_columns():
    result = analyze(methods_for("gelu")[:3], "gelu", "bfloat16", progress=False)
    compact = _render(analysis_table(result), 400)
    wide = _render(analysis_table(result, details=True), 400)
    assert "core_neg max" not in compact and "core_neg" in wide and "max" in wide


def test_a_table_too_wide_for_the_terminal_is_printed_whole():
    words = [f"figure{i:02d}-{'9' * 12}" for i in range(8)]
    con = console(width=80)
    con.record = True
    con.file = io.StringIO()
    con.print(simple_table("wide", [f"c{i}" for i in range(8)], [words]))
    text = con.export_text()
    for w in words:
        assert w in text


@pytest.mark.smoke
def test_methods_fits_80_columns(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    assert main(["methods"]) == 0
    out = capsys.readouterr().out
    assert max(len(line.rstrip()) for line in out.splitlines()) <= 80
    assert [ln for ln in out.splitlines() if "…" in ln] == []
    tt = next(ln for ln in out.splitlines() if "TT Accurate" in ln).split()
    assert tt[-5:] == ["14330", "3224.7677", "14330", "3498", "67.9961"]  # seed: 14330


def test_progress_goes_to_stderr_and_quiet_silences_it(capsys):
    assert main(["peers", "tanh", "--format", "float8_e5m2", "--backends", "numpy"]) == 0
    out, _ = capsys.readouterr()
    assert "report card" in out and "peers tanh" not in out
    assert main(["peers", "tanh", "--format", "float8_e5m2", "--backends", "numpy",
                 "--quiet"]) == 0
    assert capsys.readouterr().err == ""


# seed 002: ttnn::tanh on every normal bfloat16 input under DAZ+FTZ, against MPFR's tanh
# converted to float and then truncated to bfloat16; index 0xff7f -> 0 ... 0x7f7f -> 65,024
TANH_002 = ["peers", "tanh", "--format", "bfloat16", "--denormals", "daz-ftz", "--rounding",
            "toward-zero", "--via", "float32", "--inputs", "normal", "--index", "--method",
            "det", "--backends", "torch", "--quiet"]


@needs("torch")
def test_the_tanh_diagnostic_of_seed_002_is_reproduced(capsys, tmp_path):
    j = tmp_path / "tanh.json"
    assert main([*TANH_002, "--json", str(j)]) == 0
    out = capsys.readouterr().out
    card = json.loads(j.read_text())
    rows = {r["backend"]: r for r in card["backends"]}
    det = rows["det"]
    # the seed's space: 65,025 inputs (+0 and every normal), max 1 ULP, every result within 1
    assert det["inputs"] == 65025 and det["max_ulp"] == 1 and det["within1_fraction"] == 1.0
    # measured: a correctly rounded tanh against the seed's reference is exact on 61,995 inputs
    # and 1 ULP off on 3,030 (the seed's device: 61,943 and 3,082, mean 0.0474)
    assert det["histogram"] == {"0": 61995, "1": 3030, "2": 0}
    assert round(det["mean_ulp"], 4) == 0.0466
    assert rows["torch"]["histogram"] == det["histogram"]
    # the backward pass the seed compares with (tanh_bw: max 15,139, 93.60 % exact, 97.97 %)
    back = rows["torch (backward)"]
    assert back["max_ulp"] == 15102 and round(100 * back["exact_fraction"], 2) == 93.97
    assert "65,025" in out and "95.34%" in out and "#32512" in out


@pytest.mark.smoke
def test_the_seed_002_index_layout():
    bf = get_format("bfloat16")
    bits = np.array([0xFF7F, 0x8080, 0x0000, 0x0080, 0x7F7F, 0x0001, 0x8001])
    assert list(ordinal_index(bits, bf, ftz=True)) == [0, 32511, 32512, 32513, 65024, 32512,
                                                        32512]


def test_peers_reference_via_needs_a_wider_format(capsys):
    assert main(["peers", "tanh", "--via", "bfloat16", "--backends", "numpy", "--quiet"]) == 2
    assert "wider than bfloat16" in capsys.readouterr().err


def test_report_card_inputs_normal_has_no_subnormal_inputs():
    card = report_card("tanh", "bfloat16", ["numpy"], backward=False, inputs="normal")
    row = card["backends"][0]
    assert row["inputs"] == 65025 and row["daz"]["subnormal_inputs"] == 0
    assert peers_tables(card)


def test_reference_at_80_columns_keeps_every_column(capsys, monkeypatch):
    """A table wider than the terminal is printed whole: no column dropped (rich collapses
    columns it cannot shrink unless the console itself is widened)."""
    monkeypatch.setenv("COLUMNS", "80")
    assert main(["reference", "gelu", "0x4032", "-13.5625", "0x1p-133", "--format",
                 "bfloat16"]) == 0
    out = capsys.readouterr().out
    for cell in ("x", "bits", "0xc159", "-13.5625", "-9.183549615799121e-41 (0x8001)",
                 "1.8367099231598242e-40 (0x0002)"):
        assert cell in out.split("  ") or cell in out, cell
    assert "0x1p-133   0x0001" in out
