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
    R4 Pure  the seed's asymptotic tail (``tail.asymptotic_tail``) below R4_PURE_TAIL = -2.5,
             where the two errors cross (4-term series -3.4%, tanh form -2.8%). Thresholds
             -2.25/-2.375/-2.5/-2.625/-2.75/-3 were measured on all inputs: bfloat16 max
             15/8/8/8/9/23, float16 max 129/70/69/62/73/179; -2.5 has the smallest bfloat16
             mean. The seed's figures (max 29, core_neg 29) match a threshold near -3.
    R4 Tanh  the seed's shared tail LUT below -3.5 (its first knot), so the tanh form's 24%
             error at -3.5 shows in float16; in bfloat16 the LUT's 87 ulps at -7.65 dominate.
             The seed measured 166 (its Pade tanh failing near x = -3.5).

The seed's names are the seed's methods: its tanh, the [7/6] Pade of the Taylor series
(SEED_TANH_P/Q, "[3,3] Pade ... derived from tanh Taylor"; here still clamped to 1 from |z| = 6,
where the Pade gives 1.0004), its fast exp in the tails (``tail.seed_fast_exp_neg``); R4 Pure's
threshold -3 is our reading (the seed's Pure methods use -3; R4 Pure's is not stated).
"(improved)": the minimax rational and this project's exp, R4 Pure's tail from -2.5.

Measured (every input; bfloat16 max / mean, float16 max / mean):
    R4 Pure   23 / 0.0105, 181 / 0.538   seed 29    (improved)  8 / 0.0065, 69 / 0.290
    R4 Tanh   87 / 0.0986, 547 / 2.300   seed 166   (improved) 87 / 0.0966, 460 / 2.177
R4 Pure: both have their max at the threshold -3 (core_neg), where the tanh form is 10% off;
seed 29, measured 23 (the seed's exact threshold is not stated). R4 Tanh: seed 166, measured 87:
the LUT's 87 at -7.65 is the max, and the Pade is within 1e-4 of tanh for |z| < 2.5 (z(-3.5) =
-4.3, where it is 4e-3 off, is LUT territory), so the seed's 166 "at the -3.5 boundary" is not
its Pade's. What the improvement buys: the threshold -3 -> -2.5 takes R4 Pure from 23 to 8
(float16 181 -> 69); the minimax tanh only moves the means (and float16 547 -> 460 for R4 Tanh).
"""

from __future__ import annotations

import numpy as np

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
# The seed's tanh: "[3,3] Pade ... derived from tanh Taylor", i.e. the [7/6] Pade of tanh (the
# convergent of Lambert's continued fraction): z (135135 + 17325 z^2 + 378 z^4 + z^6) /
# (135135 + 62370 z^2 + 3150 z^4 + 28 z^6), normalised to Q(0) = 1, rounded to float32
SEED_TANH_P = (f32(1.0), f32(17325 / 135135), f32(378 / 135135), f32(1 / 135135))
SEED_TANH_Q = (f32(1.0), f32(62370 / 135135), f32(3150 / 135135), f32(28 / 135135))


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


def _params(tail_kind: str, tail_start: float, seed: bool = False) -> Params:
    """An R4 method's parameters; ``seed``: the seed's Pade tanh and its fast exp."""
    p = Params({"TANH_A": constant(TANH_A), "TANH_B": constant(TANH_B),
                "TANH_P": coeffs(TANH_P), "TANH_Q": coeffs(TANH_Q), "Z_MAX": threshold(Z_MAX),
                **tail.tail_params(tail_kind, seed), "TAIL_START": threshold(tail_start)})
    return p.replace(TANH_P=SEED_TANH_P, TANH_Q=SEED_TANH_Q) if seed else p


# name, idea, tail kind, tail start, seed's, claims
_VARIANTS = (
    ("R4 Pure", "tanh-form GELU, tanh by the seed's [7/6] Pade; asymptotic tail below -3",
     "pure", SEED_R4_PURE_TAIL, True,
     {"bfloat16": Claim(23, 0.0105), "float16": Claim(181, 0.5383)}),
    ("R4 Pure (improved)", "tanh-form GELU, tanh by a [7/8] minimax rational; asymptotic tail "
     "below -2.5", "pure", R4_PURE_TAIL, False,
     {"bfloat16": Claim(8, 0.0065), "float16": Claim(69, 0.2901)}),
    ("R4 Tanh", "tanh-form GELU, tanh by the seed's [7/6] Pade; the seed's tail LUT below -3.5",
     "lut", tail.TAIL_LUT_START, True,
     {"bfloat16": Claim(87, 0.0986), "float16": Claim(547, 2.2998)}),
    ("R4 Tanh (improved)", "tanh-form GELU, tanh by a [7/8] minimax rational; the seed's tail "
     "LUT below -3.5", "lut", tail.TAIL_LUT_START, False,
     {"bfloat16": Claim(87, 0.0966), "float16": Claim(460, 2.1773)}),
)
_NOTES = {
    "R4 Pure": "seed 29, measured 23: both at the threshold -3 (ours; the seed's not stated)",
    "R4 Pure (improved)": "the seed's R4 Pure with a minimax tanh and the tail from -2.5 "
    "instead of -3: bfloat16 max 23 -> 8",
    "R4 Tanh": "seed 166, measured 87: the LUT's 87 at -7.65; the seed's Pade is 4e-3 off only "
    "below -3.5, where the LUT is used",
    "R4 Tanh (improved)": "the seed's R4 Tanh with a minimax tanh: float16 max 547 -> 460",
}
for _name, _idea, _kind, _start, _seed, _claims in _VARIANTS:
    register(built("gelu", _name, "tanh", _idea, build_r4, _params(_kind, _start, _seed),
                   table_bytes=tail.TAIL_LUT_BYTES if _kind == "lut" else 0, claims=_claims,
                   seed=seed_figures(_name), note=_NOTES[_name]))
