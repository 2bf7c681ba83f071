"""The compiled float32 runner against the one-pass build of the float32 entry point, on every
float32 input.

    python benchmarks/verify_native.py FUNC [FUNC ...] [--rounding float32|odd] [--log2-chunk 24]

``ulplab.export.native.kernel(FUNC, rounding="float32")`` runs two passes (the kernel's first
pass, ``KERNELS[..]["first_pass"]``, or without one the kernel in the ``fast`` rounding mode;
then the whole entry point on the results it flagged) and, for tan, a fast-path build on chunks
of small inputs. This script compares its output, bit for
bit, with the one-pass C build of the whole entry point (nearest rounding and exception table on
every input: the build the golden hashes and the exhaustive oracle sweeps hold) on all 2^32 bit
patterns, and prints the mismatches (none expected), how many results the first pass flagged,
and the time.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np


def verify(func: str, rounding: str, log2_chunk: int) -> int:
    from ulplab.export import native
    from ulplab.kernels.core import FLAG_NAN

    variant = native.best_variant()
    runner = native.kernel(func, variant, rounding)
    one_pass = native._entry(func, variant, rounding)
    first = native._float32_passes(func, variant)[0] if rounding == "float32" else None
    n = 1 << log2_chunk
    got, want = np.empty(n, np.float32), np.empty(n, np.float32)
    bad = flagged = 0
    start = time.perf_counter()
    for c in range((1 << 32) // n):
        x = np.arange(c * n, (c + 1) * n, dtype=np.uint64).astype(np.uint32).view(np.float32)
        runner(x, got)
        one_pass(x.ctypes.data, want.ctypes.data, n)
        diff = np.flatnonzero(got.view(np.uint32) != want.view(np.uint32))
        if diff.size:
            bad += diff.size
            print(f"  {func}: {diff.size} mismatches from 0x{c * n + int(diff[0]):08x}",
                  flush=True)
        if first is not None:
            first(x.ctypes.data, want.ctypes.data, n)
            flagged += int(np.count_nonzero((want.view(np.uint32) & np.uint32(0x7FFFFFFF))
                                            == FLAG_NAN))
    secs = time.perf_counter() - start
    share = f", first pass flagged {flagged:,} ({flagged / 2**32:.1e})" if first else ""
    print(f"{func} ({rounding}): {bad} mismatches over all 2^32 inputs{share}; {secs:.0f} s",
          flush=True)
    return bad


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("functions", nargs="+")
    ap.add_argument("--rounding", default="float32", choices=("float32", "odd"))
    ap.add_argument("--log2-chunk", type=int, default=24)
    args = ap.parse_args()
    from ulplab.kernels import registry

    det = registry.functions()
    for f in args.functions:
        if f not in det:
            ap.error(f"no det kernel for {f!r}; valid: {', '.join(det)}")
    if not 12 <= args.log2_chunk <= 28:
        ap.error(f"--log2-chunk must be in [12, 28], not {args.log2_chunk}")
    bad = sum(verify(f, args.rounding, args.log2_chunk) for f in args.functions)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
