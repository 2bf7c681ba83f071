"""Stage: statistics of a sweep. ULP distribution, regions, worst inputs, NaN/inf disagreements.

Every fraction (exact, within 1 ULP) is over ALL inputs compared (``inputs``): a NaN or infinity
disagreement is neither exact nor within 1 ULP, while a NaN against a NaN and an infinity against
the same infinity are exact. NaN and infinity disagreements are counted apart
(``nan_mismatches``, ``inf_mismatches``) and never enter a mean: max, mean, percentiles and the
histogram are over the ``count`` inputs where both the result and the reference are finite.

Given the real values (``real=``, ``ulplab.oracle.real``) the summary adds the error against the
real f(x) in fractional ULPs of the format (``ulplab.ulp.real_ulp_error``), over ALL inputs:
``max_error`` (inf where a NaN/inf disagreement has no finite size), ``errors_ge_1`` (inputs
not faithfully rounded), ``errors_gt_half`` (inputs not correctly rounded to nearest, ties
aside), ``error_accuracy`` (how far these figures may be from the exact ones, in ULPs), an
``error`` beside each worst input and ``worst_error``: the inputs with the largest error.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import numpy as np

from ulplab.formats import Format, Kind, classify, round_value, to_values
from ulplab.functions import Region
from ulplab.ulp import real_ulp_error


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


def shortest_decimal(b: int, fmt: Format) -> str:
    """The shortest decimal that reads back as the value of pattern ``b``: rounded to ``fmt``
    (to nearest, exactly, from the decimal itself) it gives ``b`` again. "nan", "inf", "-inf",
    "0" and "-0" for those. float32's 1 + 2^-23 is "1.0000001", never "1"."""
    v = float(to_values(np.array([b]), fmt)[0])
    if v == 0:
        return "-0" if math.copysign(1.0, v) < 0 else "0"
    if math.isnan(v) or math.isinf(v):
        return str(v)
    exact = Fraction(v)
    for digits in range(1, 18):
        nearest = Fraction(f"{v:.{digits - 1}e}")
        step = Fraction(10) ** (math.floor(math.log10(abs(nearest))) - digits + 1)
        # the nearest decimal of this length, then its neighbours: at a power of two the
        # values reading back as v reach further on one side than on the other
        for d in sorted((nearest, nearest - step, nearest + step), key=lambda d: abs(d - exact)):
            if d != 0 and round_value(d, fmt) == int(b) & _value_mask(fmt):
                return _decimal_text(d, digits)
    return repr(v)


def _value_mask(fmt: Format) -> int:
    return (1 << fmt.bits) - 1


def _decimal_text(d: Fraction, digits: int) -> str:
    """A decimal Fraction of at most 9 significant digits, as %g prints it (a float carries
    every decimal of up to 15 digits exactly through)."""
    return f"{float(d):.{digits}g}"


def summarize(x_bits: np.ndarray, got: np.ndarray, expected: np.ndarray, ulp: np.ndarray,
              fmt: Format, regions: Sequence[Region] = (), worst: int = 10, *,
              real: np.ndarray | None = None, ftz: bool = False,
              error: np.ndarray | None = None,
              error_accuracy: float | None = None) -> dict[str, Any]:
    """Statistics of one method's sweep. ``ulp`` is -1 where a side is NaN or infinite.

    ``real``: f at each input, unrounded (float64), for the error against the real value
    (module docstring); ``ftz``: that error counted in ULPs of the flush-to-zero format;
    ``error``: ``real_ulp_error(got, real, fmt, ftz)`` when the caller has computed it already;
    ``error_accuracy``: how far the real values may put the figures off, in ULPs (the oracle's
    ``ulplab.oracle.real.accuracy_ulps``; stats sits below the oracle and does not ask it).
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
    if real is not None:
        if error is None:
            error = real_ulp_error(got, real, fmt, ftz)
        for w, i in zip(out["worst"], [i for i in order if finite[i] and ulp[i] > 0],
                        strict=True):
            w["error"] = float(error[i])
        out.update(real_error_summary(x_bits, got, real, error, fmt, worst, error_accuracy))
    return out


def real_error_summary(x_bits: np.ndarray, got: np.ndarray, real: np.ndarray,
                       error: np.ndarray, fmt: Format, worst: int = 10,
                       accuracy: float | None = None) -> dict[str, Any]:
    """The figures of the error against the real value (``error``: ``real_ulp_error`` of each
    input): max, the counts >= 1 and > 0.5, the accuracy of the figures (``accuracy``, as
    given) and the ``worst`` inputs by error (those above 0.5, largest first)."""
    xs, gv = to_values(x_bits, fmt), to_values(got, fmt)
    order = np.argsort(-np.nan_to_num(error, nan=-1.0), kind="stable")[:worst]
    return {
        "max_error": float(error.max()) if error.size else 0.0,
        "errors_ge_1": int(np.count_nonzero(error >= 1.0)),
        "errors_gt_half": int(np.count_nonzero(error > 0.5)),
        "error_accuracy": accuracy,
        "worst_error": [
            {"x": float(xs[i]), "hex": hex_bits(x_bits[i], fmt), "error": float(error[i]),
             "real": float(real[i]), "got": float(gv[i]), "got_hex": hex_bits(got[i], fmt)}
            for i in order if error[i] > 0.5],
    }


__all__ = ["hex_bits", "histogram_edges", "real_error_summary", "shortest_decimal", "summarize"]
