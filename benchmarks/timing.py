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
