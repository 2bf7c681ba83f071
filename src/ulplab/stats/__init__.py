"""Stage: statistics of a sweep. ULP distribution, regions, worst inputs, NaN/inf disagreements.

Every fraction (exact, within 1 ULP) is over ALL inputs compared (``inputs``): a NaN or infinity
disagreement is neither exact nor within 1 ULP, while a NaN against a NaN and an infinity against
the same infinity are exact. NaN and infinity disagreements are counted apart
(``nan_mismatches``, ``inf_mismatches``) and never enter a mean: max, mean, percentiles and the
histogram are over the ``count`` inputs where both the result and the reference are finite.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ulplab.formats import Format, Kind, classify, to_values
from ulplab.functions import Region


def histogram_edges(max_ulp: int) -> list[tuple[int, int]]:
    """Bins 0, 1, 2, 3-4, 5-8, 9-16, ... up to the bin holding ``max_ulp``."""
    edges = [(0, 0), (1, 1), (2, 2)]
    lo = 3
    while lo <= max(max_ulp, 2):
        hi = 2 * (lo - 1)
        edges.append((lo, hi))
        lo = hi + 1
    return [e for e in edges if e[0] <= max(max_ulp, 2)]


def _label(lo: int, hi: int) -> str:
    return str(lo) if lo == hi else f"{lo}-{hi}"


def _percentiles(u: np.ndarray, ps: tuple[int, ...]) -> dict[str, int]:
    """Nearest-rank (inverted CDF) percentiles of integers, with one partial sort."""
    ranks = [max(int(np.ceil(p / 100 * u.size)) - 1, 0) for p in ps]
    part = np.partition(u, ranks)
    return {f"p{p}": int(part[r]) for p, r in zip(ps, ranks, strict=True)}


def hex_bits(b: int, fmt: Format) -> str:
    return f"0x{int(b):0{(fmt.bits + 3) // 4}x}"


def summarize(x_bits: np.ndarray, got: np.ndarray, expected: np.ndarray, ulp: np.ndarray,
              fmt: Format, regions: Sequence[Region] = (), worst: int = 10) -> dict[str, Any]:
    """Statistics of one method's sweep. ``ulp`` is -1 where a side is NaN or infinite.

    Raises ``ValueError`` on an empty sweep: no inputs measure nothing, not "100 % exact".
    """
    total = int(np.asarray(x_bits).size)
    if total == 0:
        raise ValueError("no inputs to summarize")
    kg, ke = classify(got, fmt), classify(expected, fmt)
    nan_g, nan_e = kg == Kind.NAN, ke == Kind.NAN
    nan_mismatch = nan_g != nan_e
    inf_pair = ~nan_g & ~nan_e & ((kg == Kind.INF) | (ke == Kind.INF))
    inf_mismatch = inf_pair & (np.asarray(got) != np.asarray(expected))
    same_nonfinite = (nan_g & nan_e) | (inf_pair & ~inf_mismatch)
    finite = ulp >= 0
    u = ulp[finite]
    n = int(u.size)
    agree = int(same_nonfinite.sum())
    out: dict[str, Any] = {
        "inputs": total, "count": n,
        "exact_fraction": (int(np.count_nonzero(u == 0)) + agree) / total,
        "within1_fraction": (int(np.count_nonzero(u <= 1)) + agree) / total,
    }
    if n:
        mx = int(u.max())
        out.update(
            max_ulp=mx,
            mean_ulp=float(u.mean()),
            percentiles=_percentiles(u, (50, 90, 99)),
            histogram={_label(lo, hi): int(np.count_nonzero((u >= lo) & (u <= hi)))
                       for lo, hi in histogram_edges(mx)},
        )
    else:
        out.update(max_ulp=0, mean_ulp=0.0, percentiles={"p50": 0, "p90": 0, "p99": 0},
                   histogram={})
    out["nan_mismatches"] = int(nan_mismatch.sum())
    out["inf_mismatches"] = int(inf_mismatch.sum())
    xs = to_values(x_bits, fmt)
    order = np.argsort(-np.where(finite, ulp, -1), kind="stable")[:worst]
    gv, ev = to_values(got, fmt), to_values(expected, fmt)
    out["worst"] = [
        {"x": float(xs[i]), "hex": hex_bits(x_bits[i], fmt), "ulp": int(ulp[i]),
         "got": float(gv[i]), "got_hex": hex_bits(got[i], fmt),
         "expected": float(ev[i]), "expected_hex": hex_bits(expected[i], fmt)}
        for i in order if finite[i] and ulp[i] > 0
    ]
    out["mismatch_examples"] = [
        {"x": float(xs[i]), "hex": hex_bits(x_bits[i], fmt), "got_hex": hex_bits(got[i], fmt),
         "expected_hex": hex_bits(expected[i], fmt)}
        for i in np.flatnonzero(nan_mismatch | inf_mismatch)[:worst]
    ]
    reg: dict[str, dict[str, Any]] = {}
    for name, lo, hi in regions:
        m = finite & (xs >= lo) & (xs < hi)
        r = ulp[m]
        reg[name] = {"count": int(r.size), "max_ulp": int(r.max()) if r.size else 0,
                     "mean_ulp": float(r.mean()) if r.size else 0.0}
    out["regions"] = reg
    return out


__all__ = ["hex_bits", "histogram_edges", "summarize"]
