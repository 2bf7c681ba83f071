"""The first passes of the compiled float32 runner (``KERNELS[..]["first_pass"]``): each gives the
float32 entry point's bits wherever it does not flag, on special values, thresholds, the
exception tables, random bit patterns and ordinary inputs; uses float32 arithmetic only; flags
few ordinary inputs; and stays within its stated bound (measured against Arb). Over all 2^32
inputs the runner's bits are checked by ``benchmarks/verify_native.py`` (each module's docstring
gives the run)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ulplab.analysis.first_pass import CASES, measure
from ulplab.export import det_kernel
from ulplab.kernels import core, exceptions, registry
from ulplab.kernels import log as klog
from ulplab.kernels import trig as ktrig
from ulplab.kit import fma, run_guarded
from ulplab.methods import all_methods

f32 = np.float32
FIRST = sorted(m.function for m in all_methods()
               if m.name == "det" and registry.get(m.function).entry().get("first_pass"))
# the thresholds each first pass selects or branches at (both signs are tried, +-4 ulps)
THRESHOLDS = {
    "exp": [-86.5, 88.7, 88.72283, -103.97208, 2.0**-25, 0.0054],
    "log": [1.0, 2.0**-126, 0.70117, 1.40234, 0.998046875, 1.00390625, 3.4e38],
    "sigmoid": [18.0, -86.5, -103.97208, 2.0**-26, 2.0**-125],
    "silu": [18.0, -86.5, -110.0, 2.0**-26, 2.0**-125],
    "tanh": [2.0**-13, 0.0625, 9.125, 0.125],
    "sin": [2.0**-12, 4096.0, np.pi / 4, np.pi / 2, np.pi, 1000 * np.pi],
    "cos": [2.0**-12, 4096.0, np.pi / 4, np.pi / 2, np.pi, 1000 * np.pi],
    "gelu": [-12.5, -14.5, 9.0, 2.0**-27, 2.0**-125, 0.7071, 1.4142, 2.1213, 2.8284, 4.2426],
}
ORDINARY = {"exp": (-80, 80), "log": (1e-3, 1e3), "sigmoid": (-8, 8), "silu": (-8, 8),
            "tanh": (-8, 8), "sin": (-100, 100), "cos": (-100, 100), "gelu": (-8, 8)}
# flagged share of 2^16 uniform inputs over ORDINARY (seed 5), measured: exp 1.5e-4,
# log 2.4e-4, sigmoid 1.7e-4, silu 1.4e-4, tanh 9.6e-4 (its 2^-35 bound), sin 3.5e-4,
# cos 5.2e-4, gelu 5.8e-4; asserted with a factor of 3
FLAG_SHARE = {"exp": 5e-4, "log": 8e-4, "sigmoid": 5e-4, "silu": 5e-4, "tanh": 3e-3,
              "sin": 1.2e-3, "cos": 1.6e-3, "gelu": 1.8e-3}


def test_every_first_pass_is_tested() -> None:
    assert FIRST == sorted(THRESHOLDS) == sorted(CASES) == sorted(FLAG_SHARE)


def _inputs(func: str) -> np.ndarray:
    rng = np.random.default_rng(7)
    near = []
    for t in THRESHOLDS[func]:
        b = int(np.array([t], f32).view(np.uint32)[0])
        near.extend(b + d for d in range(-4, 5))
    near_bits = np.array(near, np.uint32)
    special = np.array([0, 0x80000000, 1, 0x80000001, 0x007FFFFF, 0x00800000, 0x7F7FFFFF,
                        0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00000, 0x7F800001, 0x3F800000,
                        0xBF800000], np.uint32)
    parts = [special, near_bits, near_bits | np.uint32(0x80000000),
             rng.integers(0, 2**32, 1 << 16, dtype=np.uint64).astype(np.uint32),
             rng.uniform(*ORDINARY[func], 1 << 16).astype(f32).view(np.uint32)]
    table = exceptions.table(func)
    if table is not None:
        parts += [table.keys, table.keys + np.uint32(1), table.keys - np.uint32(1)]
    return np.concatenate(parts).view(f32)


def _flagged(y: np.ndarray) -> np.ndarray:
    return (y.view(np.uint32) & np.uint32(0x7FFFFFFF)) == core.FLAG_NAN


@pytest.mark.parametrize("func", FIRST)
def test_first_pass_gives_the_entry_point_bits_where_it_decides(func: str) -> None:
    x = _inputs(func)
    first = registry.get(func).entry()["first_pass"]
    with np.errstate(all="ignore"):
        got = first(x)
        want = det_kernel(func, "float32")(x)
    keep = ~_flagged(got)
    assert keep.mean() > 0.4
    bad = np.flatnonzero(got.view(np.uint32)[keep] != want.view(np.uint32)[keep])
    assert bad.size == 0, [hex(int(v)) for v in x.view(np.uint32)[keep][bad[:5]]]


@pytest.mark.parametrize("func", FIRST)
def test_first_pass_is_float32_arithmetic_only(func: str) -> None:
    x = _inputs(func)[:5000]
    first = registry.get(func).entry()["first_pass"]
    with np.errstate(all="ignore"):
        guarded = run_guarded(first, x)
        plain = first(x)
    assert np.array_equal(guarded.view(np.uint32), plain.view(np.uint32))


@pytest.mark.parametrize("func", FIRST)
def test_first_pass_flags_few_ordinary_inputs(func: str) -> None:
    x = np.random.default_rng(5).uniform(*ORDINARY[func], 1 << 16).astype(f32)
    with np.errstate(all="ignore"):
        share = _flagged(registry.get(func).entry()["first_pass"](x)).mean()
    assert share < FLAG_SHARE[func]


@pytest.mark.parametrize("func", FIRST)
def test_first_pass_error_is_under_its_bound(func: str) -> None:
    """The measured error (2^14 inputs here; each docstring gives the 2 x 2^22 run) stays at
    least a factor 3 under the stated bound: a first pass made less accurate fails this."""
    err, _, bound = measure(func, 1 << 14, seed=3)
    assert err < bound - 1.5


def test_log_table_allows_fast_two_sum() -> None:
    """log's first pass adds r to LOGC_HI by fast_two_sum: in every table interval LOGC_HI's
    exponent is at least that of every r (or LOGC_HI = 0), checked over every z."""
    for i in range(klog.N_TABLE):
        z = np.arange(klog.OFF + i * 2**16, klog.OFF + (i + 1) * 2**16,
                      dtype=np.uint32).view(f32)
        r = fma(z, np.full_like(z, klog.INVC[i]), np.full_like(z, f32(-1.0)))
        lc = klog.LOGC_HI[i]
        if lc != 0:
            assert np.frexp(np.abs(r))[1].max() <= np.frexp(np.abs(lc))[1], i


def test_trig_first_pass_constants_regenerate() -> None:
    c = ktrig.first_pass_constants()
    for name in ("SIN_K", "COS_K"):
        ours = getattr(ktrig, name)
        assert len(c[name]) == len(ours)
        for a, b in zip(c[name], ours, strict=True):
            assert np.array_equal(np.asarray(a, f32), np.asarray(b, f32)), name


def _half_ulps(hi: float) -> tuple[Fraction, Fraction]:
    """(below, above): half the gaps from hi to its float32 neighbours."""
    h = np.array([hi], f32)
    up = np.nextafter(h, f32(np.inf))[0]
    down = np.nextafter(h, f32(-np.inf))[0]
    return (Fraction(float(h[0])) - Fraction(float(down))) / 2, \
        (Fraction(float(up)) - Fraction(float(h[0]))) / 2


@settings(max_examples=400, deadline=None)
@given(st.integers(0x0C800000, 0x7E7FFFFF), st.floats(-1.0, 1.0), st.booleans(),
       st.sampled_from([2.0**-35, 2.0**-37, 2.0**-38]), st.integers(-125, 0))
def test_first_pass_rounding_test_decides_only_safe_pairs(hb: int, frac: float, neg: bool,
                                                          bound: float, m: int) -> None:
    """Where ``first_pass_result`` / ``first_pass_scaled`` keep hi, every value within
    bound |hi| of hi + lo rounds to hi (checked exactly with fractions, powers of two and lo
    at any fraction of the half ulp, midpoints included), and the scaled result is hi 2^m."""
    hi = np.array([hb], np.uint32).view(f32)
    below, above = _half_ulps(float(hi[0]))
    lo = np.array([frac * float(above)], f32)
    if neg:
        hi, lo = -hi, -lo
    got = core.first_pass_result(hi, lo, bound)
    if _flagged(got)[0]:
        return
    assert got[0] == hi[0]
    v = Fraction(float(hi[0])) + Fraction(float(lo[0]))
    slack = Fraction(bound) * abs(Fraction(float(hi[0])))
    lo_gap, hi_gap = (below, above) if hi[0] > 0 else (above, below)
    assert Fraction(float(hi[0])) - lo_gap < v - slack
    assert v + slack < Fraction(float(hi[0])) + hi_gap
    if abs(float(hi[0])) >= 0.5 and abs(float(hi[0])) < 2:
        with np.errstate(all="ignore"):
            scaled = core.first_pass_scaled(hi, lo, np.array([m], np.int32), bound)
        assert scaled[0] == f32(float(hi[0]) * 2.0**m)


def test_first_pass_scaled_flags_out_of_range_scalings() -> None:
    hi = np.array([1.5, 1.5, 1.5], f32)
    lo = np.zeros(3, f32)
    got = core.first_pass_scaled(hi, lo, np.array([-126, 128, 127], np.int32), 2.0**-38)
    assert _flagged(got[:2]).all() and got[2] == f32(1.5 * 2.0**127)


@pytest.mark.parametrize("argv", [["gelu_tanh"], ["exp", "--n", "0"], ["exp", "--seed", "-1"],
                                  ["exp", "--n", "x"], ["exp", "--n", "1e3"], [""], []])
def test_first_pass_cli_refuses_odd_requests(argv, capsys):
    from ulplab.analysis.first_pass import main

    try:
        code = main(argv)
    except SystemExit as exc:  # argparse's own refusals
        code = exc.code
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) >= 1 and "Traceback" not in "\n".join(err)
    assert err[-1].startswith(("error:", "usage:")) or "error:" in err[-1]
