"""verify-knots: every committed table of Phi or GELU values at knots against the correctly
rounded float32 value at its knot (the seed's --verify-knots, which printed C1's knot values).

The tables are the methods' own declarations: every table parameter of a GELU method that says
what it holds and where (``params.table(values, of=..., at=...)``, read by ``Params.table_of``),
one row per distinct table (same name, same entries, same knots), with the methods that read it.
Today: the tail LUT's GELU knots (TAIL_COARSE, TAIL_FINE), the Phi tables of R5 (PHI_TABLE),
D3 and D4 (TABLE), the GELU tables of R3 (POS/NEG_TABLE, and the seed's KNOT_GELU*), the C1
splines' Phi and h phi columns (SPLINE_C0, SPLINE_C1: h phi(x_i), h the step to the method's
next declared knot), H2's 2^(i/8) (EXP2_TABLE) and the seed's e^x chords (EXP_VALUES). A new
method's tables are checked by declaring them so; a renamed one keeps its rows.

The truth: GELU and 2^x from the oracle (``oracle.table.evaluate`` at float32 inputs, the knots
being float32 values); Phi(x) = erfc(-x/sqrt 2)/2 and h phi(x) have no oracle function, so they
are certified here (``certified_bits``): an Arb ball of the exact value at a working precision,
both ends rounded to float32 exactly (``formats.round_dyadic`` on the ball's dyadic endpoints),
precision doubled until they agree (a Ziv loop, as the oracle's). No float64 intermediate: the
tables themselves are built as float32(float(mpf)), which rounds twice and could be off by one
ulp where the double lands on a float32 midpoint; this study is what would show it.

Also reported: every other table a method declares (fitted coefficients, quadrature nodes,
hardware constants: declared without ``of``/``at``), so nothing is skipped silently.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from flint import arb, ctx
from rich.table import Table

from ulplab.formats import Format, get_format, round_dyadic
from ulplab.methods import Method
from ulplab.oracle.table import evaluate
from ulplab.studies.common import float32_ulps_apart, gelu_methods, seed_note

F32 = get_format("float32")
MAX_PRECISION = 1 << 14


# ------------------------------------------------------------------ certified rounding (Arb)
def round_arb_exact(v: arb, fmt: Format) -> int:
    man, exp = v.man_exp()
    man, exp = int(man), int(exp)
    return int(round_dyadic(man < 0, abs(man), exp, fmt)[0])  # nearest-even


def certified_bits(ball: Callable[[], arb], fmt: Format | str = F32, start: int = 96) -> int:
    """The exact value that ``ball()`` encloses, rounded to nearest-even in ``fmt`` (a pattern).

    ``ball`` is called at ctx.prec = start, 2 start, ... until both ends of its ball round to the
    same pattern (then every point between them does: rounding is monotone)."""
    fmt = get_format(fmt)
    saved = ctx.prec
    prec = start
    try:
        while prec <= MAX_PRECISION:
            ctx.prec = prec
            b = ball()
            if b.is_finite():
                lo, hi = round_arb_exact(b.lower(), fmt), round_arb_exact(b.upper(), fmt)
                if lo == hi:
                    return lo
            prec *= 2
    finally:
        ctx.prec = saved
    raise RuntimeError(f"rounding undecided at {MAX_PRECISION} bits")


def phi_ball(x: float) -> arb:
    """Phi(x) = erfc(-x/sqrt 2)/2 as an Arb ball at the current precision (x exact)."""
    return (-arb(x) / arb(2).sqrt()).erfc() / 2


def pdf_ball(x: float) -> arb:
    """phi(x) = e^(-x^2/2)/sqrt(2 pi) as an Arb ball."""
    a = arb(x)
    return (-(a * a) / 2).exp() / (2 * arb.pi()).sqrt()


def phi_bits(xs: Sequence[float], fmt: Format | str = F32) -> np.ndarray:
    """Phi at each x correctly rounded to ``fmt`` (bit patterns)."""
    fmt = get_format(fmt)
    return np.array([certified_bits(lambda x=float(x): phi_ball(x), fmt) for x in xs],
                    dtype=fmt.uint)


def scaled_pdf_bits(xs: Sequence[float], hs: Sequence[float]) -> np.ndarray:
    """h phi(x) correctly rounded to float32 (h, x exact floats)."""
    return np.array([certified_bits(lambda x=float(x), h=float(h): arb(h) * pdf_ball(x))
                     for x, h in zip(xs, hs, strict=True)], dtype=np.uint32)


# ------------------------------------------------------------------ the knot tables
@dataclass(frozen=True)
class KnotTable:
    label: str                                   # the parameter name (METHOD: NAME if shared)
    quantity: str                                # "GELU", "Phi", "h phi", "2^x", "e^x"
    methods: tuple[str, ...]                     # the methods that declare it
    values: Callable[[], np.ndarray]             # the committed float32 entries
    knots: Callable[[], list[float]]             # the knot of each entry (exact floats)
    truth: Callable[[list[float]], np.ndarray]   # correctly rounded float32 patterns at knots


def _oracle(func: str) -> Callable[[list[float]], np.ndarray]:
    return lambda ks: evaluate(func, np.array(ks, dtype=np.float64), F32).astype(np.uint32)


def _phi_truth(ks: list[float]) -> np.ndarray:
    return phi_bits(ks)


def _exp_truth(ks: list[float]) -> np.ndarray:
    return np.array([certified_bits(lambda x=float(x): arb(x).exp()) for x in ks],
                    dtype=np.uint32)


def _scaled_pdf_truth(steps: dict[float, float]) -> Callable[[list[float]], np.ndarray]:
    return lambda ks: scaled_pdf_bits(ks, [steps[k] for k in ks])


def _next_knot_steps(m: Method) -> dict[float, float]:
    """x -> the step to the next x among all knots the method declares (for h phi tables)."""
    p = m.params
    xs = sorted({float(v) for n in p.names("knots") for v in p[n]})
    return {a: b - a for a, b in itertools.pairwise(xs)}


TRUTH: dict[str, Callable[[Method], Callable[[list[float]], np.ndarray]]] = {
    "GELU": lambda m: _oracle("gelu"),
    "Phi": lambda m: _phi_truth,
    "h phi": lambda m: _scaled_pdf_truth(_next_knot_steps(m)),
    "2^x": lambda m: _oracle("exp2"),
    "e^x": lambda m: _exp_truth,
}
"""What a table may hold (its ``of``) and how its correctly rounded entries are had."""


def _declared_tables() -> tuple[list[KnotTable], list[dict[str, str]]]:
    """Distinct tables of function values the GELU methods declare, and the other tables."""
    seen: dict[tuple[str, bytes, tuple[float, ...] | None], dict[str, Any]] = {}
    for m in gelu_methods():
        p = m.params
        if p is None:
            continue
        for name in p.names("table"):
            of, at = p.table_of(name)
            key = (name, p[name].tobytes(), at)
            if key in seen:
                seen[key]["methods"].append(m.name)
            else:
                seen[key] = {"name": name, "of": of, "at": at, "values": p[name],
                             "methods": [m.name], "first": m}
    by_name: dict[str, int] = {}
    for e in seen.values():
        by_name[e["name"]] = by_name.get(e["name"], 0) + 1
    tables, others = [], []
    for e in seen.values():
        label = (e["name"] if by_name[e["name"]] == 1
                 else f"{e['methods'][0]}: {e['name']}")
        if e["of"] in TRUTH and e["at"] is not None:
            tables.append(KnotTable(label, e["of"], tuple(e["methods"]),
                                    lambda v=e["values"]: v, lambda a=e["at"]: list(a),
                                    TRUTH[e["of"]](e["first"])))
        else:
            others.append({"array": label, "methods": ", ".join(e["methods"][:3]),
                           "why": f"declared without a function and knots (of={e['of']!r})"})
    return tables, others


def knot_tables() -> list[KnotTable]:
    """Every table of function values at knots that a GELU method declares."""
    return _declared_tables()[0]


def check_table(t: KnotTable) -> dict[str, Any]:
    vals = np.asarray(t.values(), dtype=np.float32)
    ks = t.knots()
    if len(ks) != vals.size:
        raise AssertionError(f"{t.label}: {vals.size} entries but {len(ks)} knots")
    truth = t.truth(ks)
    got = vals.view(np.uint32)
    d = float32_ulps_apart(truth.view(np.float32), vals)
    bad = np.flatnonzero(got != truth)
    return {
        "table": t.label, "quantity": t.quantity, "methods": list(t.methods),
        "entries": int(vals.size), "knot_range": [float(min(ks)), float(max(ks))],
        "max_ulp": int(np.abs(d).max()) if d.size else 0, "mismatches": int(bad.size),
        "mismatch_list": [{"index": int(i), "knot": float(ks[i]),
                           "committed": f"0x{int(got[i]):08x}", "correct": f"0x{int(truth[i]):08x}",
                           "committed_value": float(vals[i]),
                           "correct_value": float(truth[i:i + 1].view(np.float32)[0]),
                           "ulp": int(d[i])} for i in bad],
    }


def verify_knots(fmt: Format | str = "bfloat16", tables: Sequence[str] | None = None
                 ) -> dict[str, Any]:
    """Every knot table against the correctly rounded float32 values (fmt is not used: the
    tables are float32; it is accepted for the ``study`` interface)."""
    declared, others = _declared_tables()
    ts = [t for t in declared if not tables or t.label in tables]
    rows = [check_table(t) for t in ts]
    return {"study": "verify-knots", "format": "float32", "tables": rows,
            "entries": sum(r["entries"] for r in rows),
            "total_mismatches": sum(r["mismatches"] for r in rows),
            "truth": "GELU, 2^x: oracle.evaluate at the float32 knots; Phi, h phi: Arb balls "
                     "rounded to float32 by a Ziv loop (certified_bits)",
            "other_arrays": others if not tables else []}


# The comparison with the seed's --verify-knots (docs/seed-studies.md).
SEED_NOTE = (
    "it prints C1's 10 knots (GELU and GELU' stored vs float64, differences up to 8.5e-8) and "
    "C1 at 8 points; here every committed table against its correctly rounded float32 value"
)


def render(res: dict[str, Any]) -> list[Table]:
    t = Table(title=f"verify-knots: {res['entries']} table entries against the correctly "
              f"rounded float32 value at each knot ({res['total_mismatches']} mismatches)\n"
              f"truth: {res['truth']}", title_justify="left")
    for c in ("table", "of", "entries", "knots", "max ULP (f32)", "mismatches", "methods"):
        t.add_column(c, justify="right" if c in ("entries", "max ULP (f32)", "mismatches")
                     else "left")
    for r in res["tables"]:
        t.add_row(r["table"], r["quantity"], str(r["entries"]),
                  f"[{r['knot_range'][0]:g}, {r['knot_range'][1]:g}]", str(r["max_ulp"]),
                  str(r["mismatches"]), ", ".join(r["methods"]))
    out = [t]
    bad = [(r["table"], m) for r in res["tables"] for m in r["mismatch_list"]]
    if bad:
        b = Table(title="verify-knots: mismatching entries", title_justify="left")
        for c in ("table", "index", "knot", "committed", "correct", "ULP"):
            b.add_column(c)
        for name, m in bad:
            b.add_row(name, str(m["index"]), f"{m['knot']:.10g}",
                      f"{m['committed']} ({m['committed_value']:.9g})",
                      f"{m['correct']} ({m['correct_value']:.9g})", f"{m['ulp']:+d}")
        out.append(b)
    o = Table(title="verify-knots: other tables the GELU methods declare (not checked)",
              title_justify="left")
    o.add_column("array")
    o.add_column("why not")
    for a in res["other_arrays"]:
        o.add_row(a["array"], a["why"])
    out.append(o)
    return seed_note(out, "--verify-knots", SEED_NOTE)
