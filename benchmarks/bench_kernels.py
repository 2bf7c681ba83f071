"""Throughput of the deterministic kernels in NumPy against NumPy's own float32 functions.

    python benchmarks/bench_kernels.py [--n 16777216] [--runs 5]

16M float32 inputs drawn uniformly from a range where each function is busy ([-80, 80] for exp,
[1e-30, 1e30] log-uniform for log, [-100, 100] for sin/cos, [-8, 8] for the activations);
median of several runs; the peer is measured in the same run on the same array: NumPy's ufunc
where one exists (exp, exp2, log, log2, sin, cos, tanh), otherwise the textbook float32 formula.
Columns: the NumPy kernel (whole-array passes, emulated FMA), its compiled C export
(``ulplab.export.native``: -O3 -ffp-contract=off, the best build variant for this CPU; see
benchmarks/bench_native.py for it against glibc) and the peer, in millions of elements/s.
"""

from __future__ import annotations

import argparse

import numpy as np

from timing import median_seconds


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=1 << 24)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    from ulplab.methods import get_method

    rng = np.random.default_rng(0)
    n = args.n
    ranges = {
        "exp": rng.uniform(-80, 80, n), "exp2": rng.uniform(-120, 120, n),
        "log": 10.0 ** rng.uniform(-30, 30, n), "log2": 10.0 ** rng.uniform(-30, 30, n),
        "sin": rng.uniform(-100, 100, n), "cos": rng.uniform(-100, 100, n),
    }
    act = rng.uniform(-8, 8, n)
    from ulplab.export import load

    print(f"{'function':<10} {'det Melem/s':>12} {'C export':>9} {'peer Melem/s':>13} "
          f"{'det/peer time':>14}  peer")
    for func in ("exp", "exp2", "log", "log2", "sin", "cos", "tanh", "sigmoid", "softplus",
                 "silu", "erf", "gelu", "gelu_tanh"):
        x = ranges.get(func, act).astype(np.float32)
        det = get_method(func, "det-odd")
        peer = get_method(func, "f32-naive")
        c_kernel = load(func, "c")
        with np.errstate(all="ignore"):
            t_det = median_seconds(det, x, runs=args.runs)
            t_c = median_seconds(c_kernel, x, runs=args.runs)
            t_peer = median_seconds(peer, x, runs=args.runs)
        print(f"{func:<10} {n / t_det / 1e6:12.1f} {n / t_c / 1e6:9.1f} {n / t_peer / 1e6:13.1f} "
              f"{t_det / t_peer:14.1f}  {peer.idea.split(': ', 1)[-1]}")


if __name__ == "__main__":
    main()
