"""Warm ``assert_max_ulp`` (the pytest plugin's check) over every bfloat16 input.

    python benchmarks/bench_assert_max_ulp.py [--function tanh] [--runs 15]

The target is <= 100 ms per call with the oracle cached. The callable is a user's float32 NumPy
function (``np.tanh`` by default; ``det`` for other functions); the peer measured in the same run
is that call alone over the same 65,536 inputs.
"""

from __future__ import annotations

import argparse

import numpy as np

from timing import median_seconds


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--function", default="tanh")
    ap.add_argument("--runs", type=int, default=15)
    args = ap.parse_args()
    from ulplab.formats import all_patterns, get_format, to_values
    from ulplab.methods import get_method
    from ulplab.testing import assert_max_ulp

    fmt = get_format("bfloat16")
    impl = np.tanh if args.function == "tanh" else get_method(args.function, "det-odd").impl
    report = assert_max_ulp(impl, args.function, fmt.name, max_ulp=1)  # warms cache and imports
    xs = to_values(all_patterns(fmt), fmt).astype(np.float32)
    full = median_seconds(lambda: assert_max_ulp(impl, args.function, fmt.name, max_ulp=1),
                          runs=args.runs)
    with np.errstate(all="ignore"):
        peer = median_seconds(lambda: impl(xs), runs=args.runs)
    print(f"warm assert_max_ulp {args.function} over 65,536 bfloat16 inputs (max "
          f"{report.max_ulp} ULP): median {full * 1e3:.1f} ms of {args.runs} runs "
          f"(target <= 100 ms)")
    print(f"peer: the call alone {peer * 1e3:.3f} ms; assert_max_ulp / call = {full / peer:.1f}")


if __name__ == "__main__":
    main()
