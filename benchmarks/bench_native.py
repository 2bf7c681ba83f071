"""Speed of the compiled det kernels against glibc's scalar float functions and NumPy's ufuncs.

    python benchmarks/bench_native.py [--n 16777216] [--runs 7] [--variant avx2] [--funcs exp,log]

Single thread, 2^24 float32 inputs per function (ranges as benchmarks/bench_kernels.py: [-80, 80]
for exp, log-uniform [1e-30, 1e30] for log, [-100, 100] for sin/cos, [-8, 8] for the
activations), every column measured in the same run on the same array, each call writing a
fresh output array: one warm-up call each, then ``--runs`` rounds that time every column once in
a rotating order (``timing.interleaved_medians``), medians shown. Columns:
* odd: the compiled det kernel's round-to-odd entry point (``det-odd``; ``ulplab.export.native``,
  the chosen build variant);
* det: its correctly rounded float32 entry point (the two-pass runner, first pass then the
  entry point on the flagged inputs), what ``ulplab.det`` and a float32 user call; the ratios
  are det's;
* glibc: a C loop calling glibc's float function per element (expf, logf, sinf, cosf, tanhf; the
  activations as their textbook float formula over expf/erff), built with the same compiler and
  flags as det (-O3 -ffp-contract=off and the variant's -march) and called the same way;
* numpy: NumPy's ufunc (exp, log, sin, cos, tanh), or for the activations the NumPy expression
  of the same textbook formula (for gelu the tanh form, NumPy having no erf).
Then the drop-in API on a bfloat16 PyTorch CPU tensor of 2^24 elements: ``det.gelu(t)`` (the
exact lookup) against ``torch.nn.functional.gelu(t)`` on the same tensor (torch's own threads).
"""

from __future__ import annotations

import argparse
import ctypes
import os
import subprocess
import tempfile
from functools import partial
from pathlib import Path

import numpy as np

from timing import cpu_isa, interleaved_medians, median_seconds

GLIBC = {  # C expression over x (float) per function
    "exp": "expf(x)", "log": "logf(x)", "sin": "sinf(x)", "cos": "cosf(x)",
    "tanh": "tanhf(x)", "sigmoid": "1.0f / (1.0f + expf(-x))",
    "silu": "x / (1.0f + expf(-x))",
    "gelu": "0.5f * x * (1.0f + erff(x * 0x1.6a09e6p-1f))",
}
C_KAPPA = np.float32(0.7978845608028654)  # sqrt(2/pi), the tanh form's constant
NUMPY = {
    "exp": np.exp, "log": np.log, "sin": np.sin, "cos": np.cos, "tanh": np.tanh,
    "sigmoid": lambda x: np.float32(1) / (np.float32(1) + np.exp(-x)),
    "silu": lambda x: x / (np.float32(1) + np.exp(-x)),
    "gelu": lambda x: np.float32(0.5) * x * (np.float32(1) + np.tanh(
        C_KAPPA * (x + np.float32(0.044715) * x * x * x))),
}


def glibc_kernels(flags: list[str], cc: str) -> ctypes.CDLL:
    src = ["#include <math.h>"]
    for name, expr in GLIBC.items():
        src.append(f"void peer_{name}(const float *restrict xs, float *restrict y, long n) "
                   f"{{ for (long i = 0; i < n; i++) {{ const float x = xs[i]; "
                   f"y[i] = {expr}; }} }}")
    d = Path(tempfile.mkdtemp(prefix="ulplab-bench-"))
    (d / "peer.c").write_text("\n".join(src) + "\n")
    subprocess.run([cc, *flags, str(d / "peer.c"), "-o", str(d / "peer.so"), "-lm"], check=True)
    return ctypes.CDLL(str(d / "peer.so"))




def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=1 << 24)
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--variant", default=None, help="native build variant (default: best)")
    ap.add_argument("--funcs", default=",".join(GLIBC),
                    help=f"comma-separated subset of {','.join(GLIBC)}")
    args = ap.parse_args()
    funcs = args.funcs.split(",")
    if not funcs or not set(funcs) <= set(GLIBC) or args.n < 1 or args.runs < 1:
        ap.error(f"--funcs takes names from {','.join(GLIBC)}; --n and --runs positive")
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    from ulplab.export import native

    variant = args.variant or native.best_variant()
    flags = [*native.BASE_FLAGS, *native.VARIANTS[variant][0]]
    lib = glibc_kernels(flags, native.compiler())
    rng = np.random.default_rng(0)
    n = args.n
    ranges = {"exp": rng.uniform(-80, 80, n), "log": 10.0 ** rng.uniform(-30, 30, n),
              "sin": rng.uniform(-100, 100, n), "cos": rng.uniform(-100, 100, n)}
    act = rng.uniform(-8, 8, n)
    print(f"n = {n}, variant {variant}, flags {' '.join(flags)}; Melem/s (median of {args.runs}"
          " interleaved rounds)")
    print(f"CPU: {cpu_isa()}")
    print(f"{'function':<9} {'odd':>6} {'det':>6} {'glibc':>6} {'numpy':>6} "
          f"{'det/glibc time':>17} {'det/numpy time':>17}")
    for func in funcs:
        x = ranges.get(func, act).astype(np.float32)
        det = native.kernel(func, variant, "odd")
        det32 = native.kernel(func, variant, "float32")
        peer = getattr(lib, f"peer_{func}")

        def glibc(x: np.ndarray, peer=peer) -> np.ndarray:
            out = np.empty_like(x)
            peer(ctypes.c_void_p(x.ctypes.data), ctypes.c_void_p(out.ctypes.data),
                 ctypes.c_long(x.size))
            return out

        fns = {"odd": partial(det, x), "det": partial(det32, x), "glibc": partial(glibc, x),
               "numpy": partial(NUMPY[func], x)}
        with np.errstate(all="ignore"):
            t = interleaved_medians(fns, args.runs)
        t_det, t_32, t_glibc, t_np = t["odd"], t["det"], t["glibc"], t["numpy"]
        print(f"{func:<9} {n / t_det / 1e6:6.0f} {n / t_32 / 1e6:6.0f} {n / t_glibc / 1e6:6.0f} "
              f"{n / t_np / 1e6:6.0f} {t_32 / t_glibc:17.2f} {t_32 / t_np:17.2f}", flush=True)

    bfloat16_torch(n, args.runs)


def bfloat16_torch(n: int, runs: int) -> None:
    try:
        import torch
    except ImportError:
        print("torch not installed: no bfloat16 tensor row")
        return
    from ulplab import det

    t = (torch.rand(n, generator=torch.Generator().manual_seed(0)) * 16 - 8).to(torch.bfloat16)
    t_det = median_seconds(det.gelu, t, runs=runs)
    t_torch = median_seconds(torch.nn.functional.gelu, t, runs=runs)
    print(f"bfloat16 torch CPU tensor, n = {n}, {torch.get_num_threads()} torch threads: "
          f"det.gelu {t_det * 1e3:.1f} ms, F.gelu {t_torch * 1e3:.1f} ms, "
          f"ratio {t_det / t_torch:.2f}")


if __name__ == "__main__":
    main()
