"""The function catalogue: one module per function, every part present and working."""

import ctypes
import ctypes.util
import dataclasses
import importlib.util
import math
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from flint import arb
from mpmath import mp, mpf

import ulplab.functions
from ulplab.cli.main import main
from ulplab.formats import get_format, round_to_format, to_values
from ulplab.functions import FUNCTIONS, DoubleReference, Function, Naive, Peer, Peers
from ulplab.inputs import float32_random
from ulplab.oracle import table
from ulplab.oracle.table import cache_key, evaluate, oracle_source_hash
from ulplab.ulp import ulp_distance

F32 = get_format("float32")
PACKAGE = Path(ulplab.functions.__file__).parent
NAMES = sorted(FUNCTIONS)


def test_the_registry_is_the_package_modules():
    modules = sorted(p.stem for p in PACKAGE.glob("*.py") if not p.stem.startswith("_"))
    assert modules == NAMES
    assert {"rsqrt", "log1p", "expm1", "tan"} <= set(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_every_function_has_every_part(name):
    f = FUNCTIONS[name]
    assert isinstance(f, Function) and f.definition and f.regions
    for region, lo, hi in f.regions:
        assert region and lo < hi
    assert len(f.at_inf) == 2 and all(isinstance(v, float) for v in f.at_inf)
    assert isinstance(f.double, DoubleReference) and callable(f.double.evaluate)
    assert isinstance(f.naive, Naive) and f.naive.idea and callable(f.naive.evaluate)
    assert isinstance(f.peers, Peers)
    for p in (f.peers.torch, f.peers.jax, f.peers.numpy):
        assert p is None or isinstance(p, Peer)
    assert f.derivative is None or f.derivative in FUNCTIONS
    assert callable(f.float64_form)  # the float32 oracle's fast path (else every input to Arb)
    if f.nan_below is not None:  # f is NaN below it, and not at it
        below = float(np.nextafter(np.float64(f.nan_below), -np.inf))
        assert math.isnan(float(f.exact(below))) and math.isnan(float(f.exact(-1e30)))
        assert not math.isnan(float(f.exact(f.nan_below)))  # log(0) = -inf, rsqrt(0) = inf
    x = 0.75  # inside every domain
    anchor, d, sign = f.arb_form(x, arb(x))
    assert isinstance(anchor, float) and isinstance(d, arb) and sign in (-1, 0, 1)
    assert d.is_finite()
    with mp.workprec(80):
        assert mp.isfinite(f.mpmath_form(mpf(x)))
        assert abs(float(anchor + d.mid()) - float(f.mpmath_form(mpf(x)))) < 1e-15
    assert f.exact(x) is None
    exact_zero = f.exact(0.0)
    assert exact_zero is None or isinstance(exact_zero, float | Fraction)
    with np.errstate(all="ignore"):
        naive = f.naive.evaluate(np.array([x], dtype=np.float32))
        double = f.double.evaluate(np.array([x]))
    assert naive.dtype == np.float32 and double.dtype == np.float64
    assert abs(float(naive[0]) - float(double[0])) < 1e-5 * max(1.0, abs(float(double[0])))


@pytest.mark.parametrize("name", NAMES)
def test_double_reference_is_within_one_float32_ulp_of_the_oracle(name):
    """What ``faithful`` relies on: the double value rounded to float32 is the correctly rounded
    result or its neighbour (outside the module's declared cancellation window)."""
    reference = FUNCTIONS[name].double
    x = float32_random(400, seed=5)
    x = x[np.isfinite(x)]
    if reference.oracle_between is not None:
        lo, hi = reference.oracle_between
        x = x[(x <= lo) | (x >= hi)]
    with np.errstate(all="ignore"):
        v = reference.evaluate(x.astype(np.float64))
    got = round_to_format(v, F32)
    truth = evaluate(name, to_values(x.view(np.uint32), F32), F32)
    both_nan = np.isnan(v) & np.isnan(to_values(truth, F32))
    u = ulp_distance(got, truth, F32)  # -1 where one side is infinite: then the bits must match
    ok = both_nan | (got == truth) | ((u >= 0) & (u <= 1))
    assert np.all(ok), x[~ok][:4]


@pytest.mark.parametrize("library", ["torch", "jax", "numpy"])
def test_named_peers_exist(library):
    pytest.importorskip(library)
    from ulplab.backends import _peer_callable

    named = [n for n in NAMES if getattr(FUNCTIONS[n].peers, library) is not None]
    assert named
    for name in named:
        assert callable(_peer_callable(name, library)), name


def test_named_libm_functions_exist():
    path = ctypes.util.find_library("m")
    if path is None:
        pytest.skip("no C math library")
    libm = ctypes.CDLL(path)
    named = [FUNCTIONS[n].peers.libm for n in NAMES if FUNCTIONS[n].peers.libm]
    assert "log1pf" in named and "tanf" in named
    for c_name in named:
        assert hasattr(libm, c_name), c_name


def test_ulplab_functions_lists_the_registry(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    extra = dataclasses.replace(FUNCTIONS["exp"], name="exp_listed_from_registry")
    monkeypatch.setitem(FUNCTIONS, extra.name, extra)
    assert main(["functions"]) == 0
    out = capsys.readouterr().out
    for name in FUNCTIONS:
        assert f" {name} " in out, name


def test_cache_key_is_a_hash_of_the_oracle_source(monkeypatch):
    fmt = get_format("bfloat16")
    key = cache_key("log2", fmt, "nearest-even", "ieee")
    assert key.endswith(oracle_source_hash("log2")) and len(oracle_source_hash("log2")) == 16
    assert oracle_source_hash("log2") != oracle_source_hash("log")
    files = {p.name for p in table._function_files("log2")}
    assert {"log2.py", "log.py", "_parts.py", "_shared.py"} <= files
    assert "exp.py" not in files
    read = Path.read_bytes

    def edited(path):  # an edit of log.py changes log and log2, not exp
        return read(path) + (b"# edit\n" if path.name == "log.py" else b"")

    before = {f: oracle_source_hash(f) for f in ("log", "log2", "exp")}
    oracle_source_hash.cache_clear()
    monkeypatch.setattr(Path, "read_bytes", edited)
    try:
        after = {f: oracle_source_hash(f) for f in ("log", "log2", "exp")}
    finally:
        monkeypatch.undo()
        oracle_source_hash.cache_clear()
    assert after["log"] != before["log"] and after["log2"] != before["log2"]
    assert after["exp"] == before["exp"]


@pytest.mark.skipif(importlib.util.find_spec("flint") is None, reason="python-flint missing")
def test_faithful_runs_without_torch_or_jax():
    code = ("import sys; sys.modules['torch'] = None; sys.modules['jax'] = None\n"
            "from ulplab.cli.main import main\n"
            "sys.exit(main(['faithful', 'exp', '--samples', '20000', '--seed', '3']))\n")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300)
    assert res.returncode == 0, res.stdout + res.stderr
    assert "20000" in res.stdout


def test_rsqrt_exact_cases_are_the_powers_of_four():
    exact = FUNCTIONS["rsqrt"].exact
    assert exact(4.0) == Fraction(1, 2) and exact(2.0**-132) == Fraction(2**66)
    assert exact(2.0) is None and exact(2.25) is None  # 1/sqrt 2 irrational; 2/3 not dyadic
    assert math.copysign(1, exact(-0.0)) < 0 and math.isinf(exact(-0.0))
    assert math.isnan(exact(-4.0))
