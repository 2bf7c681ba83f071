"""Cold oracle builds: every listed function on every bfloat16 and float16 input.

    python benchmarks/bench_oracle.py [--formats bfloat16,float16] [--json PATH]

Builds into a fresh temporary cache (so every table is cold) with one process per core, and
reports seconds per (function, format) and in total. The peer measured in the same run is the
mpmath cross-check of one function, the independent (unproven) method.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--formats", default="bfloat16,float16")
    ap.add_argument("--json")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["ULPLAB_CACHE_DIR"] = tmp
        from ulplab.formats import get_format
        from ulplab.functions import FUNCTIONS
        from ulplab.oracle.crosscheck import crosscheck_table
        from ulplab.oracle.table import build
        from ulplab.oracle.workers import worker_count

        rows = []
        t_all = time.perf_counter()
        for name in args.formats.split(","):
            fmt = get_format(name)
            for f in FUNCTIONS:
                t = time.perf_counter()
                build([(f, fmt)], progress=False)
                rows.append({"function": f, "format": name, "seconds": time.perf_counter() - t})
        total = time.perf_counter() - t_all
        t = time.perf_counter()
        crosscheck_table("gelu", get_format("bfloat16"))
        peer = time.perf_counter() - t
    gelu = next(r["seconds"] for r in rows if r["function"] == "gelu" and r["format"] == "bfloat16")
    print(f"{'function':<10} {'format':<9} {'cold s':>7}")
    for r in rows:
        print(f"{r['function']:<10} {r['format']:<9} {r['seconds']:7.2f}")
    print(f"total cold build, {len(rows)} tables, {worker_count()} workers: {total:.1f} s "
          f"(median {statistics.median(r['seconds'] for r in rows):.2f} s per table)")
    print(f"peer: mpmath cross-check of gelu/bfloat16 {peer:.2f} s; "
          f"Arb oracle / mpmath = {gelu / peer:.2f}")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"tables": rows, "total_seconds": total, "peer_seconds": peer}, fh, indent=2)


if __name__ == "__main__":
    main()
