"""The sweep engine: every input of a format through a method, against the oracle.

    format -> inputs -> method -> outputs (rounded to the format) -> oracle -> ULP -> stats

No Python loop runs per value: the method is called once on the whole array.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ulplab import inputs
from ulplab.formats import (
    Format,
    check_mode,
    flush_subnormals,
    from_format,
    get_format,
    get_policy,
    round_to_format,
    to_format,
)
from ulplab.functions import Region, get_function
from ulplab.methods import Method
from ulplab.oracle.table import oracle_table
from ulplab.stats import summarize
from ulplab.ulp import ulp_distance


@dataclass(frozen=True)
class Outputs:
    x_bits: np.ndarray
    got: np.ndarray
    expected: np.ndarray
    ulp: np.ndarray


def method_outputs(method: Method, fmt: Format, denormals: str = "ieee",
                   output_rounding: str = "nearest-even") -> tuple[np.ndarray, np.ndarray]:
    """(input patterns, the method's result patterns) over every input of ``fmt``."""
    policy = get_policy(denormals)
    bits, values = inputs.exhaustive(fmt, denormals)
    if method.takes == "format":
        read = flush_subnormals(bits, fmt) if policy.daz else bits
        y = np.asarray(method(to_format(read, fmt)))
        if y.dtype != fmt.dtype or y.shape != bits.shape:
            raise TypeError(f"method {method.name} returned {y.dtype}{y.shape}, "
                            f"expected {fmt.name}{bits.shape}")
        got = from_format(y, fmt)
    else:
        y = np.asarray(method(values.astype(np.float32)))
        if y.dtype != np.float32 or y.shape != bits.shape:
            raise TypeError(f"method {method.name} returned {y.dtype}{y.shape}, "
                            f"expected float32{bits.shape}")
        got = round_to_format(y, fmt, check_mode(output_rounding))
    if policy.ftz:
        got = flush_subnormals(got, fmt)
    return bits, got


def compare(method: Method, function: str, fmt: Format | str, rounding: str = "nearest-even",
            denormals: str = "ieee", output_rounding: str = "nearest-even",
            progress: bool = True) -> Outputs:
    fmt = get_format(fmt)
    expected = oracle_table(function, fmt, rounding, denormals, progress=progress)
    bits, got = method_outputs(method, fmt, denormals, output_rounding)
    ftz = get_policy(denormals).ftz
    ulp = ulp_distance(got, expected, fmt, ftz=ftz)
    check = ulp_distance(got, expected, fmt, ftz=ftz, calculator="sorted")
    if not np.array_equal(ulp, check):
        bad = int(np.flatnonzero(ulp != check)[0])
        raise AssertionError(f"ULP calculators disagree at input pattern {bad:#x}")
    return Outputs(bits, got, expected, ulp)


def analyze(methods: Sequence[Method], function: str, fmt: Format | str,
            rounding: str = "nearest-even", denormals: str = "ieee",
            output_rounding: str = "nearest-even", regions: Sequence[Region] | None = None,
            worst: int = 10, progress: bool = True) -> dict[str, Any]:
    """Statistics of each method over every input of ``fmt`` (the JSON of ``ulplab analyze``)."""
    fmt = get_format(fmt)
    spec = get_function(function)
    regions = spec.regions if regions is None else regions
    policy = get_policy(denormals)
    results = []
    for m in methods:
        out = compare(m, function, fmt, rounding, denormals, output_rounding, progress)
        stats = summarize(out.x_bits, out.got, out.expected, out.ulp, fmt, regions, worst)
        results.append({"method": m.name, **stats})
    return {
        "function": function,
        "format": fmt.name,
        "rounding": rounding,
        "output_rounding": output_rounding,
        "denormals": policy.name,
        "ulp_ordinal": "flush-to-zero" if policy.ftz else "ieee",
        "regions": [{"name": n, "lo": lo, "hi": hi} for n, lo, hi in regions],
        "methods": results,
    }


__all__ = ["Outputs", "analyze", "compare", "method_outputs"]
