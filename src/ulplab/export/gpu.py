"""The det kernels on a CUDA GPU, from three exports: functions of float32 CUDA tensors.

``tensor_kernel(func, backend)`` returns ``f(t) -> tensor`` for a float32 tensor on the GPU (on
the CPU for ``triton`` under ``TRITON_INTERPRET=1``):

* ``torch-cuda``: the PyTorch export (``export_source(func, "torch")``) on CUDA tensors: one
  PyTorch elementwise operation per traced operation, each rounded once (no fusion: eager mode);
  the FMA of the kernel as the export's exact float64 product and round-to-odd sum;
* ``cuda``: the CUDA C export (``_rn`` intrinsics for every float operation) built with nvcc
  (``NVCC_FLAGS``, for this GPU's compute capability, cached and checksummed like the CPU
  builds: ``native.cached_library``) with a C launcher, ``ulplab_launch``, called through
  ctypes on the tensors' device pointers and PyTorch's current stream;
* ``triton``: the Triton export, launched with ``enable_fp_fusion=False``.

Each raises RuntimeError with the reason where it cannot run (no PyTorch, no CUDA GPU, no
nvcc, no Triton). ``benchmarks/verify_gpu.py`` runs all three against the CPU's compiled
kernel on every float32 input.
"""

from __future__ import annotations

import ctypes
import os
import shutil
import threading
from collections.abc import Callable
from functools import cache
from typing import Any

NVCC_FLAGS = ("-O3", "-fmad=false", "-ftz=false", "-prec-div=true", "-prec-sqrt=true",
              "-shared", "-Xcompiler", "-fPIC")
"""nvcc's flags for the CUDA export: no contraction into FMA (the source spells every rounding
with an intrinsic anyway), subnormals kept, IEEE division and square root."""

LAUNCHER = """
#include <cuda_runtime.h>
/* ulplab_launch: KERNEL on n floats at device addresses x, y, on `stream` of `device`, one
   thread per element in blocks of 256; returns the CUDA error code of the launch (0: none) */
extern "C" int ulplab_launch(const float *x, float *y, long n, void *stream, int device) {
    cudaError_t err = cudaSetDevice(device);
    if (err != cudaSuccess) return (int)err;
    if (n > 0)
        KERNEL<<<(unsigned)((n + 255) / 256), 256, 0, (cudaStream_t)stream>>>(x, y, n);
    return (int)cudaGetLastError();
}
"""

TensorKernel = Callable[[Any], Any]

GPU_BACKENDS = ("torch-cuda", "cuda", "triton")
"""The backends that run the exports on a CUDA GPU (``triton`` also in Triton's interpreter)."""


def nvcc() -> str:
    """nvcc's path: ``$NVCC``, else the one on PATH, else CUDA's default place."""
    path = os.environ.get("NVCC") or shutil.which("nvcc")
    if path is None and os.path.exists("/usr/local/cuda/bin/nvcc"):
        path = "/usr/local/cuda/bin/nvcc"
    if path is None:
        raise RuntimeError("nvcc is not installed on this machine: no CUDA C backend")
    return path


_TRACING = threading.Lock()


def cuda_source(func: str, rounding: str = "float32") -> str:
    """The CUDA C export of ``func`` with its launcher (what ``cuda_library`` builds). One
    thread at a time: the tracer that ``export_source`` runs keeps global state, so libraries
    built from several threads (nvcc runs in parallel) make their sources in turn."""
    from ulplab.export.source import c_name, export_source

    with _TRACING:
        src = export_source(func, "cuda", rounding)
    return src + LAUNCHER.replace("KERNEL", c_name(func, rounding))


def cuda_library(func: str, capability: tuple[int, int], rounding: str = "float32") -> str:
    """The path of the shared library of ``cuda_source`` built for compute capability
    ``capability`` (machine code and PTX), from the cache when its checksum holds."""
    from ulplab.export import native
    from ulplab.export.source import c_name

    cc = f"{capability[0]}{capability[1]}"
    command = [nvcc(), *NVCC_FLAGS, f"-gencode=arch=compute_{cc},code=[sm_{cc},compute_{cc}]"]
    return str(native.cached_library(f"{c_name(func, rounding)}-cuda-sm{cc}", ".cu",
                                     lambda: cuda_source(func, rounding), command))


def _torch() -> Any:
    try:
        import torch
    except ImportError as exc:
        raise RuntimeError("PyTorch is not installed: no CUDA backend") from exc
    return torch


def cuda_or_reason() -> Any:
    """PyTorch, where it sees a CUDA GPU; else RuntimeError saying why not."""
    torch = _torch()
    if not torch.cuda.is_available():
        raise RuntimeError("no CUDA GPU on this machine (torch.cuda.is_available() is False)")
    return torch


def triton_interpreting() -> bool:
    """Whether Triton runs its interpreter (``TRITON_INTERPRET=1``, read as Triton reads it)."""
    try:
        from triton import knobs
    except ImportError:  # Triton before 3.4 read the variable itself
        return os.environ.get("TRITON_INTERPRET", "0").lower() in ("1", "true", "on", "yes")
    return bool(knobs.runtime.interpret)


def device(backend: str) -> str:
    """Where ``tensor_kernel(func, backend)`` takes its tensors: ``cuda``, or ``cpu`` for
    ``triton`` in Triton's interpreter."""
    return "cpu" if backend == "triton" and triton_interpreting() else "cuda"


def _check(t: Any, torch: Any, where: str) -> Any:
    if t.dtype != torch.float32:
        raise TypeError(f"the det kernels take float32 tensors, not {t.dtype}")
    if t.device.type != where:
        raise ValueError(f"a tensor on {t.device} given to a kernel on {where}")
    return t.contiguous()


@cache
def _cuda_kernel(func: str, rounding: str, capability: tuple[int, int]) -> Any:
    launch = ctypes.CDLL(cuda_library(func, capability, rounding)).ulplab_launch
    launch.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_long, ctypes.c_void_p,
                       ctypes.c_int]
    launch.restype = ctypes.c_int
    return launch


def tensor_kernel(func: str, backend: str, rounding: str = "float32") -> TensorKernel:
    """``func``'s det kernel as a function of a float32 tensor on ``device(backend)`` (same
    shape, a new tensor), for ``backend`` in ``torch-cuda``, ``cuda``, ``triton``."""
    from ulplab.errors import unknown_choice
    from ulplab.export.modules import python_module as _python_module

    if backend not in GPU_BACKENDS:
        raise unknown_choice("GPU backend", backend, GPU_BACKENDS)
    if backend == "triton":
        try:
            import triton  # noqa: F401
        except ImportError as exc:
            raise RuntimeError(f"{exc.name} is not installed: no Triton backend "
                               "(pip install 'ulplab[gpu]')") from exc
        torch = _torch()
        interpret = triton_interpreting()
        if not interpret and not torch.cuda.is_available():
            raise RuntimeError("no CUDA GPU on this machine (torch.cuda.is_available() is "
                               "False); TRITON_INTERPRET=1 runs the Triton kernel in Triton's "
                               "interpreter")
        module = _python_module(func, "triton", rounding, "_interpreted" if interpret else "")
        where = "cpu" if interpret else "cuda"
        return lambda t: module.kernel(_check(t, torch, where))
    torch = cuda_or_reason()
    if backend == "torch-cuda":
        module = _python_module(func, "torch", rounding)
        return lambda t: module.kernel(_check(t, torch, "cuda"))

    def run_cuda(t: Any) -> Any:
        xs = _check(t, torch, "cuda")
        launch = _cuda_kernel(func, rounding, torch.cuda.get_device_capability(xs.device))
        y = torch.empty_like(xs)
        err = launch(xs.data_ptr(), y.data_ptr(), xs.numel(),
                     torch.cuda.current_stream(xs.device).cuda_stream, xs.device.index or 0)
        if err:
            raise RuntimeError(f"the CUDA launch of ulplab_{func} failed: CUDA error {err}")
        return y

    return run_cuda


__all__ = ["GPU_BACKENDS", "LAUNCHER", "NVCC_FLAGS", "cuda_library", "cuda_or_reason",
           "cuda_source", "device", "nvcc", "tensor_kernel", "triton_interpreting"]
