"""The seed's direct approximations of GELU (category A) and its bfloat16-coefficient polynomial:
A1 Pure, A1 Poly-9, A1 Poly-7, E9 Remez BF16 (polynomials), A3 Chebyshev, A4 Cont.Frac.

All approximate Phi = GELU(x)/x on a core interval and return x Phi; the tails are the shared
frame's (``framing.make_kernel``): "lut" = the seed's tail LUT below -3.5 and x -> x from 3,
"pure" = the asymptotic series below -3.5 and the mirror x + GELU(-x) from ``mirror_from``.

Why the seed's figures are poor: on the negative side GELU's relative error is Phi's, and
Phi(-3.5) = 2.3e-4, so a core must follow Phi in RELATIVE error down to -3.5. The seed's cores
follow it in absolute error, which gives about 1200 ulps in core_neg. In the "(improved)" ones
every core is a weighted minimax fit in the relative error of Phi, and (but for E9) Phi(0) = 1/2
exactly, so tiny inputs give x/2 exactly (half of all bfloat16 inputs lie in |x| < 0.5: the mean
depends on it).

A1 Poly-9 / A1 Pure / A1 Poly-7 (direct polynomial):
    GELU(x) = x (1/2 + x (q1 + q2 x + ... + q_{d-1} x^(d-2))), a degree-d polynomial in x
    (d = 9 or 7) with the linear term fixed at 1/2. Horner in x with FMA, one FMA adding 1/2,
    one multiply. ``fit_a1(lo, hi, degree)``: Lawson minimax (``framing.lawson``, float64,
    4000 points) of the relative error of Phi on [lo, hi]. The project fitter cannot do this
    fit: its relative mode divides by |f|, and with the interval straddling GELU's zero at 0
    the Remez exchange fails ("only 8 alternating extrema"); it fits erfc relative with a free
    constant term instead (E9 below), which for float32 coefficients gives 1.76% (d = 9,
    ``ulplab fit erfc --interval -3/sqrt(2) 3.5/sqrt(2) --degree 8 --coefficients float32
    --error relative``) against 2.31% here with Phi(0) = 1/2 fixed: one more ulp at worst
    (5 vs 4 for A1 Pure) but its free constant term puts every tiny input off
    (mean 1.26 vs 0.029 for A1 Pure).
      A1 Poly-9: d = 9 on [-3.5, 3] (the LUT frame's core), 2.34% relative after rounding
      A1 Pure:   d = 9 on [-3.5, 2.5], mirror from 2.5 (the series is 3e-2 relative at -2.5,
                 4.7e-4 absolute: 0.03 bfloat16 ulps of x), 1.91%
      A1 Poly-7: d = 7 on [-3.5, 3], 11.5%
    A degree-d polynomial cannot follow the Gaussian decay of Phi any better: these errors are
    the minimax ones, and they are the method's limit (6 and 27 bfloat16 ulps in the core).

E9 Remez BF16 (A1 Pure with bfloat16 coefficients): the project fitter's lattice (fpminimax)
    fit with bfloat16 coefficients of erfc(t), relative error, t = -x/sqrt 2 in
    [-3/sqrt(2), 3.5/sqrt(2)] (``fit_e9``, i.e. ``ulplab fit erfc --interval -3/sqrt(2)
    3.5/sqrt(2) --degree 8 --coefficients bfloat16 --error relative``): 4.39% (the float32
    real minimax: 1.76%). Phi(x) = erfc(t)/2, so the stored coefficients are the fitter's
    halved (exact in bfloat16). Evaluation: t = x * (-1/sqrt 2) (float32), Horner in t with
    FMA, one multiply by x. Pure tail, mirror from 3. The fitter leaves the constant term free
    (0x1.f2p-1, not 1), so every tiny input is 2.7% off (7 bfloat16 ulps, which is the mean);
    pinning it to 1 would need a constrained lattice, which the fitter does not offer. Its
    worst error is 11 ulps (core_neg), the bfloat16 quantisation costing 2.5 times the float32
    error.

A3 Chebyshev: Phi(x) = sum_{n<=12} c_n T_n(u), u = (x + 1/4) / (13/4) mapping [-3.5, 3] onto
    [-1, 1] (one FMA with float32 constants), Clenshaw recurrence
    b_k = c_k + 2u b_{k+1} - b_{k+2}, Phi = c_0 + u b_1 - b_2. ``fit_a3``: Lawson minimax in
    the Chebyshev basis of the relative error of Phi, Phi(0) = 1/2 imposed (c_0 solved from
    the others): 8.3e-4 (about 0.2 bfloat16 ulps). The seed expanded Phi(4u) on [-4, 4]
    (absolute, near-minimax, degree unstated); Chebyshev projection is not minimax in the
    relative error that matters at -3.5.

A4 Cont.Frac: Phi(x) = 1/2 + x a0/(1 + u a1/(1 + u a2/(1 + ... u a5))), u = x^2 (the seed's
    S-fraction), evaluated bottom-up: f = a5, f = a_k / (1 + u f) (an FMA and a division each),
    Phi = 1/2 + x f. ``fit_a4``: the fraction of depth 6 is a [2/3] rational in u; it is fitted
    as in R2 (``framing.rational_fit``: minimax in the relative error of Phi(-|x|), x in
    (0, 3.5]) and converted to the S-fraction by Viskovatov's algorithm in mpmath
    (``rational_to_cf``): 5.7e-4, 6.1e-4 with the a_k rounded to float32.

Those are the "(improved)" methods. The seed's names are the seed's methods, bit for bit (its
C++ at c2bf7bb; every bfloat16 output checked against its build by tests/test_gelu_seed_bits.py),
x >= 3 -> x and the seed's own tails (its LUT below -3.5, or for A1 Pure and E9 its asymptotic
tail below -3):
    A1 Poly-9, A1 Pure, A1 Poly-7, E9 Remez BF16  Phi = GELU/x = q(x^2), an even polynomial
                 with the seed's decimal coefficients (A1 Poly-7's are the tanh form's first
                 Taylor terms 0.5, 0.398942, -0.044715, 0.003657; E9's are bfloat16 values),
                 summed by powers of x^2 with the FMAs its build contracts, clamped to [0, 1].
    A3 Chebyshev   Phi by a degree-9 Chebyshev series in t = x/4 whose coefficients are the same
                 Taylor-like decimals (c2 = c4 = ... = 0), Clenshaw with FMAs, Phi = b0 - t b1.
    A4 Cont.Frac   Phi = 1/2 + 0.3989423 x / (1 + x^2/(2 + x^2/(3 + x^2/4))), clamped.

Measured (every input; bfloat16 max / mean, float16 max / mean) against the seed's bfloat16:
    A1 Pure       1211 / 2.8291, 9690 / 185.6    seed 1211 / 2.83   (improved)  5 / 0.029
    A1 Poly-9     1404 / 3.5567, 11232 / 229.4   seed 1404 / 3.56   (improved) 87 / 0.1034
    A1 Poly-7     1547 / 3.5821, 12372 / 231.0   seed 1547 / 3.58   (improved) 87 / 0.208
    E9 Remez BF16 1211 / 2.8352, 9690 / 186.0    seed 1211 / 2.83   (improved) 11 / 2.6114
    A3 Chebyshev  1207 / 2.5412, 9651 / 162.5    seed 1207 / 2.54   (improved) 87 / 0.0731
    A4 Cont.Frac  1206 / 1.7076, 9643 / 107.7    seed 1206 / 1.71   (improved) 87 / 0.0727
The seed's cores follow Phi in absolute, not relative, error: on the negative side (Phi(-3.5) =
2.3e-4) that costs about 1200 ulps in core_neg. What the improvement buys is the relative-error
fit of Phi (and Phi(0) = 1/2): from 1211 to 5 (A1 Pure), and down to the LUT's 87 for the
others; the (improved) rows are:
    A1 Pure      5 / 0.029,   38 / 1.7588      A1 Poly-9    87 / 0.1034, 190 / 2.6402
    A1 Poly-7   87 / 0.208,  211 / 9.5446      E9 Remez BF16 11 / 2.6114, 83 / 18.038
    A3 Chebyshev 87 / 0.0731, 190 / 0.6541     A4 Cont.Frac 87 / 0.0727, 190 / 0.6343
The LUT-tailed ones are limited by the tail LUT (87 ulps at -7.66, 190 in float16); the
polynomial cores by their degree (A1 Poly-9 6 ulps in the core, A1 Poly-7 27).
"""

from __future__ import annotations

import mpmath
import numpy as np

from ulplab.kit import fma
from ulplab.kit.ops import f32hex
from ulplab.methods.gelu import tail
from ulplab.methods.gelu.framing import (
    frame_params,
    lawson,
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


# ---------------------------------------------------------------------------------------------
# A1: GELU = x (1/2 + x (q1 + q2 x + ...)), relative minimax of Phi with Phi(0) = 1/2
# ---------------------------------------------------------------------------------------------

# fit_a1(-3.5, 3.0, 9): q1..q8, rounded to float32
A1_POLY9 = (_h("0x1.9aa346p-2"), _h("0x1.1103ccp-6"), _h("-0x1.d0addep-5"), _h("-0x1.d514f6p-8"),
            _h("0x1.220f7cp-8"), _h("0x1.ae9fc6p-11"), _h("-0x1.c63c8ep-14"),
            _h("-0x1.928f7ap-16"))
# fit_a1(-3.5, 2.5, 9): q1..q8, rounded to float32 (A1 Pure: the mirror takes over at 2.5)
A1_PURE9 = (_h("0x1.9d521cp-2"), _h("0x1.1744fep-6"), _h("-0x1.ebb140p-5"), _h("-0x1.2d8e3ep-7"),
            _h("0x1.256910p-8"), _h("0x1.326eaap-10"), _h("-0x1.23abe2p-17"),
            _h("-0x1.fcfba2p-17"))
# fit_a1(-3.5, 3.0, 7): q1..q6, rounded to float32
A1_POLY7 = (_h("0x1.982ae0p-2"), _h("0x1.3ee070p-5"), _h("-0x1.35695cp-5"), _h("-0x1.e459a8p-8"),
            _h("0x1.1dedcep-10"), _h("0x1.12682ap-12"))
A1_PURE_MIRROR = 2.5


def fit_a1(lo: float, hi: float, degree: int,
           points: int = 4000) -> tuple[tuple[np.float32, ...], float]:
    """Fit time: q1..q_{degree-1} with 1/2 + q1 x + ... ~ Phi on [lo, hi], minimax in relative
    error (Lawson, float64). Returns the float32 coefficients and the relative error of the
    float32-rounded polynomial on the grid."""
    x = np.linspace(lo, hi, points)
    x = x[x != 0]
    f = phi64(x)
    basis = np.stack([x**k for k in range(1, degree)], 1)
    q = lawson(basis, f - 0.5, 1.0 / f).astype(f32)
    err = float(np.max(np.abs(basis @ q.astype(np.float64) + 0.5 - f) / f))
    return tuple(q), err


def a1_core(x: np.ndarray, p: Params) -> np.ndarray:
    """x (1/2 + x Q(x)), Q (A1_Q) by the method's scheme."""
    return x * fma(x, evaluate_poly(p.SCHEME, x, p.A1_Q), np.full_like(x, 0.5))


# ---------------------------------------------------------------------------------------------
# E9: the project fitter's bfloat16-coefficient minimax of erfc(t), t = -x/sqrt 2
# ---------------------------------------------------------------------------------------------

NEG_INV_SQRT2 = _h("-0x1.6a09e6p-1")  # -1/sqrt(2) rounded to float32
# fit_e9(): c_k/2 for the coefficients c_0..c_8 that
#   ulplab fit erfc --interval -3/sqrt(2) 3.5/sqrt(2) --degree 8 --coefficients bfloat16
#       --error relative
# returns (c = 0x1.f2p-1, -0x1.1cp+0, 0x1.66p-4, 0x1.3p-2, -0x1.dap-5, -0x1.6cp-5, 0x1.8ep-7,
# 0x1.18p-9, -0x1.6ap-11); halving is exact, so these are bfloat16 values too.
E9_BF16 = (_h("0x1.f2p-2"), _h("-0x1.1cp-1"), _h("0x1.66p-5"), _h("0x1.3p-3"), _h("-0x1.dap-6"),
           _h("-0x1.6cp-6"), _h("0x1.8ep-8"), _h("0x1.18p-10"), _h("-0x1.6ap-12"))


def fit_e9(coefficients: str = "bfloat16", degree: int = 8) -> tuple[np.float32, ...]:
    """Fit time: the project fitter's minimax of erfc on t = -x/sqrt 2 for x in [-3, 3.5],
    relative error, coefficients in ``coefficients``; returned halved (Phi = erfc(t)/2)."""
    from ulplab.fit import fit

    r = fit("erfc", "-3/sqrt(2)", "3.5/sqrt(2)", list(range(degree + 1)), coefficients,
            "relative", evaluate_errors=False)
    return tuple(f32(c / 2) for c in r.coefficients)


def e9_core(x: np.ndarray, p: Params) -> np.ndarray:
    """x Q(-x/sqrt 2), Q (= erfc/2) by the method's scheme."""
    return x * evaluate_poly(p.SCHEME, x * NEG_INV_SQRT2, p.E9_BF16)


# ---------------------------------------------------------------------------------------------
# A3: Chebyshev series of Phi on [-3.5, 3], Clenshaw
# ---------------------------------------------------------------------------------------------

A3_LO, A3_HI = -3.5, 3.0
A3_SCALE = _h("0x1.3b13b2p-2")   # 1/3.25 = 2/(A3_HI - A3_LO) rounded to float32
A3_SHIFT = _h("0x1.3b13b2p-4")   # 0.25/3.25 = -(A3_LO + A3_HI)/(A3_HI - A3_LO), float32
# fit_a3(-3.5, 3.0, 12): c_0..c_12, rounded to float32
A3_CHEB = (_h("0x1.e54524p-2"), _h("0x1.33c088p-1"), _h("0x1.4af810p-5"), _h("-0x1.0b4dbap-3"),
           _h("-0x1.56d08ep-6"), _h("0x1.26a3ccp-5"), _h("0x1.04ccfcp-7"), _h("-0x1.2531cep-7"),
           _h("-0x1.3161ccp-9"), _h("0x1.17af00p-9"), _h("0x1.d3f3c4p-11"), _h("-0x1.34a2b4p-13"),
           _h("-0x1.9e51ecp-14"))


def chebyshev_basis(u: np.ndarray, degree: int) -> np.ndarray:
    """T_0(u)..T_degree(u) as columns (fit time, float64)."""
    t = [np.ones_like(u), u]
    for _ in range(2, degree + 1):
        t.append(2 * u * t[-1] - t[-2])
    return np.stack(t[: degree + 1], 1)


def fit_a3(lo: float = A3_LO, hi: float = A3_HI, degree: int = 12,
           points: int = 4000) -> tuple[tuple[np.float32, ...], float]:
    """Fit time: Chebyshev coefficients of Phi on [lo, hi], minimax in relative error (Lawson)
    with sum c_n T_n(u(0)) = 1/2 imposed. Returns float32 c_0..c_degree and the relative error
    of the rounded series on the grid."""
    mid, half = (lo + hi) / 2, (hi - lo) / 2
    x = np.linspace(lo, hi, points)
    f = phi64(x)
    basis = chebyshev_basis((x - mid) / half, degree)
    at0 = chebyshev_basis(np.array([-mid / half]), degree)[0]
    c = lawson(basis[:, 1:] - at0[1:], f - 0.5, 1.0 / f)
    cc = np.concatenate([[0.5 - at0[1:] @ c], c]).astype(f32)
    return tuple(cc), float(np.max(np.abs(basis @ cc.astype(np.float64) - f) / f))


def a3_core(x: np.ndarray, p: Params) -> np.ndarray:
    """x sum c_n T_n(u) by Clenshaw's recurrence."""
    u = fma(x, np.full_like(x, A3_SCALE), np.full_like(x, A3_SHIFT))
    u2 = 2.0 * u
    b1 = np.zeros_like(x)
    b2 = np.zeros_like(x)
    for c in p.A3_CHEB[:0:-1]:
        b1, b2 = fma(u2, b1, np.full_like(x, c)) - b2, b1
    return x * (fma(u, b1, np.full_like(x, p.A3_CHEB[0])) - b2)


# ---------------------------------------------------------------------------------------------
# A4: Phi = 1/2 + x a0/(1 + u a1/(1 + ... u a5)), u = x^2
# ---------------------------------------------------------------------------------------------

# fit_a4(3.5, 2, 3): a_0..a_5, rounded to float32
A4_CF = (_h("0x1.97ead2p-2"), _h("0x1.4fb014p-3"), _h("-0x1.aaad7ap-6"), _h("0x1.3118a6p-2"),
         _h("-0x1.783532p-3"), _h("0x1.41838cp-7"))


def rational_to_cf(p: np.ndarray, q: np.ndarray) -> list[float]:
    """Fit time: the S-fraction a0/(1 + u a1/(1 + u a2/(...))) equal to P(u)/Q(u), Q(0) = 1,
    by Viskovatov's algorithm in mpmath (a_k = N(0)/D(0), then N, D <- (a_k D - N)/u, N)."""
    with mpmath.workdps(50):
        small = mpmath.mpf(10) ** -40
        num = [mpmath.mpf(float(v)) for v in p]
        den = [mpmath.mpf(1)] + [mpmath.mpf(float(v)) for v in q]
        out = []
        while any(abs(v) > small for v in num):
            a = num[0] / den[0]
            out.append(a)
            n = max(len(num), len(den))
            nn = num + [mpmath.mpf(0)] * (n - len(num))
            dd = den + [mpmath.mpf(0)] * (n - len(den))
            num, den = [a * d - c for c, d in zip(nn, dd, strict=True)][1:], num
            while num and abs(num[-1]) < small:
                num.pop()
        return [float(v) for v in out]


def fit_a4(limit: float = 3.5, n: int = 2, m: int = 3,
           points: int = 3000) -> tuple[tuple[np.float32, ...], float]:
    """Fit time: (Phi(x) - 1/2)/x ~ [n/m] rational in u = x^2, minimax in the relative error of
    Phi(-x) on (0, limit] (as R2), converted to an S-fraction. Returns float32 a_k and the
    weighted error of the rounded fraction (evaluated in float64) on the grid."""
    x = np.linspace(1e-3, limit, points)
    u = x * x
    g = (phi64(x) - 0.5) / x
    w = x / phi64(-x)
    num = np.stack([u**k for k in range(n + 1)], 1)
    den = np.stack([u**k for k in range(1, m + 1)], 1)
    p, q = rational_fit(num, den, g, w)
    a = np.array(rational_to_cf(p, q)).astype(f32)
    f = np.full_like(u, float(a[-1]))
    for ak in a[-2::-1]:
        f = float(ak) / (1.0 + u * f)
    return tuple(a), float(np.max(np.abs(w * (f - g))))


def a4_core(x: np.ndarray, p: Params) -> np.ndarray:
    """x (1/2 + x CF(x^2)), the fraction bottom-up."""
    u = x * x
    one = np.full_like(x, 1.0)
    f = np.full_like(x, p.A4_CF[-1])
    for a in p.A4_CF[-2::-1]:
        f = a / fma(u, f, one)
    return x * fma(x, f, np.full_like(x, 0.5))


# ---------------------------------------------------------------------------------------------
# The seed's A1 Poly-7 (:1036), A1 Poly-9 (:1075), A1 Pure (:1112), A3 Chebyshev (:1515),
# A4 Cont.Frac (:1574), E9 Remez BF16 (:4562) (gelu_implementations.cpp at c2bf7bb), bit for bit
# ---------------------------------------------------------------------------------------------

# Phi = GELU(x)/x ~ sum c_k x^(2k), the seed's decimals rounded to float32, low to high
SEED_A1_7 = (_h("0x1.000000p-1"), _h("0x1.988440p-2"), _h("-0x1.6e4e26p-5"),
             _h("0x1.df548ep-9"))  # :1055-1058 0.5, 0.398942, -0.044715, 0.003657
SEED_A1_9 = (_h("0x1.000000p-1"), _h("0x1.988454p-2"), _h("-0x1.105838p-4"),
             _h("0x1.564c12p-8"), _h("-0x1.aa7f70p-13"))
# (:1092-1096 0.5, 0.398942280, -0.066490380, 0.005223040, -0.000203370; A1 Pure :1130-1134)
SEED_E9 = (_h("0x1.00p-1"), _h("0x1.98p-2"), _h("-0x1.70p-5"),
           _h("0x1.68p-9"))  # :4584-4587 0.5, 0.3984375, -0.044921875, 0.00274658203125
# :1531-1540 c0..c9 of the Chebyshev series in t = x/4 (c2 = c4 = c6 = c8 = 0)
SEED_A3 = (_h("0x1.000000p-1"), _h("0x1.988440p-2"), 0.0, _h("-0x1.6e4e26p-5"), 0.0,
           _h("0x1.df548ep-9"), 0.0, _h("-0x1.3fd0d0p-12"), 0.0, _h("0x1.605250p-16"))
SEED_A4 = (_h("0x1.000000p-1"), _h("0x1.988454p-2"))  # :1587-1588 a0 = 0.5, a1 = 0.3989423
SEED_A4_DEPTH = (1.0, 2.0, 3.0, 4.0)  # :1589-1592 b1..b4
SEED_A1_PURE_TAIL = -3.0  # :1119 A1 Pure (and E9, :4569): asymptotic tail for x < -3
SEED_SATURATION = 3.0     # x >= 3 -> x (all six)


def _clamp01(q: np.ndarray) -> np.ndarray:
    """std::max(0, std::min(1, q)): q limited to [0, 1], and 1 for a NaN q."""
    return where32(np.isnan(q), 1.0, np.clip(q, 0.0, 1.0))


def seed_even_poly_core(x: np.ndarray, p: Params) -> np.ndarray:
    """The seed's A1/E9: x2 = x x, x4 = x2 x2, x6 = x4 x2, x8 = x4 x4; q = c0 + c1 x2 + c2 x4
    + ... summed by powers (each step one FMA, as its build contracts it), clamped to [0, 1];
    GELU = x q."""
    with np.errstate(all="ignore"):
        x2 = x * x
        x4 = x2 * x2
        powers = [x2, x4, x4 * x2, x4 * x4]
        c = p.SEED_Q
        q = np.full_like(x, c[0])
        for ck, xk in zip(c[1:], powers, strict=False):
            q = fma(np.full_like(x, ck), xk, q)
        return x * _clamp01(q)


def seed_a3_core(x: np.ndarray, p: Params) -> np.ndarray:
    """The seed's A3: t = x/4, Clenshaw b_k = fma(2t, b_k+1, c_k) - b_k+2 (b_9 = c_9,
    b_8 = fma(2t, b_9, c_8)), Phi = fma(-t, b_1, b_0), GELU = x Phi."""
    with np.errstate(all="ignore"):
        t = np.clip(x * f32(0.25), -1.0, 1.0)
        t2 = f32(2.0) * t
        c = [np.full_like(x, v) for v in p.SEED_CHEB]
        b0 = c[9]
        b1 = fma(t2, b0, c[8])
        b2 = b0
        for k in range(7, -1, -1):
            b0 = fma(t2, b1, c[k]) - b2
            if k:
                b2, b1 = b1, b0
        return x * fma(-t, b1, b0)


def seed_a4_core(x: np.ndarray, p: Params) -> np.ndarray:
    """The seed's A4: cf = b4, cf = b_k + x^2/cf for k = 3, 2, 1; Phi = a0 + (a1 x)/cf, clamped
    to [0, 1]; GELU = x Phi."""
    with np.errstate(all="ignore"):
        x2 = x * x
        b = p.SEED_CF_B
        cf = np.full_like(x, b[-1])
        for bk in b[-2::-1]:
            cf = f32(bk) + x2 / cf
        a0, a1 = p.SEED_CF_A
        return x * _clamp01(a0 + (a1 * x) / cf)


# ---------------------------------------------------------------------------------------------
# Registration
# ---------------------------------------------------------------------------------------------

_FAMILY = {"A1": "polynomial", "E9": "polynomial", "A3": "chebyshev",
           "A4": "continued fraction"}
_VARIANTS = (
    ("A1 Pure", "degree-9 polynomial x(1/2 + x Q7(x)), minimax relative of Phi on [-3.5, 2.5]; "
     "asymptotic tail, mirror from 2.5", a1_core, "A1_Q", A1_PURE9, "pure", A1_PURE_MIRROR,
     (5, 0.029), (38, 1.7588)),
    ("A1 Poly-9", "degree-9 polynomial x(1/2 + x Q7(x)), minimax relative of Phi on [-3.5, 3]; "
     "tail LUT", a1_core, "A1_Q", A1_POLY9, "lut", 3.0, (87, 0.1034), (190, 2.6402)),
    ("A1 Poly-7", "degree-7 polynomial x(1/2 + x Q5(x)), minimax relative of Phi on [-3.5, 3]; "
     "tail LUT", a1_core, "A1_Q", A1_POLY7, "lut", 3.0, (87, 0.208), (211, 9.5446)),
    ("E9 Remez BF16", "degree-9 polynomial x Q8(-x/sqrt2), bfloat16 coefficients by the project "
     "fitter (lattice, erfc relative); asymptotic tail", e9_core, "E9_BF16", E9_BF16, "pure",
     3.0, (11, 2.6114), (83, 18.038)),
    ("A3 Chebyshev", "Phi as a degree-12 Chebyshev series on [-3.5, 3] by Clenshaw, minimax "
     "relative, Phi(0) = 1/2; tail LUT", a3_core, "A3_CHEB", A3_CHEB, "lut", 3.0,
     (87, 0.0731), (190, 0.6541)),
    ("A4 Cont.Frac", "Phi = 1/2 + x S-fraction of depth 6 in x^2 (a [2/3] rational), minimax "
     "relative of Phi(-|x|); tail LUT", a4_core, "A4_CF", A4_CF, "lut", 3.0,
     (87, 0.0727), (190, 0.6343)),
)

_IMPROVED_NOTES = {
    "A1 Pure": "the seed's A1 Pure as a minimax of Phi in relative error with Phi(0) = 1/2, "
    "mirror from 2.5: bfloat16 max 1211 -> 5",
    "A1 Poly-9": "the seed's A1 Poly-9 as a minimax of Phi in relative error with Phi(0) = 1/2: "
    "1404 -> 87 (the LUT's)",
    "A1 Poly-7": "the seed's A1 Poly-7 as a minimax of Phi in relative error with Phi(0) = 1/2: "
    "1547 -> 87 (the LUT's)",
    "E9 Remez BF16": "the project fitter's bfloat16 lattice fit of erfc in relative error: "
    "1211 -> 11",
    "A3 Chebyshev": "the seed's A3 on [-3.5, 3] as a minimax in relative error: 1207 -> 87 "
    "(the LUT's)",
    "A4 Cont.Frac": "the seed's A4 as a minimax [2/3] in the relative error of Phi(-|x|): "
    "1206 -> 87 (the LUT's)",
}
_SEED_TAIL_BYTES = 4 * (tail.SEED_TAIL_MAIN.size + tail.SEED_TAIL_FINE.size)
# name, function and line, idea, core, its parameters, tail kind, tail start, bfloat16, float16
_SEED_VARIANTS = (
    ("A1 Pure", "gelu_a1_pure", 1112, "the seed's: Phi = GELU/x by an even degree-8 polynomial "
     "(6-9 digit decimals); asymptotic tail below -3", seed_even_poly_core,
     {"SEED_Q": coeffs(SEED_A1_9)}, "seed-pure", SEED_A1_PURE_TAIL, (1211, 2.8291),
     (9690, 185.6342)),
    ("A1 Poly-9", "gelu_a1_poly9", 1075, "the seed's: Phi = GELU/x by an even degree-8 "
     "polynomial (6-9 digit decimals); its tail LUT below -3.5", seed_even_poly_core,
     {"SEED_Q": coeffs(SEED_A1_9)}, "seed-lut", -3.5, (1404, 3.5567), (11232, 229.4157)),
    ("A1 Poly-7", "gelu_a1_poly7", 1036, "the seed's: Phi = GELU/x by an even degree-6 "
     "polynomial (the tanh form's first Taylor terms); its tail LUT below -3.5",
     seed_even_poly_core, {"SEED_Q": coeffs(SEED_A1_7)}, "seed-lut", -3.5, (1547, 3.5821),
     (12372, 231.0072)),
    ("E9 Remez BF16", "gelu_e9_remez_bf16", 4562, "the seed's: Phi = GELU/x by an even "
     "degree-6 polynomial with bfloat16 coefficients; asymptotic tail below -3",
     seed_even_poly_core, {"SEED_Q": coeffs(SEED_E9)}, "seed-pure", SEED_A1_PURE_TAIL,
     (1211, 2.8352), (9690, 186.0328)),
    ("A3 Chebyshev", "gelu_a3_chebyshev", 1515, "the seed's: Phi by a degree-9 Chebyshev "
     "series in x/4 (Clenshaw); its tail LUT below -3.5", seed_a3_core,
     {"SEED_CHEB": coeffs(SEED_A3)}, "seed-lut", -3.5, (1207, 2.5412), (9651, 162.5402)),
    ("A4 Cont.Frac", "gelu_a4_continued_fraction", 1574, "the seed's: Phi = 1/2 + 0.3989423 x / "
     "(1 + x^2/(2 + x^2/(3 + x^2/4))); its tail LUT below -3.5", seed_a4_core,
     {"SEED_CF_A": coeffs(SEED_A4), "SEED_CF_B": coeffs(SEED_A4_DEPTH)}, "seed-lut", -3.5,
     (1206, 1.7076), (9643, 107.6884)),
)
for (_name, _fn, _line, _idea, _core, _decl, _kind, _start, _bf16,
     _fp16) in _SEED_VARIANTS:
    register(built(
        "gelu", _name, _FAMILY[_name[:2]], _idea, make_kernel(_core, _kind),
        Params({**_decl, **frame_params(_kind, _start, SEED_SATURATION)}),
        table_bytes=_SEED_TAIL_BYTES if _kind == "seed-lut" else 0,
        claims=measured(_bf16, _fp16),
        seed=seed_figures(_name),
        note=f"bit for bit the seed's {_fn} (gelu_implementations.cpp:{_line} at c2bf7bb)",
    ))
for _name, _idea, _core, _cname, _coeffs, _kind, _mirror, _bf16, _fp16 in _VARIANTS:
    register(built(
        "gelu", f"{_name} (improved)", _FAMILY[_name[:2]], _idea, make_kernel(_core, _kind),
        Params({_cname: coeffs(_coeffs), **frame_params(_kind, -3.5, _mirror)}),
        claims=measured(_bf16, _fp16),
        seed=seed_figures(f"{_name} (improved)"),
        note=_IMPROVED_NOTES.get(_name, ""),
    ))
