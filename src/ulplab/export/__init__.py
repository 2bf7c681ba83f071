"""Export of the deterministic kernels, and the check that every backend gives the same bits.

``export_source(func, lang)`` traces the ``det`` kernel of ``func`` (``trace``) — its correctly
rounded float32 entry point, what ``ulplab.det`` returns; ``rounding="odd"`` for the round-to-odd
one — and writes it as self-contained C, CUDA C, Triton, NumPy, PyTorch or JAX source.
``load(func, backend)`` builds that source (C with the system compiler, ``-O3
-ffp-contract=off``, cached: ``ulplab.export.native``) and returns a float32 -> float32 callable
(backend ``c``: the best build this CPU runs; ``c-avx512``, ``c-avx2``, ``c-portable``, ``c-O0``:
one build variant each; ``torch-cuda``, ``cuda``: on a CUDA GPU; ``triton``: on a CUDA GPU, or in
Triton's interpreter on the CPU when ``TRITON_INTERPRET=1``: ``ulplab.export.gpu``).
``determinism(func, backends)`` runs every backend on the fixed input sets and counts the results
whose bits differ from ulplab's own NumPy kernel.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ulplab.errors import unknown_choice
from ulplab.export.gpu import GPU_BACKENDS
from ulplab.export.modules import build_dir as _build_dir  # noqa: F401 (the tests use it)
from ulplab.export.modules import python_module as _python_module
from ulplab.export.source import (
    LANGS,
    ROUNDINGS,
    Kernel,
    c_name,
    check_rounding,
    det_kernel,
    export_source,
    golden,
    golden_hash,
    header,
)

DEFAULT_BACKENDS = ("numpy", "torch", "jax", "c")
C_VARIANT_BACKENDS = ("c-avx512", "c-avx2", "c-portable", "c-O0")
BACKENDS = DEFAULT_BACKENDS + C_VARIANT_BACKENDS + GPU_BACKENDS


def load(func: str, backend: str, rounding: str = "float32") -> Kernel:
    """A float32 -> float32 NumPy callable running the exported kernel on ``backend``."""
    if backend not in BACKENDS:
        raise unknown_choice("backend", backend, BACKENDS)
    check_rounding(rounding)
    if backend == "c" or backend.startswith("c-"):
        from ulplab.export import native

        variant = native.best_variant() if backend == "c" else backend[2:]
        if variant not in native.runnable_variants():
            raise RuntimeError(f"this CPU cannot run the {variant} build "
                               f"(needs {', '.join(native.VARIANTS[variant][1])})")
        return native.kernel(func, variant, rounding)
    if backend in GPU_BACKENDS:
        return _load_gpu(func, backend, rounding)
    module = _python_module(func, backend, rounding)
    if backend == "torch":
        import torch

        def run_torch(x: np.ndarray) -> np.ndarray:
            t = torch.from_numpy(np.ascontiguousarray(x, dtype=np.float32).copy())
            return module.kernel(t).numpy()

        return run_torch
    if backend == "jax":
        def run_jax(x: np.ndarray) -> np.ndarray:
            return np.asarray(module.kernel(np.ascontiguousarray(x, dtype=np.float32)))

        return run_jax
    return module.kernel


def _load_gpu(func: str, backend: str, rounding: str = "float32") -> Kernel:
    """``gpu.tensor_kernel`` as a NumPy function: the input copied to the backend's device
    (the GPU; the CPU for Triton's interpreter) and the result back."""
    from ulplab.export import gpu

    fn = gpu.tensor_kernel(func, backend, rounding)
    where = gpu.device(backend)
    import torch

    def run_gpu(x: np.ndarray) -> np.ndarray:
        t = torch.from_numpy(np.ascontiguousarray(x, dtype=np.float32).copy()).to(where)
        with np.errstate(all="ignore"):  # the interpreter's NumPy sees inf * 0 and the like
            return fn(t).cpu().numpy()

    return run_gpu


def _same_bits(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return a.view(np.uint32) == b.view(np.uint32)


def determinism(func: str, backends: Sequence[str] = DEFAULT_BACKENDS,
                samples: int = 10_000_000,
                chunk: int = 1 << 20,
                advance: Callable[[int], None] | None = None,
                rounding: str = "float32") -> dict[str, Any]:
    """Mismatches of each backend against ulplab's NumPy kernel on ``input_sets``.

    ``advance(n)`` is called as inputs are checked (``determinism_total`` of them in all)."""
    from ulplab.kernels.golden import input_sets

    reference = det_kernel(func, rounding)
    sets = input_sets(samples)
    rows, skipped = [], []
    for b in backends:
        if b not in BACKENDS:
            raise unknown_choice("backend", b, BACKENDS)
        try:
            fn = load(func, b, rounding)
        except (ImportError, RuntimeError, subprocess.CalledProcessError) as exc:
            skipped.append({"backend": b, "reason": str(exc).splitlines()[0][:200]})
            if advance is not None:
                advance(sum(len(xs) for xs in sets.values()))
            continue
        checked, mismatches, first = 0, 0, []
        for name, xs in sets.items():
            for s in range(0, len(xs), chunk):
                part = xs[s:s + chunk]
                with np.errstate(all="ignore"):
                    same = _same_bits(fn(part), reference(part))
                checked += part.size
                if advance is not None:
                    advance(part.size)
                bad = np.flatnonzero(~same)
                mismatches += bad.size
                first += [f"{name}:0x{int(v):08x}" for v in part.view(np.uint32)[bad[:8]]]
        rows.append({"backend": b, "checked": checked, "mismatches": mismatches,
                     "first": first[:8]})
    return {"function": func, "rounding": rounding, "reference": "ulplab NumPy kernel",
            "backends": rows,
            "skipped": skipped}


def determinism_total(backends: Sequence[str], samples: int) -> int:
    """How many inputs ``determinism`` checks (for a progress bar)."""
    from ulplab.kernels.golden import input_sets

    return len(backends) * (sum(len(xs) for xs in input_sets(0).values()) + samples)


def write_export(func: str, lang: str, path: str | None, rounding: str = "float32") -> str:
    src = export_source(func, lang, rounding)
    if path:
        from ulplab.files import write_text

        write_text(path, src)
    return src


def input_sets(samples: int = 10_000_000, seed: int = 2026) -> dict[str, np.ndarray]:
    """The fixed inputs of ``determinism`` (``ulplab.kernels.golden.input_sets``)."""
    from ulplab.kernels.golden import input_sets as sets

    return sets(samples, seed)


__all__ = ["BACKENDS", "C_VARIANT_BACKENDS", "DEFAULT_BACKENDS", "GPU_BACKENDS", "LANGS",
           "ROUNDINGS", "Kernel", "c_name", "check_rounding", "det_kernel", "determinism",
           "export_source", "golden", "golden_hash", "header", "input_sets", "load",
           "write_export"]
