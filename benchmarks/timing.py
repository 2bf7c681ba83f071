"""The one timing rule of every benchmark here: the median of several runs, after one untimed
warm-up call (caches built, code compiled), so a ratio against a peer compares steady states."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import Any


def median_seconds(fn: Callable[..., Any], *args: Any, runs: int) -> float:
    """Median wall time of ``fn(*args)`` over ``runs`` calls, after one warm-up call."""
    fn(*args)
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        fn(*args)
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def interleaved_medians(fns: dict[str, Callable[[], Any]], runs: int) -> dict[str, float]:
    """Median wall time of each zero-argument callable over ``runs`` rounds, after one warm-up
    call each; every round times each callable once, in a rotating order, so that a slow
    spell of a shared machine falls on all of them alike rather than on one, and (since
    2026-11-27) each timed call right after an untimed call of the same callable, so that none
    is timed in the wake of another's threads. PyTorch's OpenMP workers spin for a few
    milliseconds after each parallel op, and a call timed right after one ran with a core
    taken; a pause instead lets the next call's own workers fall asleep, and waking them on
    the VM took longer than the call: on the 2-core AMD EPYC VM det.gelu on a bfloat16 tensor
    of 2^24 took 9.7-9.9 ms right after F.gelu, 4.3 right after itself, 3.8 after a pause of
    1-5 ms and 6.3-6.4 (its one-thread time) after 10-100 ms; unprimed, the benchmark's
    bfloat16 ratio swung from 0.36 to 0.62 between runs."""
    names = list(fns)
    for name in names:
        fns[name]()
    times: dict[str, list[float]] = {name: [] for name in names}
    for r in range(runs):
        for name in names[r % len(names):] + names[: r % len(names)]:
            fns[name]()  # primed: not timed in the wake of another callable's threads
            t = time.perf_counter()
            fns[name]()
            times[name].append(time.perf_counter() - t)
    return {name: statistics.median(ts) for name, ts in times.items()}


def cpu_isa() -> str:
    """The CPU's model and the best ISA level ulplab's builds use on it (avx512, avx2 or
    portable): ``ulplab.peers.machine.cpu_isa``."""
    from ulplab.peers.machine import cpu_isa as isa

    return isa()


def machine() -> dict[str, str | int | None]:
    """What a benchmark's figures were measured on: the CPU and ISA level (``cpu_isa``), its
    core count (``os.cpu_count()``), and the versions of Python, NumPy and PyTorch (None where
    PyTorch is not installed)."""
    import os
    import platform

    import numpy

    try:
        import torch

        torch_version: str | None = torch.__version__
    except ImportError:
        torch_version = None
    return {"cpu": cpu_isa(), "cpu_count": os.cpu_count(), "python": platform.python_version(),
            "numpy": numpy.__version__, "torch": torch_version}
