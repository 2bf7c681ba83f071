"""The seed's tanh-form family: R4 Pure and R4 Tanh.

Idea (Hendrycks & Gimpel 2016, the "tanh GELU" of BERT/GPT):
    GELU(x) ~ x Phi_t(x),  Phi_t(x) = (1 + tanh(z))/2,  z = sqrt(2/pi) (x + 0.044715 x^3),
with tanh replaced by a rational function of z^2 (no exp).

Evaluation order:
    z = x (A + B x^2), A = sqrt(2/pi), B = 0.044715 sqrt(2/pi) (one constant each);
    s = min(|z|, 6)^2; T = min(|z| P(s)/Q(s), 1) with P of degree 3 and Q of degree 4 in s
    (Horner with FMA, one division); Phi_t = 1/2 - T/2 for x < 0, 1/2 + T/2 for x >= 0.
    |z| >= 6 gives T = 1 (1 - tanh 6 = 1.2e-5; overflowing x^3 gives z = +-inf, also T = 1).
    In float32 the rational is within 2e-7 of tanh on [0, 6) (fit error plus roundings).
The rational replaces the seed's [3,3] Pade of the Taylor series (accurate only for small z):
``fit_tanh_rational(z_hi=6.0, p=3, q=4, n=3000, iters=60)`` fits the least maximum ABSOLUTE
error on [0, 6] (what 1 -+ tanh needs) by linearized least squares with Lawson reweighting;
after rounding to float32 the error is 2.2e-8, a third of a float32 ulp of 1.

What limits it: the tanh form itself, not the tanh. Its relative error against x Phi(x) is
below 2.2e-3 on [-2, 3] but grows quickly in the negative tail (Phi_t decays like e^(-2z), z
cubic, Phi like e^(-x^2/2)): -2.8% at x = -2.5, -10% at -3, -24% at -3.5. So the threshold
where a tail takes over decides the error:
    R4 Pure (improved)  the asymptotic tail (``tail.asymptotic_tail``) below R4_PURE_TAIL = -2.5,
             where the two errors cross (4-term series -3.4%, tanh form -2.8%). Thresholds
             -2.25/-2.375/-2.5/-2.625/-2.75/-3 were measured on all inputs: bfloat16 max
             15/8/8/8/9/23, float16 max 129/70/69/62/73/179; -2.5 has the smallest bfloat16
             mean.
    R4 Tanh (improved)  the tail LUT below -3.5 (its first knot), so the tanh form's 24%
             error at -3.5 shows in float16; in bfloat16 the LUT's 87 ulps at -7.65 dominate.

The seed's names are the seed's methods, bit for bit (``build_r4_seed``; its C++ at c2bf7bb,
every bfloat16 output checked against its build by tests/test_gelu_seed_bits.py): its tanh, the
[7/6] Pade of the Taylor series with its coefficients as the seed writes them, 6-digit decimals
(SEED_TANH_P/Q; 0.0000074 for 1/135135 = 0.0000074000074 and 0.000207 for 28/135135 =
0.0002072: these, not the form, make its 166), summed by powers with the FMAs its build
contracts, clamped to [-1, 1]; x >= 3 -> x; its own tails (R4 Pure below -3, R4 Tanh its LUT
below -3.5). "(improved)": the minimax rational and this project's exp, R4 Pure's tail from -2.5.

Measured (every input; bfloat16 max / mean, float16 max / mean):
    R4 Pure   29 / 0.0116, 234 / 0.609   seed 29    (improved)  8 / 0.0065, 69 / 0.290
    R4 Tanh  166 / 0.1142, 1332 / 3.28   seed 166   (improved) 87 / 0.0966, 460 / 2.177
What the improvement buys: the threshold -3 -> -2.5 and the minimax tanh take R4 Pure from 29
to 8 (float16 234 -> 69); R4 Tanh's 166 goes to the LUT's 87 (float16 1332 -> 460).
"""

from __future__ import annotations

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


TANH_A = _h("0x1.988454p-1")  # sqrt(2/pi) rounded to float32 (Hendrycks & Gimpel)
TANH_B = _h("0x1.2444f2p-5")  # 0.044715 * sqrt(2/pi) (float64 product) rounded to float32
Z_MAX = 6.0                   # tanh = 1 from here (1 - tanh 6 = 1.2e-5)
# tanh(z) ~ z P(z^2)/Q(z^2) on [0, 6]: fit_tanh_rational(z_hi=6.0, p=3, q=4, n=3000, iters=60),
# coefficients low to high, rounded to float32; max absolute error 2.2e-8
TANH_P = (_h("0x1.fffffep-1"), _h("0x1.0be788p-3"), _h("0x1.995cf6p-9"), _h("0x1.c39966p-17"))
TANH_Q = (_h("0x1.000000p+0"), _h("0x1.db490cp-2"), _h("0x1.917f1ep-6"), _h("0x1.14b4eep-12"),
          _h("0x1.529214p-22"))
R4_PURE_TAIL = -2.5
SEED_R4_PURE_TAIL = -3.0  # our reading: the seed's Pure methods' -3 (R4 Pure's is not stated)
# The seed's R4 (gelu_implementations.cpp at c2bf7bb, :728-826), bit for bit. Its tanh is the
# [7/6] Pade of tanh (the convergent of Lambert's continued fraction), z (135135 + 17325 z^2 +
# 378 z^4 + z^6) / (135135 + 62370 z^2 + 3150 z^4 + 28 z^6), normalised to 1 at z = 0 and written
# as 6-digit decimals (:755-762), each rounded to float32: low to high in z^2
SEED_TANH_P = (_h("0x1.000000p+0"), _h("0x1.069058p-3"), _h("0x1.6ebd4cp-9"),
               _h("0x1.f09b08p-18"))  # 1, 0.128205, 0.002798, 0.0000074
SEED_TANH_Q = (_h("0x1.000000p+0"), _h("0x1.d89d6ap-2"), _h("0x1.7de93ap-6"),
               _h("0x1.b21c48p-13"))  # 1, 0.461538, 0.023310, 0.000207
SEED_TANH_A = _h("0x1.988454p-1")   # :743 sqrt_2_over_pi = 0.7978845608f
SEED_TANH_C = _h("0x1.6e4e26p-5")   # :744 coeff = 0.044715f
SEED_SATURATION = 3.0               # :731 x >= 3 -> x


def _powers_sum(c: tuple[np.float32, ...], s: np.ndarray, s2: np.ndarray,
                s3: np.ndarray) -> np.ndarray:
    """((c0 + c1 s) + c2 s^2) + c3 s^3, each step one FMA (as the seed's build contracts it)."""
    y = fma(np.full_like(s, c[1]), s, np.full_like(s, c[0]))
    y = fma(np.full_like(s, c[2]), s2, y)
    return fma(np.full_like(s, c[3]), s3, y)


def gelu_seed_tanh(x: np.ndarray, p: Params) -> np.ndarray:
    """The seed's R4 core: z = A fma(C, x x^2, x); z2 = z z, z4 = z2 z2, z6 = z4 z2;
    tanh = z P / Q with P, Q summed by powers (``_powers_sum``), clamped to [-1, 1] (a NaN
    quotient gives 1, as std::min(1, NaN) does); GELU = (0.5 x)(1 + tanh)."""
    with np.errstate(all="ignore"):
        z = p.SEED_TANH_A * fma(np.full_like(x, p.SEED_TANH_C), x * (x * x), x)
        z2 = z * z
        z4 = z2 * z2
        z6 = z4 * z2
        t = (z * _powers_sum(p.SEED_TANH_P, z2, z4, z6)) / _powers_sum(p.SEED_TANH_Q, z2, z4, z6)
        t = where32(np.isnan(t), 1.0, np.clip(t, -1.0, 1.0))
        return (f32(0.5) * x) * (f32(1.0) + t)


def build_r4_seed(p: Params) -> ArrayFn:
    """The seed's R4 kernel: its core, its tail (asymptotic, or its LUT where declared) below
    TAIL_START, x from 3."""
    tail_fn = tail.seed_tail_lut if "SEED_TAIL_MAIN" in p else tail.seed_asymptotic_tail

    def impl(x: np.ndarray) -> np.ndarray:
        with np.errstate(all="ignore"):
            y = tail.with_tail(x, gelu_seed_tanh(x, p), p.TAIL_START, tail_fn, p)
            y = where32(x >= SEED_SATURATION, x, y)
            return where32(np.isnan(x), x, y)  # NaN -> the input NaN itself

    return impl


def _seed_params(tail_kind: str, tail_start: float) -> Params:
    return Params({"SEED_TANH_A": constant(SEED_TANH_A), "SEED_TANH_C": constant(SEED_TANH_C),
                   "SEED_TANH_P": coeffs(SEED_TANH_P), "SEED_TANH_Q": coeffs(SEED_TANH_Q),
                   **tail.tail_params(tail_kind), "TAIL_START": threshold(tail_start)})


def fit_odd_rational(f, z_hi: float, p: int, q: int, n: int = 3000,  # noqa: ANN001
                     iters: int = 60) -> tuple[tuple[np.float32, ...], tuple[np.float32, ...],
                                               float]:
    """Fit f(z) ~ z P(z^2)/Q(z^2), Q(0) = 1, for least max absolute error on [0, z_hi].

    Fit time only (float64; f maps a float64 array to float64): Sanathanan-Koerner
    linearization (divide by the previous Q) with Lawson's reweighting by the error, n equally
    spaced points, iters rounds. Returns P and Q rounded to float32 and their max absolute error
    on a 20001-point grid.
    """
    z = np.linspace(0.0, z_hi, n)
    s = z * z
    fz = f(z)
    den = np.ones(n)
    w = np.full(n, 1.0 / n)
    for _ in range(iters):
        a_mat = np.hstack([np.stack([z * s**j for j in range(p + 1)], 1),
                           np.stack([-fz * s**j for j in range(1, q + 1)], 1)])
        sw = np.sqrt(w) / den
        c, *_ = np.linalg.lstsq(a_mat * sw[:, None], fz * sw, rcond=None)
        pc, qc = c[:p + 1], np.concatenate([[1.0], c[p + 1:]])
        den = np.polyval(qc[::-1], s)
        err = z * np.polyval(pc[::-1], s) / den - fz
        w = w * np.abs(err)
        w /= w.sum()
    p32 = tuple(f32(v) for v in pc)
    q32 = tuple(f32(v) for v in qc)
    zz = np.linspace(0.0, z_hi, 20001)
    ss = zz * zz
    r = zz * np.polyval(np.array(p32, float)[::-1], ss) / np.polyval(np.array(q32, float)[::-1], ss)
    return p32, q32, float(np.max(np.abs(r - f(zz))))


def fit_tanh_rational(z_hi: float = Z_MAX, p: int = 3, q: int = 4, n: int = 3000,
                      iters: int = 60) -> tuple[tuple[np.float32, ...], tuple[np.float32, ...],
                                                float]:
    """The TANH_P/TANH_Q fit: ``fit_odd_rational(np.tanh, ...)`` (see there)."""
    return fit_odd_rational(np.tanh, z_hi, p, q, n, iters)


def tanh_rational(az: np.ndarray, p: Params) -> np.ndarray:
    """tanh(|z|) for |z| >= 0 (argument already non-negative), 1 from |z| = Z_MAX."""
    with np.errstate(all="ignore"):
        a = np.minimum(az, p.Z_MAX)
        s = a * a
        r = np.minimum(a * evaluate_poly(p.SCHEME, s, p.TANH_P)
                       / evaluate_poly(p.SCHEME, s, p.TANH_Q), 1.0)
        return where32(az >= p.Z_MAX, 1.0, r)


def phi_tanh(x: np.ndarray, p: Params) -> np.ndarray:
    """Phi_t(x) = (1 + tanh(sqrt(2/pi)(x + 0.044715 x^3)))/2 with the rational tanh."""
    with np.errstate(all="ignore"):
        z = x * (p.TANH_A + p.TANH_B * (x * x))
        h = 0.5 * tanh_rational(np.abs(z), p)
        return where32(x < 0.0, 0.5 - h, 0.5 + h)


def build_r4(p: Params) -> ArrayFn:
    """An R4 kernel: x Phi_t(x), the tail (asymptotic, or the LUT where declared) below
    TAIL_START."""
    tail_fn = tail.tail_lut if "TAIL_COARSE" in p else tail.asymptotic_tail

    def impl(x: np.ndarray) -> np.ndarray:
        with np.errstate(all="ignore"):
            y = tail.with_tail(x, x * phi_tanh(x, p), p.TAIL_START, tail_fn, p)
            return where32(np.isnan(x), x, y)  # NaN -> the input NaN itself

    return impl


def _params(tail_kind: str, tail_start: float) -> Params:
    """An improved R4 method's parameters."""
    return Params({"TANH_A": constant(TANH_A), "TANH_B": constant(TANH_B),
                   "TANH_P": coeffs(TANH_P), "TANH_Q": coeffs(TANH_Q), "Z_MAX": threshold(Z_MAX),
                   **tail.tail_params(tail_kind), "TAIL_START": threshold(tail_start)})


register(built(
    "gelu", "R4 Pure", "tanh",
    "tanh-form GELU, tanh by the seed's [7/6] Pade in 6-digit decimals; asymptotic tail below "
    "-3", build_r4_seed, _seed_params("seed-pure", SEED_R4_PURE_TAIL),
    claims={"bfloat16": Claim(29, 0.0116), "float16": Claim(234, 0.6091)},
    seed=seed_figures("R4 Pure"),
    note="bit for bit the seed's gelu_r4_pure (gelu_implementations.cpp:784 at c2bf7bb)"))
register(built(
    "gelu", "R4 Pure (improved)", "tanh",
    "tanh-form GELU, tanh by a [7/8] minimax rational; asymptotic tail below -2.5",
    build_r4, _params("pure", R4_PURE_TAIL),
    claims={"bfloat16": Claim(8, 0.0065), "float16": Claim(69, 0.2901)},
    seed=seed_figures("R4 Pure (improved)"),
    note="the seed's R4 Pure with a minimax tanh, the tail from -2.5 instead of -3 and this "
    "project's exp: bfloat16 max 29 -> 8"))
register(built(
    "gelu", "R4 Tanh", "tanh",
    "tanh-form GELU, tanh by the seed's [7/6] Pade in 6-digit decimals; the seed's tail LUT "
    "below -3.5", build_r4_seed, _seed_params("seed-lut", tail.TAIL_LUT_START),
    table_bytes=4 * (tail.SEED_TAIL_MAIN.size + tail.SEED_TAIL_FINE.size),
    claims={"bfloat16": Claim(166, 0.1142), "float16": Claim(1332, 3.2815)},
    seed=seed_figures("R4 Tanh"),
    note="bit for bit the seed's gelu_r4_tanh_rational (gelu_implementations.cpp:728 at "
    "c2bf7bb)"))
register(built(
    "gelu", "R4 Tanh (improved)", "tanh",
    "tanh-form GELU, tanh by a [7/8] minimax rational; the tail LUT below -3.5",
    build_r4, _params("lut", tail.TAIL_LUT_START), table_bytes=tail.TAIL_LUT_BYTES,
    claims={"bfloat16": Claim(87, 0.0966), "float16": Claim(460, 2.1773)},
    seed=seed_figures("R4 Tanh (improved)"),
    note="the seed's R4 Tanh with a minimax tanh and this project's exp: bfloat16 max "
    "166 -> 87"))
