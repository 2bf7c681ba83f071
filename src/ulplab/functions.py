"""The catalogue of mathematical functions: names, definitions, analysis regions.

This module states *what* each function is; ``ulplab.oracle`` evaluates it exactly and
``ulplab.methods`` approximates it. Neither of those imports the other; both import this.
"""

from __future__ import annotations

from dataclasses import dataclass

from ulplab.errors import unknown_choice

Region = tuple[str, float, float]
"""(name, lo, hi): the finite inputs x with lo <= x < hi."""

INF = float("inf")

GELU_REGIONS: tuple[Region, ...] = (
    ("near_zero", -0.5, 0.5),  # |x| < 0.5 as in the seed; -0.5 itself belongs to core_neg
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


@dataclass(frozen=True)
class Function:
    name: str
    definition: str
    regions: tuple[Region, ...] = GENERIC_REGIONS


FUNCTIONS: dict[str, Function] = {
    f.name: f
    for f in (
        Function("gelu", "x * Phi(x) = x/2 * (1 + erf(x/sqrt(2)))", GELU_REGIONS),
        Function("gelu_tanh", "x/2 * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3))), 0.044715 exact",
                 GELU_REGIONS),
        Function("tanh", "tanh(x)"),
        Function("exp", "e^x"),
        Function("exp2", "2^x"),
        Function("log", "natural logarithm"),
        Function("log2", "base-2 logarithm"),
        Function("sin", "sin(x)"),
        Function("cos", "cos(x)"),
        Function("sigmoid", "1 / (1 + e^-x)"),
        Function("softplus", "log(1 + e^x)"),
        Function("silu", "x * sigmoid(x)", GELU_REGIONS),
        Function("erf", "2/sqrt(pi) * integral_0^x e^(-t^2) dt"),
        Function("erfc", "1 - erf(x)"),
        Function("gelu_grad", "d/dx gelu(x) = Phi(x) + x * phi(x)", GELU_REGIONS),
        Function("tanh_grad", "d/dx tanh(x) = 1 - tanh(x)^2"),
        Function("rsqrt", "1 / sqrt(x)"),
        Function("log1p", "log(1 + x)"),
        Function("expm1", "e^x - 1"),
        Function("tan", "tan(x)"),
    )
}


def get_function(name: str) -> Function:
    try:
        return FUNCTIONS[name]
    except KeyError:
        raise unknown_choice("function", name, FUNCTIONS) from None
