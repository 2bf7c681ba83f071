"""Synthesize kernels for a list of functions and formats, time each, and keep the recipes.

    python benchmarks/bench_synth.py --functions gelu,exp --formats bfloat16 \
        --profiles fma --out benchmarks/results/synth/run.json [--recipes DIR]

For each (function, format, profile, max ULP): ``ulplab.synth.synthesize`` with a warm oracle
cache (the tables are built first, outside the timing), its wall time, operations per element,
table words and proof; the ratio of its operations to ``det``'s float32 kernel (``Method.ops``
of ``det``). ``--recipes DIR`` writes each recipe found there (the package's shipped recipes
live in src/ulplab/methods/recipes). The CPU and its ISA are printed and stored.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from timing import machine
from ulplab.methods import get_method
from ulplab.methods.synthesized import method_name, recipe_document, slug
from ulplab.oracle.table import oracle_table
from ulplab.synth import PROFILES, synthesize, total


def _progress(t0: float):
    def show(msg: str) -> None:
        print(f"  {time.perf_counter() - t0:7.1f} s  {msg}", file=sys.stderr, flush=True)

    return show


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--functions", default="gelu,gelu_tanh,silu,sigmoid,tanh,exp,log,erf,softplus")
    ap.add_argument("--formats", default="bfloat16,float16")
    ap.add_argument("--profiles", default="fma")
    ap.add_argument("--max-ulp", default="0")
    ap.add_argument("--out", required=True)
    ap.add_argument("--recipes", help="write each recipe found into this directory")
    ap.add_argument("--verbose", action="store_true", help="each candidate on stderr")
    a = ap.parse_args()
    info = machine()
    print(f"machine: {info}", file=sys.stderr)
    rows = []
    for fmt in a.formats.split(","):
        for func in a.functions.split(","):
            oracle_table(func, fmt, progress=False)  # warm cache: not timed
            det_ops = total(get_method(func, "det").ops)
            for prof in a.profiles.split(","):
                for mu in (int(v) for v in a.max_ulp.split(",")):
                    t0 = time.perf_counter()
                    res = synthesize(func, fmt, PROFILES[prof], max_ulp=mu,
                                     progress=_progress(t0) if a.verbose else None)
                    dt = time.perf_counter() - t0
                    r = res.recipe
                    row = {"function": func, "format": fmt, "profile": prof, "max_ulp": mu,
                           "seconds": round(dt, 1), "candidates": res.tried,
                           "found": r is not None, "det_ops": det_ops}
                    if r is not None:
                        ops = total(res.ops)
                        row.update({"method": method_name(r), "ops": ops, "by_kind": res.ops,
                                    "table_words": r.table_entries, "pieces": r.pieces,
                                    "degree": r.degree, "template": r.template,
                                    "core_degree": len(r.core) - 1 if r.core else None,
                                    "measured_max_ulp": r.proof["max_ulp"],
                                    "inputs_verified": r.proof["inputs_verified"],
                                    "det_over_synth": round(det_ops / ops, 1)})
                        if a.recipes:
                            d = Path(a.recipes)
                            d.mkdir(parents=True, exist_ok=True)
                            (d / f"{slug(r)}.json").write_text(
                                json.dumps(recipe_document(r), indent=1) + "\n")
                    rows.append(row)
                    print(json.dumps({k: v for k, v in row.items() if k != "by_kind"}),
                          file=sys.stderr, flush=True)
                    cmd = "python benchmarks/bench_synth.py " + " ".join(sys.argv[1:])
                    Path(a.out).write_text(json.dumps({"command": cmd, "machine": info,
                                                       "rows": rows},
                                                      indent=1) + "\n")


if __name__ == "__main__":
    main()
