"""Every det kernel on the GPU against the CPU's compiled kernel, on every float32 input.

    python benchmarks/verify_gpu.py [FUNC ...] [--backends cuda,triton,torch-cuda]
        [--log2-inputs 32] [--log2-chunk 28] [--deadline SECONDS] [--json PATH]

For each function (default: every det kernel) and each GPU backend of ``ulplab.export.gpu``
(``cuda``: the CUDA C export built with nvcc; ``triton``: the Triton export; ``torch-cuda``: the
PyTorch export on CUDA tensors), the inputs are all 2^32 float32 bit patterns (or every
2^(32-K)-th with ``--log2-inputs K``), in chunks of 2^``--log2-chunk``: the reference is
``ulplab.export.native.kernel(FUNC)`` on the CPU (the best build, every core; its bits are the
float32 entry point's, proved on all 2^32 inputs per build variant), copied to the GPU; each
backend's output is compared with it there, bit for bit, and the mismatches counted, with the
first eight (input, got, want). The PyTorch export keeps every intermediate tensor alive, so it
runs on slices of 2^22 inputs. The CUDA libraries are built first, in parallel (nvcc, one per
function, cached). ``--deadline``: no function is started after that many seconds (those not run
are listed as such). Progress on stderr; the JSON has the GPU, the driver's CUDA version, the
versions, the CPU and its build variant, and per function and backend the inputs, mismatches,
seconds and GPU time. Exit status 1 on any mismatch or backend error, 2 on bad arguments.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

TORCH_SLICE = 1 << 22


def _versions() -> dict[str, str | None]:
    import torch

    out: dict[str, str | None] = {"torch": torch.__version__, "cuda": torch.version.cuda}
    try:
        import triton

        out["triton"] = triton.__version__
    except ImportError:
        out["triton"] = None
    try:
        from ulplab.export import gpu

        res = subprocess.run([gpu.nvcc(), "--version"], capture_output=True, text=True,
                             check=False)
        out["nvcc"] = res.stdout.strip().splitlines()[-1] if res.stdout else None
    except RuntimeError:
        out["nvcc"] = None
    out["numpy"] = np.__version__
    out["python"] = platform.python_version()
    return out


def main() -> int:
    import torch

    from ulplab.export import GPU_BACKENDS, gpu, native
    from ulplab.kernels import registry

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("functions", nargs="*")
    ap.add_argument("--backends", default=",".join(GPU_BACKENDS))
    ap.add_argument("--log2-inputs", type=int, default=32)
    ap.add_argument("--log2-chunk", type=int, default=28)
    ap.add_argument("--deadline", type=float, default=None)
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    funcs = args.functions or sorted(registry.functions())
    backends = [b for b in args.backends.split(",") if b]
    bad = [f for f in funcs if f not in registry.functions()]
    bad += [b for b in backends if b not in GPU_BACKENDS]
    if bad or not backends or not 1 <= args.log2_inputs <= 32 or not 10 <= args.log2_chunk <= 30:
        print(f"verify_gpu.py: bad arguments {bad or ''}".rstrip(), file=sys.stderr)
        return 2
    t0 = time.perf_counter()
    cuda = torch.cuda.is_available()
    doc: dict[str, object] = {
        "command": "python benchmarks/verify_gpu.py " + " ".join(sys.argv[1:]),
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "gpu": torch.cuda.get_device_name(0) if cuda else None,
        "capability": list(torch.cuda.get_device_capability(0)) if cuda else None,
        "cpu": native.cpu_model(), "cpu_count": os.cpu_count(),
        "reference": f"ulplab.export.native.kernel (variant {native.best_variant()})",
        "versions": _versions(), "log2_inputs": args.log2_inputs, "rows": []}
    rows: list[dict[str, object]] = doc["rows"]  # type: ignore[assignment]
    if cuda and "cuda" in backends:  # nvcc in parallel, before the clock of any function
        cap = torch.cuda.get_device_capability(0)
        with ThreadPoolExecutor(os.cpu_count() or 1) as pool:
            built = list(pool.map(lambda f: _try(lambda: gpu.cuda_library(f, cap)), funcs))
        doc["cuda_build_seconds"] = round(time.perf_counter() - t0, 1)
        print(f"nvcc: {len(funcs)} libraries in {doc['cuda_build_seconds']} s"
              + "".join(f"\n  {f}: {e}" for f, e in zip(funcs, built, strict=True) if e),
              file=sys.stderr)
    n_inputs, chunk = 1 << args.log2_inputs, 1 << min(args.log2_chunk, args.log2_inputs)
    stride = 1 << (32 - args.log2_inputs)
    steps = np.arange(chunk, dtype=np.uint32) * np.uint32(stride)
    bits = np.empty(chunk, np.uint32)
    pinned = torch.empty(chunk, dtype=torch.int32, pin_memory=cuda)  # the reference, on the CPU
    ref = pinned.numpy().view(np.float32)
    failed = False
    for func in funcs:
        if args.deadline is not None and time.perf_counter() - t0 > args.deadline:
            rows += [{"function": func, "backend": b, "error": "not run (deadline)"}
                     for b in backends]
            continue
        ref_kernel = native.kernel(func)
        fns, state, errors = {}, {}, {}
        for b in backends:
            try:
                fns[b] = gpu.tensor_kernel(func, b)
                state[b] = {"function": func, "backend": b, "inputs": 0, "mismatches": 0,
                            "first": [], "seconds": 0.0}
            except RuntimeError as exc:
                errors[b] = str(exc)[:300]
                rows.append({"function": func, "backend": b, "error": errors[b]})
        cpu_s, t_func = 0.0, time.perf_counter()
        for start in range(0, n_inputs, chunk):
            np.add(steps, np.uint32(start), out=bits)
            t = time.perf_counter()
            ref_kernel(bits.view(np.float32), out=ref)
            cpu_s += time.perf_counter() - t
            on: dict[str, tuple[object, object]] = {}
            for b, fn in list(fns.items()):
                where = gpu.device(b)
                if where not in on:  # the inputs made there, the reference copied there
                    v = torch.arange(chunk, dtype=torch.int64, device=where) * stride + start
                    on[where] = ((v - (v >= 2**31).to(torch.int64) * 2**32).to(torch.int32)
                                 .view(torch.float32), pinned.to(where, non_blocking=True))
                    del v
                x, want = on[where]
                row = state[b]
                try:
                    if where == "cuda":
                        torch.cuda.synchronize()
                    t = time.perf_counter()
                    step = TORCH_SLICE if b == "torch-cuda" else chunk
                    with np.errstate(all="ignore"):  # Triton's interpreter: inf * 0 and such
                        got = torch.cat([fn(x[s:s + step]) for s in range(0, chunk, step)])
                    if where == "cuda":
                        torch.cuda.synchronize()
                    row["seconds"] += time.perf_counter() - t
                    diff = got.view(torch.int32) != want
                    count = int(diff.sum())
                except Exception as exc:  # a backend that breaks is a row, not the end
                    row["error"] = f"{type(exc).__name__}: {str(exc)[:300]}"
                    del fns[b]
                    continue
                row["inputs"] += chunk
                if count:
                    row["mismatches"] += count
                    for i in diff.nonzero().flatten()[:8].tolist():
                        if len(row["first"]) < 8:
                            row["first"].append(
                                {"x": f"0x{int(bits[i]):08x}",
                                 "got": f"0x{int(got[i].view(torch.int32)) & 0xFFFFFFFF:08x}",
                                 "want": f"0x{int(ref.view(np.uint32)[i]):08x}"})
                del got, diff
            del on
        for row in state.values():
            row["seconds"] = round(row["seconds"], 2)
            if "error" in row or row["mismatches"]:
                failed = True
            rows.append(row)
        summary = ", ".join(f"{b} {r.get('error') or str(r['mismatches']) + ' mismatches'}"
                            f" ({r['seconds']} s)" for b, r in state.items())
        summary += "".join(f"; {b}: {e}" for b, e in errors.items())
        print(f"{func}: {n_inputs} inputs, CPU reference {cpu_s:.1f} s; {summary}; "
              f"{time.perf_counter() - t_func:.1f} s", file=sys.stderr, flush=True)
        if any("error" in r for r in rows if r.get("function") == func):
            failed = True
    doc["seconds"] = round(time.perf_counter() - t0, 1)
    if args.json:
        Path(args.json).write_text(json.dumps(doc, indent=1) + "\n")
    return 1 if failed else 0


def _try(work: object) -> str | None:
    try:
        work()  # type: ignore[operator]
    except RuntimeError as exc:
        return str(exc)[:300]
    return None


if __name__ == "__main__":
    sys.exit(main())
