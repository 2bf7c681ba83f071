"""The ulplab command: every subcommand, its files, and one-line errors with exit status 2."""

import json
import subprocess
import sys

import numpy as np
import pytest

from ulplab.cli.main import main
from ulplab.formats import FORMATS, get_format
from ulplab.oracle.table import oracle_table

KEYS = {"method", "max_ulp", "mean_ulp", "exact_fraction", "within1_fraction", "nan_mismatches",
        "inf_mismatches", "percentiles", "histogram", "worst", "regions"}


def run_cli(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_analyze_writes_json_and_csv(capsys, tmp_path):
    j, c = tmp_path / "r.json", tmp_path / "r.csv"
    code, out, _ = run_cli(capsys, "analyze", "gelu", "--format", "bfloat16", "--method", "all",
                           "--json", str(j), "--csv", str(c), "--quiet")
    assert code == 0 and "f32-naive" in out and "tail_neg" in out
    data = json.loads(j.read_text())
    assert data["function"] == "gelu" and data["format"] == "bfloat16"
    m = data["methods"][0]
    assert set(m) >= KEYS
    assert set(m["regions"]) == {"near_zero", "core_pos", "core_neg", "tail_pos", "tail_neg"}
    assert all({"x", "hex"} <= set(w) for w in m["worst"])
    assert set(m["percentiles"]) == {"p50", "p90", "p99"}
    rows = c.read_text().splitlines()
    assert rows[0].startswith("function,format,method") and len(rows) == 1 + len(data["methods"])


def test_oracle_and_eval_write_pattern_indexed_arrays(capsys, tmp_path):
    o, e = tmp_path / "o.npy", tmp_path / "e.npy"
    code = run_cli(capsys, "oracle", "tanh", "--format", "bfloat16", "-o", str(o), "--quiet")[0]
    assert code == 0
    arr = np.load(o)
    assert arr.dtype == np.uint16 and arr.shape == (65536,)
    assert np.array_equal(arr, oracle_table("tanh", get_format("bfloat16"), progress=False))
    assert run_cli(capsys, "eval", "tanh", "--method", "f32-naive", "--format", "float8_e4m3fn",
                   "-o", str(e))[0] == 0
    ev = np.load(e)
    assert ev.dtype == np.uint8 and ev.shape == (256,)


@pytest.mark.smoke
def test_reference_reads_all_number_forms(capsys):
    code, out, _ = run_cli(capsys, "reference", "gelu", "0x4032", "-13.5625", "0x1p-133",
                           "--format", "bfloat16")
    assert code == 0
    assert "2.77371976292480624" in out and "0x4032" in out
    assert "9.183549615799121e-41 (0x0001)" in out


def test_saturation_json(capsys, tmp_path):
    j = tmp_path / "s.json"
    code, out, _ = run_cli(capsys, "saturation", "gelu", "--format", "bfloat16", "--json", str(j))
    assert code == 0 and "2.78125" in out and "-13.5625" in out
    data = json.loads(j.read_text())
    assert data["positive"][0]["threshold_hex"] == "0x4032"


def test_formats_daz_ftz_value_space(capsys):
    code, out, _ = run_cli(capsys, "formats", "--format", "bfloat16", "--denormals", "daz-ftz")
    assert code == 0
    for figure in ("65025", "32512", "254", "127", "0x8080 - 0xff7f", "0x0080 - 0x7f7f"):
        assert figure in out


def test_formats_lists_every_format_with_its_pattern_count(capsys, tmp_path):
    j = tmp_path / "formats.json"
    code, out, _ = run_cli(capsys, "formats", "--json", str(j))
    listed = {row["format"]: row for row in json.loads(j.read_text())}
    assert code == 0 and set(listed) == set(FORMATS)
    for name, fmt in FORMATS.items():
        assert listed[name]["patterns"] == 2 ** fmt.bits and name in out
    assert listed["float4_e2m1fn"]["patterns"] == 16
    assert listed["float8_e4m3fnuz"]["negative_zero"] is False


def test_methods_and_functions_lists(capsys):
    assert "f32-naive" in run_cli(capsys, "methods", "gelu")[1]
    assert "gelu_grad" in run_cli(capsys, "functions")[1]


@pytest.mark.smoke
@pytest.mark.parametrize(("args", "needle"), [
    (["analyze", "gelux"], "unknown function 'gelux'; valid: cos, erf, erfc"),
    (["analyze", "gelu", "--format", "bf17"], "unknown format 'bf17'; valid: bfloat16"),
    (["analyze", "gelu", "--method", "nope"], "unknown method for gelu 'nope'; valid: f32-naive"),
    (["analyze", "gelu", "--rounding", "odd"], "unknown rounding mode 'odd'; valid: nearest-even"),
    (["analyze", "gelu", "--denormals", "x"], "unknown denormal policy 'x'; valid: ieee, daz"),
    (["analyze", "gelu", "--format", "float32", "--samples", "0"], "--samples: 0 is out of range"),
    (["reference", "gelu", "1.2.3"], "malformed number '1.2.3'"),
    (["reference", "gelu", "0x3f80", "--format", "float8_e5m2"], "does not fit in float8_e5m2"),
    (["oracle", "gelu", "-o", "/nonexistent-dir/o.npy"], "cannot write /nonexistent-dir/o.npy"),
    (["analyze", "gelu", "--json", "/nonexistent-dir/r.json"], "cannot write"),
    (["nosuchcommand"], "invalid choice"),
    ([], "required"),
])
def test_bad_input_exits_2_with_one_line(capsys, args, needle):
    code, _out, err = run_cli(capsys, *args)
    assert code == 2
    assert err.count("\n") == 1 and needle in err, err
    assert "Traceback" not in err


def test_console_script_entry_point_runs():
    r = subprocess.run([sys.executable, "-m", "ulplab", "analyze", "nope"], capture_output=True,
                       text=True, check=False)
    assert r.returncode == 2 and r.stderr.startswith("ulplab: error: unknown function")


def test_analyze_float32_samples_and_ranges(capsys, tmp_path):
    j = tmp_path / "f.json"
    code, out, _ = run_cli(capsys, "analyze", "exp", "--format", "float32", "--samples", "3000",
                           "--json", str(j), "--quiet")
    assert code == 0 and "sampled float32" in out
    assert json.loads(j.read_text())["inputs"] == "3000 sampled"
    code, out, _ = run_cli(capsys, "analyze", "gelu", "--format", "bfloat16", "--range", "-1",
                           "1", "--quiet", "--json", str(j))
    assert code == 0
    assert json.loads(j.read_text())["methods"][0]["count"] == 32514  # bf16 values in [-1, 1]
