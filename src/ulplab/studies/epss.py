"""epss: the seed's C5 EPSS knot refinement (error-driven splitting of segments), measured.

An interpolant of Phi on [``LO``, ``HI``] = [-8, 3] gives GELU(x) = x P(x). Starting from the
12 uniform knots -8, -7, ..., 3, the segment with the worst error is split at its midpoint,
again and again, until the knot budget is reached; the max ULP is reported at each budget
(``BUDGETS`` = 16, 32, 64 knots) next to the same number of uniform knots.

Error of a segment [a, b): the largest ULP distance, over every input x of the format in it
(the last segment includes 3), between x P(x) rounded to the format and the oracle's correctly
rounded GELU(x) (``oracle_table``); ties go to the larger sum of ULPs, then to the wider
segment. Midpoints of dyadic knots are dyadic, so refined knots stay exact.

Interpolants (``kind``), float32 arithmetic, t = (x - a) / (b - a):
    pwl      P = y_a + t (y_b - y_a) (one FMA); y = Phi(knot) correctly rounded to float32
             (``verify_knots.phi_bits``, certified).
    hermite  the C1 cubic with exact slopes, coefficients c0..c3 in t from mpmath
             (``spline_c1.hermite_coeffs``), Horner with FMA, as C1's kernel.
Splitting a segment leaves the others as they are, so the max is non-increasing in the budget
as long as no half is worse than its parent (true here: Phi is convex on each side of 0 and the
halves' interpolants are closer; the study reports it as ``monotone``).
Once the worst segment's error is a single ulp of rounding rather than of interpolation, the rule
keeps halving that segment to no avail (bfloat16 hermite at 64 knots: smallest step 2^-11);
``smallest_step`` shows it.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Sequence
from typing import Any

import numpy as np
from rich.table import Table

from ulplab.formats import Format, all_patterns, is_finite, round_to_format, to_values
from ulplab.kit import fma
from ulplab.oracle.table import oracle_table
from ulplab.studies.common import exhaustive_fmt, seed_note
from ulplab.studies.verify_knots import phi_bits
from ulplab.ulp import ulp_distance

f32 = np.float32
LO, HI = -8.0, 3.0
START = tuple(float(v) for v in range(-8, 4))  # 12 uniform knots, step 1
BUDGETS = (16, 32, 64)
KINDS = ("pwl", "hermite")


@functools.lru_cache(maxsize=4096)
def _phi32(k: float) -> np.float32:
    return phi_bits([k])[0:1].view(f32)[0]


@functools.lru_cache(maxsize=4096)
def _hermite(a: float, b: float) -> tuple[np.float32, ...]:
    from ulplab.methods.gelu.spline_c1 import hermite_coeffs

    return tuple(hermite_coeffs((a, b))[0])


class Grid:
    """The format's inputs in [LO, HI] and the oracle's GELU there."""

    def __init__(self, fmt: Format) -> None:
        bits = all_patterns(fmt)
        bits = bits[is_finite(bits, fmt)]
        x = to_values(bits, fmt)
        keep = (x >= LO) & (x <= HI) & ~((x == 0) & (bits != 0))
        order = np.argsort(x[keep], kind="stable")
        self.fmt = fmt
        self.bits = bits[keep][order]
        self.x = x[keep][order]
        self.x32 = self.x.astype(f32)
        self.truth = oracle_table("gelu", fmt, progress=False)[self.bits]


def evaluate_knots(grid: Grid, knots: Sequence[float], kind: str
                   ) -> tuple[np.ndarray, np.ndarray]:
    """(ULP at every grid input, segment index of every grid input)."""
    ks = np.asarray(knots, dtype=np.float64)
    seg = np.clip(np.searchsorted(ks, grid.x, side="right") - 1, 0, ks.size - 2)
    a = ks.astype(f32)[seg]
    h = (ks[1:] - ks[:-1]).astype(f32)[seg]
    with np.errstate(all="ignore"):
        t = (grid.x32 - a) / h
        if kind == "pwl":
            y = np.array([_phi32(float(k)) for k in ks], dtype=f32)
            y0, y1 = y[seg], y[seg + 1]
            p = fma(t, y1 - y0, y0)
        elif kind == "hermite":
            c = np.array([_hermite(float(ks[i]), float(ks[i + 1])) for i in range(ks.size - 1)],
                         dtype=f32)[seg]
            p = fma(t, fma(t, fma(t, c[:, 3], c[:, 2]), c[:, 1]), c[:, 0])
        else:
            raise ValueError(f"unknown kind {kind!r}; valid: {', '.join(KINDS)}")
        g = grid.x32 * p
    got = round_to_format(g.astype(np.float64), grid.fmt)
    return ulp_distance(got, grid.truth, grid.fmt), seg


def _summary(grid: Grid, knots: Sequence[float], kind: str) -> dict[str, Any]:
    u, _ = evaluate_knots(grid, knots, kind)
    i = int(np.argmax(u))
    return {"knots": len(knots), "max_ulp": int(u.max()), "mean_ulp": float(u.mean()),
            "worst_x": float(grid.x[i])}


def refine(grid: Grid, kind: str, budgets: Sequence[int] = BUDGETS,
           start: Sequence[float] = START) -> list[dict[str, Any]]:
    """EPSS: split the worst segment at its midpoint until each budget; a row per budget."""
    knots = sorted(float(k) for k in start)
    out = []
    history = []
    for budget in sorted(budgets):
        if budget < len(start):
            raise ValueError(f"budget {budget} is below the {len(start)} starting knots")
        while len(knots) < budget:
            u, seg = evaluate_knots(grid, knots, kind)
            n = len(knots) - 1
            mx = np.zeros(n, dtype=np.int64)
            np.maximum.at(mx, seg, u)
            sm = np.bincount(seg, weights=u, minlength=n)
            width = np.diff(knots)
            worst = max(range(n), key=lambda j: (mx[j], sm[j], width[j]))
            history.append(int(mx.max()))
            knots.insert(worst + 1, (knots[worst] + knots[worst + 1]) / 2)
        row = _summary(grid, knots, kind)
        uni = list(np.linspace(LO, HI, budget).astype(f32).astype(np.float64))
        row["knot_list"] = list(knots)
        row["smallest_step"] = float(np.diff(knots).min())
        row["uniform"] = _summary(grid, uni, kind)
        out.append(row)
    return out


def epss(fmt: Format | str = "bfloat16", kinds: Sequence[str] = KINDS,
         budgets: Sequence[int] = BUDGETS) -> dict[str, Any]:
    fmt = exhaustive_fmt(fmt, "epss")
    grid = Grid(fmt)
    res = {}
    for kind in kinds:
        rows = refine(grid, kind, budgets)
        start = _summary(grid, START, kind)
        maxes = [start["max_ulp"], *(r["max_ulp"] for r in rows)]
        res[kind] = {"start": start, "budgets": rows,
                     "monotone": all(b <= a for a, b in itertools.pairwise(maxes))}
    return {"study": "epss", "function": "gelu", "format": fmt.name, "range": [LO, HI],
            "inputs": int(grid.x.size), "start_knots": list(START),
            "rule": "split the segment with the largest max ULP (then sum, then width) at its "
                    "midpoint", "kinds": res}


# The comparison with the seed's --epss (docs/seed-studies.md).
SEED_NOTE = (
    "it refines nothing: it lists R3 PWL's two largest errors (832 ULP at -3.4844, 334 at "
    "-1.9922) and prose advice; here the refinement is run and measured"
)


def render(res: dict[str, Any]) -> list[Table]:
    t = Table(title=f"epss (C5): interpolants of Phi on [{res['range'][0]:g}, {res['range'][1]:g}]"
              f", GELU = x P(x), every {res['format']} input there ({res['inputs']}); from 12 "
              f"uniform knots, {res['rule']}", title_justify="left")
    for c in ("kind", "knots", "EPSS max ULP", "mean", "worst x", "smallest step",
              "uniform max ULP", "uniform mean"):
        t.add_column(c, justify="left" if c == "kind" else "right")
    for kind, k in res["kinds"].items():
        s = k["start"]
        t.add_row(kind, str(s["knots"]), str(s["max_ulp"]), f"{s['mean_ulp']:.3f}",
                  f"{s['worst_x']:g}", "1", str(s["max_ulp"]), f"{s['mean_ulp']:.3f}")
        for r in k["budgets"]:
            t.add_row(kind, str(r["knots"]), str(r["max_ulp"]), f"{r['mean_ulp']:.3f}",
                      f"{r['worst_x']:g}", f"{r['smallest_step']:g}",
                      str(r["uniform"]["max_ulp"]), f"{r['uniform']['mean_ulp']:.3f}")
    return seed_note([t], "--epss", SEED_NOTE)
