"""GPU code without a GPU: the CUDA export compiles with nvcc (PTX) and adds no FMA of its own;
the Triton export gives the golden bits in Triton's interpreter (TRITON_INTERPRET=1, on the CPU)
and compiles to PTX and a cubin for sm_80 (Triton's bundled LLVM and ptxas, no GPU needed) with
no FMA but the kernel's own; the GPU backends of ulplab determinism exist and are skipped with
their reason here. These tests run without a GPU (CI has none); the exports' bits on a GPU were
checked by benchmarks/verify_gpu.py on an H200 (benchmarks/results/gpu)."""

import importlib.util
import json
import re
import shutil
import subprocess

import numpy as np
import pytest

from ulplab.export import GPU_BACKENDS, det_kernel, determinism, export_source, golden_hash, load
from ulplab.export.trace import trace
from ulplab.kernels import registry

DET = sorted(registry.functions())
NVCC = shutil.which("nvcc")
GOLDEN = {f: k.golden["float32"] for f, k in registry.kernels().items()}  # the default entry
HAVE_TRITON = importlib.util.find_spec("triton") is not None
needs_triton = pytest.mark.skipif(not HAVE_TRITON,
                                  reason="triton is not installed (pip install 'ulplab[gpu]')")


@pytest.mark.skipif(NVCC is None, reason="nvcc is not installed on this machine")
@pytest.mark.parametrize("func", DET)
def test_cuda_export_compiles_and_fuses_nothing(func, tmp_path):
    src = tmp_path / f"{func}.cu"
    src.write_text(export_source(func, "cuda"))
    ptx = tmp_path / f"{func}.ptx"
    subprocess.run([NVCC, "-ptx", "-O3", "-fmad=true", "-ftz=false", str(src), "-o", str(ptx)],
                   check=True, capture_output=True, timeout=300)
    text = ptx.read_text()
    assert f".entry ulplab_{func}(" in text
    fused = len(re.findall(r"\bfma\.rn\.f32\b|\bmad\.f32\b|\bmad\.rn\.f32\b", text))
    explicit = sum(n.op == "fma" for n in trace(det_kernel(func)).nodes)
    # even with -fmad=true (nvcc's default) no multiplication and addition are fused beyond the
    # kernel's own FMAs: the _rn intrinsics pin every rounding
    assert fused <= explicit, (fused, explicit)
    assert ".ftz" not in text  # subnormals kept


def test_cuda_source_spells_every_rounding():
    src = export_source("sigmoid", "cuda")
    body = src[src.index("__global__"):]
    assert "UL_MUL(" in body and "UL_FMA(" in body and "#define UL_MUL(a, b) __fmul_rn(a, b)" in src
    assert not re.search(r"v\d+ \* v\d+|v\d+ \+ v\d+", body)  # no bare float operators


def test_gpu_backends_exist_and_are_skipped_with_a_reason(tmp_path, monkeypatch):
    torch = pytest.importorskip("torch")
    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    if torch.cuda.is_available():
        pytest.skip("a GPU is present: the backends run instead of being skipped")
    res = determinism("exp", ("numpy", *GPU_BACKENDS), samples=1000)
    reasons = {s["backend"]: s["reason"] for s in res["skipped"]}
    assert set(reasons) == set(GPU_BACKENDS)
    assert "no CUDA GPU" in reasons["torch-cuda"] and "no CUDA GPU" in reasons["cuda"]
    if HAVE_TRITON:
        assert "TRITON_INTERPRET=1" in reasons["triton"]
    else:
        assert "triton is not installed" in reasons["triton"]
    from ulplab.cli.main import main

    out = tmp_path / "d.json"
    assert main(["determinism", "exp", "--backends", "numpy,torch-cuda,triton,cuda",
                 "--samples", "1000", "--json", str(out)]) == 0
    assert {s["backend"] for s in json.loads(out.read_text())["skipped"]} == set(GPU_BACKENDS)


@needs_triton
@pytest.mark.parametrize("func", DET)
def test_triton_interpreter_gives_the_golden_bits(func, monkeypatch):
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    assert golden_hash(func, load(func, "triton")) == GOLDEN[func]


@needs_triton
def test_triton_backend_in_determinism_and_odd_lengths(monkeypatch):
    """Blocks that end inside the array (the launcher's mask), a block size that is not the
    default, and the determinism row of the interpreted backend."""
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    fn = load("sigmoid", "triton")
    xs = np.random.default_rng(5).integers(0, 2**32, 1001, dtype=np.uint64).astype(
        np.uint32).view(np.float32)
    want = det_kernel("sigmoid")(xs).view(np.uint32)
    for n in (1, 7, 1001):
        assert np.array_equal(fn(xs[:n]).view(np.uint32), want[:n])
    import torch

    from ulplab.export import _python_module

    module = _python_module("sigmoid", "triton", variant="_interpreted")
    with np.errstate(all="ignore"):
        out = module.kernel(torch.from_numpy(xs.reshape(7, 143)), block=128)
    assert out.shape == (7, 143) and np.array_equal(out.numpy().ravel().view(np.uint32), want)
    res = determinism("exp", ("numpy", "triton"), samples=2000)
    assert not res["skipped"] and [r["mismatches"] for r in res["backends"]] == [0, 0]


def _ptx(func: str, fusion: bool) -> str:
    """The Triton export of ``func`` compiled for sm_80 (one element per thread)."""
    import triton
    from triton.backends.compiler import GPUTarget

    from ulplab.export import _python_module

    fn = getattr(_python_module(func, "triton"), f"ulplab_{func}_kernel")
    src = triton.compiler.ASTSource(fn=fn, signature={"x_ptr": "*fp32", "y_ptr": "*fp32",
                                                      "tab_ptr": "*i32", "n": "i32",
                                                      "BLOCK": "constexpr"},
                                    constexprs={"BLOCK": 32})
    compiled = triton.compile(src, target=GPUTarget("cuda", 80, 32),
                              options={"enable_fp_fusion": fusion, "num_warps": 1})
    assert compiled.asm["cubin"]  # ptxas accepted it
    return compiled.asm["ptx"]


FUSED = r"\bfma\.rn\.f32\b|\bmad\.f32\b|\bmad\.rn\.f32\b"


@needs_triton
@pytest.mark.parametrize("func", DET)
def test_triton_export_compiles_for_sm80_and_fuses_nothing(func, monkeypatch):
    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    text = _ptx(func, fusion=False)
    explicit = sum(n.op == "fma" for n in trace(det_kernel(func)).nodes)
    assert len(re.findall(FUSED, text)) <= explicit  # LLVM may merge two equal FMAs
    assert ".ftz" not in text and "approx" not in text  # subnormals kept, IEEE div and sqrt
    assert "div.full" not in text


@needs_triton
def test_triton_fp_fusion_flag_is_load_bearing(monkeypatch):
    """With Triton's default (enable_fp_fusion=True) LLVM contracts products and sums into more
    FMAs than the kernel has: the launcher's enable_fp_fusion=False is what keeps the bits."""
    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    explicit = sum(n.op == "fma" for n in trace(det_kernel("exp")).nodes)
    assert len(re.findall(FUSED, _ptx("exp", fusion=False))) == explicit
    assert len(re.findall(FUSED, _ptx("exp", fusion=True))) > explicit


def test_triton_source_spells_every_rounding():
    src = export_source("rsqrt", "triton")
    body = src[src.index("def ulplab_rsqrt_kernel"):]
    assert "tl.math.div_rn(" in body and "tl.sqrt_rn(" in body and "tl.fma(" in body
    assert "enable_fp_fusion=False" in src
    assert not re.search(r"v\d+ / |tl\.sqrt\(", body)  # no approximate division or sqrt


def _rarely_used_ops(x):
    """Operations the emitters support that no det kernel uses today (frexp, floor, ceil, trunc,
    copysign, square, isinf, signbit, NaN-carrying minimum/maximum, int32 minimum and absolute,
    uint32 -> float32) and the edges of those they do (rint ties, float -> int32 out of range,
    shifts by 32 or more, ldexp over the whole exponent range), each part's bits xor-ed into the
    result (NaN parts as 1.0, so that no NaN payload is compared)."""
    u = x.view(np.uint32)
    m, e = np.frexp(x)
    k = x.astype(np.int32)  # NaN and |x| >= 2^31: INT32_MIN
    count = u & np.uint32(63)  # 0 .. 63: counts of 32 and more give 0 (or the sign)
    floats = [np.rint(x * np.float32(0.5)), np.floor(x), np.ceil(x), np.trunc(x),
              np.copysign(m, np.float32(-1.0)), np.square(m), (u >> np.uint32(3)).astype(
                  np.float32), np.ldexp(m, np.minimum(np.maximum(k, -300), 300) - e),
              np.minimum(x, np.float32(1.5)), np.maximum(np.float32(np.nan), x)]
    ints = [(u << count) ^ (u >> count), (k >> count.astype(np.int32)).view(np.uint32),
            np.abs(np.minimum(k, e)).view(np.uint32),
            (np.isinf(x).astype(np.int32) + np.signbit(x).astype(np.int32)).view(np.uint32)]
    out = np.zeros_like(u)
    for part in floats:
        out = out ^ np.where(np.isnan(part), np.float32(1.0), part).view(np.uint32)
    for step, part in enumerate(ints):
        out = out ^ ((part << np.uint32(step + 1)) | (part >> np.uint32(31 - step)))
    return (out & np.uint32(0xFF7FFFFF)).view(np.float32)  # never a NaN or an infinity


@needs_triton
def test_triton_emitter_on_rarely_used_ops(monkeypatch):
    import torch

    from ulplab.export import _build_dir
    from ulplab.export.emit_triton import emit_triton

    monkeypatch.setenv("TRITON_INTERPRET", "1")
    path = _build_dir() / "ulplab_rare_ops_triton.py"
    path.write_text(emit_triton(trace(_rarely_used_ops), "rare", "test"))
    spec = importlib.util.spec_from_file_location("ulplab_rare_ops_triton", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    rng = np.random.default_rng(11)
    edges = np.array([0.5, 1.5, 2.5, -0.5, -2.5, 2.0**31, -2.0**31, -2.0**31 - 256, 2.0**23 + 1,
                      1e-45, -1e-45, 1e-40, 0.0, -0.0, np.inf, -np.inf, np.nan, 3e38, -3e38],
                     np.float32)
    xs = np.concatenate([edges, rng.integers(0, 2**32, 50_000, dtype=np.uint64).astype(
        np.uint32).view(np.float32), rng.normal(0, 40, 50_000).astype(np.float32)])
    with np.errstate(all="ignore"):
        want = _rarely_used_ops(xs).view(np.uint32)
        got = module.kernel(torch.from_numpy(xs)).numpy().view(np.uint32)
    bad = np.flatnonzero(got != want)
    assert bad.size == 0, [(hex(int(xs.view(np.uint32)[i])), hex(int(got[i])), hex(int(want[i])))
                           for i in bad[:8]]


@pytest.mark.skipif(NVCC is None, reason="nvcc is not installed on this machine")
def test_cuda_library_is_built_with_its_launcher_and_cached():
    """The cuda backend's library (ulplab.export.gpu): the CUDA export and its C launcher built
    by nvcc for one compute capability, with a manifest whose checksum guards the cache."""
    import ctypes

    from ulplab.export import gpu

    path = gpu.cuda_library("exp", (8, 0))
    assert path == gpu.cuda_library("exp", (8, 0))  # from the cache
    assert hasattr(ctypes.CDLL(path), "ulplab_launch")
    with open(path[:-3] + ".json") as f:
        manifest = json.load(f)
    assert "-fmad=false" in manifest["flags"] and "-ftz=false" in manifest["flags"]
    assert "-gencode=arch=compute_80,code=[sm_80,compute_80]" in manifest["flags"]
    assert "ulplab_launch" in gpu.cuda_source("exp") and "ulplab_exp<<<" in gpu.cuda_source("exp")


def test_gpu_tensor_kernels_say_why_they_cannot_run(monkeypatch):
    from ulplab.errors import UsageError
    from ulplab.export import gpu

    torch = pytest.importorskip("torch")
    with pytest.raises(UsageError, match="unknown GPU backend 'c'"):
        gpu.tensor_kernel("exp", "c")
    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    if torch.cuda.is_available():
        pytest.skip("a GPU is present")
    for backend in ("cuda", "torch-cuda"):
        with pytest.raises(RuntimeError, match="no CUDA GPU"):
            gpu.tensor_kernel("exp", backend)
    monkeypatch.setenv("NVCC", "/nonexistent/nvcc")
    assert gpu.nvcc() == "/nonexistent/nvcc"


@needs_triton
def test_triton_tensor_kernel_in_the_interpreter_checks_its_tensor(monkeypatch):
    import torch

    from ulplab.export import gpu

    monkeypatch.setenv("TRITON_INTERPRET", "1")
    assert gpu.device("triton") == "cpu" and gpu.device("cuda") == "cuda"
    fn = gpu.tensor_kernel("sigmoid", "triton")
    xs = np.linspace(-20, 20, 301, dtype=np.float32)
    with np.errstate(all="ignore"):
        got = fn(torch.from_numpy(xs.reshape(7, 43))).numpy().ravel()
    assert np.array_equal(got.view(np.uint32), det_kernel("sigmoid")(xs).view(np.uint32))
    with pytest.raises(TypeError, match="float32 tensors"):
        fn(torch.zeros(3, dtype=torch.float64))


@pytest.mark.parametrize("func", DET)
def test_triton_export_spells_negative_zero_by_its_bits(func):
    """Triton's tl.full turns a constant equal to 0 into its null value, +0.0: a -0.0 written as
    a float literal came out as +0.0 on an H200 (gelu, gelu_tanh and silu: about 10^9 wrong
    results each, their -0.0 tails; the interpreter keeps the sign). Every -0.0 goes by bits."""
    src = export_source(func, "triton")
    assert not re.search(r"tl\.full\(\[BLOCK\], -0\.0, tl\.float32\)", src)
    if func in ("gelu", "gelu_tanh", "silu"):  # their tails return -0.0
        assert "tl.full([BLOCK], 0x80000000, tl.uint32).to(tl.float32, bitcast=True)" in src
