"""Every float32: throughput of the exhaustive sweep (oracle fast path + method + statistics).

    python benchmarks/bench_exhaustive.py [--function exp] [--method det] [--log2-inputs 26]
                                          [--workers 2] [--chunk 22] [--block 17]

With --log2-inputs 32 it checks all 2^32 inputs. Below that it sweeps 2^k inputs taken as
16 evenly spread slices of the bit-pattern space (every sign and binade class is in the sample)
and extrapolates the time of all 2^32 from the measured rate (printed as an extrapolation).
With --workers 1 the sweep runs in this process and its CPU time gives a per-core rate that the
machine's load does not change much. Reports inputs/s, the share of inputs the oracle sent to
Arb, and, as the peer measured in the same run, the method's own call over one chunk in this
process (the least a sweep must do). --block sets the inner block of a chunk (log2 of the
inputs the oracle and the methods take at a time; the default is the engine's ``BLOCK``).
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np


def _ranges(log2_inputs: int) -> tuple[tuple[int, int], ...]:
    if log2_inputs >= 32:
        return ((0, 1 << 32),)
    slices = 16
    size = 1 << (log2_inputs - 4)
    return tuple((i << 28, (i << 28) + size) for i in range(slices))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--function", default="exp")
    ap.add_argument("--method", default="det", help="det, peer:numpy, peer:libm, ...")
    ap.add_argument("--log2-inputs", type=int, default=26)
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--chunk", type=int, default=22, help="log2 of the inputs per task")
    ap.add_argument("--block", type=int, default=None, help="log2 of the inputs per block")
    args = ap.parse_args()
    from ulplab.sweep.exhaustive import BLOCK, Job, resolve_method

    block = BLOCK if args.block is None else 1 << args.block
    job = Job(args.function, (args.method,), _ranges(args.log2_inputs), chunk=1 << args.chunk,
              block=block)
    from ulplab.sweep.exhaustive import run_job

    t, cpu = time.perf_counter(), time.process_time()
    res = run_job(job, workers=args.workers, progress=False)
    wall, cpu = time.perf_counter() - t, time.process_time() - cpu
    n = res["input_count"]
    m = res["methods"][0]
    method = resolve_method(args.function, args.method)
    x = np.arange(0x3F000000, 0x3F000000 + job.chunk, dtype=np.int64).astype(np.uint32)
    with np.errstate(all="ignore"):
        t = time.perf_counter()
        method(x.view(np.float32))
        call = time.perf_counter() - t
    rate = n / wall
    load = os.getloadavg()[0]
    how = ("in this process" if args.workers == 1 else
           f"on {args.workers} local Dask workers, cluster startup included")
    print(f"{args.function}/{args.method}: {n:,} float32 inputs in {wall:.1f} s wall {how} "
          f"(chunks of 2^{args.chunk}, blocks of 2^{block.bit_length() - 1}; 1-min load "
          f"average {load:.1f} on {os.cpu_count()} cores)")
    print(f"  {rate / 1e6:.2f} M inputs/s; oracle sent {res['oracle']['arb_evaluations']:,} "
          f"inputs to Arb ({res['oracle']['arb_evaluations'] / n:.2e} of them)")
    print(f"  max ULP {m['max_ulp']}, mean {m['mean_ulp']:.4f}, NaN/inf disagreements "
          f"{m['nan_mismatches']}/{m['inf_mismatches']}")
    if args.workers == 1:  # in this process: its CPU time is the sweep's, whatever the load
        per_core = n / cpu
        print(f"  CPU time {cpu:.1f} s: {per_core / 1e6:.2f} M inputs/s per core; all 2^32 on "
              f"2 free cores: {(1 << 32) / (2 * per_core) / 60:.1f} min (extrapolated)")
    if n < 1 << 32:
        print(f"  extrapolated to all 2^32 inputs at the measured wall rate: "
              f"{(1 << 32) / rate / 60:.1f} min (not measured)")
    print(f"peer: the method's call alone over 2^{args.chunk} inputs in one process: "
          f"{job.chunk / call / 1e6:.2f} M inputs/s; per-worker sweep / call = "
          f"{(job.chunk / call) / (rate / args.workers):.1f}")


if __name__ == "__main__":
    main()
