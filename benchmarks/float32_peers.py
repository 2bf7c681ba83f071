"""The float32 report card of NumPy and the C library over all 2^32 inputs, one function at a time.

    python benchmarks/float32_peers.py run [--functions exp,log,...] [--backends numpy,libm]
    python benchmarks/float32_peers.py table

``run`` sweeps each function with ``ulplab peers FUNC --format float32 --exhaustive --backends
numpy,libm`` (one sweep per function: both backends share the oracle's pass), one sweep at a
time, under ``nice -n 10``, with 2 local Dask workers when the 1-minute load average (read after
a 20 s pause) is below 2, else in one process. Each sweep keeps a checkpoint (rerun to continue
an interrupted one) and its JSON goes to ``benchmarks/results/float32/FUNC.json`` with the run's
circumstances added under ``"run"`` (workers, load average, start and end, the git commit).
A function whose JSON exists is skipped. ``table`` prints the README's markdown table from
those files, and from the checkpoint of a sweep not yet finished (marked: the share of inputs
swept, spread evenly over all bit patterns).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).resolve().parent / "results" / "float32"
FUNCTIONS = ("exp", "log", "sin", "cos", "tanh", "exp2", "log2", "erf", "erfc")


def _commit() -> str:
    """The git commit of the code that ran (ULPLAB_RUN_COMMIT when run from a copy)."""
    if os.environ.get("ULPLAB_RUN_COMMIT"):
        return os.environ["ULPLAB_RUN_COMMIT"]
    out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                         text=True, check=False, cwd=Path(__file__).resolve().parent)
    return out.stdout.strip() or "unknown"


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def run(functions: list[str], backends: str, checkpoints: Path, results: Path = RESULTS,
        extra: Callable[[], dict[str, Any]] | None = None) -> None:
    """One exhaustive ``ulplab peers`` sweep per function into ``results/FUNC.json`` (see the
    module docstring), the run's circumstances under ``"run"``, plus ``extra()``'s fields."""
    results.mkdir(parents=True, exist_ok=True)
    checkpoints.mkdir(parents=True, exist_ok=True)
    for func in functions:
        target = results / f"{func}.json"
        if target.exists():
            print(f"{func}: {target} exists, skipped", flush=True)
            continue
        time.sleep(20)  # let the previous sweep's share of the load average decay
        load = os.getloadavg()[0]
        workers = 2 if load < 2 else 1
        start, t0 = _now(), time.perf_counter()
        print(f"{start} {func}: {workers} worker(s), load average {load:.2f}", flush=True)
        tmp = target.with_name(target.name + ".tmp")
        cmd = ["nice", "-n", "10", sys.executable, "-m", "ulplab", "peers", func, "--format",
               "float32", "--exhaustive", "--backends", backends, "--workers", str(workers),
               "--checkpoint", str(checkpoints / f"{func}.ckpt"), "--json", str(tmp), "--quiet"]
        done = subprocess.run(cmd, check=False)
        if done.returncode != 0:
            print(f"{func}: exit {done.returncode}; no result written", flush=True)
            continue
        result = json.loads(tmp.read_text())
        result["run"] = {"command": "ulplab " + " ".join(cmd[6:]).replace(str(tmp), "FILE"),
                         "workers": workers, "load_average_at_start": round(load, 2),
                         "load_average_at_end": round(os.getloadavg()[0], 2),
                         "cores": os.cpu_count(),
                         "started": start, "finished": _now(),
                         "wall_seconds": round(time.perf_counter() - t0, 1),
                         "commit": _commit(), **(extra() if extra else {})}
        target.write_text(json.dumps(result, indent=1) + "\n")
        tmp.unlink()
        print(f"{_now()} {func}: {result['seconds']:.0f} s, wrote {target}", flush=True)


def _unfinished(func: str, checkpoints: Path) -> dict[str, Any] | None:
    """The report of an unfinished sweep from its checkpoint (its chunks are spread evenly
    over the bit patterns, ``Job.chunks``), or None."""
    from ulplab.sweep.exhaustive import Job, load_checkpoint, report

    path = checkpoints / f"{func}.ckpt"
    if not path.exists():
        return None
    key = json.loads(path.read_text())["body"]["job"]
    job = Job(**{**key, "methods": tuple(key["methods"]),
                 "ranges": tuple(tuple(r) for r in key["ranges"])})
    loaded = load_checkpoint(path, job)
    return None if loaded is None else report(job, loaded[1], math.nan)


def table(checkpoints: Path) -> str:
    rows = ["| function | backend | inputs | not correctly rounded (share) | max ULP | "
            "NaN/inf disagreements | sweep time (both backends) | inputs sent to Arb |",
            "|---|---|---|---|---|---|---|---|"]
    for func in FUNCTIONS:
        path = RESULTS / f"{func}.json"
        r = json.loads(path.read_text()) if path.exists() else _unfinished(func, checkpoints)
        if r is None:
            continue
        n, arb = r["input_count"], r["oracle"]["arb_evaluations"]
        if "run" in r:
            w = r["run"]["workers"]
            resumed = r.get("resumed_inputs", 0)
            part = f" for the last {1 - resumed / n:.0%} (resumed)" if resumed else ""
            when = f"{r['seconds'] / 60:.1f} min{part} ({w} worker{'s' if w > 1 else ''})"
            inputs = "all 2^32"
        else:
            when = "unfinished"
            inputs = f"{n / 2**32:.0%} (spread)"
        for m in r["methods"]:
            wrong = n - round(m["exact_fraction"] * n)
            rows.append(
                f"| {func} | {m['method'].removeprefix('peer:')} | {inputs} | {wrong:,} "
                f"({wrong / n:.2e}) | {m['max_ulp']} | {m['nan_mismatches']}/"
                f"{m['inf_mismatches']} | {when} | {arb:,} ({arb / n:.1e}) |")
    return "\n".join(rows)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("what", choices=("run", "table"))
    ap.add_argument("--functions", default=",".join(FUNCTIONS))
    ap.add_argument("--backends", default="numpy,libm")
    ap.add_argument("--checkpoints", type=Path, default=Path("/tmp/ulplab-float32-checkpoints"))
    args = ap.parse_args()
    if args.what == "run":
        run([f for f in args.functions.split(",") if f], args.backends, args.checkpoints)
    else:
        print(table(args.checkpoints))


if __name__ == "__main__":
    main()
