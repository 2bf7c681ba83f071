"""diagnose: every GELU method side by side with the oracle at a few interesting inputs.

Default inputs (the seed's --diagnose points, plus the edges of the format): 0, ±min subnormal,
±0.5, ±1, ±2.78125 (bfloat16's exact positive saturation threshold), -3, -3.5 (the tail-LUT
start), -5.5, -7.65625 (the tail LUT's 87-ulp input), -8.3125 (its last knot), -13.5625
(bfloat16's exact zero threshold), the largest finite value, NaN, ±inf. Each is rounded to the
format (``read_as`` says when that changed it). For every method: the result (value and bit
pattern) and its ULP distance from the correctly rounded GELU; NaN/inf results are compared by
pattern class (``ok`` when both sides are the same non-finite value).

``as_seed=True`` asks the seed's --diagnose question: its 33 points (``SEED_POINTS``), its 22
methods (``SEED_METHODS``, in its order) and its metric (``oracle.seed_metric``: the float64
reference rounded to float32 then to the format, +0 = -0). At those points the seed's printed
results and ULP are reproduced exactly (docs/seed-studies.md); its reference equals the
correctly rounded GELU at all 33, so both metrics give the same figures there.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from rich.table import Table

from ulplab.formats import Format, round_to_format, to_values
from ulplab.oracle.seed_metric import seed_reference, seed_ulp_distance
from ulplab.stats import hex_bits
from ulplab.studies.common import (
    cell,
    expected_bits,
    fmt_of,
    gelu_methods,
    got_bits,
    nonfinite_mismatch,
    seed_note,
    show,
    ulp_text,
)
from ulplab.ulp import ulp_distance

DEFAULT_POINTS: tuple[str, ...] = (
    "0", "min_subnormal", "-min_subnormal", "0.5", "-0.5", "1", "-1", "2.78125", "-2.78125",
    "-3", "-3.5", "-5.5", "-7.65625", "-8.3125", "-13.5625", "max", "nan", "inf", "-inf",
)

# The seed's run_diagnostics test points (float literals, rounded to the format).
SEED_POINTS: tuple[str, ...] = (
    "0", "0.001", "0.01", "0.1", "0.5", "1", "1.5", "2", "2.5", "3", "3.5", "3.9", "3.984375",
    "4", "4.5", "5", "6", "8", "-0.001", "-0.01", "-0.1", "-0.5", "-1", "-1.5", "-2", "-2.5",
    "-3", "-3.5", "-4", "-4.5", "-5", "-6", "-8",
)
# The seed's run_diagnostics methods, in its order, by their ulplab names.
SEED_METHODS: tuple[str, ...] = (
    "A1 Poly-7", "A1 Poly-9", "A1 Pure", "B1 Sigmoid", "B1v2 Sigmoid", "B3 Erf Poly", "B3 Pure",
    "C1 Spline", "C1 Pure", "D2 LUT+Erf", "D2 Pure", "E4 Hermite", "E9 Remez BF16", "F3 CF Erf",
    "F3 Pure", "R1 Poly-9", "R2 Rational", "R3 PWL", "R4 Tanh", "R4 Pure", "R5 LUT", "R5 Pure",
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
             methods: Sequence[str] | None = None, as_seed: bool = False) -> dict[str, Any]:
    fmt = fmt_of(fmt)
    if as_seed:
        points, methods = points or SEED_POINTS, methods or SEED_METHODS
    labels = list(points or DEFAULT_POINTS)
    pairs = [point_bits(p, fmt) for p in labels]
    bits = np.array([b for b, _ in pairs], dtype=np.int64).astype(fmt.uint)
    xs = to_values(bits, fmt)
    expected = seed_reference("gelu", fmt, bits) if as_seed else expected_bits(fmt, bits)
    inputs = []
    for label, (b, v), x, e in zip(labels, pairs, xs, expected, strict=True):
        same = (x == v) or (math.isnan(x) and math.isnan(v))
        inputs.append({"label": label, "x": float(x), "hex": hex_bits(b, fmt),
                       "read_as": None if same else float(x),
                       "oracle": cell(int(e), fmt)})
    rows = []
    for m in gelu_methods(methods):
        got = got_bits(m, fmt, bits)
        ulp = seed_ulp_distance(got, expected, fmt) if as_seed else ulp_distance(got, expected, fmt)
        bad = nonfinite_mismatch(got, expected, fmt)
        results = [{**cell(int(g), fmt), "ulp": int(u), "nonfinite_mismatch": bool(k)}
                   for g, u, k in zip(got, ulp, bad, strict=True)]
        rows.append({"method": m.name, "results": results,
                     "max_ulp": int(max(ulp.max(), 0)), "nonfinite_mismatches": int(bad.sum())})
    return {"study": "diagnose", "function": "gelu", "format": fmt.name,
            "oracle": ("the seed's: float64 GELU to float32 to the format, +0 = -0" if as_seed
                       else "correctly rounded, nearest-even, IEEE denormals"),
            "metric": "seed" if as_seed else "ulplab",
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
    same = ("these are its points, methods and metric; its results and ULP are the same" if
            res.get("metric") == "seed" else "--seed runs its 33 points, 22 methods and metric; "
            "there its results and ULP equal ulplab's (its reference is correctly rounded there)")
    return seed_note([t, u, v], "--diagnose", same)
