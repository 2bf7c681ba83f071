"""Every float32: the oracle's fast path against Arb, and the chunked / resumable / Dask sweeps."""

import json

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from conftest import assert_bits_equal, needs
from ulplab.backends import BACKENDS, _libm, _libm_loop, _libm_note
from ulplab.cli.main import main
from ulplab.errors import UsageError
from ulplab.formats import get_format
from ulplab.functions import FUNCTIONS
from ulplab.methods import get_method
from ulplab.oracle.fast32 import FAST_FORMS, correctly_rounded32, decide64
from ulplab.oracle.table import evaluate
from ulplab.oracle.ziv import correctly_rounded_array
from ulplab.sweep import analyze
from ulplab.sweep.exhaustive import (
    Job,
    Partial,
    float32_bit_ranges,
    load_checkpoint,
    resolve_method,
    run_job,
    save_checkpoint,
)

F32 = get_format("float32")


def _fast_path_inputs(func: str, n: int = 10_000) -> np.ndarray:
    """n float32 inputs: random bit patterns, random values at several scales, and the 30% of a
    larger random pool that the fast path decides closest to a rounding boundary."""
    rng = np.random.default_rng(sum(map(ord, func)))
    patterns = rng.integers(0, 2**32, 4 * n // 10, dtype=np.uint64).astype(np.uint32)
    scales = rng.choice([2.0**-20, 0.01, 0.5, 1.0, 3.0, 10.0, 100.0], 3 * n // 10)
    values = (rng.standard_normal(3 * n // 10) * scales).astype(np.float32)
    pool = np.concatenate([
        rng.integers(0, 2**32, 10 * n, dtype=np.uint64).astype(np.uint32).view(np.float32),
        (rng.standard_normal(10 * n) * rng.choice([0.1, 1.0, 4.0, 30.0], 10 * n))
        .astype(np.float32)])
    pool = pool[np.isfinite(pool) & (pool != 0)]
    d = decide64(func, pool.astype(np.float64))
    with np.errstate(all="ignore"):
        r32 = d.y.astype(np.float32).astype(np.float64)
        slack = np.abs(d.y - r32) / d.margin  # near a float32 value ...
        half = np.abs(np.abs(d.y - r32) - np.abs(np.spacing(r32.astype(np.float32))) / 2)
        slack = np.minimum(slack, half / d.margin)  # ... or a midpoint
    slack = np.where(d.ok, np.nan_to_num(slack, nan=np.inf), np.inf)
    near = pool[np.argsort(slack, kind="stable")[: n - patterns.size - values.size]]
    return np.concatenate([patterns.view(np.float32), values, near])


@pytest.mark.parametrize("func", sorted(FAST_FORMS))
def test_fast_path_agrees_with_arb(func):
    """10^4 inputs per function, 30% of them the nearest to a boundary: 0 disagreements."""
    x = _fast_path_inputs(func)
    got, arb = correctly_rounded32(func, x)
    with np.errstate(invalid="ignore"):
        x64 = x.astype(np.float64)
    expected = correctly_rounded_array(func, x64, F32)[0]
    assert_bits_equal(got, expected, F32, x64, what=f"{func} fast-path")
    assert arb < x.size // 20  # the fast path decides (nearly) all of them


@pytest.mark.parametrize("func", ["exp", "gelu", "sin", "log2", "sigmoid", "erfc"])
@pytest.mark.parametrize("rounding,denormals", [("toward-zero", "ieee"), ("up", "daz"),
                                                ("down", "ftz"), ("nearest-even", "daz-ftz")])
def test_fast_path_other_modes(func, rounding, denormals):
    x = _fast_path_inputs(func, 1500)
    x = np.concatenate([x, np.array([1e-45, -1e-45, 1e-40, -3e-39], np.float32)])
    got, _ = correctly_rounded32(func, x, rounding, denormals)
    with np.errstate(invalid="ignore"):
        x64 = x.astype(np.float64)
    assert_bits_equal(got, evaluate(func, x64, F32, rounding, denormals), F32, x64)


@given(func=st.sampled_from(sorted(FAST_FORMS)), x=st.floats(width=32, allow_nan=False))
def test_fast_path_property(func, x):
    got, _ = correctly_rounded32(func, np.array([x], np.float32))
    assert_bits_equal(got, correctly_rounded_array(func, np.array([x]), F32)[0], F32,
                      np.array([x]))


def test_fast_path_special_inputs():
    bits = np.array([0x7FC00000, 0x7F800001, 0xFFC00123, 0x7F800000, 0xFF800000, 0, 0x80000000,
                     0xBF800000, 0x3F800000, 0x00000001, 0x80000001], np.uint32)
    for func in FAST_FORMS:
        got, arb = correctly_rounded32(func, bits.view(np.float32))
        with np.errstate(invalid="ignore"):  # the signalling NaN is quieted
            x64 = bits.view(np.float32).astype(np.float64)
        assert_bits_equal(got, correctly_rounded_array(func, x64, F32)[0], F32, x64)
        assert arb <= 8


def test_bit_ranges():
    assert float32_bit_ranges(0.5, 1.0) == ((0x3F000000, 0x3F800001),)
    assert float32_bit_ranges(-2.0, -1.0) == ((0xBF800000, 0xC0000001),)
    assert float32_bit_ranges(-1.0, 2.0) == ((0, 0x40000001), (0x80000000, 0xBF800001))
    assert float32_bit_ranges(0.0, 0.0) == ((0, 1), (0x80000000, 0x80000001))
    with pytest.raises(UsageError):
        float32_bit_ranges(2.0, 1.0)


_RANGES = ((0x3F7FF000, 0x3F801000), (0xC2A00000, 0xC2A01800), (0x7F7FF000, 0x7F800800))


def _strip(report):
    return {k: v for k, v in report.items() if k not in ("seconds", "inputs_per_second",
                                                         "resumed_inputs")}


def test_sweep_matches_the_16bit_statistics():
    """The chunked engine on ranges gives summarize's figures for the same inputs."""
    job = Job("exp", ("det", "f32-naive"), _RANGES, chunk=1000, worst=6)
    res = run_job(job, workers=1, progress=False)
    bits = np.concatenate([np.arange(lo, hi) for lo, hi in _RANGES]).astype(np.uint32)
    ref = analyze([get_method("exp", "det"), get_method("exp", "f32-naive")], "exp", "float32",
                  worst=6, progress=False, bits=bits)
    for mine, theirs in zip(res["methods"], ref["methods"], strict=True):
        assert mine.pop("mean_ulp") == pytest.approx(theirs.pop("mean_ulp"), rel=1e-12)
        for name, r in mine["regions"].items():
            assert r.pop("mean_ulp") == pytest.approx(theirs["regions"][name].pop("mean_ulp"),
                                                      rel=1e-12)
        assert mine == theirs
    assert res["input_count"] == bits.size


def test_results_do_not_depend_on_chunking():
    runs = [_strip(run_job(Job("gelu", ("det", "f32-naive"), _RANGES, chunk=c, worst=4),
                           workers=1, progress=False)) for c in (512, 4096, 1 << 20)]
    for r in runs:
        r.pop("input_count")
    assert runs[0] == runs[1] == runs[2]


@needs("dask", "distributed")
def test_dask_local_cluster_matches_single_process():
    job = Job("tanh", ("det", "f32-naive"), ((0x3E000000, 0x3E000000 + (1 << 17)),
                                            (0xBF400000, 0xBF400000 + (1 << 16))),
              chunk=1 << 15, worst=5)
    single = run_job(job, workers=1, progress=False)
    cluster = run_job(job, workers=2, progress=False)
    assert _strip(cluster) == _strip(single)


@pytest.mark.slow
@needs("dask", "distributed")
def test_existing_dask_cluster_by_address():
    """--scheduler tcp://HOST:PORT: the same job on a cluster that was already running."""
    from distributed import LocalCluster

    job = Job("exp", ("det",), ((0x3F000000, 0x3F000000 + (1 << 16)),), chunk=1 << 14)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None, host="127.0.0.1") as cluster:
        remote = run_job(job, scheduler=cluster.scheduler_address, progress=False)
    assert _strip(remote) == _strip(run_job(job, workers=1, progress=False))


def test_interrupted_sweep_resumes_to_identical_results(tmp_path):
    job = Job("sin", ("det", "f32-naive"), _RANGES, chunk=1024, worst=5, dump_above=0)
    whole = run_job(job, workers=1, progress=False)
    ckpt = tmp_path / "sin.ckpt"

    def stop_after_three(n):
        if n == 3:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_job(job, workers=1, progress=False, checkpoint=ckpt, on_chunk=stop_after_three)
    done, state = load_checkpoint(ckpt, job)
    assert len(done) == 3 and state.inputs == 3 * 1024
    seen = []
    resumed = run_job(job, workers=1, progress=False, checkpoint=ckpt, on_chunk=seen.append)
    assert len(seen) == len(job.chunks()) - 3  # only the rest ran
    assert _strip(resumed) == _strip(whole)


def test_checkpoint_refuses_damage_and_other_jobs(tmp_path):
    job = Job("exp", ("det",), ((0x3F800000, 0x3F800400),), chunk=256)
    ckpt = tmp_path / "exp.ckpt"
    run_job(job, workers=1, progress=False, checkpoint=ckpt)
    with pytest.raises(UsageError, match="another job"):
        load_checkpoint(ckpt, Job("exp", ("f32-naive",), job.ranges, chunk=256))
    data = json.loads(ckpt.read_text())
    data["body"]["state"]["inputs"] += 1
    ckpt.write_text(json.dumps(data))
    with pytest.raises(UsageError, match="damaged"):
        load_checkpoint(ckpt, job)
    save_checkpoint(ckpt, job, [], Partial())
    assert load_checkpoint(ckpt, job)[0] == set()


BROKEN = """
import numpy as np

WRONG = np.array([0x3F800123, 0x3F800800, 0x3F800BFF], np.uint32)


def broken_exp(x):
    y = np.exp(x)
    hit = np.isin(x.view(np.uint32), WRONG)
    y.view(np.uint32)[hit] += 5
    return y
"""


def test_a_wrong_method_is_caught_at_the_exact_inputs(tmp_path, monkeypatch):
    (tmp_path / "broken_kernels.py").write_text(BROKEN)
    monkeypatch.syspath_prepend(str(tmp_path))
    dump = tmp_path / "above.tsv"
    job = Job("exp", ("callable:broken_kernels:broken_exp", "peer:numpy"),
              ((0x3F800000, 0x3F800C00),), chunk=1000, worst=3, dump_above=3)
    res = run_job(job, workers=1, progress=False, dump_path=dump)
    broken, numpy_exp = res["methods"]
    assert numpy_exp["max_ulp"] <= 1 and res["dumped"] == 3
    assert sorted(w["hex"] for w in broken["worst"]) == ["0x3f800123", "0x3f800800",
                                                          "0x3f800bff"]
    rows = dump.read_text().splitlines()[1:]
    assert [r.split("\t")[1] for r in rows] == ["0x3f800123", "0x3f800800", "0x3f800bff"]


def test_cli_exhaustive_range(tmp_path, capsys):
    out = tmp_path / "r.json"
    dump = tmp_path / "d.tsv"
    assert main(["analyze", "exp", "--format", "float32", "--method", "det,peer:numpy",
                 "--exhaustive", "--range", "-0x1p-146", "0x1p-146", "--workers", "1",
                 "--quiet", "--json", str(out), "--dump-above", "0", "-o", str(dump)]) == 0
    res = json.loads(out.read_text())
    assert res["input_count"] == 2 * 9  # ±0 and the 8 subnormals up to 2^-146, each sign
    assert [m["method"] for m in res["methods"]] == ["det", "peer:numpy"]
    assert "decided by Arb" in capsys.readouterr().out
    assert main(["peers", "exp", "--format", "float32", "--exhaustive", "--range", "1", "1.001",
                 "--backends", "numpy", "--workers", "1", "--quiet"]) == 0


@pytest.mark.parametrize("argv", [
    ["analyze", "exp", "--format", "bfloat16", "--exhaustive"],
    ["analyze", "exp", "--format", "float32", "--exhaustive", "--dump-above", "1"],
    ["analyze", "exp", "--format", "float32", "--exhaustive", "--method", "peer:nope"],
    ["analyze", "exp", "--format", "float32", "--exhaustive", "--scheduler", "localhost:1"],
    ["analyze", "exp", "--format", "float32", "--exhaustive", "--chunk", "0"],
])
def test_cli_exhaustive_usage_errors(argv, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("ulplab: error:") and len(err.strip().splitlines()) == 1


LIBM_FUNCS = sorted(n for n, f in FUNCTIONS.items() if f.peers.libm)
_SPREAD = np.arange(0, 1 << 32, 65_521, dtype=np.int64).astype(np.uint32)  # every class, NaNs


def _same_float32_bits(a, b):
    nan_a, nan_b = np.isnan(a), np.isnan(b)
    assert np.array_equal(nan_a, nan_b)
    assert_bits_equal(a.view(np.uint32)[~nan_a], b.view(np.uint32)[~nan_b], F32)


@pytest.mark.parametrize("func", LIBM_FUNCS)
def test_libm_compiled_loop_gives_the_ctypes_bits(func):
    """The libm peer's compiled loop calls the same C function as the per-element ctypes call:
    the same bits on 65,552 patterns spread over all 2^32 (every sign, binade, NaN)."""
    compiled, _ = BACKENDS["libm"].make(func, F32, False)
    per_element, _ = _libm(func, F32, False, compiled=False)
    x = _SPREAD.view(np.float32)
    _same_float32_bits(compiled(x), per_element(x))
    assert compiled.__qualname__ != per_element.__qualname__  # the loop, not the fallback


def test_libm_without_a_compiler_falls_back_with_a_note(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("ULPLAB_CACHE_DIR", str(tmp_path))  # no cached build to find
    monkeypatch.setenv("CC", str(tmp_path / "no-such-cc"))
    _libm_loop.cache_clear()
    _libm_note.cache_clear()
    try:
        fn, _ = _libm("exp", F32, False)
        _libm("exp", F32, False)  # noted once per process, not per call
    finally:
        _libm_loop.cache_clear()
        _libm_note.cache_clear()
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("note: libm expf runs through ctypes")
    x = _SPREAD[::16].view(np.float32)
    _same_float32_bits(fn(x), _libm("exp", F32, False, compiled=False)[0](x))


def test_det_sweeps_through_the_compiled_kernel(monkeypatch):
    from ulplab.sweep import exhaustive

    assert resolve_method("exp", "det").impl.__name__ == "ulplab_exp_native"
    assert resolve_method("exp", "det-odd").impl.__name__ == "ulplab_exp_native_odd"
    exhaustive._compiled_det.cache_clear()
    monkeypatch.setattr(exhaustive, "_same_bits", lambda a, b: False)
    try:  # a compiled kernel that disagrees with the NumPy definition is not used
        for spec in ("det", "det-odd"):
            m = resolve_method("exp", spec)
            assert m.takes == "float32" and m.impl is get_method("exp", spec).float32_impl
    finally:
        exhaustive._compiled_det.cache_clear()


def test_results_do_not_depend_on_the_block():
    runs = [_strip(run_job(Job("sin", ("peer:libm", "f32-naive"), _RANGES, chunk=4096,
                               worst=4, block=b), workers=1, progress=False))
            for b in (100, 1 << 10, 1 << 17)]
    assert runs[0] == runs[1] == runs[2]


def test_cli_peers_exhaustive_report_card(tmp_path, capsys):
    """`ulplab peers FUNC --format float32 --exhaustive`: NumPy and the C library, end to end;
    [1, 1.01] holds 83,887 float32 inputs."""
    out = tmp_path / "card.json"
    assert main(["peers", "exp", "--format", "float32", "--exhaustive", "--range", "1", "1.01",
                 "--backends", "numpy,libm", "--workers", "1", "--quiet",
                 "--json", str(out)]) == 0
    res = json.loads(out.read_text())
    assert res["input_count"] == 83_887 and res["resumed_inputs"] == 0
    numpy_exp, libm_exp = res["methods"]
    assert (numpy_exp["method"], libm_exp["method"]) == ("peer:numpy", "peer:libm")
    # measured on an AVX2 (AMD EPYC) machine: NumPy 2 ULP, glibc 1 ULP; each CPU's SIMD loop
    # may differ, so these are bounds
    assert 0 < numpy_exp["max_ulp"] <= 2 and 0 < libm_exp["max_ulp"] <= 1
    assert numpy_exp["nan_mismatches"] == libm_exp["nan_mismatches"] == 0
    assert "83,887 inputs in" in capsys.readouterr().out


def test_the_sweep_keeps_its_heap():
    """glibc takes both mallopt settings (the ~3x of README "Every float32")."""
    import platform

    from ulplab.sweep.exhaustive import _steady_heap

    if platform.system() != "Linux" or platform.libc_ver()[0] != "glibc":
        pytest.skip("mallopt is glibc's")
    assert _steady_heap() is True
