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

``as_seed=True`` asks the seed's G7/G8 question instead: its 50 fixed points
(``SEED_POINTS``, float literals rounded to float32 then to the format), its 22 methods
(``diagnose.SEED_METHODS``), its metric (``oracle.seed_metric``; a NaN or infinite result is
skipped) and its one bound for every method, ``SEED_MAX_ULP`` = 100. It reproduces the seed's
--regression table (docs/seed-studies.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from rich.table import Table

from ulplab.analysis.saturation import saturation
from ulplab.formats import Format, is_finite, next_down, next_up, round_to_format, to_values
from ulplab.methods import Method
from ulplab.oracle.seed_metric import seed_reference, seed_ulp
from ulplab.stats import hex_bits
from ulplab.studies.common import (
    claim_max,
    expected_bits,
    fmt_of,
    gelu_methods,
    got_bits,
    nonfinite_mismatch,
    seed_note,
)
from ulplab.ulp import ulp_distance

# The seed's regression_suite::adversarial_points, and the bound its run_regression applies.
SEED_POINTS: tuple[float, ...] = (
    0.0, 1e-6, 1e-4, 0.001, 0.01, 0.1, -1e-6, -1e-4, -0.001, -0.01, -0.1,
    0.25, 0.5, 1.0, 2.0, 4.0, -0.25, -0.5, -1.0, -2.0, -4.0,
    2.9, 2.99, 3.0, 3.01, 3.1, -3.4, -3.49, -3.5, -3.51, -3.6,
    -4.0, -4.5, -5.0, -5.5, -6.0, -7.0, -8.0, -8.375, 1.5, -1.5,
    0.125, 0.0625, 8.0, 16.0, -0.125, -0.0625, -8.0, 0.00390625, 0.001953125,
)
SEED_MAX_ULP = 100

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


def seed_inputs(fmt: Format) -> dict[int, list[str]]:
    """The seed's 50 points as patterns (float32 first, as its float literals) -> label."""
    pats = round_to_format(np.array(SEED_POINTS, dtype=np.float32), fmt)
    src: dict[int, list[str]] = {}
    for p, v in zip(pats, SEED_POINTS, strict=True):
        src.setdefault(int(p), []).append(f"seed point {v:g}")
    return src


def regression(fmt: Format | str = "bfloat16", methods: Sequence[str] | None = None,
               show_failures: int = 5, as_seed: bool = False) -> dict[str, Any]:
    from ulplab.studies.diagnose import SEED_METHODS

    fmt = fmt_of(fmt)
    src = seed_inputs(fmt) if as_seed else regression_inputs(fmt)
    bits = np.array(sorted(src), dtype=np.int64).astype(fmt.uint)
    xs = to_values(bits, fmt)
    expected = seed_reference("gelu", fmt, bits) if as_seed else expected_bits(fmt, bits)
    rows = []
    for m in gelu_methods(methods or (SEED_METHODS if as_seed else None)):
        got = got_bits(m, fmt, bits)
        if as_seed:
            ulp = seed_ulp(bits, got, expected, fmt)
            bad_nf = np.zeros(len(ulp), bool)
            bound: int | None = SEED_MAX_ULP
        else:
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
    if as_seed:
        kinds = {"the seed's adversarial points": len(bits)}
    return {"study": "regression", "function": "gelu", "format": fmt.name,
            "inputs": len(bits), "input_sources": kinds,
            "metric": "seed" if as_seed else "ulplab",
            "rule": (f"failure: the seed's ULP > {SEED_MAX_ULP} (NaN/inf results skipped)"
                     if as_seed else
                     "failure: ULP > the method's registered claim max, or a NaN/inf mismatch"),
            "methods": rows, "all_passed": all(r["passed"] for r in rows)}


def render(res: dict[str, Any]) -> list[Table]:
    seed = res.get("metric") == "seed"
    what_in = ("the seed's fixed points, its metric, bound 100 for all" if seed else
               "boundaries, knots ±1 pattern, saturation, subnormals, specials")
    t = Table(title=f"regression: {res['inputs']} adversarial {res['format']} inputs "
              f"({what_in})", title_justify="left")
    for c in ("method", "family", "bound" if seed else "claim max", "max ULP", "failures",
              "NaN/inf!", "verdict", "worst failure"):
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
    note = ("its 50 points, 22 methods, metric and bound; max ULP and failures equal its table"
            if seed else "other question: its 50 fixed points, its metric, one bound of 100 ULP "
            "for all; here 3000+ built points, each method's own claim (--seed: the seed's)")
    return seed_note([t, s], "--regression", note)
