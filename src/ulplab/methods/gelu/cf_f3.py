"""The seed's continued-fraction family: F3 Pure and F3 CF Erf.

Idea: Phi(x) = erfc(-x/sqrt 2)/2 from continued fractions of the error function, evaluated
bottom-up at a fixed depth (the array form of the seed's Lentz iteration: a fixed depth has no
data-dependent loop, and backward evaluation of a convergent is numerically stable).

With z = |x|/sqrt 2 (so z^2 = x^2/2, computed as 0.5*(x*x), exact scaling) and
e = e^(-z^2) = ``tail.exp_neg(0.5*(x*x))``:

    |x| < 2.125 (|z| < 1.5026): DLMF 7.9.3 (Gauss),
        erf z = (2z/sqrt pi) e / (1 - 2z^2/(3 + 4z^2/(5 - 6z^2/(7 + 8z^2/(9 - ...))))),
        partial numerators (-1)^k 2k z^2, denominators 2k + 1, k = 1..N_ERF, evaluated from
        the bottom: t = 2N+1, then t = (2k-1) + a_k/t for k = N..1 (N divisions).
        Phi = 1/2 + erf/2 for x >= 0 and 1/2 - erf(|z|)/2 for x < 0 (Phi >= 0.0168 there, so
        the subtraction loses at most 5 bits of a float32).
    |x| >= 2.125: DLMF 7.9.2 (the even part of Laplace's fraction),
        erfc z = (2z/sqrt pi) e / (2z^2+1 - 1*2/(2z^2+5 - 3*4/(2z^2+9 - ...))),
        k = 1..N_ERFC, Phi = erfc/2 for x < 0 (no cancellation) and 1 - erfc/2 for x > 0.
        |x| is clamped at 16 (erfc(16/sqrt 2) = 6e-58: Phi rounds to 1 beyond), which keeps
        huge and infinite positive x right (x * 1 = x).
    2z/sqrt pi = |x| sqrt(2/pi) with one rounded constant.

Depths: the truncation error of each fraction was measured in float64 against mpmath (relative
error of the erfc that Phi needs, z on a grid of step 0.01): split 3/2 with N_ERF = N_ERFC = 12
SEED_F3_PURE_TAIL = -2.0  # the seed's F3 Pure: "asymptotic expansion for x < -2.0"
SEED_B3_BELOW = -2.0      # the seed's F3 CF Erf: "B3-style erf fallback for x < -2"
SEED_SATURATION = 3.0     # the seed's positive saturation x >= 3 -> x
gives 4.7e-8 and 1.7e-8, below float32 rounding (the seed's split and depth are not stated).
``truncation_errors`` regenerates these figures.

The seed's continued fraction as printed, erf(z) = (2z/sqrt pi)/(1 + z^2/(3 + 2z^2/(5 + 3z^2/(7
+ ...)))), is not one of erf: it converges (depth 8 to 32 agree) to 0.522 at z = 0.5 (erf 0.5205),
1.060 at 1.5 and 1.260 at 3. So the seed's methods here keep the fractions above (its depth is
not given either) with the seed's thresholds, fallback and fast exp:
    F3 Pure    the fractions, the asymptotic tail below x = -2 (the seed's "x < -2.0", where the
               4-term series is 41% off at worst by its bound, in fact 7%), the seed's fast exp.
    F3 CF Erf  the fractions for x >= -2, the seed's B3 erf (its constants, ``erf_b3``) on
               [-3.5, -2), the shared tail LUT below -3.5, x >= 3 -> x, the seed's fast exp.
"(improved)": this project's exp, and
    F3 Pure (improved)    the fractions down to x = -8.3125, the asymptotic tail below (error
                          below 105/x^8 = 6.9e-6 there);
    F3 CF Erf (improved)  the fractions on [-3.5, inf), the shared tail LUT below -3.5.

Measured (every input; bfloat16 max / mean, float16 max / mean):
    F3 Pure    28 / 0.0117, 245 / 0.656   seed 28 (reproduced: core_neg 28 at -2.016)
    F3 CF Erf  87 / 0.0719, 190 / 0.585   seed 87 (reproduced: the LUT's 87 at -7.65)
    F3 Pure (improved)    1 / 0.0020, 1 / 0.0001
    F3 CF Erf (improved) 87 / 0.0717, 190 / 0.566
What the improvement buys: moving F3 Pure's tail from -2 to -8.3125 (the fraction is accurate
there) takes bfloat16 28 -> 1 and float16 245 -> 1.
"""

from __future__ import annotations

import numpy as np

from ulplab.kit.ops import f32hex
from ulplab.methods.gelu import erf_b3, tail
from ulplab.methods.gelu.seed_table import seed_figures
from ulplab.methods.gelu.tail import where32
from ulplab.methods.params import Params, integer, threshold
from ulplab.methods.registry import ArrayFn, Claim, built, register

f32 = np.float32


_h = f32hex  # exact hex literal -> float32


SQRT_2_OVER_PI = _h("0x1.988454p-1")  # sqrt(2/pi) = 2/sqrt(pi) / sqrt(2), rounded to float32
X_SPLIT = 2.125      # the split in x: |z| = 2.125/sqrt 2 = 1.5026 (exact binary fraction)
X_CLAMP = 16.0       # |x| clamped: erfc(16/sqrt 2) = 6e-58, Phi(16) is 1 in float32
N_ERF = 12
N_ERFC = 12
SEED_F3_PURE_TAIL = -2.0  # the seed's F3 Pure: "asymptotic expansion for x < -2.0"
SEED_B3_BELOW = -2.0      # the seed's F3 CF Erf: "B3-style erf fallback for x < -2"
SEED_SATURATION = 3.0     # the seed's positive saturation x >= 3 -> x


def erf_cf_core(z2: np.ndarray, n: int = N_ERF) -> np.ndarray:
    """The DLMF 7.9.3 denominator 1 - 2z^2/(3 + 4z^2/(5 - ...)) at depth n (z2 = z^2)."""
    t = np.full_like(z2, float(2 * n + 1))
    for k in range(n, 0, -1):
        a = (-1.0) ** k * (2.0 * k)  # exact small integers
        t = float(2 * k - 1) + (a * z2) / t
    return t


def erfc_cf_core(z2: np.ndarray, n: int = N_ERFC) -> np.ndarray:
    """The DLMF 7.9.2 denominator 2z^2+1 - 1*2/(2z^2+5 - 3*4/(...)) at depth n (z2 = z^2)."""
    two_z2 = 2.0 * z2
    t = two_z2 + float(4 * n + 1)
    for k in range(n, 0, -1):
        t = (two_z2 + float(4 * k - 3)) - float((2 * k - 1) * (2 * k)) / t
    return t


def phi_cf(x: np.ndarray, p: Params) -> np.ndarray:
    """Phi(x) from the two continued fractions (NaN in, NaN out)."""
    with np.errstate(all="ignore"):
        ax = np.minimum(np.abs(x), p.X_CLAMP)
        z2 = 0.5 * (ax * ax)
        e = tail.exp_neg(z2, p)
        lead = (ax * SQRT_2_OVER_PI) * e  # 2z/sqrt(pi) e^(-z^2)
        small = ax < p.X_SPLIT
        den = where32(small, erf_cf_core(z2, p.N_ERF), erfc_cf_core(z2, p.N_ERFC))
        q = lead / den  # erf(|z|) where small, erfc(|z|) otherwise
        half_q = 0.5 * q
        phi_small = where32(x < 0.0, 0.5 - half_q, 0.5 + half_q)
        phi_big = where32(x < 0.0, half_q, 1.0 - half_q)
        return where32(small, phi_small, phi_big)


def truncation_errors(split: float = 1.5, n_erf: int = N_ERF, n_erfc: int = N_ERFC,
                      step: float = 0.01, z_hi: float = 6.0) -> tuple[float, float]:
    """Max relative error of erfc(z) from each fraction in float64 (fit time only, mpmath).

    Erf fraction on (0, split), as erfc = 1 - erf; erfc fraction on [split, z_hi].
    """
    import mpmath

    def exact(v: float) -> float:
        return float(mpmath.erfc(v))

    def erf_f64(z: float, n: int) -> float:
        t = 2.0 * n + 1
        for k in range(n, 0, -1):
            t = (2 * k - 1) + (-1) ** k * 2 * k * z * z / t
        return 2 * z / float(mpmath.sqrt(mpmath.pi)) * float(mpmath.exp(-z * z)) / t

    def erfc_f64(z: float, n: int) -> float:
        t = 2 * z * z + 4 * n + 1
        for k in range(n, 0, -1):
            t = 2 * z * z + 4 * k - 3 - (2 * k - 1) * 2 * k / t
        return 2 * z / float(mpmath.sqrt(mpmath.pi)) * float(mpmath.exp(-z * z)) / t

    zs = [i * step for i in range(1, round(z_hi / step) + 1)]
    e1 = max(abs((1 - erf_f64(z, n_erf)) / exact(z) - 1) for z in zs if z < split)
    e2 = max(abs(erfc_f64(z, n_erfc) / exact(z) - 1) for z in zs if z >= split)
    return e1, e2


def build_f3(p: Params) -> ArrayFn:
    """An F3 kernel: x Phi_cf(x), the tail (asymptotic, or the LUT where declared) below
    TAIL_START."""
    tail_fn = tail.tail_lut if "TAIL_COARSE" in p else tail.asymptotic_tail

    def impl(x: np.ndarray) -> np.ndarray:
        with np.errstate(all="ignore"):
            core = x * phi_cf(x, p)
            if "B3_BELOW" in p:  # the seed's B3-style erf fallback
                core = where32(x < p.B3_BELOW, x * erf_b3.phi_b3(x, p), core)
            y = tail.with_tail(x, core, p.TAIL_START, tail_fn, p)
            if "SATURATION" in p:
                y = where32(x >= p.SATURATION, x, y)
            return where32(np.isnan(x), x, y)  # NaN -> the input NaN itself

    return impl


def _params(tail_kind: str, tail_start: float) -> Params:
    return Params({"N_ERF": integer(N_ERF), "N_ERFC": integer(N_ERFC),
                   "X_SPLIT": threshold(X_SPLIT), "X_CLAMP": threshold(X_CLAMP),
                   **tail.tail_params(tail_kind), "TAIL_START": threshold(tail_start)})


def _seed_params(tail_kind: str, tail_start: float, b3_below: float | None) -> Params:
    """The seed's F3: its tail threshold, its fast exp, and (F3 CF Erf) the seed's B3 erf below
    B3_BELOW and x >= 3 -> x."""
    decl = {**_params(tail_kind, tail_start).declarations(), **tail.SEED_EXP_PARAMS}
    if b3_below is not None:
        decl.update({k: v for k, v in erf_b3.PHI_DECL.items() if k not in decl})
        decl.update(B3_BELOW=threshold(b3_below), SATURATION=threshold(SEED_SATURATION))
        return Params(decl).replace(ERF_TAYLOR=erf_b3.ERF_TAYLOR[:erf_b3.SEED_ERF_TERMS],
                                    AS_COEFFS=erf_b3.AS_COEFFS_SEED)
    return Params(decl)


register(built(
    "gelu", "F3 Pure", "continued-fraction",
    "Phi from the erf/erfc continued fractions (depth 12); asymptotic tail below -2 (the seed's), "
    "the seed's fast exp",
    build_f3, _seed_params("pure", SEED_F3_PURE_TAIL, None), table_bytes=0,
    claims={"bfloat16": Claim(28, 0.0117), "float16": Claim(245, 0.6556)},
    seed=seed_figures("F3 Pure"),
))
register(built(
    "gelu", "F3 CF Erf", "continued-fraction",
    "Phi from the erf/erfc continued fractions, the seed's B3 erf below -2, its tail LUT below "
    "-3.5, x>=3 -> x, its fast exp",
    build_f3, _seed_params("lut", tail.TAIL_LUT_START, SEED_B3_BELOW),
    table_bytes=tail.TAIL_LUT_BYTES,
    claims={"bfloat16": Claim(87, 0.0719), "float16": Claim(190, 0.585)},
    seed=seed_figures("F3 CF Erf"),
))
register(built(
    "gelu", "F3 Pure (improved)", "continued-fraction",
    "Phi from DLMF 7.9.3 (erf, |z|<3/2) and 7.9.2 (erfc) continued fractions at depth 12; "
    "asymptotic tail below -8.3125",
    build_f3, _params("pure", tail.TAIL_LUT_END), table_bytes=0,
    claims={"bfloat16": Claim(1, 0.002), "float16": Claim(1, 0.0001)},
    seed=seed_figures("F3 Pure (improved)"),
    note="the seed's F3 Pure with the tail from -8.3125 instead of -2 and an accurate exp: "
    "bfloat16 max 28 -> 1",
))
register(built(
    "gelu", "F3 CF Erf (improved)", "continued-fraction",
    "Phi from the erf/erfc continued fractions; the seed's tail LUT (linear, 25 knots) below -3.5",
    build_f3, _params("lut", tail.TAIL_LUT_START),
    table_bytes=tail.TAIL_LUT_BYTES,
    claims={"bfloat16": Claim(87, 0.0717), "float16": Claim(190, 0.5656)},
    seed=seed_figures("F3 CF Erf (improved)"),
    note="the seed's F3 CF Erf without the B3 fallback below -2 and x >= 3 -> x: the LUT's 87 "
    "stays",
))
