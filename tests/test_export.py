"""Same bits everywhere: the exported kernels on NumPy, PyTorch, JAX and C against ulplab's own.

Traps covered, each by name:
* FMA contraction: C is built with -ffp-contract=off; built with -ffp-contract=fast the same source
  gives other bits (test_fma_contraction_changes_bits), so the flag is load-bearing.
* XLA reassociation: the JAX export puts optimization barriers around arithmetic; TwoSum steps
  survive (the JAX rows of test_backends_give_identical_bits).
* Flush-to-zero / denormals-are-zero: JAX on CPU flushes subnormals even in float32 (see
  tests/test_peers.py); the kernels build subnormal results from integers and decide tiny inputs
  on their bits, and the JAX rows cover every subnormal bfloat16/float16 input.
* float64 promotion: every kernel runs under the float32 guard (tests/test_methods.py).
* NaN payloads and signs, -0.0: the special set holds signalling and negative NaNs and -0; every
  NaN result is the canonical 0x7FC00000.
* Vector vs scalar paths: one-element calls against long arrays, on every backend.
"""

import importlib.util
import json
import re
import shutil
import subprocess

import numpy as np
import pytest

from conftest import missing, needs, with_needs
from ulplab.export import DEFAULT_BACKENDS as BACKENDS
from ulplab.export import determinism, export_source, golden_hash, load
from ulplab.kernels import registry

DET = sorted(registry.functions())


def test_every_function_of_the_issue_has_a_kernel():
    assert set(DET) >= {"exp", "exp2", "log", "log2", "sin", "cos", "tanh", "sigmoid",
                        "softplus", "silu", "erf", "gelu", "gelu_tanh", "rsqrt", "log1p", "expm1",
                        "tan"}


@needs("torch", "jax")
@pytest.mark.parametrize("func", DET)
def test_backends_give_identical_bits(func):
    # 30,000 random in the default tier (the whole suite's time; the golden hashes below add
    # 2^20 random inputs per backend); 10^7 in the slow one below
    res = determinism(func, BACKENDS, samples=30_000)
    assert not res["skipped"], res["skipped"]
    for row in res["backends"]:
        assert row["mismatches"] == 0, row
        assert row["checked"] > 160_000  # 133,191 fixed inputs + 30,000 random


@pytest.mark.slow
@needs("torch", "jax")
@pytest.mark.parametrize("func", DET)
def test_backends_identical_on_ten_million_inputs(func):
    res = determinism(func, BACKENDS, samples=10_000_000)
    assert all(r["mismatches"] == 0 for r in res["backends"]) and not res["skipped"]


@pytest.mark.parametrize("rounding", ["float32", "odd"])
@pytest.mark.parametrize("func", DET)
def test_golden_hashes(func, rounding):
    """Both entry points' bits on the golden set, NumPy kernel and every backend, against the
    hashes of the registry."""
    want = registry.get(func).golden[rounding]
    assert golden_hash(func, rounding=rounding) == want, "the NumPy kernel's bits changed"
    for b in ("c", "torch", "jax"):
        if missing(b):  # after NumPy and C are checked
            pytest.skip(f"needs {b} (not installed)")
        assert golden_hash(func, load(func, b, rounding)) == want, b


@pytest.mark.parametrize("backend", with_needs(BACKENDS))
def test_scalar_and_vector_paths_agree(backend):
    fn = load("gelu", backend)
    xs = np.random.default_rng(3).integers(0, 2**32, 3000, dtype=np.uint64).astype(
        np.uint32).view(np.float32)
    long = fn(xs).view(np.uint32)
    single = np.array([fn(xs[i:i + 1]).view(np.uint32)[0] for i in range(0, 3000, 61)])
    assert np.array_equal(single, long[::61])


@needs("torch", "jax")
def test_nan_inputs_give_the_canonical_nan_everywhere():
    xs = np.array([0x7FC00000, 0xFFC00000, 0x7F800001, 0xFFBFFFFF, 0x7FFFFFFF],
                  np.uint32).view(np.float32)
    for b in BACKENDS:
        for func in ("exp", "sin", "gelu"):
            assert np.all(load(func, b)(xs).view(np.uint32) == 0x7FC00000), (b, func)


def test_fma_contraction_changes_bits(tmp_path):
    """The exporter's C with -ffp-contract=off keeps a product and a sum apart; with =fast the
    compiler fuses them into an FMA and the bits change (an affine kernel shows it plainly)."""
    import ctypes

    from ulplab.export.emit_c import emit_c
    from ulplab.export.trace import trace

    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler")

    def affine(x):
        return x * np.float32(1.1) + np.float32(0.3)

    src = tmp_path / "k.c"
    src.write_text(emit_c(trace(affine), "affine", "test"))
    xs = np.linspace(-80, 80, 200_001, dtype=np.float32)
    outs = {}
    for flag in ("off", "fast"):
        so = tmp_path / f"k_{flag}.so"
        subprocess.run([cc, "-O2", f"-ffp-contract={flag}", "-mfma", "-shared", "-fPIC",
                        str(src), "-o", str(so), "-lm"], check=True)
        out = np.empty_like(xs)
        p = ctypes.POINTER(ctypes.c_float)
        ctypes.CDLL(str(so)).affine(xs.ctypes.data_as(p), out.ctypes.data_as(p),
                                    ctypes.c_long(xs.size))
        outs[flag] = out.view(np.uint32)
    assert np.array_equal(outs["off"], affine(xs).view(np.uint32))
    assert not np.array_equal(outs["fast"], outs["off"])  # contracted into an FMA: other bits


@needs("torch", "jax")
def test_export_header_and_cli(tmp_path, capsys):
    from ulplab.cli.main import main

    src = export_source("sigmoid", "c")
    assert "Generated by: ulplab export sigmoid --lang c" in src and "ffp-contract=off" in src
    assert "0x" in src and "fmaf(" in src
    out = tmp_path / "k.py"
    assert main(["export", "tanh", "--lang", "torch", "-o", str(out)]) == 0
    assert "import torch" in out.read_text() and "import numpy" not in out.read_text()
    jax_src = export_source("tanh", "jax")
    assert "import jax" in jax_src and "import numpy" not in jax_src
    assert not re.search(r"(?<![j\w])np\.", jax_src)
    assert main(["export", "tanh", "--lang", "rust"]) == 2
    assert "unknown language 'rust'; valid: c, numpy, torch, jax" in capsys.readouterr().err
    j = tmp_path / "d.json"
    assert main(["determinism", "exp2", "--samples", "1000", "--json", str(j)]) == 0
    rows = json.loads(j.read_text())["backends"]
    assert {r["backend"] for r in rows} == set(BACKENDS)
    assert all({"backend", "checked", "mismatches"} <= set(r) for r in rows)


def test_exported_numpy_module_is_det_bit_for_bit(tmp_path):
    """``ulplab export exp --lang numpy`` (the default entry point) gives the bits of
    ``ulplab.det.exp`` on 10^6 random float32 patterns: det means one thing."""
    from ulplab import det
    from ulplab.cli.main import main

    path = tmp_path / "exp_export.py"
    assert main(["export", "exp", "--lang", "numpy", "-o", str(path)]) == 0
    spec = importlib.util.spec_from_file_location("exp_export", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    x = np.random.default_rng(18).integers(0, 2**32, 10**6, dtype=np.uint64).astype(
        np.uint32).view(np.float32)
    with np.errstate(all="ignore"):
        got = module.kernel(x).view(np.uint32)
    assert np.array_equal(got, det.exp(x).view(np.uint32))
    odd = det.exp(x, rounding="odd").view(np.uint32)
    assert not np.array_equal(got, odd)  # the round-to-odd entry point is another one
