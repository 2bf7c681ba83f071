"""The seed's rational method: R2 Rational.

Idea (seed): (Phi(x) - 1/2)/x is even, so approximate it by a rational function of u = x^2,
    (Phi(x) - 1/2)/x ~ P(u)/Q(u),  P = p0 + p1 u + p2 u^2 + p3 u^3,  Q = 1 + q1 u + q2 u^2 + q3 u^3,
and GELU = x (1/2 + x P/Q). Evaluation: u = x x; P and Q by Horner with FMA; one division;
Phi = 1/2 + x (P/Q) (one FMA); y = x Phi. Tails: the seed's shared tail LUT below -3.5 and
x -> x from 3.

Coefficients: the seed's (its text: matched Taylor terms, then "optimized for [-4, 4]") are
accurate near 0 and poor at |x| = 3.5, where what matters is the RELATIVE error of Phi(-|x|)
(GELU's, on the negative side): Phi(-3.5) = 2.3e-4 leaves no room for an absolute error of 1e-4.
Here they are the weighted minimax fit ``fit_r2`` (Loeb's linearisation with Lawson reweighting,
float64, 3000 points of x in (0, 3.5]): the error of g = (Phi(x) - 1/2)/x weighted by x/Phi(-x),
i.e. the relative error of Phi(-x) = 1/2 - x g, which bounds the relative error on the positive
side too. Maximum on the grid 1.33e-5 (float32 coefficients). In float32, 1/2 + x P/Q cancels near
-3.5 (an absolute rounding of 2^-25 against Phi = 2.3e-4 is 1.3e-4 relative), so the evaluated core
is within 3e-4 relative (0.07 bfloat16 ulps): exact in bfloat16 but for a few roundings, and the
worst inputs are the tail LUT's (87 ulps at -7.66).

R2 Rational is the seed's method, bit for bit (``r2_seed_core``; its C++ at c2bf7bb, every
bfloat16 output checked against its build by tests/test_gelu_seed_bits.py): its decimal P and Q
(SEED_R2_P/Q), summed by powers of x^2 with the FMAs its build contracts, Phi clamped to [0, 1],
x >= 3 -> x and its own tail LUT below -3.5. R2 Rational (improved): the minimax fit above.

Measured (every input; bfloat16 max / mean, core_neg max; float16 max):
    R2 Rational            1139 / 1.1898, 775, 9109   seed 1139 / 1.19, core_neg 775
    R2 Rational (improved)   87 / 0.0717, 1, 190
What the improvement buys: the weighted minimax fit takes core_neg 775 -> 1 and the max 1139
-> 87 (the LUT's).
"""

from __future__ import annotations

import numpy as np

from ulplab.kit import fma
from ulplab.kit.ops import f32hex
from ulplab.methods.gelu import tail
from ulplab.methods.gelu.framing import (
    frame_params,
    make_kernel,
    measured,
    phi64,
    rational_fit,
)
from ulplab.methods.gelu.seed_table import seed_figures
from ulplab.methods.gelu.tail import where32
from ulplab.methods.params import Params, coeffs, evaluate_poly
from ulplab.methods.registry import built, register

f32 = np.float32


_h = f32hex  # exact hex literal -> float32


# fit_r2(limit=3.5, n=3, m=3, points=3000), each coefficient rounded to float32
R2_P = (_h("0x1.98893ap-2"), _h("0x1.b10f54p-6"), _h("0x1.fe8a22p-9"), _h("0x1.2ad8dap-15"))
R2_Q = (f32(1.0), _h("0x1.dd498cp-3"), _h("0x1.80b340p-6"), _h("0x1.3ec522p-10"))


def fit_r2(limit: float = 3.5, n: int = 3, m: int = 3,
           points: int = 3000) -> tuple[np.ndarray, np.ndarray, float]:
    """Fit time: P (degree n) / Q (degree m, Q(0) = 1) in u = x^2 for (Phi(x) - 1/2)/x on
    x in [1e-3, limit], minimax in the relative error of Phi(-x). Returns float32 p, q (without
    Q's leading 1) and the float64 weighted maximum error."""
    x = np.linspace(1e-3, limit, points)
    u = x * x
    g = (phi64(x) - 0.5) / x
    w = x / phi64(-x)
    num = np.stack([u**k for k in range(n + 1)], 1)
    den = np.stack([u**k for k in range(1, m + 1)], 1)
    p, q = rational_fit(num, den, g, w)
    err = float(np.max(np.abs(w * (num @ p / (1 + den @ q) - g))))
    return p.astype(f32), q.astype(f32), err


def r2_core(x: np.ndarray, p: Params) -> np.ndarray:
    """x (1/2 + x P(x^2)/Q(x^2))."""
    u = x * x
    r = evaluate_poly(p.SCHEME, u, p.R2_P) / evaluate_poly(p.SCHEME, u, p.R2_Q)
    return x * fma(x, r, np.full_like(x, 0.5))


# The seed's R2 (gelu_implementations.cpp:591 at c2bf7bb), bit for bit: (Phi - 1/2)/x ~
# P(x^2)/Q(x^2) with its decimals (:612-619), each rounded to float32, low to high
SEED_R2_P = (_h("0x1.988454p-2"), _h("0x1.1d774ep-4"), _h("0x1.b17b8ep-9"),
             _h("0x1.748128p-15"))  # 0.398942280, 0.069693856, 0.003307210, 0.000044406
SEED_R2_Q = (_h("0x1.000000p+0"), _h("0x1.7f301ep-2"), _h("0x1.89c2e8p-5"),
             _h("0x1.07ef38p-9"))   # 1, 0.374206990, 0.048066570, 0.002013660


def r2_seed_core(x: np.ndarray, p: Params) -> np.ndarray:
    """The seed's R2 core: x2 = x x, x4 = x2 x2, x6 = x4 x2; num and den summed by powers (each
    step one FMA, as its build contracts it); phi = fma(x, num/den, 0.5) clamped to [0, 1]
    (NaN -> 1); GELU = x phi."""
    with np.errstate(all="ignore"):
        x2 = x * x
        x4 = x2 * x2
        powers = (x2, x4, x4 * x2)

        def power_sum(c: tuple[np.float32, ...]) -> np.ndarray:
            y = np.full_like(x, c[0])
            for ck, xk in zip(c[1:], powers, strict=True):
                y = fma(np.full_like(x, ck), xk, y)
            return y

        phi = fma(x, power_sum(p.SEED_R2_P) / power_sum(p.SEED_R2_Q), np.full_like(x, 0.5))
        return x * where32(np.isnan(phi), 1.0, np.clip(phi, 0.0, 1.0))


register(built(
    "gelu", "R2 Rational", "rational",
    "the seed's: (Phi-1/2)/x ~ P3(x^2)/Q3(x^2) with its decimal coefficients; its tail LUT below "
    "-3.5, x>=3 -> x",
    make_kernel(r2_seed_core, "seed-lut"),
    Params({"SEED_R2_P": coeffs(SEED_R2_P), "SEED_R2_Q": coeffs(SEED_R2_Q),
            **frame_params("seed-lut")}),
    table_bytes=4 * (tail.SEED_TAIL_MAIN.size + tail.SEED_TAIL_FINE.size),
    claims=measured((1139, 1.1898), (9109, 73.6491)),
    note="bit for bit the seed's gelu_r2_rational_pade (gelu_implementations.cpp:591 at "
    "c2bf7bb)",
    seed=seed_figures("R2 Rational"),
))
register(built(
    "gelu", "R2 Rational (improved)", "rational",
    "(Phi-1/2)/x ~ P3(x^2)/Q3(x^2), minimax in relative error of Phi(-|x|); tail LUT below -3.5",
    make_kernel(r2_core, "lut"),
    Params({"R2_P": coeffs(R2_P), "R2_Q": coeffs(R2_Q), **frame_params("lut")}),
    claims=measured((87, 0.0717), (190, 0.572)),
    seed=seed_figures("R2 Rational (improved)"),
    note="the seed's R2 with a minimax fit in the relative error of Phi(-|x|) instead of its "
    "coefficients: bfloat16 max 1139 -> 87 (the LUT's)",
))
