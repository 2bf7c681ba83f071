"""PyTorch on the CPU (and CUDA where there is a device): the function module's ``peers.torch``,
in the format itself (bfloat16, float16, fp8 tensors) or in float32; backward by autograd."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from collections.abc import Callable

import numpy as np

from ulplab.backends._base import (
    ArrayFn,
    Backend,
    Unavailable,
    _module,
    _peer_callable,
    _probe,
    thread_count,
)
from ulplab.formats import Format

ORDER = 10
"""Where the backends of this module come on the card (lowest first)."""

ISA_SETTINGS = {
    "ATEN_CPU_CAPABILITY=default": ({"ATEN_CPU_CAPABILITY": "default"}, ""),
    "ATEN_CPU_CAPABILITY=avx2": ({"ATEN_CPU_CAPABILITY": "avx2"}, "avx2"),
    "ATEN_CPU_CAPABILITY=avx512": ({"ATEN_CPU_CAPABILITY": "avx512"}, "avx512f"),
}
"""The kernels PyTorch dispatches to, set before it is imported: label -> (environment, the CPU
flag the level needs; "" for none). The determinism card runs each in a process of its own."""

COMPILED = {"torch": "torch-compile"}
"""The backend -> its variant in the other mode, eager or compiled (the determinism card
compares their bits)."""


def _torch_dtype(fmt: Format) -> object:
    torch = _module("torch")
    dtype = getattr(torch, fmt.name, None)
    if not isinstance(dtype, torch.dtype):
        raise Unavailable(f"torch has no {fmt.name} dtype")
    return dtype


def _torch(device: str, native: bool, compiled: bool = False
           ) -> Callable[[str, Format, bool], tuple[ArrayFn, str]]:
    def make(func: str, fmt: Format, backward: bool) -> tuple[ArrayFn, str]:
        torch = _module("torch")
        if device == "cuda" and not torch.cuda.is_available():
            raise Unavailable("no CUDA device")
        threads = thread_count()
        if threads is not None:
            torch.set_num_threads(threads)
        fn = _peer_callable(func, "torch")
        if compiled:
            # inductor's on-disk cache is not keyed by ATEN_CPU_CAPABILITY: a process of its own
            if "TORCHINDUCTOR_CACHE_DIR" not in os.environ:
                cache = tempfile.mkdtemp(prefix="ulplab-inductor-")
                atexit.register(shutil.rmtree, cache, ignore_errors=True)  # none left behind
                os.environ["TORCHINDUCTOR_CACHE_DIR"] = cache
            fn = torch.compile(fn, dynamic=False)
        dtype = _torch_dtype(fmt) if native else torch.float32
        as_ints = native and fmt.dtype != np.float32  # moved across as integers, bit for bit
        ints = {1: torch.uint8, 2: torch.int16, 4: torch.int32}[fmt.dtype.itemsize]

        def run(x: np.ndarray) -> np.ndarray:
            src = x.view(fmt.uint) if as_ints else x
            t = torch.from_numpy(np.ascontiguousarray(src))
            if as_ints:
                t = t.view(dtype)
            t = t.to(device)
            if backward:
                t = t.clone().requires_grad_(True)
                fn(t).backward(torch.ones_like(t))
                out = t.grad
            else:
                with torch.no_grad():
                    out = fn(t)
            out = out.detach().to("cpu")
            if as_ints:
                if out.dtype != dtype:  # a wrong dtype is shown, not reinterpreted
                    return out.float().numpy()
                return out.view(ints).numpy().view(fmt.uint).view(fmt.dtype)
            return out.numpy().astype(np.float32, copy=False)

        if native:
            _probe(run, fmt, f"torch {func}")
        return run, "format" if native else "float32"

    return make


BACKENDS = (
    Backend("torch", "PyTorch CPU, computing in the format itself", _torch("cpu", True),
            ("torch",)),
    Backend("torch-f32", "PyTorch CPU in float32, rounded to the format", _torch("cpu", False),
            ("torch",)),
    Backend("torch-compile", "PyTorch CPU, torch.compile (inductor), in the format itself",
            _torch("cpu", True, compiled=True), ("torch",), on_card=False),
    Backend("torch-cuda", "PyTorch CUDA in the format itself", _torch("cuda", True), ("torch",)),
    Backend("torch-cuda-f32", "PyTorch CUDA in float32, rounded", _torch("cuda", False),
            ("torch",)),
)
