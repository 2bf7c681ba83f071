"""derivative: the GELU' implied by each method (the seed's G4 backward-pass test), measured.

No method here has its own derivative kernel, so what is measured is the derivative that a
method's *float32 outputs* imply, by a central difference computed in float64:

    d(x) = (f(x + h) - f(x - h)) / (2h),   f = the method's float32 result (not rounded to the
    format), h = 2^-7 for |x| >= 1/8 and |x| 2^-4 (a power of two) below,

on a grid of format inputs (every value of the format with 2^-4 <= |x| <= 8, and 0). x +- h are
exact in float32. The truth is gelu_grad = Phi(x) + x phi(x) correctly rounded to float32 by the
oracle (certified), so the comparison itself adds at most 2^-24 relative. The procedure's own
error (truncation h^2 f'''/6 and output rounding) is shown by the row ``exact GELU (float32)``:
the same difference quotient applied to the correctly rounded float32 GELU.

Reported per method: the largest relative error |d - g|/|g| over grid points with |g| >= 2^-6
(gelu_grad crosses zero at x = -0.7518, where a relative error means nothing; 2^-6 keeps
the procedure's own error, the ``exact GELU`` row, near 1e-3), the largest
absolute error over every grid point, and the ULP distance of d rounded to the format from the
correctly rounded gelu_grad of the format (over every grid point).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from rich.table import Table

from ulplab.formats import Format, all_patterns, is_finite, round_to_format, to_values
from ulplab.oracle.table import evaluate
from ulplab.studies.common import exhaustive_fmt, expected_bits, gelu_methods
from ulplab.ulp import ulp_distance

F32 = "float32"
REL_FLOOR = 2.0**-6


def grid(fmt: Format, lo: float = 2.0**-4, hi: float = 8.0) -> np.ndarray:
    """Input patterns of the grid: every value with lo <= |x| <= hi, and +0."""
    bits = all_patterns(fmt)
    bits = bits[is_finite(bits, fmt)]
    x = to_values(bits, fmt)
    keep = ((np.abs(x) >= lo) & (np.abs(x) <= hi)) | ((x == 0) & (bits == 0))
    return bits[keep]


def steps(x: np.ndarray) -> np.ndarray:
    ax = np.abs(x)
    small = np.exp2(np.floor(np.log2(np.where(ax > 0, ax, 1.0))) - 4)
    return np.where(ax >= 0.125, 2.0**-7, np.where(ax > 0, small, 2.0**-7))


def _measure(fx_plus: np.ndarray, fx_minus: np.ndarray, h: np.ndarray, g: np.ndarray,
             gb: np.ndarray, xs: np.ndarray, fmt: Format) -> dict[str, Any]:
    d = (fx_plus.astype(np.float64) - fx_minus.astype(np.float64)) / (2 * h)
    err = np.abs(d - g)
    with np.errstate(divide="ignore", invalid="ignore"):
        rel = np.where(np.abs(g) >= REL_FLOOR, err / np.abs(g), 0.0)
    fin = np.isfinite(d)
    rel = np.where(fin, rel, np.inf)
    i = int(np.argmax(rel))
    j = int(np.argmax(np.where(fin, err, np.inf)))
    u = ulp_distance(round_to_format(d, fmt), gb, fmt)
    k = int(np.argmax(u))
    return {"max_rel_error": float(rel[i]), "max_rel_at": float(xs[i]),
            "max_abs_error": float(err[j]) if fin[j] else float("inf"),
            "max_abs_at": float(xs[j]), "max_ulp": int(u[k]), "max_ulp_at": float(xs[k]),
            "mean_ulp": float(u[u >= 0].mean()), "non_finite": int((~fin).sum())}


def derivative(fmt: Format | str = "bfloat16", methods: Sequence[str] | None = None,
               lo: float = 2.0**-4, hi: float = 8.0) -> dict[str, Any]:
    fmt = exhaustive_fmt(fmt, "derivative")
    bits = grid(fmt, lo, hi)
    xs = to_values(bits, fmt)
    h = steps(xs)
    xp, xm = (xs + h).astype(np.float32), (xs - h).astype(np.float32)
    if not (np.array_equal(xp.astype(np.float64), xs + h)
            and np.array_equal(xm.astype(np.float64), xs - h)):
        raise AssertionError("x +- h is not exact in float32")
    g = to_values(evaluate("gelu_grad", xs, F32).astype(np.uint32), _f32())
    gb = expected_bits(fmt, bits, "gelu_grad")
    rows = []
    exact = [to_values(evaluate("gelu", v.astype(np.float64), F32), _f32()) for v in (xp, xm)]
    rows.append({"method": "exact GELU (float32)", **_measure(exact[0], exact[1], h, g, gb,
                                                               xs, fmt)})
    for m in gelu_methods(methods):
        if m.takes != "float32":
            continue
        with np.errstate(all="ignore"):
            fp, fm = np.asarray(m(xp)), np.asarray(m(xm))
        rows.append({"method": m.name, **_measure(fp, fm, h, g, gb, xs, fmt)})
    return {"study": "derivative", "function": "gelu_grad", "format": fmt.name,
            "procedure": "central difference (f(x+h) - f(x-h))/2h in float64 of the method's "
                         "float32 outputs; h = 2^-7 for |x| >= 1/8, |x| 2^-4 below",
            "truth": "gelu_grad correctly rounded to float32 (oracle)",
            "grid": f"every {fmt.name} value with {lo:g} <= |x| <= {hi:g}, and 0",
            "points": len(bits), "relative_error_floor": REL_FLOOR, "methods": rows}


def _f32() -> Format:
    from ulplab.formats import get_format

    return get_format(F32)


def render(res: dict[str, Any]) -> list[Table]:
    t = Table(title=f"derivative: GELU' implied by each method, {res['points']} points "
              f"({res['grid']})\n{res['procedure']}; truth: {res['truth']}",
              title_justify="left")
    for c in ("method", "max rel err", "at x", "max abs err", "at x",
              f"max ULP ({res['format']})", "at x", "mean ULP"):
        t.add_column(c, justify="left" if c == "method" else "right")
    for r in sorted(res["methods"], key=lambda r: r["max_rel_error"]):
        t.add_row(r["method"], f"{r['max_rel_error']:.3e}", f"{r['max_rel_at']:.6g}",
                  f"{r['max_abs_error']:.3e}", f"{r['max_abs_at']:.6g}", str(r["max_ulp"]),
                  f"{r['max_ulp_at']:.6g}", f"{r['mean_ulp']:.3f}")
    return [t]
