"""The determinism card (``ulplab determinism --card``): per backend and function, the inputs
whose bits change with the thread count, the position in the array, the batch shape, the ISA
cap and compilation; ``ulplab.det`` shows 0 everywhere; a backend whose result depends on the
position is caught with its worst input; the ISA settings asked for are only those this CPU
has (read from it); the Markdown of both cards."""

import json

import numpy as np
import pytest

from conftest import one_line_error
from ulplab.backends import BACKENDS, Backend
from ulplab.backends._isolated import Pool
from ulplab.cli.main import main
from ulplab.peers import report_card
from ulplab.peers.determinism import determinism_card, isa_settings
from ulplab.peers.machine import cpu_flags
from ulplab.report.card_md import card_markdown

LIMIT = 240.0


def _last_element_off(x):
    """tanh, but the last element of an array whose length is not a multiple of 8 one
    float32 ULP up: a scalar tail that differs from the vector body."""
    y = np.tanh(np.asarray(x, dtype=np.float32))
    if y.size % 8:
        flat = y.reshape(-1)
        flat[-1] = np.nextafter(flat[-1], np.float32(np.inf))
    return y


def make_tail_differs(func, fmt, backward):
    return _last_element_off, "float32"


@pytest.fixture(scope="module")
def card():
    return determinism_card("bfloat16", ["exp"], ["det", "numpy"], time_limit=LIMIT)


def test_det_is_zero_everywhere(card):
    (row,) = [r for r in card["rows"] if r["backend"] == "det"]
    assert row["status"] == "measured" and row["computes_in"] == "bfloat16"
    for dim in ("threads", "position", "shape"):
        assert row[dim] == {"differ": 0}, dim
    assert row["isa"] and all(c == {"differ": 0} for c in row["isa"].values())
    assert row["compiled"] == {"skipped": "no compiled variant"}


def test_isa_levels_asked_for_are_those_of_this_cpu(card):
    (row,) = [r for r in card["rows"] if r["backend"] == "numpy"]
    usable, lacking = isa_settings("numpy")
    assert set(row["isa"]) == set(usable) and row["isa_not_on_this_cpu"] == lacking
    det_usable, det_lacking = isa_settings("det")
    assert ("ULPLAB_MAX_ISA=avx2" in det_usable) == ("avx2" in cpu_flags())
    assert ("ULPLAB_MAX_ISA=avx2" in det_lacking) == ("avx2" not in cpu_flags())
    assert card["machine"]["cpu_count"] >= 1 and card["versions"]["numpy"] == np.__version__


def test_a_position_dependent_backend_is_caught(monkeypatch):
    monkeypatch.setitem(BACKENDS, "tail", Backend("tail", "fake", make_tail_differs))
    data = determinism_card("bfloat16", ["tanh"], ["tail"], time_limit=LIMIT)
    (row,) = data["rows"]
    assert row["position"]["differ"] > 0
    worst = row["position"]["worst"]
    assert worst["ulp"] == 1 and worst["base"] != worst["got"]
    assert row["shape"] == {"differ": 0}  # 65,536 elements: a multiple of 8 in every shape
    assert row["threads"]["differ"] == 0


def test_environment_reaches_the_child():
    with Pool(LIMIT, {"ULPLAB_CARD_TEST": "child sees it"}) as pool:
        assert pool.call("numpy", "os:getenv", "ULPLAB_CARD_TEST") == "child sees it"


def test_markdown_of_both_cards(card, tmp_path):
    text = card_markdown(card)
    assert "| det " in text and "| backend " in text and card["command"] == ""
    assert "# Determinism card (bfloat16)" in text
    acc = {"kind": "accuracy card", "format": "bfloat16", "command": "ulplab peers ...",
           "machine": card["machine"], "versions": card["versions"], "seconds": 1.0,
           "coverage": "every input", "cards": [report_card("exp", "bfloat16", ["numpy", "det"],
                                                            backward=False)]}
    md = card_markdown(acc)
    assert "## exp" in md and "| numpy " in md and "| det " in md
    assert max(len(line) for line in md.splitlines()) <= 80
    with pytest.raises(ValueError, match="not a card's JSON"):
        card_markdown({"kind": "something else"})


def test_cli_writes_the_determinism_card(tmp_path, capsys):
    out = tmp_path / "det.json"
    assert main(["determinism", "--card", "--functions", "exp", "--backends", "det",
                 "--json", str(out), "--quiet"]) == 0
    data = json.loads(out.read_text())
    assert data["command"].startswith("ulplab determinism --card")
    assert data["rows"][0]["position"] == {"differ": 0}
    assert "determinism in bfloat16" in capsys.readouterr().out


@pytest.mark.parametrize(("argv", "needle"), [
    (["determinism"], "give a function"),
    (["determinism", "--card", "--functions", "nope"], "nope"),
    (["determinism", "--card", "--backends", "mxnet"], "unknown backend 'mxnet'"),
    (["determinism", "--card", "--time-limit", "0"], "positive number of seconds"),
    (["determinism", "exp", "--card"], "give --functions, not FUNC"),
    # options of the other mode are refused, not ignored (the card used to run for minutes
    # with --rounding or --samples silently dropped)
    (["determinism", "--card", "--rounding", "float8_e4m3fn"], "--rounding applies without"),
    (["determinism", "--card", "--rounding", "odd"], "--rounding applies without --card"),
    (["determinism", "--card", "--samples", "1000"], "--samples applies without --card"),
    (["determinism", "exp", "--functions", "exp"], "--functions applies with --card only"),
    (["determinism", "exp", "--format", "float16"], "--format applies with --card only"),
    (["determinism", "exp", "--time-limit", "5"], "--time-limit applies with --card only"),
])
def test_determinism_card_bad_input(capsys, argv, needle):
    one_line_error(capsys, argv, needle)
