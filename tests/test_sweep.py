"""The sweep engine and its statistics, on methods whose errors are known exactly."""

import numpy as np
import pytest

from ulplab.formats import get_format, next_up, round_to_format, to_values
from ulplab.methods import Method, get_method, methods_for, select_methods
from ulplab.oracle.table import oracle_table
from ulplab.stats import histogram_edges
from ulplab.sweep import analyze, compare

BF16 = get_format("bfloat16")
KEYS = {"method", "max_ulp", "mean_ulp", "exact_fraction", "within1_fraction", "nan_mismatches",
        "inf_mismatches", "percentiles", "histogram", "worst", "regions"}


def _from_table(table, fmt, shift=0):
    """A float32 method that returns the oracle's result moved ``shift`` ULPs up."""
    def impl(x):
        bits = round_to_format(x, fmt)
        out = table[bits]
        for _ in range(shift):
            out = next_up(out, fmt)
        return to_values(out, fmt).astype(np.float32)
    return impl


def test_a_method_equal_to_the_oracle_scores_zero():
    table = oracle_table("tanh", BF16, progress=False)
    m = Method("tanh", "oracle-copy", "test", "the oracle itself", _from_table(table, BF16))
    res = analyze([m], "tanh", BF16)["methods"][0]
    assert set(res) >= KEYS
    assert res["max_ulp"] == 0 and res["exact_fraction"] == 1.0
    assert res["nan_mismatches"] == 0 and res["inf_mismatches"] == 0
    assert res["count"] == 65282  # the 65,280 finite inputs and ±inf (tanh(±inf) = ±1 is finite)


def test_a_method_one_ulp_high_scores_one_everywhere():
    table = oracle_table("exp", BF16, progress=False)
    m = Method("exp", "one-up", "test", "oracle + 1 ulp", _from_table(table, BF16, 1))
    res = analyze([m], "exp", BF16)["methods"][0]
    # exp's largest result is +inf (no ULP) or max finite (+1 -> inf: an inf mismatch)
    assert res["max_ulp"] == 1 and res["mean_ulp"] > 0.99
    assert res["percentiles"] == {"p50": 1, "p90": 1, "p99": 1}
    assert res["inf_mismatches"] == int(np.sum(table == 0x7F7F))
    assert sum(r["count"] for r in res["regions"].values()) == res["count"]


def test_native_format_callable_and_dtype_guard():
    table = oracle_table("sin", BF16, progress=False)

    def native(x):
        return table[x.view(np.uint16)].view(BF16.dtype)

    m = Method("sin", "native-copy", "test", "bf16 in, bf16 out", native, takes="format")
    assert analyze([m], "sin", BF16)["methods"][0]["max_ulp"] == 0
    bad = Method("sin", "float64-leak", "test", "returns float64",
                 lambda x: np.zeros(x.shape, np.float64))
    with pytest.raises(TypeError, match="float64"):
        compare(bad, "sin", BF16)


def test_histogram_edges():
    assert histogram_edges(0) == [(0, 0), (1, 1), (2, 2)]
    assert histogram_edges(17) == [(0, 0), (1, 1), (2, 2), (3, 4), (5, 8), (9, 16), (17, 32)]


def test_naive_gelu_loses_the_negative_tail():
    res = analyze([get_method("gelu", "f32-naive")], "gelu", BF16)["methods"][0]
    assert res["regions"]["tail_neg"]["max_ulp"] > 1000  # 1 + erf cancels
    assert res["nan_mismatches"] == 1  # gelu(-inf) = -inf * 0 = NaN
    worst = res["worst"][0]
    assert worst["hex"].startswith("0xc0") and worst["got"] == 0.0


def test_every_function_has_a_baseline_method():
    from ulplab.functions import FUNCTIONS
    for f in FUNCTIONS:
        assert "f32-naive" in [m.name for m in methods_for(f)]
    assert len(select_methods("gelu", "ALL")) == len(methods_for("gelu"))
    assert select_methods("gelu", "F32 Naive")[0].name == "f32-naive"


def test_float32_sampled_sweep_matches_the_oracle_on_its_own_results():
    from ulplab.inputs import float32_between, float32_random
    from ulplab.oracle.table import evaluate

    f32fmt = get_format("float32")
    xs = np.concatenate([float32_random(3000, seed=1), float32_between(-2.0, 2.0, 2000)])
    truth = evaluate("sin", to_values(xs.view(np.uint32), f32fmt), f32fmt)

    def copy(x):  # the oracle's own float32 results, in input order
        assert np.array_equal(x.view(np.uint32), xs.view(np.uint32))
        return truth.view(np.float32).copy()

    m = Method("sin", "truth", "test", "oracle values", copy)
    res = analyze([m], "sin", f32fmt, bits=xs.view(np.uint32))
    assert res["inputs"] == f"{len(xs)} sampled"
    assert res["methods"][0]["max_ulp"] == 0
    naive = analyze([get_method("sin", "f32-naive")], "sin", f32fmt, bits=xs.view(np.uint32))
    assert naive["methods"][0]["max_ulp"] <= 2  # measured: NumPy's float32 sin is within 1-2 ULP


def test_float32_needs_samples():
    with pytest.raises(ValueError, match="sampled inputs"):
        compare(get_method("sin", "f32-naive"), "sin", "float32")


def test_a_method_that_is_nan_everywhere_is_never_exact():
    m = Method("tanh", "all-nan", "test", "NaN for every input",
               lambda x: np.full(x.shape, np.nan, np.float32))
    res = analyze([m], "tanh", BF16)["methods"][0]
    # tanh is NaN only at the 254 NaN patterns: those 254 agree, the other 65,282 do not
    assert res["inputs"] == 65536 and res["count"] == 0
    assert res["nan_mismatches"] == 65282
    assert res["exact_fraction"] == res["within1_fraction"] == 254 / 65536


def test_fractions_are_over_every_input_compared():
    table = oracle_table("exp", BF16, progress=False)
    m = Method("exp", "one-up", "test", "oracle + 1 ulp", _from_table(table, BF16, 1))
    res = analyze([m], "exp", BF16)["methods"][0]
    # exact: the NaN patterns and the results that stay put (+inf, and +1 ulp of -0/+0 is not 0)
    assert res["inputs"] == 65536
    exact = res["exact_fraction"] * 65536
    within1 = res["within1_fraction"] * 65536
    assert exact == int(np.sum(res["histogram"].get("0", 0))) + 254 + int(np.sum(table == 0x7F80))
    assert within1 == 65536 - res["inf_mismatches"]
