"""diagnose: every GELU method side by side with the oracle at a few interesting inputs.

Default inputs (the seed's --diagnose points, plus the edges of the format): 0, ±min subnormal,
±0.5, ±1, ±2.78125 (bfloat16's exact positive saturation threshold), -3, -3.5 (the tail-LUT
start), -5.5, -7.65625 (the tail LUT's 87-ulp input), -8.3125 (its last knot), -13.5625
(bfloat16's exact zero threshold), the largest finite value, NaN, ±inf. Each is rounded to the
format (``read_as`` says when that changed it). For every method: the result (value and bit
pattern) and its ULP distance from the correctly rounded GELU; NaN/inf results are compared by
pattern class (``ok`` when both sides are the same non-finite value).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from rich.table import Table

from ulplab.formats import Format, round_to_format, to_values
from ulplab.stats import hex_bits
from ulplab.studies.common import (
    cell,
    expected_bits,
    fmt_of,
    gelu_methods,
    got_bits,
    nonfinite_mismatch,
    show,
    ulp_text,
)
from ulplab.ulp import ulp_distance

DEFAULT_POINTS: tuple[str, ...] = (
    "0", "min_subnormal", "-min_subnormal", "0.5", "-0.5", "1", "-1", "2.78125", "-2.78125",
    "-3", "-3.5", "-5.5", "-7.65625", "-8.3125", "-13.5625", "max", "nan", "inf", "-inf",
)


def point_bits(label: str, fmt: Format) -> tuple[int, float]:
    """(pattern, requested value) of a point label: a number, or min_subnormal / max / nan."""
    t = label.strip().lower()
    sign = -1.0 if t.startswith("-") else 1.0
    core = t.lstrip("+-")
    if core == "min_subnormal":
        v = sign * fmt.min_subnormal
    elif core == "max":
        v = sign * fmt.max_value
    elif core == "nan":
        return fmt.nan_bits, math.nan
    else:
        v = sign * float(core) if core in ("inf", "infinity") else float(t)
    return int(round_to_format(np.array([v]), fmt)[0]), v


def diagnose(fmt: Format | str = "bfloat16", points: Sequence[str] | None = None,
             methods: Sequence[str] | None = None) -> dict[str, Any]:
    fmt = fmt_of(fmt)
    labels = list(points or DEFAULT_POINTS)
    pairs = [point_bits(p, fmt) for p in labels]
    bits = np.array([b for b, _ in pairs], dtype=np.int64).astype(fmt.uint)
    xs = to_values(bits, fmt)
    expected = expected_bits(fmt, bits)
    inputs = []
    for label, (b, v), x, e in zip(labels, pairs, xs, expected, strict=True):
        same = (x == v) or (math.isnan(x) and math.isnan(v))
        inputs.append({"label": label, "x": float(x), "hex": hex_bits(b, fmt),
                       "read_as": None if same else float(x),
                       "oracle": cell(int(e), fmt)})
    rows = []
    for m in gelu_methods(methods):
        got = got_bits(m, fmt, bits)
        ulp = ulp_distance(got, expected, fmt)
        bad = nonfinite_mismatch(got, expected, fmt)
        results = [{**cell(int(g), fmt), "ulp": int(u), "nonfinite_mismatch": bool(k)}
                   for g, u, k in zip(got, ulp, bad, strict=True)]
        rows.append({"method": m.name, "results": results,
                     "max_ulp": int(max(ulp.max(), 0)), "nonfinite_mismatches": int(bad.sum())})
    return {"study": "diagnose", "function": "gelu", "format": fmt.name,
            "oracle": "correctly rounded, nearest-even, IEEE denormals",
            "inputs": inputs, "methods": rows}


def render(res: dict[str, Any]) -> list[Table]:
    fmt = res["format"]
    t = Table(title=f"diagnose: gelu oracle at the chosen {fmt} inputs", title_justify="left")
    for c in ("input", "x", "bits", "oracle gelu(x)", "oracle bits"):
        t.add_column(c, justify="right")
    for p in res["inputs"]:
        note = "" if p["read_as"] is None else " (rounded)"
        t.add_row(p["label"] + note, show(p["x"]), p["hex"], show(p["oracle"]["value"]),
                  p["oracle"]["hex"])
    u = Table(title=f"diagnose: ULP from the oracle per method ({fmt}; 'ok' = same NaN/inf)",
              title_justify="left")
    u.add_column("method")
    for p in res["inputs"]:
        u.add_column(p["label"], justify="right")
    for m in res["methods"]:
        u.add_row(m["method"], *[ulp_text(r["ulp"], r["nonfinite_mismatch"])
                                 for r in m["results"]])
    v = Table(title=f"diagnose: results ({fmt} bit patterns; oracle first)", title_justify="left")
    v.add_column("method")
    for p in res["inputs"]:
        v.add_column(p["label"], justify="right")
    v.add_row("oracle", *[p["oracle"]["hex"] for p in res["inputs"]])
    for m in res["methods"]:
        v.add_row(m["method"], *[r["hex"] for r in m["results"]])
    return [t, u, v]
