"""Warm analyze: one method over every bfloat16 input, in-process, oracle cached.

    python benchmarks/bench_analyze.py [--function gelu] [--runs 15]

Reports the median of several runs and its ratio to the peer measured in the same run: the
method's own call over the same 65,536 inputs (the least any sweep must do).
"""

from __future__ import annotations

import argparse

import numpy as np

from timing import median_seconds


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--function", default="gelu")
    ap.add_argument("--method", default="f32-naive")
    ap.add_argument("--runs", type=int, default=15)
    args = ap.parse_args()
    from ulplab.formats import all_patterns, get_format, to_values
    from ulplab.methods import get_method
    from ulplab.oracle.table import oracle_table
    from ulplab.sweep import analyze

    fmt = get_format("bfloat16")
    method = get_method(args.function, args.method)
    oracle_table(args.function, fmt)  # warm the cache
    xs = to_values(all_patterns(fmt), fmt).astype(np.float32)
    full = median_seconds(lambda: analyze([method], args.function, fmt, progress=False),
                          runs=args.runs)
    peer = median_seconds(lambda: method(xs), runs=args.runs)
    print(f"warm analyze {args.function}/{args.method} over 65,536 bfloat16 inputs: "
          f"median {full * 1e3:.1f} ms of {args.runs} runs")
    print(f"peer: the method call alone {peer * 1e3:.3f} ms; analyze / call = {full / peer:.1f}")


if __name__ == "__main__":
    main()
