"""The seed's SoftEx family: H3 Pure, H3 SoftEx (tanh-form GELU through an arithmetic exp).

Idea (seed): the Hendrycks & Gimpel tanh form
    GELU(x) ~ x/2 (1 + tanh(u)),  u = sqrt(2/pi) (x + 0.044715 x^3),
with tanh from an exp that is a Pade [2/2] rational, e^r ~ (12 + 6r + r^2)/(12 - 6r + r^2)
(the SoftEx idea: exp from a few multiply-adds and one division, no transcendental unit).

Evaluation here: x/2 (1 + tanh(u)) = x sigma(2u) = x / (1 + e^(-2u)), which needs no
subtraction (the seed's (e^2z - 1)/(e^2z + 1) cancels for negative z). e^w by ``pade_exp``:
Cody-Waite reduction w = n ln2 + r (n = rint(w log2 e), two FMAs with ln2 split hi/lo as in
``tail.exp_neg``), |r| <= ln2/2, the Pade [2/2] of e^r, then 2^n by ldexp. On |r| <= 0.347 the
Pade error is r^5/720 < 7e-6 relative, 50 times below a bfloat16 half-ulp. The seed applied
the Pade form to the unreduced argument, accurate only for |w| < 2, and fell back beyond: that,
not the tanh form, caused its 861 (H3 Pure) and 1247 (H3 SoftEx) ulps.

What is left is the tanh form itself: x sigma(2u) differs from x Phi(x) by up to 3e-4 absolute,
which is up to 10% relative at x = -3 (GELU_tanh(-3) = -0.00364 vs -0.00405) and grows below.
    H3 Pure    asymptotic tail below H3_PURE_TAIL = -2.5 and the mirror x + GELU(-x) from 3.
               Thresholds -2.25, -2.375, -2.5, -2.625, -2.75, -3, -3.25 measured 15, 8, 8, 8, 9,
               23, 40 bfloat16 ulps; -2.5 has the smallest mean (0.0065) of the 8-ulp ones.
    H3 SoftEx  the seed's shared tail LUT below -3.5 (its 87-ulp limit at -7.66) and x -> x from 3.

The seed's names are the seed's methods, bit for bit (``core_seed``; its C++ at c2bf7bb, every
bfloat16 output checked against its build by tests/test_gelu_seed_bits.py): the Pade [2/2]
(12 + 6w + w^2)/(12 - 6w + w^2) of e^w on the unreduced w = 2z, tanh z = (e - 1)/(e + 1),
GELU = 0.5 x (1 + tanh z), with sqrt(2/pi) and 0.044715 as float32, and the seed's own tails
(``tail.seed_asymptotic_tail``, ``tail.seed_tail_lut``):
    H3 Pure    asymptotic tail below -3, x -> x from 3.
    H3 SoftEx  the seed's tail LUT below -3.5, x -> x from 3.
The seed's text says the Pade exp "uses fallback for |x| > 2", but its figures are those of no
fallback: measured (every input; bfloat16 max / mean, core_pos / core_neg max; float16 max)
    H3 Pure    861 / 0.6679, 28 / 861, 6890   seed 861 / 0.67, 28 / 861 (reproduced)
    H3 SoftEx 1247 / 1.2575, 28 / 861, 9973   seed 1247 / 1.26 (reproduced)
With the seed's B3 erf as a fallback for |x| > 2 they would measure 210 / 0.1413 and
210 / 0.2103 (the Pade is 3x off at w = -3.8, x = -2); for |w| > 2, 7 / 0.0077 and 87 / 0.0767.
"(improved)": range reduction before the Pade, x sigma(2u) (no cancellation), this project's
exp; H3 Pure (improved) with the tail from -2.5: 8 / 0.0065 (float16 69), H3 SoftEx (improved)
87 / 0.0966 (float16 460). The range reduction buys 861 -> 23 at the same threshold -3 (the
tanh form's own error there), the threshold -2.5 the rest.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ulplab.kit import fma, ldexp
from ulplab.kit.ops import f32hex
from ulplab.methods.gelu import tail
from ulplab.methods.gelu.framing import Core, frame_params, make_kernel, measured
from ulplab.methods.gelu.seed_table import seed_figures
from ulplab.methods.gelu.tail import LN2_HI, LN2_LO, LOG2E, where32
from ulplab.methods.params import Params, constant
from ulplab.methods.registry import built, register

f32 = np.float32


_h = f32hex  # exact hex literal -> float32


SQRT_2_OVER_PI = _h("0x1.988454p-1")  # sqrt(2/pi) rounded to float32 (Hendrycks & Gimpel)
TANH_CUBIC = f32(0.044715)            # Hendrycks & Gimpel's cubic coefficient, rounded to float32
EXP_CLAMP = 150.0                     # |w| <= 150: e^w is 0 or inf in float32 beyond
H3_PURE_TAIL = -2.5


def pade_exp(w: np.ndarray, p: Params | None = None) -> np.ndarray:
    """e^w: Cody-Waite reduction to |r| <= ln2/2, Pade [2/2] (12+6r+r^2)/(12-6r+r^2), ldexp."""
    with np.errstate(all="ignore"):
        wc = np.minimum(np.maximum(w, -EXP_CLAMP), EXP_CLAMP)
        n = np.rint(wc * LOG2E)
        r = fma(n, np.full_like(wc, -LN2_HI), wc)
        r = fma(n, np.full_like(wc, -LN2_LO), r)
        r2 = r * r
        q = (12.0 + 6.0 * r + r2) / (12.0 - 6.0 * r + r2)
        nn = where32(np.isnan(n), 0.0, n)
        return ldexp(q, nn.astype(np.int32))


def tanh_form_core(exp_fn: Callable[..., np.ndarray]) -> Core:
    """x / (1 + e^(-2u)), u = A (x + B x^3) (A = sqrt(2/pi), B = 0.044715 by default), with the
    given exp (called as exp_fn(w, p); shared by H2)."""

    def core(x: np.ndarray, p: Params) -> np.ndarray:
        u = p.SQRT_2_OVER_PI * (x + p.TANH_CUBIC * (x * x * x))
        return x * (1.0 / (1.0 + exp_fn(-2.0 * u, p)))

    return core


TANH_FORM_PARAMS = {"SQRT_2_OVER_PI": constant(SQRT_2_OVER_PI),
                    "TANH_CUBIC": constant(TANH_CUBIC)}

# ---------------------------------------------------------------------------------------------
# The seed's H3: the Pade exp on the unreduced argument and the tanh quotient
# ---------------------------------------------------------------------------------------------

SEED_H3_PURE_TAIL = -3.0   # the seed's gelu_h3_pure: asymptotic tail for x < -3 (:2505)
SEED_EXP_CLAMP = 88.0      # exp_softex (:2451-2452): e^w = 1e38 above 88, 0 below -88
SEED_EXP_BIG = f32(1e38)   # its value above the clamp (0x1.2ced32p+126)


def core_seed(x: np.ndarray, p: Params) -> np.ndarray:
    """The seed's H3 core (gelu_h3_softex, :2466-2488, and exp_softex, :2446-2461), bit for bit
    as its README build evaluates it (g++ -O3 -march=native contracts a*b + c into an FMA):
    z = A fma(B, x^3, x) with x^3 = (x x) x; w = 2z; e = num/den with
    num = fma(w, w, fma(6, w, 12)), den = fma(w, w, fma(-6, w, 12)) (Pade [2/2] on the
    unreduced w; 1e38 above w = 88, 0 below -88); tanh z = (e - 1)/(e + 1);
    GELU = (0.5 x)(1 + tanh z)."""
    with np.errstate(all="ignore"):
        z = p.SQRT_2_OVER_PI * fma(np.full_like(x, p.TANH_CUBIC), (x * x) * x, x)
        w = f32(2.0) * z
        num = fma(w, w, fma(np.full_like(w, 6.0), w, np.full_like(w, 12.0)))
        den = fma(w, w, fma(np.full_like(w, -6.0), w, np.full_like(w, 12.0)))
        e = num / den
        e = where32(w > SEED_EXP_CLAMP, SEED_EXP_BIG, where32(w < -SEED_EXP_CLAMP, 0.0, e))
        th = (e - f32(1.0)) / (e + f32(1.0))
        return (f32(0.5) * x) * (f32(1.0) + th)


def _seed_params(tail_kind: str, tail_start: float = tail.TAIL_LUT_START) -> Params:
    return Params({**TANH_FORM_PARAMS, **frame_params(tail_kind, tail_start)})


register(built(
    "gelu", "H3 Pure", "softex",
    "the seed's: tanh form with e^w by Pade [2/2] on the unreduced w; asymptotic tail below -3",
    make_kernel(core_seed, "seed-pure"), _seed_params("seed-pure", SEED_H3_PURE_TAIL),
    claims=measured((861, 0.6679), (6890, 43.4246)),
    seed=seed_figures("H3 Pure"),
    note="bit for bit the seed's gelu_h3_pure (gelu_implementations.cpp:2497 at c2bf7bb)",
))
register(built(
    "gelu", "H3 SoftEx", "softex",
    "the seed's: tanh form with e^w by Pade [2/2] on the unreduced w; the seed's tail LUT "
    "below -3.5, x>=3 -> x",
    make_kernel(core_seed, "seed-lut"), _seed_params("seed-lut"),
    claims=measured((1247, 1.2575), (9973, 78.0321)),
    seed=seed_figures("H3 SoftEx"),
    note="bit for bit the seed's gelu_h3_softex (gelu_implementations.cpp:2467 at c2bf7bb)",
))
register(built(
    "gelu", "H3 Pure (improved)", "softex",
    "tanh form x sigma(2u) with e^w by range reduction + Pade [2/2]; asymptotic tail below -2.5",
    make_kernel(tanh_form_core(pade_exp), "pure"),
    Params({**TANH_FORM_PARAMS, **frame_params("pure", H3_PURE_TAIL)}),
    claims=measured((8, 0.0065), (69, 0.2892)),
    seed=seed_figures("H3 Pure (improved)"),
    note="the seed's H3 Pure with the exp range-reduced, x sigma(2u) instead of the tanh "
    "quotient and the tail from -2.5: bfloat16 max 861 -> 8",
))
register(built(
    "gelu", "H3 SoftEx (improved)", "softex",
    "tanh form x sigma(2u) with e^w by range reduction + Pade [2/2]; the seed's tail LUT",
    make_kernel(tanh_form_core(pade_exp), "lut"),
    Params({**TANH_FORM_PARAMS, **frame_params("lut")}),
    claims=measured((87, 0.0966), (460, 2.1809)),
    seed=seed_figures("H3 SoftEx (improved)"),
    note="the seed's H3 SoftEx with the exp range-reduced and x sigma(2u): bfloat16 max "
    "1247 -> 87 (the LUT's)",
))
