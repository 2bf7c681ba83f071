"""sensitivity: each polynomial coefficient moved by k float32 ulps (the seed's E7).

For the chosen coefficient tuples (``"METHOD: PARAM"``, any tuple of ``studies.coefficients``;
default: A1 Pure's polynomial, whose max comes from its core, and R4 Pure's tanh numerator,
whose max comes from the tanh form and not from the coefficients), every coefficient in turn is
replaced by the float32 value k ulps above or below it (k = +-1, +-4, +-16; the other
coefficients and the rest of the kernel unchanged), the method is rebuilt with it
(``Method.rebuild``) and measured on every input of the format. Reported: max ULP of each
perturbation and its change from the unperturbed max, the mean ULP, and the largest change per
coefficient.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.table import Table

from ulplab.formats import Format
from ulplab.oracle.table import oracle_table
from ulplab.studies.coefficients import find_tuple
from ulplab.studies.common import exhaustive_fmt, got_bits, seed_note, step_float32, ulp_summary

DEFAULT_TUPLES = ("A1 Pure (improved): A1_Q", "R4 Pure (improved): TANH_P")
STEPS = (-16, -4, -1, 1, 4, 16)


def sensitivity(fmt: Format | str = "bfloat16", tuples: Sequence[str] | None = None,
                steps: Sequence[int] = STEPS) -> dict[str, Any]:
    fmt = exhaustive_fmt(fmt, "sensitivity")
    table = oracle_table("gelu", fmt, progress=False)
    out = []
    for label in tuples or DEFAULT_TUPLES:
        c = find_tuple(label)
        m = c.method
        base = ulp_summary(got_bits(m, fmt), table, fmt)
        coeffs = []
        for i, v in enumerate(c.values):
            per = {}
            for k in steps:
                vals = list(c.values)
                vals[i] = step_float32(v, k)
                s = ulp_summary(got_bits(c.rebuilt(vals), fmt), table, fmt)
                per[str(k)] = {"max_ulp": s["max_ulp"], "mean_ulp": s["mean_ulp"],
                               "delta_max": s["max_ulp"] - base["max_ulp"]}
            coeffs.append({"index": i, "value": float(v), "hex": float(v).hex(),
                           "perturbed": per,
                           "worst_delta_max": max(p["delta_max"] for p in per.values())})
        out.append({"tuple": c.label, "method": m.name, "base": base, "coefficients": coeffs})
    return {"study": "sensitivity", "function": "gelu", "format": fmt.name,
            "steps_float32_ulps": list(steps), "tuples": out}


# The comparison with the seed's --sensitivity (docs/seed-studies.md).
SEED_NOTE = (
    "its +1 and -1 ULP columns are the unperturbed ULP copied ('Placeholder' in its source), "
    "so its 'Max change 0, Robustness GOOD' is not measured, a seed defect; here each "
    "coefficient is moved and the method swept"
)


def render(res: dict[str, Any]) -> list[Table]:
    tables = []
    for r in res["tuples"]:
        if r["method"] is None:
            continue
        t = Table(title=f"sensitivity: {r['tuple']} in {r['method']}, max ULP on every "
                  f"{res['format']} input with one coefficient moved k float32 ulps "
                  f"(max / mean; unperturbed {r['base']['max_ulp']} / "
                  f"{r['base']['mean_ulp']:.4f})", title_justify="left")
        t.add_column("coeff")
        t.add_column("value (hex)")
        for k in res["steps_float32_ulps"]:
            t.add_column(f"k={k:+d}", justify="right")
        t.add_column("worst Δmax", justify="right")
        for c in r["coefficients"]:
            t.add_row(f"c{c['index']}", c["hex"],
                      *[f"{c['perturbed'][str(k)]['max_ulp']} / "
                        f"{c['perturbed'][str(k)]['mean_ulp']:.4f}"
                        for k in res["steps_float32_ulps"]], f"{c['worst_delta_max']:+d}")
        tables.append(t)
    return seed_note(tables, "--sensitivity", SEED_NOTE)
