"""cost-model: what each GELU method costs per element, traced (the seed's G5).

For every registered GELU method: its operation counts by kind, traced from a call
(``Method.ops``, ``ulplab.kit.count.count_ops``: mul, add, fma, div, sqrt, cmp, select, lookup,
...; library calls as lib:NAME), their total, the bytes of its tables (``Method.table_bytes``),
its library calls, and its branches. Every kernel here is branch-free array code: a comparison
becomes a select, so "branches" counts the data-dependent selects (``select``); a method that
calls a library function is not arithmetic-only. Rows are sorted by total operations, with the
registered max/mean ULP for the format beside them (``Method.claims``; "-" when none).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.table import Table

from ulplab.formats import Format
from ulplab.kit.count import ORDER
from ulplab.studies.common import fmt_of, gelu_methods, seed_note


def cost_model(fmt: Format | str = "bfloat16", methods: Sequence[str] | None = None
               ) -> dict[str, Any]:
    fmt = fmt_of(fmt)
    rows = []
    for m in gelu_methods(methods):
        c = m.claims.get(fmt.name)
        rows.append({"method": m.name, "family": m.family, "ops": dict(m.ops),
                     "total_ops": sum(m.ops.values()), "table_bytes": m.table_bytes,
                     "branches": m.ops.get("select", 0), "library_calls": list(m.library_calls),
                     "arithmetic_only": not m.library_calls,
                     "claim_max_ulp": None if c is None else c.max_ulp,
                     "claim_mean_ulp": None if c is None else c.mean_ulp})
    rows.sort(key=lambda r: (r["total_ops"], r["table_bytes"], r["method"]))
    kinds = [k for k in ORDER if any(k in r["ops"] for r in rows)]
    kinds += sorted({k for r in rows for k in r["ops"]} - set(kinds))
    return {"study": "cost-model", "function": "gelu", "format": fmt.name,
            "op_kinds": kinds, "methods": rows}


# The comparison with the seed's --cost-model (docs/seed-studies.md).
SEED_NOTE = (
    "its counts (e.g. A1 Poly-7: 14 mul, 8 add) are a hand-typed table in its source, not "
    "counted; these are traced from the kernels, saturation and rounding included"
)


def render(res: dict[str, Any]) -> list[Table]:
    t = Table(title=f"cost-model: operations per element (traced), sorted by total; "
              f"claims measured on every {res['format']} input", title_justify="left")
    t.add_column("method")
    for k in res["op_kinds"]:
        t.add_column(k, justify="right")
    for c in ("total", "table B", "branches", "library", "max ULP", "mean ULP"):
        t.add_column(c, justify="right")
    for r in res["methods"]:
        t.add_row(r["method"], *[str(r["ops"].get(k, "")) for k in res["op_kinds"]],
                  str(r["total_ops"]), str(r["table_bytes"]), str(r["branches"]),
                  ", ".join(r["library_calls"]) or "none",
                  "-" if r["claim_max_ulp"] is None else str(r["claim_max_ulp"]),
                  "-" if r["claim_mean_ulp"] is None else f"{r['claim_mean_ulp']:g}")
    return seed_note([t], "--cost-model", SEED_NOTE)
