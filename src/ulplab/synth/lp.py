"""The linear program: polynomial coefficients whose value lands inside every interval.

For one piece, rows are inputs ``u_i`` with bounds ``[lo_i, hi_i]`` on the polynomial's value
(either side may be infinite). The program maximizes a margin ``m``: every value must lie at
least ``m`` times the row's half-width inside its interval (``m = 1``: at the centre), so that
rounding the coefficients to float32 and evaluating in float32 keep it inside; a negative
optimum means no polynomial of that degree fits the piece. Conditioning: the variable is
scaled to [-1, 1] (``u / S``, ``S`` the largest ``|u|`` of the piece) and each row is divided
by its half-width, so every entry of the matrix is in [-1, 1] and every right-hand side is the
row's bound in half-widths. Solver: HiGHS (dual simplex) through ``scipy.optimize.linprog``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import linprog

SOLVER = "HiGHS via scipy.optimize.linprog (method='highs')"


@dataclass
class Fit:
    coefficients: np.ndarray  # float64, lowest degree first, in the unscaled variable u
    margin: float  # the optimum m (negative: infeasible)


def fit_piece(u: np.ndarray, lo: np.ndarray, hi: np.ndarray, degree: int,
              shrink: np.ndarray | None = None, fixed: dict[int, float] | None = None) -> Fit:
    """Coefficients c (lowest first) maximizing the margin of sum c_j u^j inside [lo, hi].

    ``shrink``: per row, a fraction of the half-width to give up on each side before the margin
    counts (the counterexample loop raises it on rows that failed in float32). ``fixed``:
    coefficients held at given values (e.g. c0 = 1 for the exp2 core)."""
    u = np.asarray(u, dtype=np.float64)
    lo = np.asarray(lo, dtype=np.float64)
    hi = np.asarray(hi, dtype=np.float64)
    usable = np.isfinite(u) & ~np.isnan(lo) & ~np.isnan(hi)
    if not usable.all():  # a row whose variable overflowed constrains nothing it can be fit by
        u, lo, hi = u[usable], lo[usable], hi[usable]
        shrink = None if shrink is None else np.asarray(shrink)[usable]
    fin_lo, fin_hi = np.isfinite(lo), np.isfinite(hi)
    both = fin_lo & fin_hi
    half = np.where(both, (hi - lo) / 2, np.nan)
    ref = np.nanmedian(half) if both.any() else 1.0
    if not np.isfinite(ref) or ref <= 0:
        ref = 1.0
    half = np.where(both, np.maximum(half, ref * 1e-6), ref)
    s = np.zeros_like(u) if shrink is None else np.asarray(shrink, dtype=np.float64)
    scale = float(np.max(np.abs(u))) if u.size else 1.0
    scale = scale if scale > 0 else 1.0
    basis = (u / scale)[:, None] ** np.arange(degree + 1)[None, :]
    lo_n = np.where(fin_lo, lo / half + s, -np.inf)  # bounds in half-widths, shrink applied
    hi_n = np.where(fin_hi, hi / half - s, np.inf)
    b_n = basis / half[:, None]
    bounds: list[tuple[float | None, float | None]] = [(None, None)] * (degree + 1)
    for j, v in (fixed or {}).items():
        bounds[j] = (v * scale**j, v * scale**j)
    bounds.append((None, 1.0))
    cost = np.zeros(degree + 2)
    cost[-1] = -1.0
    a_ub = np.vstack([np.hstack([-b_n[fin_lo], np.ones((int(fin_lo.sum()), 1))]),
                      np.hstack([b_n[fin_hi], np.ones((int(fin_hi.sum()), 1))])])
    b_ub = np.concatenate([-lo_n[fin_lo], hi_n[fin_hi]])
    res = linprog(cost, A_ub=a_ub, b_ub=b_ub, bounds=bounds, method="highs")
    if res.status != 0 or res.x is None:
        return Fit(np.zeros(degree + 1), -np.inf)
    c = res.x[:-1] / scale ** np.arange(degree + 1)
    return Fit(c, float(res.x[-1]))
