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
gives 4.7e-8 and 1.7e-8, below float32 rounding (the seed's split and depth are not stated).
``truncation_errors`` regenerates these figures.

Variants (the seed's names):
    F3 Pure    the fractions down to x = -8.3125, the seed's asymptotic tail below (its error
               is below 105/x^8 = 6.9e-6 there). The seed switched to the asymptotic series at
               x < -2, where its 4-term truncation is useless (105/2^8 = 41%); the fraction is
               accurate there, so this module keeps the seed's deep-tail threshold instead.
    F3 CF Erf  the fractions on [-3.5, inf), the seed's shared tail LUT below -3.5.

Seed (bfloat16): F3 Pure max 28, mean 0.02 (core_pos max 3, core_neg max 28); F3 CF Erf max 87,
mean 0.12. Measured here: see the claims registered below; the core is accurate to a few float32
ulps (the seed's fraction was truncated early and used a B3-style fallback below -2), so F3 Pure
is within 1 ulp, and F3 CF Erf keeps only the tail LUT's interpolation error (87 ulps at about
-7.65, as every method on that LUT).
"""

from __future__ import annotations

import numpy as np

from ulplab.kit.ops import f32hex
from ulplab.methods.gelu import tail
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
            y = tail.with_tail(x, x * phi_cf(x, p), p.TAIL_START, tail_fn, p)
            return where32(np.isnan(x), x, y)  # NaN -> the input NaN itself

    return impl


def _params(tail_kind: str, tail_start: float) -> Params:
    return Params({"N_ERF": integer(N_ERF), "N_ERFC": integer(N_ERFC),
                   "X_SPLIT": threshold(X_SPLIT), "X_CLAMP": threshold(X_CLAMP),
                   **tail.tail_params(tail_kind), "TAIL_START": threshold(tail_start)})


register(built(
    "gelu", "F3 Pure", "continued-fraction",
    "Phi from DLMF 7.9.3 (erf, |z|<3/2) and 7.9.2 (erfc) continued fractions at depth 12; "
    "asymptotic tail below -8.3125",
    build_f3, _params("pure", tail.TAIL_LUT_END), table_bytes=0,
    claims={"bfloat16": Claim(1, 0.002), "float16": Claim(1, 0.0001)},
    seed=seed_figures("F3 Pure"),
))
register(built(
    "gelu", "F3 CF Erf", "continued-fraction",
    "Phi from the erf/erfc continued fractions; the seed's tail LUT (linear, 25 knots) below -3.5",
    build_f3, _params("lut", tail.TAIL_LUT_START),
    table_bytes=tail.TAIL_LUT_BYTES,
    claims={"bfloat16": Claim(87, 0.0717), "float16": Claim(190, 0.5656)},
    seed=seed_figures("F3 CF Erf"),
))
