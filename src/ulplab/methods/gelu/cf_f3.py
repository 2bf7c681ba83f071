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

The seed's names are the seed's methods, bit for bit (``build_f3_seed``; its C++ at c2bf7bb,
every bfloat16 output checked against its build by tests/test_gelu_seed_bits.py). Its code
computes in float64 (so these two declare "float64 arithmetic" and are not float32-only): for
|z| < 0.5 the Taylor series of erf to z^9; beyond, erf = 1 - e/(sqrt(pi) cf) with the fraction
cf = |z| + (n/2)/cf (n = 8..1) and e = 1/(1 + z^2 + z^4/2 + z^6/6 + z^8/24) for z^2 < 4 (else 0),
a Taylor stand-in for e^(-z^2); Phi = 0.5 (1 + erf), x Phi rounded to float32; x >= 3 -> x.
    F3 Pure    that for x >= -2, the seed's asymptotic tail below.
    F3 CF Erf  that for x >= -2, on [-3.5, -2) the float32 B3-style erf
               (``erf_b3.seed_b3_fallback``), the seed's tail LUT below -3.5.
"(improved)": the fractions above and this project's exp, and
    F3 Pure (improved)    the fractions down to x = -8.3125, the asymptotic tail below (error
                          below 105/x^8 = 6.9e-6 there);
    F3 CF Erf (improved)  the fractions on [-3.5, inf), the tail LUT below -3.5.

Measured (every input; bfloat16 max / mean, float16 max / mean):
    F3 Pure    28 / 0.0252, 245 / 1.527   seed 28 / 0.02
    F3 CF Erf  87 / 0.1204, 690 / 3.711   seed 87 / 0.12
    F3 Pure (improved)    1 / 0.0020, 1 / 0.0001
    F3 CF Erf (improved) 87 / 0.0717, 190 / 0.566
What the improvement buys: accurate fractions and moving F3 Pure's tail from -2 to -8.3125 take
bfloat16 28 -> 1 and float16 245 -> 1.
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


# The seed's F3 (gelu_implementations.cpp at c2bf7bb: erf_continued_fraction_f64 :2238,
# gelu_f3_cf_erf :2277, gelu_f3_pure :2326), bit for bit. It computes in double for x in
# [-2, 3): its constants are double literals.
SEED_F3_INV_SQRT2 = 0.7071067811865475244008443621048490392848  # :101 constants::INV_SQRT_2
SEED_F3_TWO_OVER_SQRT_PI = 1.1283791670955126  # :2243
SEED_F3_INV_SQRT_PI = 0.5641895835477563       # :2269
SEED_F3_DOUBLE_FROM = -2.0  # :2282 (and :2333): below -2 the float fallback or the float tail


def erf_cf_seed64(z: np.ndarray) -> np.ndarray:
    """The seed's erf_continued_fraction_f64 in float64 (no a*b + c to contract in it):
    |z| < 0.5: (S z) (((1 - z2/3 + z2^2/10) - z2^3/42) + z2^4/216); else the fraction
    cf = |z| + (n/2)/cf from n = 8 down to 1 (cf = |z| to start), e = 1/(1 + z2 + z2^2/2 +
    z2^3/6 + z2^4/24) for z2 < 4 (else 0), erf = +-(1 - (e/sqrt(pi))/cf)."""
    with np.errstate(all="ignore"):
        z2 = z * z
        z4 = z2 * z2
        z6 = z4 * z2
        z8 = z6 * z2
        series = 1.0 - z2 / 3.0 + z4 / 10.0 - z6 / 42.0 + z8 / 216.0
        small = (SEED_F3_TWO_OVER_SQRT_PI * z) * series
        az = np.abs(z)
        cf = az
        for n in range(8, 0, -1):
            cf = az + (n * 0.5) / cf
        e = np.where(z2 < 4.0, 1.0 / (1.0 + z2 + z4 / 2.0 + z6 / 6.0 + z8 / 24.0), 0.0)
        big = 1.0 - (e * SEED_F3_INV_SQRT_PI) / cf
        big = np.where(z >= 0.0, big, -big)
        return np.where(az < 0.5, small, big)


def build_f3_seed(p: Params) -> ArrayFn:
    """The seed's F3 kernel: x from 3; for x >= -2 in float64, x 0.5 (1 + erf_cf(x/sqrt 2))
    rounded to float32; below -2 the seed's tail LUT below -3.5 and ``erf_b3.seed_b3_fallback``
    above (F3 CF Erf), or its asymptotic tail (F3 Pure). A NaN input gives its NaN with the sign
    set, as the seed's build returns it."""
    lut = "SEED_TAIL_MAIN" in p

    def impl(x: np.ndarray) -> np.ndarray:
        with np.errstate(all="ignore"):
            xd = x.astype(np.float64)
            core = (xd * (0.5 * (1.0 + erf_cf_seed64(xd * SEED_F3_INV_SQRT2)))).astype(f32)
            if lut:
                low = where32(x < p.TAIL_START, tail.seed_tail_lut(x, p),
                              erf_b3.seed_b3_fallback(x))
            else:
                low = tail.seed_asymptotic_tail(x, p)
            y = where32(x < SEED_F3_DOUBLE_FROM, low, core)
            y = where32(x >= SEED_SATURATION, x, y)
            return where32(np.isnan(x), -np.abs(x), y)

    return impl


def _seed_params(tail_kind: str, tail_start: float) -> Params:
    return Params({**tail.tail_params(tail_kind), "TAIL_START": threshold(tail_start)})


register(built(
    "gelu", "F3 Pure", "continued-fraction",
    "the seed's: Phi from its erf continued fraction in float64 (Taylor for |z|<0.5, a Taylor "
    "stand-in for e^(-z^2)); its asymptotic tail below -2, x>=3 -> x",
    build_f3_seed, _seed_params("seed-pure", SEED_F3_PURE_TAIL), table_bytes=0,
    library_calls=("float64 arithmetic",),
    claims={"bfloat16": Claim(28, 0.0252), "float16": Claim(245, 1.5273)},
    seed=seed_figures("F3 Pure"),
    note="bit for bit the seed's gelu_f3_pure (gelu_implementations.cpp:2326 at c2bf7bb); "
    "computes in float64, as the seed does",
))
register(built(
    "gelu", "F3 CF Erf", "continued-fraction",
    "the seed's: Phi from its erf continued fraction in float64; its B3-style erf on [-3.5, -2), "
    "its tail LUT below -3.5, x>=3 -> x",
    build_f3_seed, _seed_params("seed-lut", tail.TAIL_LUT_START),
    table_bytes=4 * (tail.SEED_TAIL_MAIN.size + tail.SEED_TAIL_FINE.size),
    library_calls=("float64 arithmetic",),
    claims={"bfloat16": Claim(87, 0.1204), "float16": Claim(690, 3.7111)},
    seed=seed_figures("F3 CF Erf"),
    note="bit for bit the seed's gelu_f3_cf_erf (gelu_implementations.cpp:2277 at c2bf7bb); "
    "computes in float64, as the seed does",
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
