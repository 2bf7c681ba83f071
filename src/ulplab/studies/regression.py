"""regression: every GELU method against the oracle on adversarial inputs (the seed's G7/G8).

The input set is built, not listed by hand:
  * the exact saturation thresholds of the oracle (``ulplab.analysis.saturation``: where the
    rounded GELU becomes x, 0, ...), each with the patterns one below and one above;
  * every boundary and knot a method declares (``Method.params``, ``method_points``): its
    thresholds, its knots (kind "knots": breakpoints, segment edges, spline knots) and the x of
    every table of function values (``Params.table_of``: the tail LUT's knots, the Phi tables'
    grids, ...); each with both signs (several boundaries are on |x|) and +-1 pattern around it.
    A new or renamed method is probed at its own points with no list to update;
  * the subnormal range (smallest, largest, a middle one, the smallest normal, each signed),
    the largest finite values, +-0, NaN and +-inf.

Every method is run on the whole set. A failure is an input whose ULP distance exceeds the
method's registered claim for the format (``Method.claims``), or a NaN/infinity disagreement.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from rich.table import Table

from ulplab.analysis.saturation import saturation
from ulplab.formats import Format, is_finite, next_down, next_up, round_to_format, to_values
from ulplab.methods import Method
from ulplab.stats import hex_bits
from ulplab.studies.common import (
    claim_max,
    expected_bits,
    fmt_of,
    gelu_methods,
    got_bits,
    nonfinite_mismatch,
)
from ulplab.ulp import ulp_distance

POINT_KINDS = {"threshold": "declared thresholds", "knots": "declared knots",
               "table": "table knots"}


def method_points(m: Method) -> dict[str, tuple[str, list[float]]]:
    """The x a method declares (parameter name -> (its kind's source label, the x)):
    thresholds, knots, and the x of its tables of function values."""
    p = m.params
    if p is None:
        return {}
    out: dict[str, tuple[str, list[float]]] = {}
    for name in p.names("threshold"):
        out[name] = (POINT_KINDS["threshold"], [float(p[name])])
    for name in p.names("knots"):
        out[name] = (POINT_KINDS["knots"], [float(v) for v in p[name]])
    for name in p.names("table"):
        at = p.table_of(name)[1]
        if at is not None:
            out[name] = (POINT_KINDS["table"], list(at))
    return out


def _around(v: float, fmt: Format) -> list[int]:
    b = round_to_format(np.array([v, -v]), fmt)
    pats = np.concatenate([next_down(b, fmt), b, next_up(b, fmt)])
    return [int(p) for p in pats[is_finite(pats, fmt)]]


def regression_inputs(fmt: Format) -> dict[int, list[str]]:
    """Input pattern -> where it comes from."""
    src: dict[int, list[str]] = {}

    def add(p: int, why: str) -> None:
        src.setdefault(p, [])
        if why not in src[p]:
            src[p].append(why)

    if fmt.exhaustive:
        sat = saturation("gelu", fmt)
        for side in ("positive", "negative"):
            for s in sat[side]:
                for p in _around(s["threshold"], fmt):
                    add(p, f"saturation {side} gelu=={s['target']}")
    for m in gelu_methods():
        for name, (_, vals) in method_points(m).items():
            for v in vals:
                if np.isfinite(v):
                    for p in _around(v, fmt):
                        add(p, f"{m.name}: {name}")
    sub_hi = fmt.min_normal_bits - 1
    special = {"min subnormal": 1, "mid subnormal": max(sub_hi // 2, 1),
               "max subnormal": sub_hi, "min normal": fmt.min_normal_bits,
               "max finite": fmt.max_bits, "max finite - 1": fmt.max_bits - 1, "zero": 0}
    for why, mag in special.items():
        add(mag, f"+{why}")
        add(mag | fmt.sign_bit, f"-{why}")
    add(fmt.nan_bits, "NaN")
    if fmt.inf_bits is not None:
        add(fmt.inf_bits, "+inf")
        add(fmt.inf_bits | fmt.sign_bit, "-inf")
    return src


def regression(fmt: Format | str = "bfloat16", methods: Sequence[str] | None = None,
               show_failures: int = 5) -> dict[str, Any]:
    fmt = fmt_of(fmt)
    src = regression_inputs(fmt)
    bits = np.array(sorted(src), dtype=np.int64).astype(fmt.uint)
    xs = to_values(bits, fmt)
    expected = expected_bits(fmt, bits)
    rows = []
    for m in gelu_methods(methods):
        got = got_bits(m, fmt, bits)
        ulp = ulp_distance(got, expected, fmt)
        bad_nf = nonfinite_mismatch(got, expected, fmt)
        bound = claim_max(m, fmt)
        over = (ulp > bound) if bound is not None else np.zeros(len(ulp), bool)
        fail = over | bad_nf
        order = np.argsort(-np.where(fail, np.maximum(ulp, 0) + 1, 0), kind="stable")
        examples = [{"x": float(xs[i]), "hex": hex_bits(bits[i], fmt), "ulp": int(ulp[i]),
                     "got_hex": hex_bits(got[i], fmt), "expected_hex": hex_bits(expected[i], fmt),
                     "sources": src[int(bits[i])][:3]}
                    for i in order[:show_failures] if fail[i]]
        rows.append({"method": m.name, "family": m.family,
                     "claim_max_ulp": bound, "max_ulp": int(max(ulp.max(), 0)),
                     "failures": int(fail.sum()), "nonfinite_mismatches": int(bad_nf.sum()),
                     "passed": bool(not fail.any()), "examples": examples})
    kind_of = {f"{m.name}: {n}": k for m in gelu_methods()
               for n, (k, _) in method_points(m).items()}
    kinds: dict[str, int] = {}
    for whys in src.values():
        for w in whys:
            k = kind_of.get(w) or ("saturation" if w.startswith("saturation")
                                   else "specials (subnormals, max, ±0, NaN, ±inf)")
            kinds[k] = kinds.get(k, 0) + 1
    return {"study": "regression", "function": "gelu", "format": fmt.name,
            "inputs": len(bits), "input_sources": kinds,
            "rule": "failure: ULP > the method's registered claim max, or a NaN/inf mismatch",
            "methods": rows, "all_passed": all(r["passed"] for r in rows)}


def render(res: dict[str, Any]) -> list[Table]:
    t = Table(title=f"regression: {res['inputs']} adversarial {res['format']} inputs "
              f"(boundaries, knots ±1 pattern, saturation, subnormals, specials)",
              title_justify="left")
    for c in ("method", "family", "claim max", "max ULP", "failures", "NaN/inf!", "verdict",
              "worst failure"):
        t.add_column(c, justify="left" if c in ("method", "family", "worst failure") else "right")
    for r in res["methods"]:
        ex = r["examples"][0] if r["examples"] else None
        what = f"{ex['ulp']} ulp" if ex is not None and ex["ulp"] >= 0 else "NaN/inf"
        worst = "" if ex is None else (f"x={ex['x']:.6g} ({ex['hex']}) {what} "
                                       f"[{', '.join(ex['sources'])}]")
        t.add_row(r["method"], r["family"], "-" if r["claim_max_ulp"] is None
                  else str(r["claim_max_ulp"]), str(r["max_ulp"]), str(r["failures"]),
                  str(r["nonfinite_mismatches"]), "pass" if r["passed"] else "FAIL", worst)
    s = Table(title="regression: where the inputs come from", title_justify="left")
    s.add_column("source")
    s.add_column("inputs", justify="right")
    for k, n in sorted(res["input_sources"].items()):
        s.add_row(k, str(n))
    return [t, s]
