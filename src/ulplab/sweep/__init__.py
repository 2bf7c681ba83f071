"""The sweep engine: every input of a format through a method, against the oracle.

    format -> inputs -> method -> outputs (rounded to the format) -> oracle -> ULP -> stats

No Python loop runs per value: the method is called once on the whole array.

With ``metric="seed"`` the oracle is not consulted: the reference, the distance and the inputs
counted are the seed research's (``ulplab.oracle.seed_metric``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ulplab import inputs
from ulplab.errors import UsageError
from ulplab.formats import (
    Format,
    check_mode,
    flush_subnormals,
    from_format,
    get_format,
    get_policy,
    round_to_format,
    to_format,
    to_values,
)
from ulplab.functions import Region, get_function
from ulplab.methods import Method
from ulplab.oracle.seed_metric import (
    check_metric,
    check_seed_truth,
    seed_reference,
    seed_regions,
    seed_ulp,
)
from ulplab.oracle.table import evaluate, oracle_table
from ulplab.stats import summarize
from ulplab.ulp import ulp_distance


@dataclass(frozen=True)
class Outputs:
    x_bits: np.ndarray
    got: np.ndarray
    expected: np.ndarray
    ulp: np.ndarray


def _inputs(fmt: Format, denormals: str, bits: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    if bits is None:
        return inputs.exhaustive(fmt, denormals)
    bits = np.asarray(bits).astype(fmt.uint)
    read = flush_subnormals(bits, fmt) if get_policy(denormals).daz else bits
    return bits, to_values(read, fmt)


def method_outputs(method: Method, fmt: Format, denormals: str = "ieee",
                   output_rounding: str = "nearest-even",
                   bits: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(input patterns, the method's result patterns): every input of ``fmt``, or ``bits``."""
    policy = get_policy(denormals)
    bits, values = _inputs(fmt, denormals, bits)
    if method.takes == "format":
        read = flush_subnormals(bits, fmt) if policy.daz else bits
        y = np.asarray(method(to_format(read, fmt)))
        if y.dtype != fmt.dtype or y.shape != bits.shape:
            raise TypeError(f"method {method.name} returned {y.dtype}{y.shape}, "
                            f"expected {fmt.name}{bits.shape}")
        got = from_format(y, fmt)
    else:
        if fmt.dtype == np.float32:  # the patterns themselves: NaN payloads kept
            read = flush_subnormals(bits, fmt) if policy.daz else bits
            x32 = read.view(np.float32)
        else:
            with np.errstate(invalid="ignore"):
                x32 = values.astype(np.float32)  # exact for every narrower format
        y = np.asarray(method(x32))
        if y.dtype != np.float32 or y.shape != bits.shape:
            raise TypeError(f"method {method.name} returned {y.dtype}{y.shape}, "
                            f"expected float32{bits.shape}")
        if fmt.dtype == np.float32:  # float32 to float32 is exact: only NaNs become canonical
            check_mode(output_rounding)
            got = np.where(np.isnan(y), fmt.nan_bits, y.view(np.uint32)).astype(fmt.uint)
        else:
            got = round_to_format(y, fmt, check_mode(output_rounding))
    if policy.ftz:
        got = flush_subnormals(got, fmt)
    return bits, got


def reference(function: str, fmt: Format, rounding: str, denormals: str,
              bits: np.ndarray | None, progress: bool = True, via: str | None = None) -> np.ndarray:
    """The oracle's results: the cached exhaustive table, or Arb evaluations of ``bits``.

    ``via``: a wider format the truth is first rounded to (nearest-even) before ``rounding``
    takes it to ``fmt`` — a reference computed in float and then converted, as seed 002's
    (MPFR -> float -> truncated to bfloat16). Rounding twice is not correct rounding; it is the
    reference such a report used, reproduced on purpose.
    """
    if via is not None:
        return _reference_via(function, fmt, rounding, denormals, bits, get_format(via))
    if bits is None:
        return oracle_table(function, fmt, rounding, denormals, progress=progress)
    values = to_values(np.asarray(bits).astype(fmt.uint), fmt)
    return evaluate(function, values, fmt, rounding, denormals)


def _reference_via(function: str, fmt: Format, rounding: str, denormals: str,
                   bits: np.ndarray | None, wide: Format) -> np.ndarray:
    if wide.precision <= fmt.precision:
        raise UsageError(f"a reference via {wide.name} needs a format wider than {fmt.name}")
    policy = get_policy(denormals)
    bits, values = _inputs(fmt, denormals, bits)  # under DAZ subnormals already read as zero
    inner = evaluate(function, values, wide, "nearest-even", "ieee")
    out = round_to_format(to_values(inner, wide), fmt, check_mode(rounding))
    return flush_subnormals(out, fmt) if policy.ftz else out


def compare(method: Method, function: str, fmt: Format | str, rounding: str = "nearest-even",
            denormals: str = "ieee", output_rounding: str = "nearest-even",
            progress: bool = True, bits: np.ndarray | None = None,
            expected: np.ndarray | None = None, via: str | None = None) -> Outputs:
    """One method against the oracle: every input of ``fmt``, or the patterns ``bits``.

    Both ULP calculators run on exhaustive formats and must agree; float32 has only the bitwise
    one (a sorted table of 2^32 values is not built).
    """
    fmt = get_format(fmt)
    if bits is None and not fmt.exhaustive:
        raise ValueError(f"{fmt.name} needs sampled inputs (bits=...)")
    if expected is None:
        expected = reference(function, fmt, rounding, denormals, bits, progress, via)
    bits, got = method_outputs(method, fmt, denormals, output_rounding, bits)
    ftz = get_policy(denormals).ftz
    ulp = ulp_distance(got, expected, fmt, ftz=ftz)
    check = ulp_distance(got, expected, fmt, ftz=ftz, calculator="sorted") if fmt.exhaustive \
        else ulp
    if not np.array_equal(ulp, check):
        bad = int(np.flatnonzero(ulp != check)[0])
        raise AssertionError(f"ULP calculators disagree at input pattern {bad:#x}")
    return Outputs(bits, got, expected, ulp)


def seed_compare(method: Method, function: str, fmt: Format | str,
                 output_rounding: str = "nearest-even", bits: np.ndarray | None = None,
                 expected: np.ndarray | None = None) -> Outputs:
    """One method measured as the seed's C++ measures it (``ulplab.oracle.seed_metric``): every
    input of ``fmt`` or the patterns ``bits``; ``ulp`` is -1 on each input the seed skips."""
    fmt = get_format(fmt)
    check_metric("seed", function, fmt)
    bits, got = method_outputs(method, fmt, "ieee", output_rounding, bits)
    if expected is None:
        expected = seed_reference(function, fmt, bits)
    return Outputs(bits, got, expected, seed_ulp(bits, got, expected, fmt))


def seed_methods(function: str) -> list[Method]:
    """Every registered method named as in the seed's results table (``SEED_BF16``), in that
    table's order ("Sorted by Max ULP", ties as the seed printed them); [] for a function the
    seed has no methods of."""
    from ulplab.methods import methods_for
    from ulplab.methods.gelu.seed_table import SEED_BF16

    by_name = {m.name: m for m in methods_for(function)}
    return [by_name[name] for name in SEED_BF16 if name in by_name]


def analyze(methods: Sequence[Method], function: str, fmt: Format | str,
            rounding: str = "nearest-even", denormals: str = "ieee",
            output_rounding: str = "nearest-even", regions: Sequence[Region] | None = None,
            worst: int = 10, progress: bool = True,
            bits: np.ndarray | None = None, metric: str = "ulplab") -> dict[str, Any]:
    """Statistics of each method over every input of ``fmt`` or the sampled patterns ``bits``
    (the JSON of ``ulplab analyze``). ``metric``: "ulplab" (the correctly rounded oracle) or
    "seed" (the seed's C++ metric: no oracle; its regions' bounds; ``rounding`` and
    ``denormals`` must be the seed's, nearest-even and ieee)."""
    fmt = get_format(fmt)
    spec = get_function(function)
    check_metric(metric, function, fmt)
    seed = metric == "seed"
    if seed:
        check_seed_truth(rounding, denormals)
    regions = (seed_regions(function) if seed else spec.regions) if regions is None else regions
    policy = get_policy(denormals)
    results = []
    sampled = bits is not None
    if seed:
        bits, _ = _inputs(fmt, denormals, bits)
        expected = seed_reference(function, fmt, bits)
    else:
        expected = reference(function, fmt, rounding, denormals, bits, progress)
    for m in methods:
        if seed:
            out = seed_compare(m, function, fmt, output_rounding, bits, expected)
        else:
            out = compare(m, function, fmt, rounding, denormals, output_rounding, progress, bits,
                          expected)
        stats = summarize(out.x_bits, out.got, out.expected, out.ulp, fmt, regions, worst)
        results.append({"method": m.name, **stats,
                        "seed_max_ulp": m.seed.get(fmt.name)})  # the seed's published max
    return {
        "function": function,
        "format": fmt.name,
        "metric": metric,
        "rounding": rounding,
        "output_rounding": output_rounding,
        "denormals": policy.name,
        "inputs": "exhaustive" if not sampled else f"{len(bits)} sampled",
        "ulp_ordinal": ("seed: sorted finite values, +0 and -0 one" if seed else
                        "flush-to-zero" if policy.ftz else "ieee"),
        "regions": [{"name": n, "lo": lo, "hi": hi} for n, lo, hi in regions],
        "methods": results,
    }


__all__ = ["Outputs", "analyze", "compare", "method_outputs", "reference", "seed_compare",
           "seed_methods"]
