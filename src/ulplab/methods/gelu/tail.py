"""Shared pieces of the seed's GELU methods: an arithmetic exp, the asymptotic tail, the tail LUT.

Everything at run time is float32 arithmetic (see ``ulplab.kit``); mpmath is used only at import
time to build tables, each entry rounded once to float32.

``exp_neg(u)`` = e^-u for u >= 0 (NaN stays NaN, +inf gives 0), no library exp:
    Cody-Waite reduction u = k ln2 - r with k = rint(u log2 e), r = k*LN2_HI - u + k*LN2_LO
    (two FMAs; |r| <= ln2/2 + tiny), e^r by its Taylor polynomial of degree 7 (Horner with FMA;
    truncation error below (ln2/2)^8/8! < 6e-9), then 2^-k by ``ldexp`` (one rounding, which is
    what makes subnormal results right). u is clamped at 128, where e^-u is already far below
    the smallest float32. Error: a few float32 ulps (plus the error already in u).

``asymptotic_tail(x)`` for x < 0, the seed's deep tail (Mills ratio, DLMF 7.12.1):
    GELU(x) = x Phi(x) ~ -phi(x) (1 - 1/x^2 + 3/x^4 - 15/x^6),  phi(x) = e^(-x^2/2) / sqrt(2 pi).
    The series is asymptotic and alternating: its error is below the first omitted term,
    105/x^8 relative (1.6e-3 at x = -4, 2.7e-4 at -5, 6.9e-6 at -8.3). The rounding of x^2 adds
    |x|^2 2^-25 relative (4e-6 at x = -13.6, where bfloat16 GELU reaches 0). At x = -inf it
    gives -0.

``seed_exp2_neg``, ``seed_asymptotic_tail``, ``seed_tail_lut`` (at the end of this module): the
seed's own fast exp, asymptotic tail and tail LUT, bit for bit, from its C++ (c2bf7bb); the
seed names rebuilt from that code use them (docs/seed-rebuild.md).

``seed_fast_exp_neg(u)`` = e^-u for u >= 0: the seed's fast exp as its text describes it (the
reading made before its C++ was consulted; the seed names not yet rebuilt, and the "(improved)"
variants kept from them, still use it).
    The seed's text (000_*): "The 'Pure' methods use fast_exp_neg() for the asymptotic tail,
    which computes exp(-u) via IEEE754 bit manipulation and polynomial refinement - not via
    std::exp()" (citing Schraudolph 1999); "exp(-u) = 2^(-u/ln2) using IEEE754 bit
    manipulation"; "fast_exp_neg(x2 * 0.5f);  // via 2^x bit manipulation"; and (its history)
    "R5 Pure achieves Max ULP = 2 after fixing subnormal handling in exp approximation".
    This reading (what is not the seed's text is ours): t = -u / LN2 (one float32 division, as
    the text writes it); k = floor(t), f = t - k in [0, 1) (exact); 2^f by a short polynomial,
    SEED_EXP2 of degree 3 fitted for least maximum relative error on [0, 1] (7.5e-5 after
    rounding to float32; the seed gives neither degree nor coefficients: ``fit_seed_exp2``);
    2^k built from exponent bits as Schraudolph does, (k + 127) << 23, split into two factors
    2^(k - floor(k/2)) and 2^floor(k/2) so that results below 2^-126 are subnormals instead of
    garbage (our reading of the seed's subnormal fix): e = (P(f) * 2^k1) * 2^k2, the first
    product exact, the second one rounding. t is clamped at -252 (e^-u < 2^-252 gives 0).

The seed's tail LUT (its "shared tail" of the non-Pure methods):
    GELU at x = -8, -7.75, ..., -3.5 (19 knots, step 1/4) and x = -8.3125, ..., -8 (6 knots,
    step 1/16), linear interpolation between knots; below -8.3125 the asymptotic tail. The
    entries are computed here from mpmath (the seed had hand-"calibrated" decimals).
"""

from __future__ import annotations

from collections.abc import Callable

import mpmath
import numpy as np

from ulplab.kit import fma, ldexp, lookup
from ulplab.kit.ops import f32hex, from_bits
from ulplab.methods.params import Param, Params, coeffs, evaluate_poly, scheme
from ulplab.methods.params import table as table_param

f32 = np.float32


_h = f32hex  # exact hex literal -> float32


LOG2E = _h("0x1.715476p+0")    # 1/ln 2 rounded to float32
LN2_HI = _h("0x1.62e430p-1")   # ln 2 rounded to float32
LN2_LO = _h("-0x1.05c610p-29")  # ln 2 - LN2_HI rounded to float32
EXP_MAX_ARG = 128.0            # e^-128 = 2.6e-56: 0 in float32 after scaling
# Taylor coefficients of e^r, 1/n! for n = 0..7, each rounded to float32 (see taylor_exp_coeffs)
EXP_TAYLOR = (
    _h("0x1.000000p+0"), _h("0x1.000000p+0"), _h("0x1.000000p-1"), _h("0x1.555556p-3"),
    _h("0x1.555556p-5"), _h("0x1.111112p-7"), _h("0x1.6c16c2p-10"), _h("0x1.a01a02p-13"),
)
INV_SQRT_2PI = _h("0x1.988454p-2")  # 1/sqrt(2 pi) rounded to float32
# 1, -1, 3, -15: the asymptotic series of x Phi(x)/(-phi(x)) in y = 1/x^2 (exact integers)
ASYMPTOTIC = (1.0, -1.0, 3.0, -15.0)


LN2 = _h("0x1.62e430p-1")      # ln 2 rounded to float32 (the seed's t = -u/ln2)
SEED_EXP_MIN_T = -252.0        # t below this: 2^t < 2^-252, 0 in float32 after both factors
# 2^f on [0, 1], degree 3, least maximum relative error (7.5e-5 after rounding):
# fit_seed_exp2(degree=3, n=4001, iters=600)
SEED_EXP2 = (_h("0x1.fff634p-1"), _h("0x1.644442p-1"), _h("0x1.cefc6ap-3"), _h("0x1.3f96b8p-4"))


def where32(cond: np.ndarray, a: np.ndarray | float, b: np.ndarray | float) -> np.ndarray:
    """np.where for float32 kernels that refuses a non-float32 result at run time too (the test
    guard, ``ulplab.kit.Float32Guard``, checks np.where only under test)."""
    r = np.where(cond, a, b)
    if r.dtype != np.float32:
        raise TypeError(f"where32 gives {r.dtype}, not float32")
    return r


def taylor_exp_coeffs(n: int = 8) -> tuple[np.float32, ...]:
    """1/k! for k < n, each correctly rounded to float32 (regenerates EXP_TAYLOR)."""
    return tuple(f32(float(1 / mpmath.factorial(k))) for k in range(n))


def exp_neg(u: np.ndarray, p: Params | None = None) -> np.ndarray:
    """e^-u for float32 u >= 0, by Cody-Waite reduction, a degree-7 polynomial and ldexp
    (``p``: EXP_TAYLOR and SCHEME of a method's parameters; the tail's own when None); the
    seed's fast exp (``seed_fast_exp_neg``) instead where ``p`` declares SEED_EXP2."""
    p = PARAMS if p is None else p
    if "SEED_EXP2" in p:
        return seed_fast_exp_neg(u, p)
    with np.errstate(all="ignore"):
        uc = np.minimum(u, EXP_MAX_ARG)
        k = np.rint(uc * LOG2E)
        r = fma(k, np.full_like(uc, LN2_HI), -uc)
        r = fma(k, np.full_like(uc, LN2_LO), r)
        poly = evaluate_poly(p.SCHEME, r, p.EXP_TAYLOR)
        kk = where32(np.isnan(k), 0.0, k)
        return ldexp(poly, -kk.astype(np.int32))


def fit_seed_exp2(degree: int = 3, n: int = 4001, iters: int = 600) -> tuple[np.float32, ...]:
    """Coefficients of 2^f on [0, 1] of least maximum relative error (fit time only, float64,
    Lawson's reweighting on n equally spaced f), each rounded to float32: regenerates SEED_EXP2."""
    f = np.linspace(0.0, 1.0, n)
    basis = np.stack([f**j for j in range(degree + 1)], axis=1)
    target = 2.0**f
    weight = np.full(n, 1.0 / n)
    a = np.zeros(degree + 1)
    for _ in range(iters):
        sw = np.sqrt(weight)
        a, *_ = np.linalg.lstsq(basis / target[:, None] * sw[:, None], sw, rcond=None)
        weight = weight * (np.abs(basis @ a / target - 1.0) + 1e-300)
        weight /= weight.sum()
    return tuple(f32(c) for c in a)


def pow2_bits(k: np.ndarray) -> np.ndarray:
    """2^k for integer-valued float32 k in [-126, 127], built from exponent bits (k + 127) << 23."""
    kk = where32(np.isnan(k), 0.0, k).astype(np.int32)
    return from_bits((kk + 127).astype(np.uint32) << np.uint32(23))


def seed_fast_exp_neg(u: np.ndarray, p: Params) -> np.ndarray:
    """e^-u for float32 u >= 0, the seed's fast exp as read above (``p``: SEED_EXP2, SCHEME)."""
    with np.errstate(all="ignore"):
        t = np.maximum(-u / LN2, SEED_EXP_MIN_T)  # NaN stays NaN (np.maximum propagates it)
        k = np.floor(t)
        f = t - k
        poly = evaluate_poly(p.SCHEME, f, p.SEED_EXP2)
        k2 = np.floor(0.5 * k)
        return (poly * pow2_bits(k - k2)) * pow2_bits(k2)


def gauss_pdf(x: np.ndarray, p: Params | None = None) -> np.ndarray:
    """phi(x) = e^(-x^2/2)/sqrt(2 pi) in float32 arithmetic."""
    return exp_neg(0.5 * (x * x), p) * INV_SQRT_2PI


def asymptotic_tail(x: np.ndarray, p: Params | None = None) -> np.ndarray:
    """GELU(x) ~ -phi(x) (1 - 1/x^2 + 3/x^4 - 15/x^6), for x < 0 (gives -0 at x = -inf);
    ``p``: ASYMPTOTIC, EXP_TAYLOR and SCHEME (the tail's own when None)."""
    p = PARAMS if p is None else p
    with np.errstate(all="ignore"):
        x2 = x * x
        y = 1.0 / x2
        series = evaluate_poly(p.SCHEME, y, p.ASYMPTOTIC)
        return -(exp_neg(0.5 * x2, p) * INV_SQRT_2PI * series)


def mirror_positive(x: np.ndarray, gelu_neg: Callable[..., np.ndarray],
                    p: Params | None = None) -> np.ndarray:
    """GELU(x) = x + GELU(-x) for x > 0 (as Phi(x) = 1 - Phi(-x)), given GELU on the negatives
    (called as gelu_neg(-x, p))."""
    with np.errstate(all="ignore"):
        return x + gelu_neg(-x, p)


# ---------------------------------------------------------------------------------------------
# Tables built at import time from exact values
# ---------------------------------------------------------------------------------------------


def gelu_exact(x: float) -> mpmath.mpf:
    """x Phi(x) = x erfc(-x/sqrt 2)/2 at 40 digits (import-time table building only)."""
    with mpmath.workdps(40):
        xm = mpmath.mpf(x)
        return xm * mpmath.erfc(-xm / mpmath.sqrt(2)) / 2


def phi_cdf_exact(x: float) -> mpmath.mpf:
    """Phi(x) = erfc(-x/sqrt 2)/2 at 40 digits (import-time table building only)."""
    with mpmath.workdps(40):
        return mpmath.erfc(-mpmath.mpf(x) / mpmath.sqrt(2)) / 2


def uniform_table(fn: Callable[[float], mpmath.mpf], lo: float, step: float,
                  n: int) -> np.ndarray:
    """fn at lo + i*step, i < n (knots exact binary fractions), each rounded once to float32."""
    return np.array([float(fn(lo + i * step)) for i in range(n)], dtype=np.float32)


def lerp_uniform(x: np.ndarray, lo: float, step: float, table: np.ndarray) -> np.ndarray:
    """Linear interpolation in a table of knots lo + i*step, i < len(table); x is clamped.

    s = (x - lo)/step, i = floor(s) limited to [0, n-2], t = s - i, y = T[i] + t (T[i+1] - T[i])
    (the last step one FMA).
    """
    with np.errstate(all="ignore"):
        n = table.shape[0]
        s = (x - lo) / step
        s = np.minimum(np.maximum(s, 0.0), float(n - 1))
        s = where32(np.isnan(s), 0.0, s)
        i = np.minimum(np.floor(s), float(n - 2))
        t = s - i
        ii = i.astype(np.int32)
        y0 = lookup(table, ii)
        y1 = lookup(table, ii + 1)
        return fma(t, y1 - y0, y0)


TAIL_LUT_START = -3.5      # the seed's TAIL_START: the tail LUT is used for x < -3.5
TAIL_LUT_FINE = -8.0       # coarse knots (step 1/4) from -8 to -3.5, fine (1/16) below
TAIL_LUT_END = -8.3125     # last knot; the asymptotic tail below
TAIL_COARSE = uniform_table(gelu_exact, TAIL_LUT_FINE, 0.25, 19)  # -8.0 .. -3.5
TAIL_FINE = uniform_table(gelu_exact, TAIL_LUT_END, 0.0625, 6)    # -8.3125 .. -8.0
TAIL_LUT_BYTES = 4 * (TAIL_COARSE.size + TAIL_FINE.size)


def tail_lut(x: np.ndarray, p: Params | None = None) -> np.ndarray:
    """The seed's shared tail for x < -3.5: two-tier LUT, asymptotic below -8.3125 (``p``:
    TAIL_COARSE, TAIL_FINE and the asymptotic tail's parameters; the tail's own when None)."""
    p = PARAMS if p is None else p
    with np.errstate(all="ignore"):
        coarse = lerp_uniform(x, TAIL_LUT_FINE, 0.25, p.TAIL_COARSE)
        fine = lerp_uniform(x, TAIL_LUT_END, 0.0625, p.TAIL_FINE)
        y = where32(x < TAIL_LUT_FINE, fine, coarse)
        return where32(x < TAIL_LUT_END, asymptotic_tail(x, p), y)


def with_tail(x: np.ndarray, core: np.ndarray, start: float,
              tail: Callable[..., np.ndarray], p: Params | None = None) -> np.ndarray:
    """tail(x, p) where x < start, else core (NaN inputs take the core, which keeps them NaN)."""
    return where32(x < start, tail(x, p), core)


# ---------------------------------------------------------------------------------------------
# Declared parameters: what a method using these pieces adds to its own
# ---------------------------------------------------------------------------------------------

PURE_PARAMS: dict[str, Param] = {"EXP_TAYLOR": coeffs(EXP_TAYLOR),
                                 "ASYMPTOTIC": coeffs(ASYMPTOTIC), "SCHEME": scheme()}
"""exp_neg, gauss_pdf, asymptotic_tail: the exp's Taylor coefficients, the asymptotic series,
and the evaluation scheme of every polynomial of the method."""
LUT_PARAMS: dict[str, Param] = {
    **PURE_PARAMS,
    "TAIL_COARSE": table_param(TAIL_COARSE, of="GELU",
                               at=[TAIL_LUT_FINE + 0.25 * i for i in range(TAIL_COARSE.size)]),
    "TAIL_FINE": table_param(TAIL_FINE, of="GELU",
                             at=[TAIL_LUT_END + 0.0625 * i for i in range(TAIL_FINE.size)])}
"""tail_lut: the asymptotic tail's parameters and the two knot tables."""
PARAMS = Params(LUT_PARAMS)
"""The pieces' own parameters, used when a caller passes none."""


SEED_EXP_PARAMS: dict[str, Param] = {"SEED_EXP2": coeffs(SEED_EXP2)}
"""What a method that uses the seed's fast exp adds: its presence switches ``exp_neg``."""




# ---------------------------------------------------------------------------------------------
# The seed's own tail, bit for bit: its C++ (github.com/ivoitovych/bf16_gelu_research,
# gelu_implementations.cpp at c2bf7bb) built as its README says, g++ -std=c++23 -O3
# -march=native, which contracts a*b + c into one FMA. Checked on every bfloat16 input against
# tests/data/seed_gelu_golden.json (tests/test_gelu_seed_bits.py; docs/seed-rebuild.md).
# ---------------------------------------------------------------------------------------------

SEED_INV_LN2 = _h("0x1.715476p+0")  # :336 inv_ln2 = 1.4426950408889634f (1/ln 2 in float32)
# :290-291 2^f ~ 1 + 0.6931472 f + 0.2402265 f^2 + 0.0555041 f^3 + 0.0096139 f^4 on [0, 1)
# (the Taylor coefficients ln2^k/k! to 7 digits), each decimal rounded to float32
SEED_EXP2_TAYLOR = (_h("0x1.000000p+0"), _h("0x1.62e430p-1"), _h("0x1.ebfbe0p-3"),
                    _h("0x1.c6b088p-5"), _h("0x1.3b073ep-7"))
SEED_INV_SQRT_2PI = _h("0x1.988454p-2")  # :349 inv_sqrt_2pi = 0.3989422804014327f
SEED_EXP2_MIN = -149.0  # :277 2^t for t < -149 is 0 (below the smallest float32 subnormal)
# :211-229 GELU at x = -3.5, -3.75, ..., -8 (step -1/4) and :229-236 at x = -8, -8.0625, ...,
# -8.3125 (step -1/16): the seed's calibrated 6-digit decimals, each rounded to float32
SEED_TAIL_MAIN = np.array([float.fromhex(h) for h in (
    "-0x1.aae058p-11", "-0x1.5babcep-12", "-0x1.09ad7ep-13", "-0x1.7d1006p-15",
    "-0x1.0083e8p-16", "-0x1.443686p-18", "-0x1.80bce0p-20", "-0x1.acb3c0p-22",
    "-0x1.c0944ap-24", "-0x1.b8cae0p-26", "-0x1.96c97ap-28", "-0x1.6093e0p-30",
    "-0x1.1f043ap-32", "-0x1.b6e7a2p-35", "-0x1.3b34b4p-37", "-0x1.a9409cp-40",
    "-0x1.0d726ep-42", "-0x1.40bb62p-45", "-0x1.669d34p-48")], dtype=np.float32)
SEED_TAIL_FINE = np.array([float.fromhex(h) for h in (
    "-0x1.669d34p-48", "-0x1.b244fep-49", "-0x1.05ea98p-49", "-0x1.3ab392p-50",
    "-0x1.78a56ep-51", "-0x1.c106aap-52")], dtype=np.float32)


def seed_exp2_neg(t: np.ndarray, p: Params) -> np.ndarray:
    """2^t for float32 t <= 0, the seed's fast_exp2_neg (:275-330): n = floor(t), f = t - n;
    2^f by SEED_EXP2_TAYLOR on f, f^2 = f f, f^3 = f^2 f, f^4 = f^2 f^2, summed from the
    constant term up (each step one FMA, as g++ contracts it); times 2^n, built from exponent
    bits for n >= -126 and as the exact subnormal power of two below (the seed halves 2^-126 n
    times; one rounding either way); 0 for t < -149."""
    c = p.SEED_EXP2_TAYLOR
    with np.errstate(all="ignore"):
        n = np.floor(t)
        f = t - n
        f2 = f * f
        f3 = f2 * f
        f4 = f2 * f2
        poly = fma(np.full_like(f, c[1]), f, np.full_like(f, c[0]))
        poly = fma(np.full_like(f, c[2]), f2, poly)
        poly = fma(np.full_like(f, c[3]), f3, poly)
        poly = fma(np.full_like(f, c[4]), f4, poly)
        nn = np.clip(where32(np.isnan(n), 0.0, n), SEED_EXP2_MIN, 0.0).astype(np.int32)
        scaled = poly * ldexp(np.ones_like(poly), nn)  # 2^nn exact, down to 2^-149
        return where32(t < SEED_EXP2_MIN, 0.0, scaled)


def seed_asymptotic_tail(x: np.ndarray, p: Params) -> np.ndarray:
    """The seed's gelu_asymptotic (:347-366) for x < 0: e = 2^(-(x^2 0.5) SEED_INV_LN2) by
    ``seed_exp2_neg``; +0 where e is 0 (from x ~ -14.4 down: the seed returns +0, not -0);
    else -(e SEED_INV_SQRT_2PI) c with c = ((1 - y) + 3 y^2) - 15 y^3, y = 1/x^2, y^2 = y y,
    y^3 = y^2 y (the last two steps FMAs)."""
    with np.errstate(all="ignore"):
        x2 = x * x
        e = seed_exp2_neg(-(x2 * f32(0.5)) * SEED_INV_LN2, p)
        phi = e * SEED_INV_SQRT_2PI
        y = f32(1.0) / x2
        y2 = y * y
        y3 = y2 * y
        corr = fma(np.full_like(y, 3.0), y2, f32(1.0) - y)
        corr = fma(np.full_like(y, -15.0), y3, corr)
        return where32(e == 0, 0.0, -phi * corr)


def _seed_lerp(x: np.ndarray, start: float, step: float, table: np.ndarray) -> np.ndarray:
    """The seed's tail interpolation (:392-418): s = (x - start)/step, i = trunc(s) limited to
    [0, n-2], t = s - i, T[i] + t (T[i+1] - T[i]) (one FMA, as g++ contracts it)."""
    with np.errstate(all="ignore"):
        s = (x - f32(start)) / f32(step)
        i = np.trunc(where32(np.isfinite(s), s, 0.0))
        i = np.clip(i, 0.0, float(table.shape[0] - 2))
        t = s - i
        ii = i.astype(np.int32)
        y0 = lookup(table, ii)
        y1 = lookup(table, ii + 1)
        return fma(t, y1 - y0, y0)


def seed_tail_lut(x: np.ndarray, p: Params) -> np.ndarray:
    """The seed's gelu_negative_tail (:376-419) for x < -3.5: the main table (knots -3.5 down to
    -8, step -1/4) above -8, the fine one (-8 down to -8.3125, step -1/16) from -8.3125 to -8,
    the seed's asymptotic tail below -8.3125."""
    main = _seed_lerp(x, TAIL_LUT_START, -0.25, p.SEED_TAIL_MAIN)
    fine = _seed_lerp(x, TAIL_LUT_FINE, -0.0625, p.SEED_TAIL_FINE)
    y = where32(x < TAIL_LUT_FINE, fine, main)
    return where32(x < TAIL_LUT_END, seed_asymptotic_tail(x, p), y)


SEED_PURE_PARAMS: dict[str, Param] = {"SEED_EXP2_TAYLOR": coeffs(SEED_EXP2_TAYLOR)}
"""The seed's own asymptotic tail (``seed_asymptotic_tail``): its fast exp's coefficients."""
SEED_LUT_PARAMS: dict[str, Param] = {
    **SEED_PURE_PARAMS,
    "SEED_TAIL_MAIN": table_param(SEED_TAIL_MAIN, of="GELU",
                                  at=[TAIL_LUT_START - 0.25 * i for i in range(19)]),
    "SEED_TAIL_FINE": table_param(SEED_TAIL_FINE, of="GELU",
                                  at=[TAIL_LUT_FINE - 0.0625 * i for i in range(6)])}
"""The seed's own tail LUT (``seed_tail_lut``): its fast exp and its two tables."""


def tail_params(kind: str, seed_exp: bool = False) -> dict[str, Param]:
    """The declared parameters of a tail kind: "pure" (asymptotic) or "lut" (the tail LUT), with
    ``seed_exp`` the reading of the seed's fast exp (``SEED_EXP_PARAMS``) for every exp of the
    method; "seed-pure" and "seed-lut": the seed's own, bit for bit (``seed_asymptotic_tail``,
    ``seed_tail_lut``)."""
    if kind in ("seed-pure", "seed-lut"):
        return SEED_PURE_PARAMS if kind == "seed-pure" else SEED_LUT_PARAMS
    decl = {"pure": PURE_PARAMS, "lut": LUT_PARAMS}[kind]
    return {**decl, **SEED_EXP_PARAMS} if seed_exp else decl


def tail_fn(kind: str) -> Callable[..., np.ndarray]:
    return {"pure": asymptotic_tail, "lut": tail_lut, "seed-pure": seed_asymptotic_tail,
            "seed-lut": seed_tail_lut}[kind]


def seed_frame(phi: Callable[[np.ndarray, Params], np.ndarray], saturation: float,
               p: Params) -> Callable[[np.ndarray], np.ndarray]:
    """The seed's frame around x * Phi(x): its tail below TAIL_START (its LUT where the
    parameters declare SEED_TAIL_MAIN, else its asymptotic tail), x itself from ``saturation``
    up, and a NaN input returned as itself (the seed's B3/D2 and R5 kernels)."""
    tail_fn = seed_tail_lut if "SEED_TAIL_MAIN" in p else seed_asymptotic_tail

    def impl(x: np.ndarray) -> np.ndarray:
        with np.errstate(all="ignore"):
            return seed_finish(x, x * phi(x, p), p, tail_fn, saturation)

    return impl


def seed_finish(x: np.ndarray, y: np.ndarray, p: Params,
                tail_fn: Callable[[np.ndarray, Params], np.ndarray],
                saturation: float) -> np.ndarray:
    """How the seed's kernels end: ``tail_fn`` below TAIL_START, x itself from ``saturation``
    up, a NaN input returned as itself."""
    y = with_tail(x, y, p.TAIL_START, tail_fn, p)
    y = where32(x >= saturation, x, y)
    return where32(np.isnan(x), x, y)

