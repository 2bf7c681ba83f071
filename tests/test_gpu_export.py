"""GPU code without a GPU: the CUDA export compiles with nvcc (PTX) and adds no FMA of its own;
the GPU backends of ulplab determinism exist and are skipped with their reason here."""

import json
import re
import shutil
import subprocess

import pytest

from ulplab.export import GPU_BACKENDS, det_kernel, determinism, export_source
from ulplab.export.trace import trace
from ulplab.methods import all_methods

DET = sorted(m.function for m in all_methods() if m.name == "det")
NVCC = shutil.which("nvcc")


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


def test_gpu_backends_exist_and_are_skipped_with_a_reason(tmp_path):
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available():
        pytest.skip("a GPU is present: the backends run instead of being skipped")
    res = determinism("exp", ("numpy", *GPU_BACKENDS), samples=1000)
    reasons = {s["backend"]: s["reason"] for s in res["skipped"]}
    assert set(reasons) == set(GPU_BACKENDS)
    assert "no CUDA GPU" in reasons["torch-cuda"] and "no CUDA GPU" in reasons["cuda"]
    assert "no Triton export" in reasons["triton"]
    from ulplab.cli.main import main

    out = tmp_path / "d.json"
    assert main(["determinism", "exp", "--backends", "numpy,torch-cuda,triton,cuda",
                 "--samples", "1000", "--json", str(out)]) == 0
    assert {s["backend"] for s in json.loads(out.read_text())["skipped"]} == set(GPU_BACKENDS)
