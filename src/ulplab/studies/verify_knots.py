"""verify-knots: every committed table of Phi or GELU values at knots against the correctly
rounded float32 value at its knot (the seed's --verify-knots, which printed C1's knot values).

The tables (found by reading ``ulplab.methods.gelu``; ``KNOT_TABLES``):

    tail.TAIL_COARSE, tail.TAIL_FINE       GELU at the tail-LUT knots (B3 Erf Poly, C1 Spline, ...)
    lut_r5.PHI_TABLE                       Phi at -9 + i 12/512, i <= 512 (R5 Pure, R5 LUT)
    lut_d3.TABLE                           Phi at -4 + i/4, i <= 32 (D3 LUT+Corr)
    lut_d4.TABLE                           Phi at the 163 piecewise-uniform knots (D4)
    pwl_r3.POS_TABLE, pwl_r3.NEG_TABLE     GELU at +-2^e (1 + j/16) (R3 PWL)
    spline_c1.{PURE,LUT}_SPLINE c0         Phi at the left knot of each Hermite segment (C1)
    spline_c1.{PURE,LUT}_SPLINE c1         h phi(x_i), the scaled left slope (C1; a value at a
                                           knot too, checked the same way)
    softmax_h2.EXP2_TABLE                  2^(i/8), i <= 8 (H2's PWL exp; not Phi/GELU, but the
                                           same kind of table)

The truth: GELU and 2^x from the oracle (``oracle.table.evaluate`` at float32 inputs, the knots
being float32 values); Phi(x) = erfc(-x/sqrt 2)/2 and h phi(x) have no oracle function, so they
are certified here (``certified_bits``): an Arb ball of the exact value at a working precision,
both ends rounded to float32 exactly (``formats.round_dyadic`` on the ball's dyadic endpoints),
precision doubled until they agree (a Ziv loop, as the oracle's). No float64 intermediate: the
tables themselves are built as float32(float(mpf)), which rounds twice and could be off by one
ulp where the double lands on a float32 midpoint; this study is what would show it.

Also reported: every other module-level float32 array of the GELU modules, with why it is not a
table of values at knots (fitted coefficients, quadrature nodes), so nothing is skipped silently.
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
from ulplab.oracle.table import evaluate
from ulplab.studies.common import float32_ulps_apart, gelu_modules, short_module

F32 = get_format("float32")
MAX_PRECISION = 1 << 14


# ------------------------------------------------------------------ certified rounding (Arb)
def _round_arb_exact(v: arb, fmt: Format) -> int:
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
                lo, hi = _round_arb_exact(b.lower(), fmt), _round_arb_exact(b.upper(), fmt)
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
    label: str                                   # module.ATTRIBUTE (column)
    quantity: str                                # "GELU", "Phi", "h phi", "2^x"
    methods: tuple[str, ...]                     # the methods that read it
    values: Callable[[], np.ndarray]             # the committed float32 entries
    knots: Callable[[], list[float]]             # the knot of each entry (exact floats)
    truth: Callable[[list[float]], np.ndarray]   # correctly rounded float32 patterns at knots


def _oracle(func: str) -> Callable[[list[float]], np.ndarray]:
    return lambda ks: evaluate(func, np.array(ks, dtype=np.float64), F32).astype(np.uint32)


def _phi_truth(ks: list[float]) -> np.ndarray:
    return phi_bits(ks)


def _spline_tables(attr: str, methods: tuple[str, ...]) -> list[KnotTable]:
    from ulplab.methods.gelu import spline_c1

    def sp():
        return getattr(spline_c1, attr)

    def slopes(ks: list[float]) -> np.ndarray:
        kn = sp().knots
        return scaled_pdf_bits(ks, [b - a for a, b in itertools.pairwise(kn)])

    return [
        KnotTable(f"spline_c1.{attr} c0", "Phi", methods,
                  lambda: np.ascontiguousarray(sp().coeffs[:, 0]),
                  lambda: list(sp().knots[:-1]), _phi_truth),
        KnotTable(f"spline_c1.{attr} c1", "h phi", methods,
                  lambda: np.ascontiguousarray(sp().coeffs[:, 1]),
                  lambda: list(sp().knots[:-1]), slopes),
    ]


def knot_tables() -> list[KnotTable]:
    from ulplab.methods.gelu import lut_d3, lut_d4, lut_r5, pwl_r3, softmax_h2, tail

    lut_users = ("B3 Erf Poly", "D2 LUT+Erf", "R5 LUT", "C1 Spline", "D4 Non-uniform", "R3 PWL",
                 "...")
    return [
        KnotTable("tail.TAIL_COARSE", "GELU", lut_users, lambda: tail.TAIL_COARSE,
                  lambda: [tail.TAIL_LUT_FINE + 0.25 * i for i in range(tail.TAIL_COARSE.size)],
                  _oracle("gelu")),
        KnotTable("tail.TAIL_FINE", "GELU", lut_users, lambda: tail.TAIL_FINE,
                  lambda: [tail.TAIL_LUT_END + 0.0625 * i for i in range(tail.TAIL_FINE.size)],
                  _oracle("gelu")),
        KnotTable("lut_r5.PHI_TABLE", "Phi", ("R5 Pure", "R5 LUT"), lambda: lut_r5.PHI_TABLE,
                  lambda: [lut_r5.R5_LO + lut_r5.R5_STEP * i for i in range(lut_r5.R5_KNOTS)],
                  _phi_truth),
        KnotTable("lut_d3.TABLE", "Phi", ("D3 LUT+Corr",), lambda: lut_d3.TABLE,
                  lambda: [lut_d3.D3_LO + lut_d3.D3_STEP * i
                           for i in range(lut_d3.D3_INTERVALS + 1)], _phi_truth),
        KnotTable("lut_d4.TABLE", "Phi", ("D4 Non-uniform",), lambda: lut_d4.TABLE,
                  lambda: list(lut_d4.KNOTS), _phi_truth),
        KnotTable("pwl_r3.POS_TABLE", "GELU", ("R3 PWL",), lambda: pwl_r3.POS_TABLE,
                  lambda: list(pwl_r3.knots()), _oracle("gelu")),
        KnotTable("pwl_r3.NEG_TABLE", "GELU", ("R3 PWL",), lambda: pwl_r3.NEG_TABLE,
                  lambda: [-k for k in pwl_r3.knots()], _oracle("gelu")),
        *_spline_tables("PURE_SPLINE", ("C1 Pure",)),
        *_spline_tables("LUT_SPLINE", ("C1 Spline",)),
        KnotTable("softmax_h2.EXP2_TABLE", "2^x", ("H2 GELU-Softmax",),
                  lambda: softmax_h2.EXP2_TABLE,
                  lambda: [i / softmax_h2.EXP2_SEGMENTS
                           for i in range(softmax_h2.EXP2_TABLE.size)], _oracle("exp2")),
    ]


# float32 arrays of the GELU modules that are not tables of values at knots, and why
NOT_KNOT_TABLES = {
    "lut_d3.CORR_C2": "fitted correction coefficients (Lawson), not values at knots",
    "lut_d3.CORR_C3": "fitted correction coefficients (Lawson), not values at knots",
    "lut_d4.SEG_START": "segment starts (exact breakpoints)",
    "lut_d4.SEG_INV_H": "segment reciprocals 1/h (powers of two, exact)",
    "lut_d4.SEG_LAST": "segment interval counts (integers)",
    "piecewise_c2.C2_COEFFS": "fitted rational coefficients per segment",
    "quadrature_f2.GL_A": "Gauss-Legendre nodes/weights (not values of Phi or GELU)",
    "quadrature_f2.GL_W": "Gauss-Legendre nodes/weights (not values of Phi or GELU)",
    "quadrature_f2.GH_B": "Gauss-Hermite nodes/weights (not values of Phi or GELU)",
    "quadrature_f2.GH_C": "Gauss-Hermite nodes/weights (not values of Phi or GELU)",
    "tt.TT_FAST_SLOPES": "hardware PWL slopes (the reference kernel's constants, kept as is)",
    "tt.TT_FAST_INTERCEPTS": "hardware PWL intercepts (the reference kernel's constants)",
}


def module_arrays() -> list[str]:
    """module.NAME of every module-level float32 ndarray in the GELU modules."""
    out = []
    for mod in gelu_modules():
        for name, v in vars(mod).items():
            if isinstance(v, np.ndarray) and v.dtype == np.float32:
                out.append(f"{short_module(mod)}.{name}")
    return out


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
    ts = [t for t in knot_tables() if not tables or t.label in tables]
    rows = [check_table(t) for t in ts]
    checked = {r["table"].split(" ")[0] for r in rows}
    arrays = module_arrays()
    others = [{"array": a, "why": NOT_KNOT_TABLES.get(a, "NOT CLASSIFIED: read it")}
              for a in arrays if a not in checked and not a.startswith("spline_c1.")]
    return {"study": "verify-knots", "format": "float32", "tables": rows,
            "entries": sum(r["entries"] for r in rows),
            "total_mismatches": sum(r["mismatches"] for r in rows),
            "truth": "GELU, 2^x: oracle.evaluate at the float32 knots; Phi, h phi: Arb balls "
                     "rounded to float32 by a Ziv loop (certified_bits)",
            "other_arrays": others}


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
    o = Table(title="verify-knots: other float32 arrays of the GELU modules (not checked)",
              title_justify="left")
    o.add_column("array")
    o.add_column("why not")
    for a in res["other_arrays"]:
        o.add_row(a["array"], a["why"])
    out.append(o)
    return out
