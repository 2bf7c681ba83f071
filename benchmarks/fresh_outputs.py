"""Where a fresh output's time goes: det exp on 2^24 float32 inputs into fresh arrays of NumPy
(which madvises transparent huge pages) and of PyTorch (4 KiB pages), on one and two threads,
with and without the output's 2 MiB pages touched on the calling thread first; the fill of a
fresh array alone; torch.exp on one and two threads. Medians of ``--runs`` interleaved calls,
``--rounds`` times (this VM serves page faults in spells). docs/limits.md quotes a run of
2026-11-27 on the 2-core AMD EPYC VM.

    python benchmarks/fresh_outputs.py [--runs 9] [--rounds 2]
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np

from ulplab import det

N = 1 << 24
HUGE_PAGE_FLOATS = (2 << 20) // 4


def median_ms(calls: dict[str, Callable[[], object]], runs: int) -> dict[str, float]:
    times: dict[str, list[float]] = {name: [] for name in calls}
    for _ in range(runs):
        for name, call in calls.items():
            t = time.perf_counter()
            call()
            times[name].append(time.perf_counter() - t)
    return {name: float(np.median(v)) * 1e3 for name, v in times.items()}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=9)
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args()
    if args.runs < 1 or args.rounds < 1:
        ap.error("--runs and --rounds take positive numbers")
    import torch

    x = np.random.default_rng(0).uniform(-80, 80, N).astype(np.float32)
    xt = torch.from_numpy(x)
    kernel = det.float32_kernel("exp")
    kernel(x, threads=2)

    def numpy_out() -> np.ndarray:
        return np.empty(N, np.float32)

    def torch_out() -> np.ndarray:
        return torch.empty(N, dtype=torch.float32).numpy()

    def touched() -> np.ndarray:
        out = numpy_out()
        out[::HUGE_PAGE_FLOATS] = 0
        return out

    def torch_exp(threads: int) -> Callable[[], object]:
        def call() -> object:
            torch.set_num_threads(threads)
            return torch.exp(xt)
        return call

    calls: dict[str, Callable[[], object]] = {
        "fill numpy": lambda: numpy_out().fill(1),
        "fill torch": lambda: torch_out().fill(1),
        "det 1 numpy": lambda: kernel(x, out=numpy_out(), threads=1),
        "det 2 numpy": lambda: kernel(x, out=numpy_out(), threads=2),
        "det 2 touched": lambda: kernel(x, out=touched(), threads=2),
        "det 1 torch": lambda: kernel(x, out=torch_out(), threads=1),
        "det 2 torch": lambda: kernel(x, out=torch_out(), threads=2),
        "torch.exp 1": torch_exp(1),
        "torch.exp 2": torch_exp(2),
    }
    print(f"2^24 float32 into fresh outputs, ms, medians of {args.runs} interleaved calls")
    for r in range(args.rounds):
        for name, ms in median_ms(calls, args.runs).items():
            print(f"round {r + 1}  {name:14s} {ms:7.2f}")


if __name__ == "__main__":
    main()
