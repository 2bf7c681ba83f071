"""The user's import path: a fresh process's first ``ulplab.det.exp`` call, over ``import numpy``.

    python benchmarks/bench_import.py [--runs 15]

Each run is a new Python process (warm disk cache: the det builds are made once before timing)
that measures, with ``time.perf_counter`` inside the process, ``import numpy`` and then ``import
ulplab; ulplab.det.exp(x)`` on 4 float32 values; the two kinds of process alternate, and the
script prints the medians, the difference (the target of the kernel-registry issue: at most 50
ms) and which ulplab modules the second kind imported (none of ``ulplab.methods``, ``.fit``,
``.oracle`` may appear). The CPU's ISA level is printed with the figures.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys

from timing import cpu_isa

PROBE = """
import json, sys, time
t0 = time.perf_counter()
import numpy as np
t1 = time.perf_counter()
import ulplab
y = ulplab.det.exp(np.ones(4, np.float32))
t2 = time.perf_counter()
assert float(y[0]) == 2.7182817459106445
print(json.dumps({"numpy_ms": 1e3 * (t1 - t0), "det_ms": 1e3 * (t2 - t1),
                  "modules": sorted(m for m in sys.modules if m.startswith("ulplab"))}))
"""


def run_once() -> dict:
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True,
                         check=True)
    return json.loads(out.stdout)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=15)
    args = p.parse_args()
    if args.runs < 1:
        p.error("--runs must be at least 1")
    first = run_once()  # builds or loads the cached kernels once
    runs = [run_once() for _ in range(args.runs)]
    det = statistics.median(r["det_ms"] for r in runs)
    numpy_ms = statistics.median(r["numpy_ms"] for r in runs)
    print(f"CPU: {cpu_isa()}; {args.runs} fresh processes, warm cache")
    print(f"import numpy                                  {numpy_ms:7.1f} ms (median)")
    print(f"import ulplab + first ulplab.det.exp(x) after {det:7.1f} ms (median; target <= 50)")
    heavy = [m for m in first["modules"]
             if m.startswith(("ulplab.methods", "ulplab.fit", "ulplab.oracle"))]
    print(f"ulplab modules imported: {len(first['modules'])}; research/oracle among them: "
          f"{heavy or 'none'}")


if __name__ == "__main__":
    main()
