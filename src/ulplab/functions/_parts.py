"""The parts every function module fills in (see the package docstring)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
from flint import arb
from mpmath import mpf

from ulplab.functions._float64 import Float64Form

Region = tuple[str, float, float]
"""(name, lo, hi): the finite inputs x with lo <= x < hi."""

INF = float("inf")

GELU_REGIONS: tuple[Region, ...] = (
    ("near_zero", -0.5, 0.5),  # [lo, hi): -0.5 counts here (the seed's |x| < 0.5 puts it in
    # core_neg; --metric seed uses the seed's own regions, ulplab.oracle.seed_metric)
    ("core_pos", 0.5, 3.0),
    ("core_neg", -3.0, -0.5),
    ("tail_pos", 3.0, INF),
    ("tail_neg", -INF, -3.0),
)
"""The seed research's regions: near_zero |x|<0.5, core 0.5<=|x|<3, tails beyond."""

GENERIC_REGIONS: tuple[Region, ...] = (
    ("tiny", -2.0**-10, 2.0**-10),
    ("small_neg", -1.0, -(2.0**-10)),
    ("small_pos", 2.0**-10, 1.0),
    ("mid_neg", -16.0, -1.0),
    ("mid_pos", 1.0, 16.0),
    ("large_neg", -INF, -16.0),
    ("large_pos", 16.0, INF),
)

Form = tuple[float, arb, int]
"""(anchor, d, sign): f(x) = anchor + d, d an Arb ball of relative accuracy, sign its known sign
(0: unknown). The anchor is exactly representable (0, ±1, 2 or x itself)."""

ArbForm = Callable[[float, arb], Form]
"""(x, X = arb(x)) -> Form at the current Arb precision."""

Exact = Callable[[float], "float | Fraction | None"]
"""Finite x -> the exact result where no ball decides it (a signed zero, an infinity or NaN at a
domain edge, or a Fraction for an exact finite value), else None."""

SideFn = Callable[[np.ndarray], Any]
"""sign(x) as ±1 -> the side (±1, 0: unknown) of f(x) from the anchor it tends to."""


@dataclass(frozen=True)
class DoubleReference:
    """A float64 evaluation that brackets f(x) between float32 numbers for ``faithful``.

    ``evaluate`` maps a float64 array to f in float64 within a few double ulps (relative), with
    NumPy and the C library only (no optional package). Where the double value lies on a float32
    number it cannot show the rest below half an ulp; for |x| < ``small_below`` and |x| > 32,
    f(x) is within half an ulp of the anchor it tends to, and ``side_small``/``side_large`` give
    the side of the rest (None: ask the oracle). Inputs in ``oracle_between`` (lo, hi), where the
    double formula cancels, always go to the oracle.
    """

    evaluate: Callable[[np.ndarray], np.ndarray]
    side_small: SideFn | None
    side_large: SideFn | None
    small_below: float = 2.0**-26
    oracle_between: tuple[float, float] | None = None


@dataclass(frozen=True)
class Naive:
    """The textbook formula in float32 NumPy: the ``f32-naive`` baseline method."""

    evaluate: Callable[[np.ndarray], np.ndarray]
    idea: str
    library_calls: tuple[str, ...]


@dataclass(frozen=True)
class Peer:
    """A native implementation by import path (``torch.nn.functional.gelu``) and keywords."""

    path: str
    kwargs: tuple[tuple[str, Any], ...] = ()


def peer(path: str, **kwargs: Any) -> Peer:
    return Peer(path, tuple(sorted(kwargs.items())))


@dataclass(frozen=True)
class Peers:
    """f's implementations in PyTorch, JAX and NumPy, and the C library's float function name."""

    torch: Peer | None
    jax: Peer | None
    numpy: Peer | None
    libm: str | None


@dataclass(frozen=True)
class Function:
    name: str
    definition: str
    regions: tuple[Region, ...]
    arb_form: ArbForm
    at_inf: tuple[float, float]
    """f(+inf), f(-inf): limits, a zero's sign from the side it is approached."""
    exact: Exact
    mpmath_form: Callable[[mpf], mpf]
    """f with mpmath's own functions, for the independent cross-check."""
    negative_for_negative_x: bool
    """An mpmath zero (an underflow) for x < 0 stands for -0 (the cross-check's signed zeros)."""
    double: DoubleReference
    naive: Naive
    peers: Peers
    derivative: str | None = None
    """The function that is f' (the peers' backward pass is measured against it)."""
    float64_form: Float64Form | None = None
    """f(x) = anchor + delta in float64 with a per-element error bound (``functions._float64``),
    for float32 inputs: the float32 oracle's fast path (``ulplab.oracle.fast32``). None: every
    float32 input goes to Arb."""
    nan_below: float | None = None
    """f(x) is NaN for every x below this (-0.0 is not below); the float64 form never sees them."""


def no_exact_cases(x: float) -> None:
    """For a function whose every finite value a ball decides (f(0) included)."""
    return None


def odd_zero(x: float) -> float | None:
    """f(±0) = ±0, and no other exact case."""
    return x if x == 0 else None


def value_at_zero(value: float) -> Exact:
    """f(±0) = value, and no other exact case."""

    def exact(x: float) -> float | None:
        return value if x == 0 else None

    return exact
