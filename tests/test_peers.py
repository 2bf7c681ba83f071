"""The report card of native implementations: the backends run, the known defects surface.

The test extra installs torch (CPU) and JAX; a test that needs one skips, naming it, where it is
absent. The figures asserted were measured with torch 2.13.0 (CPU) and JAX 0.10.2, the versions
the tests pin; where torch's figures differ with the CPU's SIMD level the test reads the level.
"""

import json
from pathlib import Path

import numpy as np
import pytest

from conftest import needs, one_line_error
from ulplab.cli.main import main
from ulplab.formats import EXHAUSTIVE_FORMATS, get_format
from ulplab.functions import FUNCTIONS
from ulplab.peers import report_card

ROOT = Path(__file__).resolve().parent.parent
FUNCS = [f.name for f in FUNCTIONS.values() if f.peers.torch and f.peers.jax]  # from the modules


def _rows(card):
    return {r["backend"]: r for r in card["backends"]}


@needs("torch", "jax")
@pytest.mark.parametrize("fmt", ["bfloat16", "float16"])
@pytest.mark.parametrize("func", FUNCS)
def test_every_function_runs_on_torch_and_jax(func, fmt):
    card = report_card(func, fmt, ["torch", "torch-f32", "jax", "jax-f32", "numpy", "libm"])
    rows = _rows(card)
    for b in ("torch", "torch-f32", "jax", "jax-f32"):
        assert b in rows, card["skipped"]
        assert rows[b]["count"] > 30_000  # finite results (log: positive inputs only)
    for s in card["skipped"]:
        assert s["backend"].split()[0] in ("numpy", "libm"), s  # only "has no such function"


@needs("torch")
def test_torch_bfloat16_gelu_defects_are_surfaced():
    """torch's bfloat16 GELU is a different kernel per CPU (its dispatch picks one at run time:
    measured 253 subnormal inputs read as zero on an AVX-512 Xeon and 1 on an AVX2 EPYC, and
    253 again with ATEN_CPU_CAPABILITY=avx2 on the Xeon), so the figures are computed here from
    torch's own outputs, independently of the report card, and the card must agree with them."""
    import ml_dtypes
    import numpy as np
    import torch

    from ulplab.formats import Kind, classify, signed_zero
    from ulplab.oracle import call as oracle

    fmt = get_format("bfloat16")
    bits = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
    x = torch.from_numpy(bits.view(np.int16).copy()).view(torch.bfloat16)
    got = torch.nn.functional.gelu(x).view(torch.int16).numpy().view(np.uint16)
    truth = oracle("gelu", "bfloat16").view(np.uint16)
    z = signed_zero(bits, fmt).astype(np.int64)
    sub = (classify(bits, fmt) == Kind.SUBNORMAL) & (truth != truth[z])
    read_as_zero = sub & (got == got[z])
    flushed = (classify(truth, fmt) == Kind.SUBNORMAL) & (classify(got, fmt) == Kind.ZERO)
    inf = np.isinf(got.view(ml_dtypes.bfloat16).astype(np.float32)) & ~np.isinf(
        truth.view(ml_dtypes.bfloat16).astype(np.float32))

    rows = _rows(report_card("gelu", "bfloat16", ["torch"]))
    t = rows["torch"]
    assert t["daz"] == {"subnormal_inputs": 253, "read_as_zero": int(read_as_zero.sum())}
    assert t["ftz"] == {"subnormal_results": 514, "flushed": int(flushed.sum())}
    assert t["inf_mismatches"] == int(inf.sum())  # x * Phi(x) overflowing (AVX-512 kernels)
    assert t["max_ulp"] >= 10_000  # the negative tail flushes to -0 on every CPU seen
    assert classify(np.array([int(t["worst"][0]["got_hex"], 16)], np.uint16), fmt)[0] \
        == Kind.ZERO
    back = rows["torch (backward)"]
    assert back["reference"] == "gelu_grad" and back["max_ulp"] >= 1


@needs("jax")
def test_jax_flushes_subnormals_even_in_float32():
    rows = _rows(report_card("exp", "bfloat16", ["jax-f32", "numpy"]))
    assert rows["jax-f32"]["ftz"]["flushed"] == rows["jax-f32"]["ftz"]["subnormal_results"] > 0
    assert rows["numpy"]["ftz"]["flushed"] == 0


@needs("torch", "jax")
def test_figures_are_identical_run_to_run():
    a = report_card("tanh", "float16", ["torch", "jax"])
    b = report_card("tanh", "float16", ["torch", "jax"])
    assert {r["backend"] for r in a["backends"]} >= {"torch", "jax"}
    assert json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def test_user_callable_and_cli(tmp_path, capsys):
    out = tmp_path / "p.json"
    assert main(["peers", "exp", "--format", "float16", "--backends", "numpy", "--callable",
                 "numpy:exp", "--json", str(out)]) == 0
    data = json.loads(out.read_text())
    assert {r["backend"] for r in data["backends"]} == {"numpy", "numpy:exp"}
    assert "report card" in capsys.readouterr().out
    assert main(["peers", "exp", "--backends", "mxnet"]) == 2
    assert "unknown backend 'mxnet'; valid: torch" in capsys.readouterr().err


def test_a_callable_nan_everywhere_is_not_read_as_daz(tmp_path, monkeypatch):
    (tmp_path / "nan_everywhere.py").write_text(
        "import numpy as np\n\ndef f(x):\n    return np.full(x.shape, np.nan, np.float32)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    card = report_card("tanh", "bfloat16", [], ["nan_everywhere:f"], backward=False)
    row = _rows(card)["nan_everywhere:f"]
    assert row["daz"]["read_as_zero"] == 0 and row["daz"]["subnormal_inputs"] == 254
    assert row["exact_fraction"] == 254 / 65536 and row["nan_mismatches"] == 65282


@needs("torch", "jax")
@pytest.mark.parametrize("fmt", [f for f in EXHAUSTIVE_FORMATS if get_format(f).bits <= 8])
def test_narrow_formats_get_a_report_card_or_a_reason(fmt):
    """Native rows where the library computes in the dtype (JAX: fp8 and fp4; torch 2.13 CPU has
    fp8 dtypes without math), a skip naming the format otherwise; float32 backends always run."""
    card = report_card("tanh", fmt, ["torch", "torch-f32", "jax", "jax-f32"], backward=False)
    rows = _rows(card)
    assert {"torch-f32", "jax-f32"} <= set(rows)
    assert rows["torch-f32"]["max_ulp"] == 0 and rows["torch-f32"]["nan_mismatches"] == 0
    skipped = {s["backend"]: s["reason"] for s in card["skipped"]}
    assert set(rows) | set(skipped) == {"torch", "torch-f32", "jax", "jax-f32"}
    assert all(fmt in reason for reason in skipped.values())
    assert "torch" in skipped  # measured: no torch CPU math in any fp8/fp6/fp4 dtype


@pytest.mark.parametrize(("argv", "needle"), [
    (["peers"], "give a function, or --all-functions"),
    (["peers", "exp", "--all-functions"], "not both"),
    (["peers", "--all-functions", "--callable", "numpy:exp"], "--callable is not for"),
    (["peers", "exp", "--time-limit", "-1"], "positive number of seconds"),
    (["peers", "exp", "--time-limit", "soon"], "not a number of seconds"),
    (["peers", "exp", "--format", "float32"], "cannot be swept exhaustively"),
    (["peers", "--all-functions", "--exhaustive", "--format", "float32"], "one function"),
    (["peers", "--all-functions", "--records", "benchmarks/results/float32/det-float32"],
     "give --format float32"),
    (["peers", "exp", "--format", "float32", "--records", "x.json"], "goes with --all-functions"),
])
def test_card_bad_input(capsys, argv, needle):
    one_line_error(capsys, argv, needle)


def test_all_functions_card_json(tmp_path, monkeypatch):
    """The one-command card over every function (numpy and det, to keep it short): machine,
    versions, command and a card per function, each row saying what it computed in."""
    import ulplab.peers.card as card_module

    monkeypatch.setattr(card_module, "CARD_FUNCTIONS", ("exp", "tanh"))
    import ulplab.cli.main as cli

    out = tmp_path / "card.json"
    assert cli.main(["peers", "--all-functions", "--backends", "numpy,det", "--json", str(out),
                     "--quiet"]) == 0
    data = json.loads(out.read_text())
    assert data["kind"] == "accuracy card" and data["format"] == "bfloat16"
    assert [c["function"] for c in data["cards"]] == ["exp", "tanh"]
    assert data["command"] == ("ulplab peers --all-functions --backends numpy,det --json "
                               f"{out} --quiet")
    assert data["machine"]["cpu_count"] >= 1 and "numpy" in data["versions"]
    rows = {r["backend"]: r for r in data["cards"][0]["backends"]}
    assert rows["numpy"]["computes_in"] == "float32"
    assert rows["det"]["computes_in"] == "bfloat16" and rows["det"]["max_ulp"] == 0


def test_float32_card_is_sampled_with_the_hard_cases_and_says_so():
    from ulplab.kernels import exceptions
    from ulplab.peers.card import float32_sample, full_card

    bits, what = float32_sample("exp")
    hard = exceptions.table("exp").keys
    assert hard.size > 0 and np.isin(hard, bits).all()  # every hard case is swept
    assert what.startswith(f"sampled: {bits.size:,} float32 inputs ({hard.size} hard cases")
    data = full_card("float32", ["exp"], ["numpy", "det"], time_limit=240)
    (card,) = data["cards"]
    rows = {r["backend"]: r for r in card["backends"]}
    assert {r["coverage"] for r in rows.values()} == {f"sampled ({bits.size:,} inputs)"}
    assert rows["det"]["max_ulp"] == 0 and rows["det"]["inputs"] == bits.size
    assert card["coverage"] == what
    assert "exhaustive (2^32)" in data["coverage"] and "sampled (N inputs)" in data["coverage"]


DET_EXP = ROOT / "benchmarks" / "results" / "float32" / "det-float32" / "exp.json"
NUMPY_EXP = ROOT / "benchmarks" / "results" / "float32" / "exp.json"


def _forged(tmp_path, source, name, **changes):
    """A copy of an exhaustive record with its first method's figures changed."""
    data = json.loads(source.read_text())
    data["methods"] = [{**data["methods"][0], **changes}]
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return path


def test_float32_card_rows_say_exhaustive_only_where_a_record_agrees(tmp_path):
    """det's exp record (all 2^32 inputs, 0 ULP: det gives the same bits on every build) makes
    det's row exhaustive, with the record's figures and file; a NumPy record that claims 99 ULP
    (no NumPy build is that far off: its worst inputs are in the sample) is refused, and that row,
    like libm's (no record), stays sampled and says how many inputs it covers."""
    from ulplab.peers.card import EXHAUSTIVE, float32_sample, full_card

    forged = _forged(tmp_path, NUMPY_EXP, "numpy-exp.json", max_ulp=99)
    data = full_card("float32", ["exp"], ["numpy", "libm", "det"], time_limit=240,
                     records=[str(DET_EXP), str(forged)])
    rows = {r["backend"]: r for r in data["cards"][0]["backends"]}
    det = rows["det"]
    assert det["coverage"] == EXHAUSTIVE == "exhaustive (2^32)"
    assert det["inputs"] == 1 << 32 and det["max_ulp"] == 0 and det["exact_fraction"] == 1.0
    assert det["record"] == str(DET_EXP) and det["record_method"] == "det-float32"
    assert det["sampled"]["max_ulp"] == 0 and det["sampled"]["inputs"] < 1 << 20
    n = det["sampled"]["inputs"]
    record = json.loads(NUMPY_EXP.read_text())["methods"][0]
    extra = [int(w["hex"], 16) for w in record["worst"] + record["mismatch_examples"]]
    assert n == float32_sample("exp", extra=extra)[0].size  # the record's worst inputs swept
    for name in ("numpy", "libm"):
        assert rows[name]["coverage"] == f"sampled ({n:,} inputs)"
        assert rows[name]["inputs"] == n and "record" not in rows[name]
    rejected = rows["numpy"]["record_rejected"]
    assert rejected["record"] == str(forged) and "the record: max 99 ULP" in rejected["reason"]
    assert "record_rejected" not in rows["libm"]
    assert data["records"] == [str(DET_EXP), str(forged)]


def _row(backend, max_ulp, nan=0, inf=0):
    from ulplab.peers.card import RECORD_STATS

    row = dict.fromkeys(RECORD_STATS, 0)
    row.update(backend=backend, inputs=1000, max_ulp=max_ulp, nan_mismatches=nan,
               inf_mismatches=inf, mean_ulp=0.5, exact_fraction=0.5)
    return row


@pytest.mark.parametrize(("backend", "record_cpu", "coverage"), [
    ("numpy", "CPU A", "exhaustive (2^32)"),
    ("numpy", "CPU B", "exhaustive (2^32), another machine"),
    ("numpy", None, "exhaustive (2^32), another machine"),
    ("det", None, "exhaustive (2^32)"),  # det's bits are the same on every build
])
def test_a_record_from_another_machine_says_so(backend, record_cpu, coverage):
    from ulplab.peers.card import _merge_record

    figures = {**_row(backend, 3, nan=1), "inputs": 1 << 32, "mean_ulp": 0.06}
    rec = {"record": "r.json", "method": f"peer:{backend}", "figures": figures,
           "machine": None if record_cpu is None else {"cpu": record_cpu}, "command": "c",
           "commit": "x"}
    row = _row(backend, 3)
    _merge_record(row, rec, "CPU A")
    assert row["coverage"] == coverage and row["inputs"] == 1 << 32 and row["mean_ulp"] == 0.06
    assert row["sampled"]["inputs"] == 1000
    for sampled in (_row(backend, 2), _row(backend, 3, inf=1)):  # not the record's bits
        _merge_record(sampled, rec, "CPU A")
        assert "coverage" not in sampled and sampled["inputs"] == 1000
        assert "record_rejected" in sampled


def test_float32_record_backend_aliases():
    """A record of NAME-f32 speaks for NAME too in float32 (the same call); det once was
    det-float32; other methods (a user's callable) are no card row."""
    from ulplab.peers.card import _record_rows

    assert _record_rows("peer:torch-f32") == ("torch-f32", "torch")
    assert _record_rows("peer:numpy") == ("numpy",)
    assert _record_rows("det-float32") == _record_rows("det") == ("det",)
    assert _record_rows("callable:mod:fn") == ()


@pytest.mark.parametrize(("change", "needle"), [
    ({"input_count": 1 << 31}, "not a sweep of all 2\\^32 float32 inputs"),
    ({"format": "bfloat16"}, "not a sweep of all 2\\^32 float32 inputs"),
    ({"rounding": "toward-zero"}, "not a sweep of all 2\\^32 float32 inputs"),
    (None, "not readable JSON"),
])
def test_float32_records_that_are_not_full_sweeps_are_refused(tmp_path, change, needle):
    from ulplab.errors import UsageError
    from ulplab.peers.card import exhaustive_records

    path = tmp_path / "r.json"
    path.write_text("{" if change is None else json.dumps({**json.loads(DET_EXP.read_text()),
                                                            **change}))
    with pytest.raises(UsageError, match=needle):
        exhaustive_records([path])
    assert exhaustive_records([DET_EXP])[("exp", "det")]["figures"]["max_ulp"] == 0


def test_float32_records_missing_empty_or_twice_are_refused(tmp_path):
    from ulplab.errors import UsageError
    from ulplab.peers.card import exhaustive_records

    with pytest.raises(UsageError, match="no such file or folder"):
        exhaustive_records([tmp_path / "absent.json"])
    with pytest.raises(UsageError, match="no JSON file there"):
        exhaustive_records([tmp_path])
    copy = _forged(tmp_path, DET_EXP, "copy.json")
    with pytest.raises(UsageError, match="det exp is in both"):
        exhaustive_records([DET_EXP, copy])


def test_sixteen_bit_card_rows_say_exhaustive(monkeypatch):
    from ulplab.peers.card import full_card

    data = full_card("bfloat16", ["exp"], ["numpy"], time_limit=240)
    assert data["cards"][0]["backends"][0]["coverage"] == "exhaustive"
    assert data["coverage"] == "exhaustive: every one of the 65,536 bfloat16 inputs"
