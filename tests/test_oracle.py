"""The oracle: certified, cross-checked by an independent method, cached safely."""

import math

import numpy as np
import pytest

from conftest import assert_bits_equal
from ulplab import cache
from ulplab.analysis.saturation import saturation
from ulplab.formats import (
    EXHAUSTIVE_FORMATS,
    ROUNDING_MODES,
    Kind,
    all_patterns,
    classify,
    get_format,
    next_up,
    round_to_format,
    to_values,
)
from ulplab.functions import FUNCTIONS
from ulplab.oracle.crosscheck import check_value, crosscheck_table
from ulplab.oracle.table import cache_key, oracle_table
from ulplab.oracle.ziv import correctly_rounded

BF16 = get_format("bfloat16")


@pytest.mark.parametrize("fmt_name", EXHAUSTIVE_FORMATS)
@pytest.mark.parametrize("func", list(FUNCTIONS))
def test_oracle_agrees_with_independent_check_on_every_input(func, fmt_name):
    fmt = get_format(fmt_name)
    xs = to_values(all_patterns(fmt), fmt)
    assert_bits_equal(oracle_table(func, fmt, progress=False), crosscheck_table(func, fmt), fmt,
                      xs, f"{func} oracle/cross-check")


@pytest.mark.parametrize("func", list(FUNCTIONS))
def test_directed_modes_are_consistent_with_nearest(func):
    fmt = BF16
    rn, rz, ru, rd = (to_values(oracle_table(func, fmt, m, progress=False), fmt)
                      for m in ROUNDING_MODES)
    ok = ~np.isnan(rn)
    assert np.array_equal(np.isnan(rn), np.isnan(rd)) and np.array_equal(np.isnan(rn),
                                                                          np.isnan(ru))
    assert np.all(rd[ok] <= rn[ok]) and np.all(rn[ok] <= ru[ok])
    assert np.all((rn[ok] == rd[ok]) | (rn[ok] == ru[ok]))
    up_of_down = to_values(next_up(oracle_table(func, fmt, "down", progress=False), fmt), fmt)
    assert np.all((ru[ok] == rd[ok]) | (ru[ok] == up_of_down[ok]))
    pos = ok & ((rd > 0) | ((rd == 0) & (ru > 0)))
    neg = ok & ((ru < 0) | ((ru == 0) & (rd < 0)))
    assert np.all(rz[pos] == rd[pos]) and np.all(rz[neg] == ru[neg])


def test_tiny_gelu_inputs_need_more_than_float64():
    """x/2 is a bf16 midpoint for the smallest inputs; the x^2/sqrt(2 pi) term decides."""
    fmt = BF16
    bits = all_patterns(fmt)
    xs = to_values(bits, fmt)
    ok = np.isfinite(xs)
    f64 = np.array([x * 0.5 * math.erfc(-x / math.sqrt(2)) for x in xs[ok]])
    truth = oracle_table("gelu", fmt, progress=False)[ok]
    wrong = np.flatnonzero(round_to_format(f64, fmt) != truth)
    assert len(wrong) == 128  # measured: the float64 route gets exactly these wrong
    assert np.abs(xs[ok][wrong]).max() < 2.0**-125
    assert correctly_rounded("gelu", 2.0**-133, fmt)[0] == 0x0001  # above the midpoint
    assert correctly_rounded("gelu", -(2.0**-133), fmt)[0] == 0x8000  # below: -0
    for func in ("silu", "gelu_tanh"):
        assert correctly_rounded(func, 2.0**-133, fmt)[0] == 0x0001
        assert check_value(func, 2.0**-133, fmt) == 0x0001


def test_exact_cases_and_ties():
    fmt = BF16
    assert correctly_rounded("exp", 0.0, fmt) == (0x3F80,) * 4
    assert correctly_rounded("log", 1.0, fmt) == (0x0000,) * 4
    assert correctly_rounded("log2", 2.0**-130, fmt) == (0xC302,) * 4  # -130 exactly
    assert correctly_rounded("exp2", -134.0, fmt) == (0x0000, 0x0000, 0x0001, 0x0000)  # a tie
    assert correctly_rounded("sin", -0.0, fmt) == (0x8000,) * 4
    assert correctly_rounded("sigmoid", 0.0, fmt) == (0x3F00,) * 4
    assert correctly_rounded("rsqrt", 4.0, fmt) == (0x3F00,) * 4  # 1/2 exactly
    assert correctly_rounded("rsqrt", 2.0**-132, fmt) == (0x6080,) * 4  # 2^66 exactly
    assert correctly_rounded("expm1", -0.0, fmt) == (0x8000,) * 4
    assert correctly_rounded("log1p", 0.0, fmt) == (0x0000,) * 4
    assert correctly_rounded("tan", -0.0, fmt) == (0x8000,) * 4
    # expm1(-100) = -1 + 2^-144.3: -1 in nearest and down, the next value up toward zero
    assert correctly_rounded("expm1", -100.0, fmt) == (0xBF80, 0xBF7F, 0xBF7F, 0xBF80)


@pytest.mark.parametrize(("func", "x", "want"), [
    ("gelu", math.inf, 0x7F80), ("gelu", -math.inf, 0x8000), ("tanh", -math.inf, 0xBF80),
    ("exp", -math.inf, 0x0000), ("log", 0.0, 0xFF80), ("log", -1.0, 0x7FC0),
    ("sin", math.inf, 0x7FC0), ("cos", -0.0, 0x3F80), ("erfc", -math.inf, 0x4000),
    ("softplus", math.inf, 0x7F80), ("gelu_grad", -math.inf, 0x8000),
    ("tanh_grad", math.inf, 0x0000), ("silu", math.nan, 0x7FC0),
    ("rsqrt", 0.0, 0x7F80), ("rsqrt", -0.0, 0xFF80), ("rsqrt", math.inf, 0x0000),
    ("rsqrt", -1.0, 0x7FC0), ("log1p", -1.0, 0xFF80), ("log1p", -2.0, 0x7FC0),
    ("log1p", -math.inf, 0x7FC0), ("expm1", -math.inf, 0xBF80), ("expm1", math.inf, 0x7F80),
    ("tan", math.inf, 0x7FC0), ("tan", -math.inf, 0x7FC0),
])
@pytest.mark.smoke
def test_special_values(func, x, want):
    assert correctly_rounded(func, x, BF16)[0] == want
    assert check_value(func, x, BF16) == want


def test_saturation_thresholds_of_bfloat16_gelu():
    res = saturation("gelu", BF16)
    pos = {s["target"]: s for s in res["positive"]}
    neg = {s["target"]: s for s in res["negative"]}
    assert pos["x"]["threshold"] == 2.78125 and pos["x"]["threshold_hex"] == "0x4032"
    assert neg["0"]["threshold"] == -13.5625 and neg["0"]["threshold_hex"] == "0xc159"


def test_saturation_of_tanh_is_plus_minus_one():
    res = saturation("tanh", BF16)
    assert [s["target"] for s in res["positive"]] == ["1"]
    assert [s["target"] for s in res["negative"]] == ["-1"]
    assert res["positive"][0]["threshold"] == -res["negative"][0]["threshold"]


def test_denormal_policies_are_remaps(small_format):
    fmt = small_format
    bits = all_patterns(fmt)
    kinds = classify(bits, fmt)
    ieee = oracle_table("exp", fmt, progress=False)
    daz = oracle_table("exp", fmt, denormals="daz", progress=False)
    sub = kinds == Kind.SUBNORMAL
    assert np.all(daz[sub] == ieee[0]) and np.array_equal(daz[~sub], ieee[~sub])
    ftz = oracle_table("gelu", fmt, denormals="daz-ftz", progress=False)
    assert not np.any(classify(ftz, fmt) == Kind.SUBNORMAL)


def test_cache_rejects_damaged_files(tmp_path, monkeypatch):
    monkeypatch.setenv("ULPLAB_CACHE_DIR", str(tmp_path))
    arr = np.arange(300, dtype=np.uint16)
    path = cache.save("k1", arr)
    assert np.array_equal(cache.load("k1"), arr)
    assert not list(tmp_path.glob("*.tmp"))
    data = path.read_bytes()
    path.write_bytes(data[:-1] + bytes([data[-1] ^ 1]))  # one flipped bit
    with pytest.warns(RuntimeWarning, match="checksum"):
        assert cache.load("k1") is None
    assert not path.exists()
    cache.save("k1", arr)
    path.write_bytes(path.read_bytes()[:-10])  # truncated
    with pytest.warns(RuntimeWarning, match="damaged"):
        assert cache.load("k1") is None
    cache.save("k2", arr)
    (tmp_path / "k1.ulpc").write_bytes((tmp_path / "k2.ulpc").read_bytes())  # wrong key
    with pytest.warns(RuntimeWarning, match="key mismatch"):
        assert cache.load("k1") is None


def test_damaged_oracle_table_is_rebuilt_not_used(tmp_path, monkeypatch):
    monkeypatch.setenv("ULPLAB_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("ULPLAB_WORKERS", "1")
    fmt = get_format("float8_e4m3fn")
    good = oracle_table("tanh", fmt, progress=False)
    path = cache.path_for(cache_key("tanh", fmt, "nearest-even", "ieee"))
    raw = bytearray(path.read_bytes())
    raw[-3] ^= 0xFF
    path.write_bytes(bytes(raw))
    with pytest.warns(RuntimeWarning, match="checksum"):
        again = oracle_table("tanh", fmt, progress=False)
    assert np.array_equal(again, good)
