"""range-scale: the seed's E3 idea measured (the seed's --range-scale).

E3 Range-Scale (``methods.gelu.rangescale_e3``) evaluates Phi(x) = 1/2 + v P(v^2) on x >= 0 with
v = x/s, s = 2, the seed's argument being that the scaled coefficients have a smaller dynamic
range, which matters when they are stored in bfloat16. (x < 0 uses B3's erf core and the tail
LUT below -3.5, x >= 3 gives x: those parts are not affected by s.)

Variants, each the method rebuilt with other ``E3_SCALE`` (= 1/s) and ``E3_COEFFS`` parameters
(``Method.rebuild``), measured on every input of the format against the oracle, per region
(``functions.GELU_REGIONS``):
    s = 2 (registered)        the method as committed.
    unscaled (s = 1)          the same polynomial in x: p_k 2^-(2k+1), exact (powers of two).
    s = 1.5, 3, 4 converted   the committed polynomial rewritten for v = x/s: p_k (s/2)^(2k+1)
                              rounded to float32, 1/s rounded to float32 (for s = 4 both exact).
    s = ... refit             ``rangescale_e3.fit_e3(3.0, 9, s)``: the minimax fit redone for s.
    ... bfloat16 coeffs       the coefficients of s = 2 and of s = 1 rounded to bfloat16 (the
                              seed's motivation: does scaling help coefficients stored in bf16?).
Reported: max / mean ULP overall and per region, the number of outputs that differ from the
registered method (in the format, and as float32 outputs before rounding, with the largest float32
ulp distance), and the coefficients' dynamic range max|p_k| / min|p_k|.

The expected finding (the module's docstring): for s a power of two the scaled and unscaled
kernels are the same float computation up to exact powers of two, so their outputs are
identical, and rounding to bfloat16 changes the same significand bits at any power-of-two s;
the dynamic range of the coefficients is the only thing s changes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from rich.table import Table

from ulplab.formats import Format, get_format, round_to_format, to_values
from ulplab.functions import GELU_REGIONS
from ulplab.methods import get_method
from ulplab.methods.gelu import rangescale_e3
from ulplab.oracle.table import oracle_table
from ulplab.studies.common import exhaustive_fmt, float32_ulps_apart, got_bits, seed_note
from ulplab.ulp import ulp_distance

f32 = np.float32
METHOD = "E3 Range-Scale (improved)"
CONVERT_SCALES = (1.5, 3.0, 4.0)
REFIT_SCALES = (1.0, 2.0, 3.0)


def converted(coeffs: Sequence[np.float32], s: float, base: float = 2.0) -> tuple[np.float32, ...]:
    """Coefficients of P for v = x/s from those for v = x/base: p_k (s/base)^(2k+1), float32."""
    return tuple(f32(float(c) * (s / base) ** (2 * k + 1)) for k, c in enumerate(coeffs))


def to_bf16(coeffs: Sequence[np.float32]) -> tuple[np.float32, ...]:
    b = get_format("bfloat16")
    q = to_values(round_to_format(np.array([float(c) for c in coeffs]), b), b)
    return tuple(f32(v) for v in q)


def variants() -> list[tuple[str, float, tuple[np.float32, ...]]]:
    """(label, s, coefficients): the E3 kernels compared."""
    base = tuple(rangescale_e3.E3_COEFFS)
    out = [("s = 2 (registered)", 2.0, base), ("unscaled (s = 1)", 1.0, converted(base, 1.0))]
    out += [(f"s = {s:g} converted", s, converted(base, s)) for s in CONVERT_SCALES]
    out += [(f"s = {s:g} refit", s, tuple(rangescale_e3.fit_e3(3.0, 9, s)[0]))
            for s in REFIT_SCALES]
    out += [("s = 2, bfloat16 coeffs", 2.0, to_bf16(base)),
            ("s = 1, bfloat16 coeffs", 1.0, to_bf16(converted(base, 1.0)))]
    return out


def _regions(x: np.ndarray, u: np.ndarray) -> dict[str, dict[str, float]]:
    out = {}
    for name, lo, hi in GELU_REGIONS:
        m = (x >= lo) & (x < hi) & (u >= 0)
        out[name] = {"max_ulp": int(u[m].max()) if m.any() else 0,
                     "mean_ulp": float(u[m].mean()) if m.any() else 0.0}
    return out


def range_scale(fmt: Format | str = "bfloat16") -> dict[str, Any]:
    fmt = exhaustive_fmt(fmt, "range-scale")
    m = get_method("gelu", METHOD)
    table = oracle_table("gelu", fmt, progress=False)
    x = to_values(np.arange(fmt.n_patterns).astype(fmt.uint), fmt)
    registered = got_bits(m, fmt)
    x32 = np.where(np.isfinite(x), x, 0.0).astype(f32)
    with np.errstate(all="ignore"):
        registered32 = np.asarray(m(x32))
    rows = []
    for label, s, coeffs in variants():
        variant = m.rebuild(E3_SCALE=f32(1.0 / s), E3_COEFFS=coeffs)
        got = got_bits(variant, fmt)
        with np.errstate(all="ignore"):
            got32 = np.asarray(variant(x32))
        d32 = np.abs(float32_ulps_apart(registered32, got32))
        u = ulp_distance(got, table, fmt)
        fin = u >= 0
        mags = np.abs(np.array([float(c) for c in coeffs]))
        rows.append({"variant": label, "scale": s,
                     "inverse_scale_exact": float(f32(1 / s)) == 1 / s,
                     "coefficients": [float(c).hex() for c in coeffs],
                     "dynamic_range": float(mags.max() / mags.min()),
                     "max_ulp": int(u[fin].max()), "mean_ulp": float(u[fin].mean()),
                     "regions": _regions(x, u),
                     "differs_from_registered": int((got != registered).sum()),
                     "float32_differs": int((d32 != 0).sum()),
                     "float32_max_ulp_from_registered": int(d32.max())})
    return {"study": "range-scale", "function": "gelu", "format": fmt.name, "method": METHOD,
            "regions": [r[0] for r in GELU_REGIONS], "variants": rows}


# The comparison with the seed's --range-scale (docs/seed-studies.md).
SEED_NOTE = (
    "it prints the seed's E3 over every input, 1130 / 1.7232 (= ulplab analyze --method 'E3 "
    "Range-Scale' --metric seed), against A1 Poly-7 typed in as 'Mean 3.61' (its metric gives "
    "3.5801): another method, not E3 unscaled, so its 'IMPROVED' is a seed defect; here s is "
    "varied inside E3 (improved)"
)


def render(res: dict[str, Any]) -> list[Table]:
    t = Table(title=f"range-scale (E3): {res['method']} with v = x/s on x >= 0, every "
              f"{res['format']} input (max / mean ULP)", title_justify="left")
    t.add_column("variant")
    t.add_column("coeff range", justify="right")
    t.add_column("all", justify="right")
    for r in res["regions"]:
        t.add_column(r, justify="right")
    t.add_column("differ from registered", justify="right")
    t.add_column("float32 outputs differ (max f32 ulps)", justify="right")
    for v in res["variants"]:
        t.add_row(v["variant"], f"{v['dynamic_range']:.3g}",
                  f"{v['max_ulp']} / {v['mean_ulp']:.4f}",
                  *[f"{v['regions'][r]['max_ulp']} / {v['regions'][r]['mean_ulp']:.3f}"
                    for r in res["regions"]], str(v["differs_from_registered"]),
                  f"{v['float32_differs']} ({v['float32_max_ulp_from_registered']})")
    return seed_note([t], "--range-scale", SEED_NOTE)
