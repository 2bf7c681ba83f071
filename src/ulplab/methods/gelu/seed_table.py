"""The seed research's published results: max and mean ULP of each of its 39 GELU methods on
every bfloat16 input (the results table of seeds/000_*, "Sorted by Max ULP"), copied as figures;
C6 Adaptive, added to the seed after that text, from the same table in the seed's README
(github.com/ivoitovych/bf16_gelu_research at c2bf7bb).

Each GELU method registered under a seed name carries its row as ``Method.seed`` (the
``seed`` column of ``ulplab methods`` and of ``ulplab analyze --json``), so the measured figure
and the seed's stand side by side. No method is registered here.
"""

from __future__ import annotations

SEED_BF16: dict[str, tuple[int, float]] = {
    "C6 Adaptive": (1, 0.001),
    "R5 Pure": (2, 0.002),
    "B3 Pure": (23, 0.01),
    "D2 Pure": (23, 0.01),
    "F3 Pure": (28, 0.02),
    "R4 Pure": (29, 0.01),
    "C1 Pure": (35, 0.03),
    "E4 Hermite": (58, 0.05),
    "E4v3 Quintic": (61, 0.04),
    "E4v2 Wide": (81, 0.08),
    "R5 LUT": (87, 0.07),
    "B3 Erf Poly": (87, 0.11),
    "C1 Spline": (87, 0.10),
    "D2 LUT+Erf": (87, 0.11),
    "F2 Quadrature": (87, 0.11),
    "F3 CF Erf": (87, 0.12),
    "D4 Non-uniform": (88, 0.60),
    "R4 Tanh": (166, 0.11),
    "B4 Rational": (535, 0.56),
    "B1v2 Sigmoid": (625, 1.47),
    "B1 Pure": (759, 1.12),
    "D3 LUT+Corr": (830, 1.82),
    "R3 PWL": (832, 36.82),
    "H3 Pure": (861, 0.67),
    "C2 Piecewise": (881, 1.15),
    "B1 Sigmoid": (1068, 1.64),
    "E3 Range-Scale": (1130, 1.72),
    "H2 GELU-Softmax": (1130, 1.31),
    "R2 Rational": (1139, 1.19),
    "A4 Cont.Frac": (1206, 1.71),
    "A3 Chebyshev": (1207, 2.54),
    "A1 Pure": (1211, 2.83),
    "E9 Remez BF16": (1211, 2.83),
    "H3 SoftEx": (1247, 1.26),
    "R1 Poly-9": (1312, 1.40),
    "A1 Poly-9": (1404, 3.56),
    "A1 Poly-7": (1547, 3.58),
    "TT Accurate": (14330, 3224.82),
    "TT Fast": (32639, 15782.90),
}
"""method name -> (max ULP, mean ULP) on every bfloat16 input, as the seed published them."""


def seed_figures(name: str) -> dict[str, int]:
    """The seed's published max ULP per format for a method name ({} for a name the seed's
    table does not have, such as an improved variant)."""
    row = SEED_BF16.get(name)
    return {} if row is None else {"bfloat16": row[0]}
