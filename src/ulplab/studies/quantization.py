"""quantization: polynomial coefficients stored in bfloat16 or float16 (the seed's E2).

For every coefficient tuple of the GELU modules (``studies.coefficients``), each coefficient is
rounded to nearest-even in bfloat16 and in float16 and used again as a float32; the methods
that read the tuple are re-measured on every input of the format with the quantized tuple in
place of the float32 one (the rest of the kernel unchanged). Reported: how many coefficients
changed, the largest relative change, coefficients that became zero or subnormal, and max/mean
ULP with float32, bfloat16 and float16 coefficients. By default the first method reading each
tuple is measured (``all_users=True`` measures every one); a tuple that no method reads at call
time is listed as such.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from rich.table import Table

from ulplab.formats import Format, get_format, magnitude, round_to_format, to_values
from ulplab.oracle.table import oracle_table
from ulplab.studies.coefficients import as_float32_tuple, coefficient_tuples, users
from ulplab.studies.common import exhaustive_fmt, got_bits, patched, ulp_summary

STORAGE = ("bfloat16", "float16")


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


def quantization(fmt: Format | str = "bfloat16", all_users: bool = False) -> dict[str, Any]:
    fmt = exhaustive_fmt(fmt, "quantization")
    table = oracle_table("gelu", fmt, progress=False)
    base_cache: dict[str, dict[str, Any]] = {}
    rows = []
    for c in coefficient_tuples():
        us = users(c)
        entry: dict[str, Any] = {"tuple": c.label, "coefficients": len(c.values),
                                 "read_by": [m.name for m in us], "storage": {}, "methods": []}
        quant = {}
        for st in STORAGE:
            q, info = quantize(c.values, st)
            quant[st] = q
            entry["storage"][st] = info
        for m in us if all_users else us[:1]:
            if m.name not in base_cache:
                base_cache[m.name] = ulp_summary(got_bits(m, fmt), table, fmt)
            res = {"method": m.name, "float32": base_cache[m.name]}
            for st in STORAGE:
                with patched(c.module, c.name, as_float32_tuple(quant[st])):
                    res[st] = ulp_summary(got_bits(m, fmt), table, fmt)
            entry["methods"].append(res)
        rows.append(entry)
    return {"study": "quantization", "function": "gelu", "format": fmt.name,
            "storage": list(STORAGE), "tuples": rows}


def render(res: dict[str, Any]) -> list[Table]:
    t = Table(title=f"quantization: coefficients stored in bfloat16 / float16, measured on every "
              f"{res['format']} input (max / mean ULP)", title_justify="left")
    for c in ("tuple", "n", "method", "float32", "bf16 coeffs", "bf16 changed / max rel",
              "fp16 coeffs", "fp16 changed / max rel / zero / subn"):
        t.add_column(c, justify="left" if c in ("tuple", "method") else "right")
    for r in res["tuples"]:
        bf, fp = r["storage"]["bfloat16"], r["storage"]["float16"]
        ch_b = f"{bf['changed']} / {bf['max_rel_change']:.2e}"
        ch_f = (f"{fp['changed']} / {fp['max_rel_change']:.2e} / {fp['became_zero']} / "
                f"{fp['became_subnormal']}")
        if not r["methods"]:
            t.add_row(r["tuple"], str(r["coefficients"]), "(read by no method at call time)",
                      "", "", ch_b, "", ch_f)
        for m in r["methods"]:
            def mm(s: dict[str, Any]) -> str:
                return f"{s['max_ulp']} / {s['mean_ulp']:.4f}"
            t.add_row(r["tuple"], str(r["coefficients"]), m["method"], mm(m["float32"]),
                      mm(m["bfloat16"]), ch_b, mm(m["float16"]), ch_f)
    return [t]
