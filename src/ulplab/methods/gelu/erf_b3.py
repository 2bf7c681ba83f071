"""The seed's erf family: B3 Pure (the seed's), B3 Pure (improved), B3 Erf Poly, D2 Pure,
D2 LUT+Erf.

All compute GELU(x) = x Phi(x) with the same form of Phi (the seed's "B3 piecewise erf"); they
differ in the negative tail and positive saturation, and B3 Pure keeps the seed's constants.

Phi(x), z = x/sqrt 2:
    |z| < 1 (|x| < sqrt 2): Phi = 1/2 + erf(z)/2 with erf by its Taylor series
        erf(z) = 2/sqrt(pi) sum_n (-1)^n z^(2n+1) / (n! (2n+1)),  n = 0..9,
        Horner in z^2 with FMA. The seed stopped at z^9 (n = 4), which leaves an error of
        7.6e-4 at |z| = 1 (about 1.4 bfloat16 ulps of Phi near x = -1.4); with n <= 9 the first
        omitted term is below 1.5e-8.
    |z| >= 1: the Abramowitz & Stegun 7.1.26 form
        erfc(|z|) = t (a1 + a2 t + a3 t^2 + a4 t^3 + a5 t^4) e^(-z^2),  t = 1/(1 + p|z|),
        p = 0.3275911 (A&S), and Phi = erfc(|z|)/2 for x < 0 (no cancellation: the seed's erfc
        insight) or 1 - erfc(|z|)/2 for x > 0. e^(-z^2) = e^(-x^2/2) is ``tail.exp_neg``.
        The A&S coefficients are fitted for absolute error of erf on all z >= 0; as a relative
        approximation of erfc they are off by up to 1.2% on [1, 5.9] (the seed's 23-ulp
        core_neg). The a_k here are refitted by ``fit_as_coeffs`` (same p, same shape) for the
        least maximum RELATIVE error on z in [1, 8.3125/sqrt 2], the whole range where this
        branch is used: 1.95e-5 (after rounding to float32), 100 times below a bfloat16 half-ulp.
        No positive saturation is needed: 1 - erfc/2 reaches 1 by itself, and inf stays inf.

Variants (the seed's names; region thresholds in x):
    B3 Pure     as the seed describes it: erf Taylor to z^9 (SEED_ERF_TERMS = 5 terms), A&S's own
                a_k (AS_COEFFS_SEED), the asymptotic tail for x < -8.3125; but this project's
                exp (``tail.exp_neg``), since the seed's Schraudolph-style fast exp ("IEEE754 bit
                manipulation and polynomial refinement") is not specified further. The seed's
                max of 23 (core_neg, the A&S relative error through its fast exp) is therefore
                not reproduced: measured 2 (see the table below and the claims).
    B3 Pure (improved)  Taylor to z^19, refitted a_k; asymptotic tail (``tail.asymptotic_tail``)
                for x < -8.3125, as the seed. There the series' error is below 105/x^8 = 6.9e-6.
    B3 Erf Poly the seed's shared tail LUT for x < -3.5 (``tail.tail_lut``): linear interpolation
                of GELU on knots 1/4 apart, which limits its accuracy (the seed measured 87 ulps).
    D2 Pure     the seed's hybrid: "arithmetic where effective", positive saturation x >= 3 -> x,
                and the cheaper asymptotic tail replacing the erfc rational below a threshold.
                The seed used -3.0, where the 4-term series is 1.6% off (105/3^8); here the
                threshold is -5.0, where that bound is 2.7e-4 (0.07 bfloat16 ulps, about half a
                float16 ulp), so the hybrid costs no bfloat16 accuracy.
    D2 LUT+Erf  tail LUT for x < -3.5 and x >= 3 -> x.
    x >= 3 -> x is exact in bfloat16 (saturation starts at 2.78125) but costs up to 2 float16
    ulps (GELU(3) = 2.99595).

What each change from the seed's B3 Pure buys, measured on every input (max / mean ULP, by
``get_method("gelu", "B3 Pure (improved)").rebuild(ERF_TAYLOR=..., AS_COEFFS=...)`` and
``ulplab.sweep.analyze``; all with this project's exp):
    erf Taylor terms   a_k         bfloat16        float16
    5 (seed)           A&S (seed)  2 / 0.0038      9 / 0.0176     = B3 Pure
    10                 A&S (seed)  2 / 0.0036      1 / 0.0040
    5 (seed)           refitted    1 / 0.0021      9 / 0.0143
    10                 refitted    1 / 0.0020      1 / 0.0007     = B3 Pure (improved)
So the seed's A&S coefficients with an accurate exp already give 2 ULP in bfloat16 (the seed's 23
is its fast exp's); the relative-error refit buys the last ulp in bfloat16, the longer Taylor
series float16's 9 -> 1.

The other rows cannot be reproduced for the same reason (the seed's fast exp is not specified);
measured with the seed's constants and this project's exp (bfloat16 max / mean, float16 max):
    D2 Pure, tail from the seed's -3         2 / 0.0028, 18   (seed 23; registered: 1, 2)
    D2 Pure, seed constants, tail from -5    1 / 0.0023, 9
    B3 Erf Poly, seed constants             87 / 0.0718, 190  (seed 87, reproduced: the LUT's)
    D2 LUT+Erf, seed constants              87 / 0.0718, 190  (seed 87, reproduced: the LUT's)
The registered B3 Erf Poly, D2 Pure and D2 LUT+Erf use the improved constants.
"""

from __future__ import annotations

import math

import numpy as np

from ulplab.kit import fma
from ulplab.kit.ops import f32hex
from ulplab.methods.gelu import tail
from ulplab.methods.gelu.seed_table import seed_figures
from ulplab.methods.gelu.tail import where32
from ulplab.methods.params import Params, coeffs, constant, evaluate_poly, threshold
from ulplab.methods.registry import ArrayFn, Claim, built, register

f32 = np.float32


_h = f32hex  # exact hex literal -> float32


INV_SQRT2 = _h("0x1.6a09e6p-1")  # 1/sqrt(2) rounded to float32
SQRT2 = _h("0x1.6a09e6p+0")      # sqrt(2) rounded to float32: the |z| < 1 boundary in x
# 2/sqrt(pi) (-1)^n / (n! (2n+1)), n = 0..9, rounded to float32 (regenerated by
# erf_taylor_coeffs): the Taylor series of erf(z)/z in z^2
ERF_TAYLOR = (
    _h("0x1.20dd76p+0"), _h("-0x1.812746p-2"), _h("0x1.ce2f22p-4"), _h("-0x1.b82ce4p-6"),
    _h("0x1.565bcep-8"), _h("-0x1.c02db4p-11"), _h("0x1.f9a326p-14"), _h("-0x1.f4d25cp-17"),
    _h("0x1.b9e6cap-20"), _h("-0x1.5f742ep-23"),
)
AS_P = f32(0.3275911)  # p of Abramowitz & Stegun 7.1.26 (decimal literal, rounded to float32)
# a1..a5, refitted: fit_as_coeffs(p=0.3275911, z_lo=1.0, z_hi=8.3125/math.sqrt(2), degree=5,
# n=4000, iters=300); max relative error of erfc 1.95e-5. (A&S's own: 0.254829592,
# -0.284496736, 1.421413741, -1.453152027, 1.061405429.)
AS_COEFFS = (
    _h("0x1.93165ap-3"), _h("0x1.146340p-4"), _h("0x1.3c6ab0p-1"), _h("-0x1.45b5d6p-1"),
    _h("0x1.7facfep-1"),
)
# A&S 7.1.26's own a1..a5 (Abramowitz & Stegun, Handbook of Mathematical Functions, 1964),
# decimal literals rounded to float32: the seed's B3 coefficients
AS_COEFFS_SEED = (f32(0.254829592), f32(-0.284496736), f32(1.421413741), f32(-1.453152027),
                  f32(1.061405429))
SEED_ERF_TERMS = 5  # the seed: (2/sqrt pi) z (1 - z^2/3 + z^4/10 - z^6/42 + z^8/216)
B3_TAIL = tail.TAIL_LUT_END  # -8.3125: the seed's B3 Pure threshold
D2_TAIL = -5.0               # D2 Pure: first omitted series term 105/x^8 <= 2.7e-4 from here
D2_SATURATION = 3.0          # D2: x >= 3 -> x (the seed's positive saturation)


def erf_taylor_coeffs(n: int = 10) -> tuple[np.float32, ...]:
    """2/sqrt(pi) (-1)^k/(k!(2k+1)) for k < n, correctly rounded to float32."""
    import mpmath

    with mpmath.workdps(40):
        c = 2 / mpmath.sqrt(mpmath.pi)
        return tuple(f32(float(c * (-1) ** k / (mpmath.factorial(k) * (2 * k + 1))))
                     for k in range(n))


def fit_as_coeffs(p: float = 0.3275911, z_lo: float = 1.0, z_hi: float = 8.3125 / math.sqrt(2),
                  degree: int = 5, n: int = 4000,
                  iters: int = 300) -> tuple[np.ndarray, float]:
    """Refit a1..a_degree of erfc(z) ~ t P(t) e^(-z^2), t = 1/(1+pz), for relative error.

    Fit time only (float64): Lawson's iteratively reweighted least squares on n equally spaced
    z in [z_lo, z_hi], which converges to the minimax (least maximum relative error) solution.
    Returns the coefficients rounded to float32 and their maximum relative error on the grid.
    """
    z = np.linspace(z_lo, z_hi, n)
    t = 1.0 / (1.0 + p * z)
    w = t * np.exp(-z * z) / np.array([math.erfc(v) for v in z])
    a_mat = np.stack([w * t**j for j in range(degree)], axis=1)
    weight = np.full(n, 1.0 / n)
    for _ in range(iters):
        sw = np.sqrt(weight)
        a, *_ = np.linalg.lstsq(a_mat * sw[:, None], sw, rcond=None)
        weight = weight * np.abs(a_mat @ a - 1.0)
        weight /= weight.sum()
    a32 = a.astype(np.float32)
    return a32, float(np.max(np.abs(a_mat @ a32.astype(np.float64) - 1.0)))


def phi_b3(x: np.ndarray, p: Params | None = None) -> np.ndarray:
    """Phi(x): Taylor erf for |x| < sqrt 2, erfc by the refitted A&S form beyond (``p``: a B3
    method's parameters; B3 Pure's when None)."""
    p = PHI_PARAMS if p is None else p
    with np.errstate(all="ignore"):
        z = x * INV_SQRT2
        erf_small = z * evaluate_poly(p.SCHEME, z * z, p.ERF_TAYLOR)
        phi_small = fma(erf_small, np.full_like(x, 0.5), np.full_like(x, 0.5))
        az = np.abs(z)
        t = 1.0 / fma(np.full_like(x, p.AS_P), az, np.full_like(x, 1.0))
        half_erfc = 0.5 * (t * evaluate_poly(p.SCHEME, t, p.AS_COEFFS)) \
            * tail.exp_neg(0.5 * (x * x), p)
        phi_big = where32(x < 0.0, half_erfc, 1.0 - half_erfc)
        return where32(np.abs(x) < p.SMALL_BELOW, phi_small, phi_big)


PHI_DECL = {"ERF_TAYLOR": coeffs(ERF_TAYLOR), "AS_P": constant(AS_P),
            "AS_COEFFS": coeffs(AS_COEFFS), "SMALL_BELOW": threshold(SQRT2),
            **tail.PURE_PARAMS}
"""Phi_b3's parameters: the erf Taylor series, the A&S p and a_k, the |x| where the Taylor
branch ends, and the exp's (``tail.PURE_PARAMS``)."""
PHI_PARAMS = Params(PHI_DECL)


def build_b3(p: Params) -> ArrayFn:
    """A B3-family kernel: x Phi_b3(x), the tail (TAIL_KIND) below TAIL_START, x itself from
    SATURATION where declared."""
    tail_fn = tail.tail_lut if "TAIL_COARSE" in p else tail.asymptotic_tail

    def impl(x: np.ndarray) -> np.ndarray:
        with np.errstate(all="ignore"):
            y = tail.with_tail(x, x * phi_b3(x, p), p.TAIL_START, tail_fn, p)
            if "SATURATION" in p:
                y = where32(x >= p.SATURATION, x, y)
            return where32(np.isnan(x), x, y)  # NaN -> the input NaN itself

    return impl


def b3_params(tail_kind: str, tail_start: float, saturation: float | None = None,
              **changes: object) -> Params:
    """Parameters of a B3-family method (``changes``: other values of Phi_b3's)."""
    decl = {**PHI_DECL, **tail.tail_params(tail_kind), "TAIL_START": threshold(tail_start)}
    if saturation is not None:
        decl["SATURATION"] = threshold(saturation)
    return Params(decl).replace(**changes)


_VARIANTS = (
    ("B3 Pure (improved)", "erf: Taylor (|z|<1) and A&S 7.1.26 form refitted for relative "
     "error, erfc for x<0; asymptotic tail below -8.3125", "pure", B3_TAIL, None, 0,
     {"bfloat16": Claim(1, 0.002), "float16": Claim(1, 0.0007)}),
    ("B3 Erf Poly", "B3 erf core with the seed's tail LUT (linear, 25 knots) below -3.5",
     "lut", tail.TAIL_LUT_START, None, tail.TAIL_LUT_BYTES,
     {"bfloat16": Claim(87, 0.0717), "float16": Claim(190, 0.5662)}),
    ("D2 Pure", "B3 erf core, asymptotic tail below -5 where it is accurate, x>=3 -> x",
     "pure", D2_TAIL, D2_SATURATION, 0,
     {"bfloat16": Claim(1, 0.002), "float16": Claim(2, 0.0052)}),
    ("D2 LUT+Erf", "B3 erf core, the seed's tail LUT below -3.5, x>=3 -> x",
     "lut", tail.TAIL_LUT_START, D2_SATURATION, tail.TAIL_LUT_BYTES,
     {"bfloat16": Claim(87, 0.0717), "float16": Claim(190, 0.5707)}),
)

_NOTES = {"B3 Pure (improved)": "the seed's B3 Pure with the erf Taylor series to z^19 and the "
           "A&S a_k refitted for relative error: bfloat16 max 2 -> 1, float16 9 -> 1"}

register(built(
    "gelu", "B3 Pure", "erf",
    "the seed's: erf Taylor to z^9 (|z|<1), A&S 7.1.26 with its own a_k, erfc for x<0; "
    "asymptotic tail below -8.3125 (this project's exp, not the seed's fast one)",
    build_b3, b3_params("pure", B3_TAIL, ERF_TAYLOR=ERF_TAYLOR[:SEED_ERF_TERMS],
                        AS_COEFFS=AS_COEFFS_SEED),
    claims={"bfloat16": Claim(2, 0.0038), "float16": Claim(9, 0.0177)},
    seed=seed_figures("B3 Pure"),
    note="the seed's fast exp is not specified: with this project's exp the seed's constants "
    "give bfloat16 max 2 (seed 23)",
))

for _name, _idea, _kind, _start, _sat, _bytes, _claims in _VARIANTS:
    register(built("gelu", _name, "erf", _idea, build_b3, b3_params(_kind, _start, _sat),
                   table_bytes=_bytes, claims=_claims, note=_NOTES.get(_name, ""),
        seed=seed_figures(_name),))
