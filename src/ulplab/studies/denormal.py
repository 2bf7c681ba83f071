"""denormal: the four denormal policies side by side for every GELU method (the seed's E5/E8).

Policies (``ulplab.formats.POLICIES``): ieee; daz (subnormal inputs read as a zero of their
sign); ftz (subnormal results flushed to a zero of their sign); daz-ftz (both). Under each, the
method is measured against the oracle table of the same policy, and ULPs are counted on the
flush-to-zero ordinal when results are flushed, exactly as ``ulplab analyze --denormals P``.

The figures equal ``sweep.analyze(methods, "gelu", fmt, denormals=P)`` (a test checks it); they
are computed with one sweep per method instead of four: every method is elementwise, so under DAZ
a subnormal input gives the method's result at the zero of its sign, and FTZ is a flush of the
results.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from rich.table import Table

from ulplab.formats import (
    POLICIES,
    Format,
    all_patterns,
    flush_subnormals,
    magnitude,
    signed_zero,
    to_values,
)
from ulplab.oracle.table import oracle_table
from ulplab.studies.common import (
    exhaustive_fmt,
    gelu_methods,
    got_bits,
    nonfinite_mismatch,
    seed_note,
)
from ulplab.ulp import ulp_distance


def policy_outputs(got_ieee: np.ndarray, fmt: Format, policy: str) -> np.ndarray:
    """The method's results under ``policy`` from its IEEE results on every pattern."""
    p = POLICIES[policy]
    out = got_ieee
    if p.daz:
        pats = all_patterns(fmt).astype(np.int64)
        mag = magnitude(pats, fmt)
        sub = (mag != 0) & (mag < fmt.min_normal_bits)
        out = np.where(sub, got_ieee[signed_zero(pats, fmt)], out).astype(fmt.uint)  # fnuz: +0
    if p.ftz:
        out = flush_subnormals(out, fmt)
    return out


def denormal(fmt: Format | str = "bfloat16", methods: Sequence[str] | None = None
             ) -> dict[str, Any]:
    fmt = exhaustive_fmt(fmt, "denormal")
    bits = all_patterns(fmt)
    xs = to_values(bits, fmt)
    near_zero = (xs > -0.5) & (xs < 0.5)
    tables = {p: oracle_table("gelu", fmt, "nearest-even", p, progress=False) for p in POLICIES}
    mag = magnitude(bits.astype(np.int64), fmt)
    sub_in = (mag != 0) & (mag < fmt.min_normal_bits)
    rows = []
    for m in gelu_methods(methods):
        ieee = got_bits(m, fmt)
        per: dict[str, Any] = {}
        for p, pol in POLICIES.items():
            got = policy_outputs(ieee, fmt, p)
            ulp = ulp_distance(got, tables[p], fmt, ftz=pol.ftz)
            fin = ulp[ulp >= 0]
            per[p] = {"max_ulp": int(fin.max()), "mean_ulp": float(fin.mean()),
                      "nonfinite_mismatches": int(nonfinite_mismatch(got, tables[p],
                                                                     fmt).sum()),
                      "near_zero_max": int(max(ulp[near_zero].max(), 0)),
                      "subnormal_inputs_max": int(max(ulp[sub_in].max(), 0))}
        rows.append({"method": m.name, "policies": per})
    return {"study": "denormal", "function": "gelu", "format": fmt.name,
            "policies": list(POLICIES), "subnormal_inputs": int(sub_in.sum()),
            "ulp_ordinal": {p: "flush-to-zero" if POLICIES[p].ftz else "ieee"
                            for p in POLICIES},
            "methods": rows}


# The comparison with the seed's --denormal (docs/seed-studies.md).
SEED_NOTE = (
    "it measures no method under any policy (it prints GELU at 8 tail points); its claim that "
    "-8.3125 is the last input with a nonzero bfloat16 GELU is a seed defect: its own table "
    "gives bf16(GELU(-9)) = -1.02e-18, and the zero threshold is -13.5625 (ulplab saturation)"
)


def render(res: dict[str, Any]) -> list[Table]:
    pols = res["policies"]
    t = Table(title=f"denormal: every {res['format']} input under each policy (max / mean ULP; "
              f"'sub' = max over the {res['subnormal_inputs']} subnormal inputs; ftz policies "
              "count ULPs on the flush-to-zero ordinal)", title_justify="left")
    t.add_column("method")
    for p in pols:
        t.add_column(f"{p}\nmax", justify="right")
        t.add_column(f"{p}\nmean", justify="right", style="dim")
        t.add_column(f"{p}\nsub", justify="right")
    for r in res["methods"]:
        cells = [r["method"]]
        for p in pols:
            q = r["policies"][p]
            cells += [str(q["max_ulp"]), f"{q['mean_ulp']:.4f}", str(q["subnormal_inputs_max"])]
        t.add_row(*cells)
    return seed_note([t], "--denormal", SEED_NOTE)
