"""inverse: the seed's H1, inverse GELU by Newton's method, measured by round trips.

Given y, find x with GELU(x) = y by x_{n+1} = x_n - (G(x_n) - y) / G'(x_n) (the seed's H1; its
application: keep y = GELU(x) for the backward pass and recover x from it).

Branch: GELU is not injective. It falls from 0 at -inf to its minimum GELU(x_min) = -0.16997 at
x_min = -0.751791524693564 (where GELU'(x) = Phi(x) + x phi(x) = 0) and rises from there on, so a
y in (-0.16997, 0) has two preimages, one below x_min (in the tail, where GELU decays like
phi(x)) and one in (x_min, 0). Only the branch x >= x_min is inverted: it is the one a GELU
layer's outputs come from for all x >= x_min (the whole positive side and the common negative
activations); it is where GELU' > 0, so Newton's method has a nonzero slope and cannot jump
to the other branch provided an iterate never passes below x_min (iterates are clamped to
``X_MIN32``, the float32 just above x_min); and on the tail branch x would be recoverable only
through y's exponent (|y| < 2^-12 for x < -4.6), which a stored activation does not keep.
Round trips are measured on every finite value x >= x_min of the format (in bfloat16, -0.75 is
the lowest: the next value below, -0.75390625, is past x_min).

G and G' in float32 arithmetic from B3 Pure's core (``erf_b3.phi_b3``; on this branch B3 Pure
is exactly x Phi_b3(x), its tail starting at -8.3125): G(x) = x Phi_b3(x), G'(x) = Phi_b3(x) +
x phi(x), phi by ``tail.gauss_pdf``. Start: the seed's x0 = y for y >= 0 and y - 0.5 for y < 0
(in [x_min, 0) for every y on the branch). An iteration that does not change x ends it; so does
a return to one of the last 4 iterates (rounding noise in G near the flat minimum makes 2- and
3-cycles of neighbouring floats); the iterate with the smallest |G(x) - y| seen is returned.
``MAX_ITER`` = 40 is never reached on the bfloat16 branch.

Two round trips per x:
    float32:  y = G(x), B3 Pure's float32 output: the inverse of the same float32 function.
    stored:   y = the correctly rounded GELU(x) of the format (the activation as stored). Where
              two branch inputs have the same stored y no inverse can return both; such x are
              counted as ``ambiguous`` (the information lost by storing y in the format).
x' is rounded to the format and compared with x (ULP in the format); the float32 trip also
reports ULP of x' itself in float32.
"""

from __future__ import annotations

from typing import Any

import mpmath
import numpy as np
from rich.table import Table

from ulplab.formats import Format, all_patterns, is_finite, round_to_format, to_values
from ulplab.methods.gelu import tail
from ulplab.methods.gelu.erf_b3 import phi_b3
from ulplab.studies.common import exhaustive_fmt, expected_bits, float32_ulps_apart, seed_note
from ulplab.ulp import ulp_distance

f32 = np.float32
MAX_ITER = 40
CYCLE = 4


def x_min_exact() -> float:
    """The argmin of GELU (root of Phi(x) + x phi(x)) at 30 digits, as a float64."""
    with mpmath.workdps(30):
        return float(mpmath.findroot(lambda x: mpmath.ncdf(x) + x * mpmath.npdf(x), -0.75))


X_MIN = x_min_exact()                                      # -0.7517915246935645
X_MIN32 = np.nextafter(f32(X_MIN), f32(0)) if f32(X_MIN) < X_MIN else f32(X_MIN)


def gelu32(x: np.ndarray) -> np.ndarray:
    """G(x) = x Phi_b3(x) (B3 Pure on the branch)."""
    with np.errstate(all="ignore"):
        return x * phi_b3(x)


def gelu_grad32(x: np.ndarray) -> np.ndarray:
    """G'(x) = Phi_b3(x) + x phi(x) in float32."""
    with np.errstate(all="ignore"):
        return phi_b3(x) + x * tail.gauss_pdf(x)


def seed_guess(y: np.ndarray) -> np.ndarray:
    return np.where(y >= 0, y, y - f32(0.5)).astype(f32)


def newton_inverse(y: np.ndarray, max_iter: int = MAX_ITER) -> tuple[np.ndarray, np.ndarray,
                                                                       np.ndarray]:
    """(x, iterations, converged) with G(x) = y on the branch x >= x_min (float32 y).

    An element stops when a step leaves x unchanged, or returns to one of its last ``CYCLE``
    iterates (rounding noise in G near the flat minimum makes 2- and 3-cycles of neighbouring
    floats); it then keeps the iterate with the smallest |G(x) - y| seen."""
    y = np.asarray(y, dtype=f32)
    x = np.maximum(seed_guess(y), X_MIN32)
    hist = np.full((y.size, CYCLE), np.nan, dtype=f32)
    best = x.copy()
    with np.errstate(all="ignore"):
        best_r = np.abs(gelu32(x) - y)
    iters = np.zeros(y.shape, dtype=np.int32)
    active = np.ones(y.shape, dtype=bool)
    with np.errstate(all="ignore"):
        for k in range(max_iter):
            if not active.any():
                break
            idx = np.flatnonzero(active)
            xa, ya = x[idx], y[idx]
            r = gelu32(xa) - ya
            step = np.where(r == 0, f32(0), r / gelu_grad32(xa)).astype(f32)
            new = np.maximum(xa - step, X_MIN32)
            stay = (new == xa) | ~np.isfinite(new)
            cycle = ~stay & (new[:, None] == hist[idx]).any(axis=1)
            hist[idx, k % CYCLE] = xa
            moved = ~stay & ~cycle
            x[idx] = np.where(moved, new, xa)
            rn = np.abs(gelu32(x[idx]) - ya)
            better = rn < best_r[idx]
            best[idx] = np.where(better, x[idx], best[idx])
            best_r[idx] = np.where(better, rn, best_r[idx])
            iters[idx] += moved
            active[idx[~moved]] = False
    return best, iters, ~active


def branch_bits(fmt: Format) -> np.ndarray:
    """Every finite pattern of fmt with value >= x_min (one zero: +0)."""
    bits = all_patterns(fmt)
    bits = bits[is_finite(bits, fmt)]
    x = to_values(bits, fmt)
    keep = (x >= X_MIN) & ~((x == 0) & (bits != 0))
    return bits[keep]


def _trip(x: np.ndarray, y: np.ndarray, bits: np.ndarray, fmt: Format) -> dict[str, Any]:
    xr, iters, conv = newton_inverse(y)
    back = round_to_format(xr.astype(np.float64), fmt)
    u = ulp_distance(back, bits, fmt)
    neg = x < 0
    worst = np.argsort(-u, kind="stable")[:10]
    return {"max_ulp": int(u.max()), "mean_ulp": float(u.mean()),
            "exact": int((u == 0).sum()), "inexact": int((u > 0).sum()),
            "exact_fraction": float((u == 0).mean()),
            "inexact_positive_x": int(((u > 0) & ~neg).sum()),
            "inexact_negative_x": int(((u > 0) & neg).sum()),
            "inexact_x_range": ([float(x[u > 0].min()), float(x[u > 0].max())]
                                if (u > 0).any() else None),
            "max_iterations": int(iters.max()), "mean_iterations": float(iters.mean()),
            "iteration_histogram": {str(k): int(v) for k, v in
                                    zip(*np.unique(iters, return_counts=True), strict=True)},
            "not_converged": int((~conv).sum()),
            "worst": [{"x": float(x[i]), "y": float(y[i]), "x_back": float(xr[i]),
                       "ulp": int(u[i]), "iterations": int(iters[i])} for i in worst if u[i] > 0],
            "_xr": xr, "_u": u}


def inverse(fmt: Format | str = "bfloat16") -> dict[str, Any]:
    fmt = exhaustive_fmt(fmt, "inverse")
    bits = branch_bits(fmt)
    x = to_values(bits, fmt).astype(f32)
    y32 = gelu32(x)
    t32 = _trip(x, y32, bits, fmt)
    f32_ulp = np.abs(float32_ulps_apart(x, t32.pop("_xr")))
    t32.pop("_u")
    t32["max_ulp_float32"] = int(f32_ulp.max())
    t32["mean_ulp_float32"] = float(f32_ulp.mean())
    stored = expected_bits(fmt, bits)
    ys = to_values(stored, fmt).astype(f32)
    ts = _trip(x, ys, bits, fmt)
    ts.pop("_xr")
    u = ts.pop("_u")
    _, inv, cnt = np.unique(stored, return_inverse=True, return_counts=True)
    ambiguous = cnt[inv] > 1
    ts["ambiguous"] = int(ambiguous.sum())
    ts["ambiguous_x_range"] = ([float(x[ambiguous].min()), float(x[ambiguous].max())]
                               if ambiguous.any() else None)
    ts["inexact_unambiguous"] = int(((u > 0) & ~ambiguous).sum())
    ts["max_ulp_unambiguous"] = int(u[~ambiguous].max())
    return {"study": "inverse", "function": "gelu", "format": fmt.name,
            "x_min": X_MIN, "x_min_float32": float(X_MIN32),
            "gelu_min": float(X_MIN * mpmath.ncdf(X_MIN)),
            "branch": f"every finite {fmt.name} x >= x_min", "inputs": int(bits.size),
            "lowest_input": float(x.min()),
            "method": "Newton x -= (G(x) - y)/G'(x) in float32, G = B3 Pure (x Phi_b3), "
                      "G' = Phi_b3 + x phi; x0 = y (y >= 0), y - 0.5 (y < 0); clamped to x_min",
            "float32_y": t32, "stored_y": ts}


# The comparison with the seed's (none) (docs/seed-studies.md).
SEED_NOTE = (
    "the seed's H1 inverse has no analysis mode in gelu_analysis (--help lists none), so "
    "there is no seed figure to compare"
)


def render(res: dict[str, Any]) -> list[Table]:
    f = res["format"]
    t = Table(title=f"inverse (H1): x -> y -> Newton -> x' on the branch x >= "
              f"{res['x_min']:.10f} ({res['inputs']} {f} inputs from {res['lowest_input']:g})"
              f"\n{res['method']}", title_justify="left")
    for c in ("y", f"max ULP ({f})", "mean ULP", "exact", "inexact (x<0 / x>=0)",
              "max iter", "mean iter", "not converged", "note"):
        t.add_column(c, justify="left" if c in ("y", "note") else "right")
    a, s = res["float32_y"], res["stored_y"]
    t.add_row("B3 Pure float32 G(x)", str(a["max_ulp"]), f"{a['mean_ulp']:.4f}", str(a["exact"]),
              f"{a['inexact_negative_x']} / {a['inexact_positive_x']}",
              str(a["max_iterations"]), f"{a['mean_iterations']:.2f}", str(a["not_converged"]),
              f"x' within {a['max_ulp_float32']} float32 ulps")
    t.add_row(f"stored: GELU(x) rounded to {f}", str(s["max_ulp"]), f"{s['mean_ulp']:.4f}",
              str(s["exact"]), f"{s['inexact_negative_x']} / {s['inexact_positive_x']}",
              str(s["max_iterations"]), f"{s['mean_iterations']:.2f}", str(s["not_converged"]),
              f"{s['ambiguous']} x share their stored y with another x; "
              f"{s['inexact_unambiguous']} others inexact (max {s['max_ulp_unambiguous']})")
    out = [t]
    for key, label in (("float32_y", "float32 y"), ("stored_y", "stored y")):
        w = res[key]["worst"]
        if not w:
            continue
        b = Table(title=f"inverse: worst round trips, {label}", title_justify="left")
        for c in ("x", "y", "x'", "ULP", "iterations"):
            b.add_column(c, justify="right")
        for r in w:
            b.add_row(f"{r['x']:.8g}", f"{r['y']:.8g}", f"{r['x_back']:.8g}", str(r["ulp"]),
                      str(r["iterations"]))
        out.append(b)
    return seed_note(out, "(none)", SEED_NOTE)
