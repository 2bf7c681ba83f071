"""quantization: polynomial coefficients stored in 16-bit formats (the seed's E2).

For every coefficient tuple a GELU method declares (``studies.coefficients``: its own and those of
the shared exp and asymptotic series it uses), each coefficient is rounded to nearest-even in
every 16-bit format of the registry (``STORAGE``, taken from ``formats.FORMATS`` by its traits:
bfloat16 and float16 today) and used again as a float32; the method is rebuilt with the quantized
tuple (``Method.rebuild``; the rest of the kernel unchanged) and measured on every input of the
format. Reported: how many coefficients changed, the largest relative change, coefficients that
became zero or subnormal, and max/mean ULP with float32 coefficients and with each storage's.
``methods`` limits the study to the named methods (default: every method with parameters).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from rich.table import Table

from ulplab.formats import FORMATS, Format, get_format, magnitude, round_to_format, to_values
from ulplab.oracle.table import oracle_table
from ulplab.studies.coefficients import coefficient_tuples
from ulplab.studies.common import exhaustive_fmt, got_bits, seed_note, ulp_summary

STORAGE = tuple(n for n, f in FORMATS.items() if f.bits == 16 and f.exhaustive)
"""The storage formats: every 16-bit format of the registry (bfloat16, float16 today)."""


def quantize(values: tuple[float, ...], storage: str) -> tuple[np.ndarray, dict[str, Any]]:
    s = get_format(storage)
    v = np.array(values, dtype=np.float32).astype(np.float64)
    b = round_to_format(v, s)
    q = to_values(b, s)
    mag = magnitude(b.astype(np.int64), s)
    with np.errstate(divide="ignore", invalid="ignore"):
        rel = np.where(v != 0, np.abs(q - v) / np.abs(v), 0.0)
    info = {"changed": int((q != v).sum()), "max_rel_change": float(rel.max()),
            "became_zero": int(((q == 0) & (v != 0)).sum()),
            "became_subnormal": int(((mag > 0) & (mag < s.min_normal_bits)).sum()),
            "overflowed": int((~np.isfinite(q)).sum())}
    return q, info


def quantization(fmt: Format | str = "bfloat16",
                 methods: Sequence[str] | None = None) -> dict[str, Any]:
    fmt = exhaustive_fmt(fmt, "quantization")
    table = oracle_table("gelu", fmt, progress=False)
    base_cache: dict[str, dict[str, Any]] = {}
    rows = []
    for c in coefficient_tuples(methods):
        m = c.method
        entry: dict[str, Any] = {"tuple": c.label, "coefficients": len(c.values),
                                 "read_by": [m.name], "storage": {}, "methods": []}
        res = {"method": m.name}
        if m.name not in base_cache:
            base_cache[m.name] = ulp_summary(got_bits(m, fmt), table, fmt)
        res["float32"] = base_cache[m.name]
        for st in STORAGE:
            q, info = quantize(c.values, st)
            entry["storage"][st] = info
            res[st] = (base_cache[m.name] if info["changed"] == 0
                       else ulp_summary(got_bits(c.rebuilt(q), fmt), table, fmt))
        entry["methods"].append(res)
        rows.append(entry)
    return {"study": "quantization", "function": "gelu", "format": fmt.name,
            "storage": list(STORAGE), "tuples": rows}


# The comparison with the seed's --quantization (docs/seed-studies.md).
SEED_NOTE = (
    "it rounds 10 loose constants to bfloat16 (relative errors up to 0.3623%, A&S a1) "
    "without rebuilding a method, and its 'ULP_bf16' column is the float32 ULP printed twice "
    "('Same for now' in its source), a seed defect; here each declared tuple is rebuilt and "
    "swept")


def render(res: dict[str, Any]) -> list[Table]:
    storage = res["storage"]
    t = Table(title=f"quantization: coefficients stored in {' / '.join(storage)}, measured on "
              f"every {res['format']} input (max / mean ULP)", title_justify="left")
    for c in ("tuple", "n", "method", "float32"):
        t.add_column(c, justify="left" if c in ("tuple", "method") else "right")
    for st in storage:
        t.add_column(f"{st} coeffs", justify="right")
        t.add_column(f"{st} changed / max rel / zero / subn", justify="right")

    def mm(s: dict[str, Any]) -> str:
        return f"{s['max_ulp']} / {s['mean_ulp']:.4f}"

    for r in res["tuples"]:
        for m in r["methods"]:
            cells = []
            for st in storage:
                q = r["storage"][st]
                cells += [mm(m[st]), f"{q['changed']} / {q['max_rel_change']:.2e} / "
                          f"{q['became_zero']} / {q['became_subnormal']}"]
            t.add_row(r["tuple"], str(r["coefficients"]), m["method"], mm(m["float32"]), *cells)
    return seed_note([t], "--quantization", SEED_NOTE)
