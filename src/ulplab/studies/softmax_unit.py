"""softmax-unit: the H2 method's shared exp inside a softmax (the seed's --softmax-unit).

H2 GELU-Softmax (``methods.gelu.softmax_h2``) computes GELU through the exp of a softmax unit:
e^w = 2^n PWL(2^f), 8 linear segments for 2^f (``pwl_exp``). This study measures that exp where
it is meant to be used, in a softmax.

Inputs: ``VECTORS`` = 1000 vectors of length ``LENGTH`` = 64, x ~ Normal(0, ``SIGMA`` = 3)
from ``np.random.default_rng(SEED)``, SEED = 0, rounded to the format (bfloat16 by default);
values with |x| < 2^-8 are set to 0, so that every x_i - max(x) is exact in float32 (the unit's
w below is then the exact argument and the exact softmax is that of the stored x).

The unit (float32 arithmetic, as hardware would do it): m = max_j x_j, w_i = x_i - m (exact),
e_i = exp(w_i), s = e_0 + e_1 + ... + e_63 (left to right), out_i = e_i / s, and out_i rounded
to the format. Three exps in the same unit:
    H2 PWL exp        ``softmax_h2.pwl_exp`` (the method's shared exp),
    Pure exp          ``tail.exp_neg(-w)`` (Cody-Waite + degree-7 polynomial, the Pure methods'),
    exact exp         e^w correctly rounded to float32 (the floor: the unit's own arithmetic).
The truth: softmax_i = e^(x_i - m) / sum_j e^(x_j - m) from Arb balls (python-flint; a
certified form of the mpmath computation: every ball rounds to a single pattern, else the
vector is redone at twice the precision), rounded once to the format and to float32. The sum
of the exact softmax of each vector is checked to be 1 (``exact_sum_max_deviation``: the
largest certified bound on |sum_i softmax_i - 1|).

Reported per exp: ULP in the format of the outputs (max, mean, and the share that is exact),
float32 ULP of the unrounded float32 outputs, max |sum_i out_i - 1|; the exp itself at the
softmax arguments (ULP in the format of e_i rounded, against e^(w_i) correctly rounded) and over
every value w <= 0 of the format (oracle table of exp, exhaustive formats).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from flint import arb, ctx
from rich.table import Table

from ulplab.formats import Format, all_patterns, get_format, is_finite, round_to_format, to_values
from ulplab.methods.gelu import softmax_h2, tail
from ulplab.oracle.table import oracle_table
from ulplab.studies.common import float32_ulps_apart, seed_note
from ulplab.studies.verify_knots import MAX_PRECISION, round_arb_exact
from ulplab.ulp import ulp_distance

f32 = np.float32
F32 = get_format("float32")
SEED = 0
VECTORS = 1000
LENGTH = 64
SIGMA = 3.0
TINY = 2.0**-8


def inputs(fmt: Format, vectors: int = VECTORS, length: int = LENGTH, sigma: float = SIGMA,
           seed: int = SEED) -> np.ndarray:
    """The fixed random vectors, values of fmt (float64 array, shape (vectors, length))."""
    rng = np.random.default_rng(seed)
    x = to_values(round_to_format(rng.normal(0.0, sigma, (vectors, length)), fmt), fmt)
    return np.where(np.abs(x) < TINY, 0.0, x)


def exact_softmax(x: np.ndarray, fmts: tuple[Format, ...]) -> dict[str, Any]:
    """Certified softmax (and e^(x_i - max)) of each row, rounded to each format."""
    rows, n = x.shape
    out = {f.name: np.zeros((rows, n), dtype=f.uint) for f in fmts}
    exps = {f.name: np.zeros((rows, n), dtype=f.uint) for f in fmts}
    deviation = 0.0
    saved = ctx.prec
    try:
        for r in range(rows):
            prec = 128
            while True:
                if prec > MAX_PRECISION:
                    raise RuntimeError("softmax rounding undecided")
                ctx.prec = prec
                m = arb(float(x[r].max()))
                e = [(arb(float(v)) - m).exp() for v in x[r]]
                s = sum(e[1:], e[0])
                p = [v / s for v in e]
                ok = True
                got: dict[str, tuple[list[int], list[int]]] = {}
                for f in fmts:
                    pb, eb = [], []
                    for v, w in zip(p, e, strict=True):
                        lo, hi = round_arb_exact(v.lower(), f), round_arb_exact(v.upper(), f)
                        elo, ehi = round_arb_exact(w.lower(), f), round_arb_exact(w.upper(), f)
                        if lo != hi or elo != ehi:
                            ok = False
                            break
                        pb.append(lo)
                        eb.append(elo)
                    if not ok:
                        break
                    got[f.name] = (pb, eb)
                if ok:
                    break
                prec *= 2
            for f in fmts:
                out[f.name][r], exps[f.name][r] = got[f.name]
            total = sum(p[1:], p[0]) - 1
            deviation = max(deviation, float(total.abs_upper()))
    finally:
        ctx.prec = saved
    return {"softmax": out, "exp": exps, "sum_deviation": deviation}


def unit(x32: np.ndarray, exp_fn: Callable[[np.ndarray], np.ndarray]
         ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(w, e, out) of the float32 softmax unit with ``exp_fn``; rows are vectors."""
    with np.errstate(all="ignore"):
        m = x32.max(axis=1, keepdims=True)
        w = x32 - m
        e = np.asarray(exp_fn(w), dtype=f32)
        s = np.zeros(x32.shape[0], dtype=f32)
        for j in range(x32.shape[1]):
            s = s + e[:, j]
        return w, e, e / s[:, None]


def exp_units(exact_exp32: np.ndarray) -> dict[str, Callable[[np.ndarray], np.ndarray]]:
    return {
        "H2 PWL exp": softmax_h2.pwl_exp,
        "Pure exp (tail.exp_neg)": lambda w: tail.exp_neg(-w),
        "exact exp (float32)": lambda w: exact_exp32,
    }


def exp_exhaustive(fmt: Format, exp_fn: Callable[[np.ndarray], np.ndarray]) -> dict[str, Any]:
    """exp_fn on every finite w <= 0 of fmt, rounded to fmt, against the oracle's exp."""
    bits = all_patterns(fmt)
    w = to_values(bits, fmt)
    keep = is_finite(bits, fmt) & (w <= 0)
    bits, w = bits[keep], w[keep]
    with np.errstate(all="ignore"):
        got = round_to_format(np.asarray(exp_fn(w.astype(f32)), dtype=np.float64), fmt)
    u = ulp_distance(got, oracle_table("exp", fmt, progress=False)[bits], fmt)
    i = int(np.argmax(u))
    return {"inputs": int(bits.size), "max_ulp": int(u.max()), "mean_ulp": float(u.mean()),
            "worst_w": float(w[i])}


def softmax_unit(fmt: Format | str = "bfloat16", vectors: int = VECTORS, length: int = LENGTH,
                 sigma: float = SIGMA, seed: int = SEED) -> dict[str, Any]:
    fmt = get_format(fmt)
    if fmt.bits >= 32:
        raise ValueError("softmax-unit rounds the unit's float32 outputs to a narrower format")
    x = inputs(fmt, vectors, length, sigma, seed)
    x32 = x.astype(f32)
    w64 = x - x.max(axis=1, keepdims=True)
    w32 = x32 - x32.max(axis=1, keepdims=True)
    if not np.array_equal(w32.astype(np.float64), w64):
        raise AssertionError("x_i - max(x) is not exact in float32")
    ex = exact_softmax(x, (fmt, F32))
    exact32 = ex["exp"][F32.name].view(f32)
    rows = []
    for name, fn in exp_units(exact32).items():
        w, e, out = unit(x32, fn)
        sm = ex["softmax"][fmt.name]
        u = ulp_distance(round_to_format(out.astype(np.float64).ravel(), fmt), sm.ravel(), fmt)
        u32 = np.abs(float32_ulps_apart(ex["softmax"][F32.name].view(f32), out)).ravel()
        ue = ulp_distance(round_to_format(e.astype(np.float64).ravel(), fmt),
                          ex["exp"][fmt.name].ravel(), fmt)
        ue32 = np.abs(float32_ulps_apart(exact32, e)).ravel()
        k = int(np.argmax(u))
        row = {"exp": name, "max_ulp": int(u.max()), "mean_ulp": float(u.mean()),
               "exact_fraction": float((u == 0).mean()),
               "worst": {"vector": k // length, "index": k % length,
                         "x": float(x.ravel()[k]), "w": float(w.ravel()[k])},
               "max_ulp_float32": int(u32.max()), "mean_ulp_float32": float(u32.mean()),
               "max_sum_deviation": float(np.abs(out.astype(np.float64).sum(axis=1) - 1).max()),
               "exp_max_ulp": int(ue.max()), "exp_mean_ulp": float(ue.mean()),
               "exp_max_ulp_float32": int(ue32.max()),
               "exp_mean_ulp_float32": float(ue32.mean())}
        if name != "exact exp (float32)" and fmt.exhaustive:
            row["exp_exhaustive"] = exp_exhaustive(fmt, fn)
        rows.append(row)
    return {"study": "softmax-unit", "format": fmt.name,
            "inputs": f"{vectors} vectors of {length}, Normal(0, {sigma:g}) rounded to "
                      f"{fmt.name}, |x| < 2^-8 set to 0; numpy default_rng({seed})",
            "unit": "float32: w = x - max (exact), e = exp(w), s = sum left to right, e/s",
            "truth": "Arb softmax of the stored x, rounded once (certified)",
            "outputs": int(x.size), "w_min": float(w64.min()),
            "exact_sum_max_deviation": ex["sum_deviation"], "units": rows}


# The comparison with the seed's --softmax-unit (docs/seed-studies.md).
SEED_NOTE = (
    "it runs no softmax: it sweeps H2 as a GELU, 1130 / 1.3046 (= ulplab analyze --method 'H2 "
    "GELU-Softmax' --metric seed); its 'R4 Tanh ... Mean 0.14' is typed in (its metric gives "
    "0.1122); here the shared exp is measured inside a softmax"
)


def render(res: dict[str, Any]) -> list[Table]:
    f = res["format"]
    t = Table(title=f"softmax-unit: {res['inputs']}\nunit: {res['unit']}; truth: {res['truth']} "
              f"(|sum - 1| <= {res['exact_sum_max_deviation']:.1e})", title_justify="left")
    for c in ("exp", f"out max ULP ({f})", "mean", "exact", "out max ULP f32", "max |sum-1|",
              f"exp max ULP ({f})", "mean", "exp max ULP f32", f"exp, every {f} w<=0: max/mean"):
        t.add_column(c, justify="left" if c == "exp" else "right")
    for r in res["units"]:
        ex = r.get("exp_exhaustive")
        t.add_row(r["exp"], str(r["max_ulp"]), f"{r['mean_ulp']:.4f}",
                  f"{100 * r['exact_fraction']:.2f}%", str(r["max_ulp_float32"]),
                  f"{r['max_sum_deviation']:.2e}", str(r["exp_max_ulp"]),
                  f"{r['exp_mean_ulp']:.4f}", str(r["exp_max_ulp_float32"]),
                  f"{ex['max_ulp']} / {ex['mean_ulp']:.4f}" if ex else "-")
    return seed_note([t], "--softmax-unit", SEED_NOTE)
