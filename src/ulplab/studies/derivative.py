"""derivative: GELU' kernels and the GELU' implied by each method (the seed's G4 test), measured.

The seed's question (its G4 backward-pass test): does the arithmetic GELU' kernel, Phi + x phi
with Phi from B3's piecewise erf, get GELU' right, including its negative values for x < -0.7518
that the seed's first version clamped away? Answered by the ``kernels`` part: every registered
``gelu_grad`` method (the seed's G4, G4 (improved), the float32 baseline) on every input of the
format against the oracle's gelu_grad: max and mean ULP, the inputs where GELU' < 0 and how many
of them the kernel gets with the wrong sign, and G4 rebuilt with the seed's first clamp [0, inf)
(``Method.rebuild(CLAMP_LO=0, CLAMP_HI=inf)``).

The GELU methods have no derivative kernel of their own, so for them what is measured is the
derivative that a method's *float32 outputs* imply, by a central difference computed in float64:

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
from ulplab.methods import methods_for
from ulplab.oracle.table import evaluate
from ulplab.studies.common import exhaustive_fmt, expected_bits, gelu_methods, got_bits, seed_note
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


SEED_CLAMP = {"CLAMP_LO": 0.0, "CLAMP_HI": float("inf")}
"""The seed's first G4 clamp, GELU' in [0, inf) (its history: "Incorrect clamping to [0, inf)")."""


def _kernel_row(name: str, got: np.ndarray, truth: np.ndarray, x: np.ndarray,
                fmt: Format) -> dict[str, Any]:
    u = ulp_distance(got, truth, fmt)
    fin = u >= 0
    tv, gv = to_values(truth, fmt), to_values(got, fmt)
    negative = np.isfinite(tv) & (tv < 0)
    k = int(np.argmax(np.where(fin, u, -1)))
    return {"kernel": name, "max_ulp": int(u[fin].max()), "max_ulp_at": float(x[k]),
            "mean_ulp": float(u[fin].mean()), "negative_inputs": int(negative.sum()),
            "wrong_sign": int((negative & ~(gv < 0)).sum())}


def kernels(fmt: Format) -> list[dict[str, Any]]:
    """Every gelu_grad method on every input of ``fmt``, and G4 with the seed's first clamp."""
    bits = all_patterns(fmt)
    bits = bits[is_finite(bits, fmt)]
    x = to_values(bits, fmt)
    truth = expected_bits(fmt, bits, "gelu_grad")
    rows = []
    for m in methods_for("gelu_grad"):
        rows.append(_kernel_row(m.name, got_bits(m, fmt, bits), truth, x, fmt))
        if m.name == "G4":
            first = m.rebuild(**SEED_CLAMP)
            rows.append(_kernel_row("G4, the seed's first clamp [0, inf)",
                                    got_bits(first, fmt, bits), truth, x, fmt))
    return rows


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
            "points": len(bits), "relative_error_floor": REL_FLOOR, "methods": rows,
            "kernels": kernels(fmt)}


def _f32() -> Format:
    from ulplab.formats import get_format

    return get_format(F32)


# The comparison with the seed's --derivative (docs/seed-studies.md).
SEED_NOTE = (
    "it measures its C++ gelu_derivative, whose phi is 0.3989/(1 + x^2/2 + x^4/8 + 0.020833 "
    "x^6), not G4's exp: 1.0625 at x = 2 and -0.0231 at x = -3 (true 1.0852, -0.0119), a seed "
    "defect; G4 here is 0 ULP at its 9 points"
)


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
    k = Table(title=f"derivative: gelu_grad kernels on every finite {res['format']} input against "
              "the oracle (GELU' < 0 for x < -0.7518)", title_justify="left")
    for c in ("kernel", "max ULP", "at x", "mean ULP", "inputs with GELU' < 0", "wrong sign"):
        k.add_column(c, justify="left" if c == "kernel" else "right")
    for r in res["kernels"]:
        k.add_row(r["kernel"], str(r["max_ulp"]), f"{r['max_ulp_at']:.6g}",
                  f"{r['mean_ulp']:.4f}", str(r["negative_inputs"]), str(r["wrong_sign"]))
    return seed_note([t, k], "--derivative", SEED_NOTE)
