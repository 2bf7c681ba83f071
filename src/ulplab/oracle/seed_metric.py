"""The seed research's metric (``--metric seed``), as its C++ ``--analyze`` defines it.

The seed (github.com/ivoitovych/bf16_gelu_research, ``gelu_implementations.cpp``) measures a
method over every finite bfloat16 input x (``analyze_gelu_implementation``):

* its reference is ``gelu_reference_f64``: z = x * (1/sqrt 2) in double, Phi = 0.5 (1 + erf(z))
  for x >= 0 and 0.5 erfc(-z) for x < 0 (the C library's double erf and erfc), times x; that
  double is converted to float and the float to bfloat16 (both nearest-even) — a reference
  rounded twice, not correctly rounded;
* an input whose result is NaN or infinite is skipped (``is_finite_bf16(approx)``), and so is
  one whose reference is (``UlpCalculator::ulp_distance`` returns -1, ``record`` drops it);
* the distance is the difference of the two values' indices in the sorted list of distinct
  finite values (``UlpCalculator``): +0 and -0 share an index, so they are 0 apart;
* max and mean are over the counted inputs: mean = (sum of the distances in double) / count.

Generalized here to every function with a float64 reference (``Function.double``: the seed's
own formula above for gelu) and every format swept exhaustively (16 bits and narrower): the
double result becomes float32, then the format, both nearest-even; the distance is the same
sorted-index difference over the format's finite values. float32 is not defined (its inputs are
sampled; the seed enumerates every pattern). Reading this module needs no oracle table: it is a
reference, not the truth, and like the oracle it never imports ``ulplab.methods``.
"""

from __future__ import annotations

import math

import numpy as np

from ulplab.errors import UsageError
from ulplab.formats import (
    EXHAUSTIVE_FORMATS,
    Format,
    get_policy,
    is_finite,
    is_negative,
    magnitude,
    round_to_format,
    to_values,
)
from ulplab.functions import FUNCTIONS, GELU_REGIONS, Region, get_function

METRICS = ("ulplab", "seed")
"""``ulplab``: the correctly rounded oracle, +0 and -0 distinct, NaN/inf disagreements counted
(the default); ``seed``: the seed's C++ metric defined above."""

SEED_INV_SQRT_2 = 0.7071067811865475244008443621048490392848
"""The seed's ``constants::INV_SQRT_2`` (its 40 digits; as a double 0x1.6a09e667f3bcdp-1)."""

_erf = np.frompyfunc(math.erf, 1, 1)  # CPython's math.erf and erfc are the C library's
_erfc = np.frompyfunc(math.erfc, 1, 1)


def _seed_gelu_f64(x: np.ndarray) -> np.ndarray:
    """``gelu_reference_f64``: its erf for x >= 0, its erfc for x < 0, in double."""
    z = x * SEED_INV_SQRT_2
    phi = np.empty_like(x)
    pos = x >= 0
    phi[pos] = 0.5 * (1.0 + _erf(z[pos]).astype(np.float64))
    phi[~pos] = 0.5 * _erfc(-z[~pos]).astype(np.float64)
    return x * phi


def check_metric(metric: str, function: str, fmt: Format) -> str:
    """``metric`` when it is one of ``METRICS`` and defined for ``function`` on ``fmt``; a
    one-line ``UsageError`` saying what is supported otherwise."""
    if metric not in METRICS:
        raise UsageError(f"unknown metric {metric!r}; valid: {', '.join(METRICS)}")
    if metric == "seed":
        if not fmt.exhaustive:
            raise UsageError(f"the seed metric is defined on every input of a 16-bit or narrower "
                             f"format ({', '.join(EXHAUSTIVE_FORMATS)}), not {fmt.name}")
        if get_function(function).double is None:
            with_double = [n for n, f in FUNCTIONS.items() if f.double is not None]
            raise UsageError(f"the seed metric needs a float64 reference, which {function} "
                             f"has not; functions with one: {', '.join(with_double)}")
    return metric


def check_seed_truth(rounding: str, denormals: str) -> None:
    """The seed's reference is rounded to nearest-even, with subnormals read and kept (IEEE):
    another ``rounding`` or ``denormals`` is refused, in one line."""
    if rounding != "nearest-even" or get_policy(denormals).name != "ieee":
        raise UsageError("the seed metric rounds its reference to nearest-even with ieee "
                         "denormals, as the seed's C++ does: rounding must be nearest-even and "
                         f"denormals ieee, got {rounding} and {get_policy(denormals).name}")


def seed_reference_f64(function: str, x: np.ndarray) -> np.ndarray:
    """The metric's float64 reference of float64 values ``x``: the seed's formula for gelu, the
    function's ``double`` reference otherwise."""
    x = np.asarray(x, dtype=np.float64)
    with np.errstate(all="ignore"):  # NaN and inf are inputs; overflow gives inf
        if function == "gelu":
            return _seed_gelu_f64(x)
        spec = get_function(function)
        if spec.double is None:
            raise UsageError(f"the seed metric needs a float64 reference, which {function} "
                             "has not")
        return np.asarray(spec.double.evaluate(x), dtype=np.float64)


def seed_reference(function: str, fmt: Format, bits: np.ndarray) -> np.ndarray:
    """The reference patterns of inputs ``bits``: the float64 reference, converted to float32,
    then to ``fmt``, both nearest-even (the seed's static_cast<float>, then to bfloat16)."""
    x = to_values(np.asarray(bits).astype(fmt.uint), fmt)
    with np.errstate(all="ignore"):
        as_float = seed_reference_f64(function, x).astype(np.float32)
    return round_to_format(as_float, fmt, "nearest-even")


def seed_ulp_distance(a: np.ndarray, b: np.ndarray, fmt: Format) -> np.ndarray:
    """The seed's ``UlpCalculator::ulp_distance``: |index(a) - index(b)| in the sorted list of
    the format's distinct finite values (+0 and -0 share one index); -1 where either side is
    NaN or infinite. A finite pattern's index, up to a constant, is its magnitude with the
    sign: every magnitude below the largest finite one is a value, and -0 counts as 0."""
    a, b = np.asarray(a), np.asarray(b)
    ia = np.where(is_negative(a, fmt), -magnitude(a, fmt), magnitude(a, fmt))
    ib = np.where(is_negative(b, fmt), -magnitude(b, fmt), magnitude(b, fmt))
    ok = is_finite(a, fmt) & is_finite(b, fmt)
    return np.where(ok, np.abs(ia - ib), -1).astype(np.int64)


def seed_ulp(x_bits: np.ndarray, got: np.ndarray, expected: np.ndarray,
             fmt: Format) -> np.ndarray:
    """Each input's distance as the seed counts it, -1 for an input it skips: a NaN or infinite
    input (never measured), result or reference (``seed_ulp_distance``)."""
    ulp = seed_ulp_distance(got, expected, fmt)
    return np.where(is_finite(np.asarray(x_bits), fmt), ulp, -1)


def seed_regions(function: str) -> tuple[Region, ...]:
    """The function's regions as the seed's ``UlpStats::record`` draws them: for gelu,
    near_zero is |x| < 0.5, so -0.5 belongs to core_neg ([-3, -0.5]); the other functions keep
    their regions. Half-open [lo, hi) bounds on float64, so near_zero starts just above -0.5."""
    regions = get_function(function).regions
    if function != "gelu" or regions != GELU_REGIONS:
        return regions
    above = float(np.nextafter(-0.5, 0.0))  # the float64 after -0.5: no format value between
    return tuple((name, above, hi) if name == "near_zero" else
                 (name, lo, above) if name == "core_neg" else (name, lo, hi)
                 for name, lo, hi in regions)


__all__ = ["METRICS", "SEED_INV_SQRT_2", "check_metric", "check_seed_truth", "seed_reference",
           "seed_reference_f64", "seed_regions", "seed_ulp",
           "seed_ulp_distance"]
