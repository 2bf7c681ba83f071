"""The seed's sigmoid family: B1 Pure, B1 Sigmoid, B1v2 Sigmoid and their "(improved)" variants.

Idea: Phi(x) ~ sigma(k x) with k = 1.702 (the logistic fit of the normal CDF, Bowling et al. /
Hendrycks & Gimpel's "x sigma(1.702 x)"), and a cheap algebraic sigmoid instead of e^-z:
    B1    sigma(z) ~ 1/2 + z / (2 (1 + |z|))       (one division)
    B1v2  sigma(z) ~ 1/2 + z / (2 sqrt(1 + z^2))   (one square root, one division)
GELU = x Phi(x). Evaluation: z = k x; s = z / (1 + |z|) (or z / sqrt(1 + z z)); Phi = 0.5 + 0.5 s;
y = x Phi. Tails (``framing.make_kernel``):
    B1 Pure       the seed's: asymptotic tail below SEED_B1_PURE_TAIL = -3, mirror from 3.
    B1 Pure (improved)  asymptotic tail below B1_PURE_TAIL = -1.75, mirror x + GELU(-x) from 3.
    B1 Sigmoid    the seed's shared tail LUT below -3.5, x -> x from 3.
    B1v2 Sigmoid  the same, with the square-root sigmoid.

Accuracy is set by the form, not by the constants: 1/2 + z/(2(1+|z|)) decays like 1/(2k|x|) and
the square-root form like 1/(4 k^2 x^2), while Phi decays like e^(-x^2/2): for x < -1 the
relative error of Phi (= that of GELU) is tens of percent and grows to 100x at -3.5. Scanned
k in {0.798, 1.0, 1.2, 1.5, 1.702, 2, 2.5, 3, 4, 6} on all bfloat16 inputs: a larger k lowers the
negative-side maximum (B1v2 Sigmoid 625 -> 428 at k = 3) but raises the error near zero (where
the slope k/2 should be 1/sqrt(2 pi) = 0.399) and the mean (1.48 -> 2.66), and a smaller k does
the opposite; 1.702 has the smallest mean of the rational form and is the seed's and the
literature's constant, so it is kept for all three. The one real choice is B1 Pure's threshold:
the 4-term asymptotic series is poor above -3 (42% at -1.75), but the sigmoid is worse, and the
least maximum on bfloat16 is where their errors cross: thresholds -3, -2.5, -2.25, -2.125, -2,
-1.875, -1.75 give max 759, 502, 398, 346, 303, 252, 209 ulps (means 1.12 .. 0.53); above -1.75
the series loses its sign (its value at -1.625 is 0.24 of -phi vs 0.84 exact).

The seed's three (B1 Pure, B1 Sigmoid, B1v2 Sigmoid) are the seed's methods, bit for bit (its C++
at c2bf7bb, every bfloat16 output checked against its build by tests/test_gelu_seed_bits.py):
the core above and the seed's own tails (``framing.make_kernel`` kinds "seed-pure" and
"seed-lut": its degree-4 fast exp, its calibrated tail LUT, +0 where its exp underflows).
"(improved)": B1 Pure (improved) with the tail from -1.75 and this project's exp; B1 Sigmoid
(improved) and B1v2 Sigmoid (improved) are these methods as registered before the bit-for-bit
rebuild: a tail LUT of exact knots and a minimax cubic reading of the seed's fast exp
(``tail.seed_fast_exp_neg``).

Seed (bfloat16 max/mean): B1 Pure 759/1.12, B1 Sigmoid 1068/1.64, B1v2 Sigmoid 625/1.47;
measured on every input (this project's oracle) 759/1.1223, 1068/1.6403, 625/1.4756. What the
improvement buys (measured, ``Method.rebuild(TAIL_START=...)``): moving B1 Pure's threshold from
-3 to -1.75 takes the bfloat16 max from 759 to 209 and the mean from 1.12 to 0.53 (float16
6070 -> 1677).
"""

from __future__ import annotations

import numpy as np

from ulplab.methods.gelu.framing import frame_params, make_kernel, measured
from ulplab.methods.gelu.seed_table import seed_figures
from ulplab.methods.params import Params, constant
from ulplab.methods.registry import built, register

f32 = np.float32

K_SIGMOID = f32(1.702)  # Phi(x) ~ sigma(1.702 x): the seed's constant, decimal rounded to float32
B1_PURE_TAIL = -1.75    # asymptotic tail below this (least bfloat16 max of the scan above)
SEED_B1_PURE_TAIL = -3.0  # the seed's B1 Pure threshold


def sigmoid_rational(z: np.ndarray) -> np.ndarray:
    """1/2 + z/(2(1 + |z|)): the B1 algebraic sigmoid (NaN for z = +-inf; never used there)."""
    return 0.5 + 0.5 * (z / (1.0 + np.abs(z)))


def sigmoid_sqrt(z: np.ndarray) -> np.ndarray:
    """1/2 + z/(2 sqrt(1 + z^2)): the B1v2 sigmoid."""
    return 0.5 + 0.5 * (z / np.sqrt(1.0 + z * z))


def make_core(sigmoid):  # noqa: ANN001, ANN201
    """x sigma(K_SIGMOID x) with the given algebraic sigmoid (K_SIGMOID a parameter)."""

    def core(x: np.ndarray, p: Params) -> np.ndarray:
        return x * sigmoid(p.K_SIGMOID * x)

    return core


# Measured (``ulplab analyze gelu --method NAME --format bfloat16`` and float16): (max, mean)
SEED_CLAIMS = {"B1 Pure": ((759, 1.1223), (6070, 73.383)),
               "B1 Sigmoid": ((1068, 1.6403), (8538, 103.3075)),
               "B1v2 Sigmoid": ((625, 1.4756), (4995, 92.6978))}
IMPROVED_CLAIMS = {"B1 Sigmoid": ((1068, 1.6402), (8538, 103.3075)),
                   "B1v2 Sigmoid": ((625, 1.4755), (4995, 92.6978))}


def _params(tail_kind: str, tail_start: float = -3.5, seed_exp: bool = True) -> Params:
    return Params({"K_SIGMOID": constant(K_SIGMOID),
                   **frame_params(tail_kind, tail_start, seed_exp=seed_exp)})


register(built(
    "gelu", "B1 Pure", "sigmoid",
    "x sigma(1.702x), sigma(z) ~ 1/2 + z/(2(1+|z|)); asymptotic tail below -3 (the seed's)",
    make_kernel(make_core(sigmoid_rational), "seed-pure"),
    _params("seed-pure", SEED_B1_PURE_TAIL),
    claims=measured(SEED_CLAIMS["B1 Pure"][0], SEED_CLAIMS["B1 Pure"][1]),
    seed=seed_figures("B1 Pure"),
    note="bit for bit the seed's gelu_b1_pure (gelu_implementations.cpp:834 at c2bf7bb)",
))
register(built(
    "gelu", "B1 Pure (improved)", "sigmoid",
    "x sigma(1.702x), sigma(z) ~ 1/2 + z/(2(1+|z|)); asymptotic tail below -1.75",
    make_kernel(make_core(sigmoid_rational), "pure"),
    _params("pure", B1_PURE_TAIL, seed_exp=False),
    claims=measured((209, 0.5277), (1677, 34.5455)),
    seed=seed_figures("B1 Pure (improved)"),
    note="the seed's B1 Pure with the tail from -1.75 instead of -3: bfloat16 max 759 -> 209",
))
for _name, _sigmoid, _fn, _line, _form in (
        ("B1 Sigmoid", sigmoid_rational, "gelu_b1_sigmoid", 442, "1/2 + z/(2(1+|z|))"),
        ("B1v2 Sigmoid", sigmoid_sqrt, "gelu_b1_sigmoid_v2", 484, "1/2 + z/(2 sqrt(1+z^2))")):
    register(built(
        "gelu", _name, "sigmoid",
        f"x sigma(1.702x), sigma(z) ~ {_form}; the seed's tail LUT below -3.5",
        make_kernel(make_core(_sigmoid), "seed-lut"), _params("seed-lut"),
        claims=measured(*SEED_CLAIMS[_name]),
        seed=seed_figures(_name),
        note=f"bit for bit the seed's {_fn} (gelu_implementations.cpp:{_line} at c2bf7bb)",
    ))
    register(built(
        "gelu", f"{_name} (improved)", "sigmoid",
        f"x sigma(1.702x), sigma(z) ~ {_form}; tail LUT of exact knots below -3.5",
        make_kernel(make_core(_sigmoid), "lut"), _params("lut"),
        claims=measured(*IMPROVED_CLAIMS[_name]),
        seed=seed_figures(f"{_name} (improved)"),
        note=f"the seed's {_name} with its tail LUT's knots exact (rounded once from 40 digits) "
             "and a minimax cubic in its fast exp",
    ))
