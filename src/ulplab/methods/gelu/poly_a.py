"""The seed's direct approximations of GELU (category A) and its bfloat16-coefficient polynomial:
A1 Pure, A1 Poly-9, A1 Poly-7, E9 Remez BF16 (polynomials), A3 Chebyshev, A4 Cont.Frac.

All approximate Phi = GELU(x)/x on a core interval and return x Phi; the tails are the shared
frame's (``framing.make_kernel``): "lut" = the seed's tail LUT below -3.5 and x -> x from 3,
"pure" = the asymptotic series below -3.5 and the mirror x + GELU(-x) from ``mirror_from``.

Why the seed's figures were poor: on the negative side GELU's relative error is Phi's, and
Phi(-3.5) = 2.3e-4, so a core must follow Phi in RELATIVE error down to -3.5. The seed fitted
GELU for absolute error (and with a free constant term near 0), which gives 1211 ulps in core_neg
and 122 near 0. Here every core is a weighted minimax fit in the relative error of Phi, and (but
for E9) Phi(0) = 1/2 exactly, so tiny inputs give x/2 exactly (half of all bfloat16 inputs lie in
|x| < 0.5: the mean depends on it).

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

Those are the "(improved)" methods. The seed's names are the seed's methods as far as its text
goes (its coefficients are not published), with the shared tail LUT below -3.5 and x -> x from 3,
or (A1 Pure, E9) the asymptotic tail below -3 and the mirror from 3, and the seed's fast exp:
    A1 Pure, A1 Poly-9, A1 Poly-7  GELU = x Q(x), degree 9 / 9 / 7, least maximum ABSOLUTE error
                 of GELU on [-4, 4] (``fit_seed_poly``; "minimax polynomial directly
                 approximating GELU", the seed's fits "over [-4, 4]").
    E9 Remez BF16  A1 Pure's polynomial with its coefficients rounded to bfloat16 (the seed's E9
                 row is A1 Pure's, near_zero 122 and core_neg 1211 alike).
    A3 Chebyshev   the Chebyshev series of Phi(4u), u = x/4, degree 12 (``seed_chebyshev``), the
                 seed's Clenshaw form Phi = b_0 - u b_1.
    A4 Cont.Frac   the S-fraction of depth 6 from the Taylor series of (Phi - 1/2)/x
                 (``seed_s_fraction``: its [2/3] Pade at 0, Viskovatov).

Measured (every input; bfloat16 max / mean, float16 max / mean) against the seed's bfloat16:
    A1 Pure         247 / 0.1855, 1975 / 11.98    seed 1211 / 2.83   (improved)  5 / 0.029
    A1 Poly-9     29892 / 1.2787, 9764 / 22.47    seed 1404 / 3.56   (improved) 87 / 0.1034
    A1 Poly-7     31036 / 26.99, 18918 / 152.8    seed 1547 / 3.58   (improved) 87 / 0.208
    E9 Remez BF16 30267 / 4.5654, 12754 / 39.48   seed 1211 / 2.83   (improved) 11 / 2.6114
    A3 Chebyshev    185 / 0.1283, 1474 / 4.2295   seed 1207 / 2.54   (improved) 87 / 0.0731
    A4 Cont.Frac    246 / 0.1186, 1966 / 3.5443   seed 1206 / 1.71   (improved) 87 / 0.0727
None reproduces the seed's row: its fits are not published. An absolute fit of GELU leaves the
negative side with absolute errors of 1e-4 against GELU(-3) = -4e-3 and GELU(-3.5) = -8e-4, so it
changes sign near -3 (Poly-9, E9) or -2.5 (Poly-7): tens of thousands of ulps, where the seed
shows about 1400. What the improvement buys is the relative-error fit of Phi (and Phi(0) = 1/2):
from 247 to 5 (A1 Pure), and down to the LUT's 87 for the others; the (improved) rows are:
    A1 Pure      5 / 0.029,   38 / 1.7588      A1 Poly-9    87 / 0.1034, 190 / 2.6402
    A1 Poly-7   87 / 0.208,  211 / 9.5446      E9 Remez BF16 11 / 2.6114, 83 / 18.038
    A3 Chebyshev 87 / 0.0731, 190 / 0.6541     A4 Cont.Frac 87 / 0.0727, 190 / 0.6343
The LUT-tailed ones are limited by the seed's tail LUT (87 ulps at -7.66, 190 in float16); the
polynomial cores by their degree (A1 Poly-9 6 ulps in the core, A1 Poly-7 27).
"""

from __future__ import annotations

import mpmath
import numpy as np

from ulplab.kit import fma
from ulplab.kit.ops import f32hex
from ulplab.methods.gelu.framing import (
    frame_params,
    lawson,
    make_kernel,
    measured,
    phi64,
    rational_fit,
)
from ulplab.methods.gelu.seed_table import seed_figures
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
# The seed's: GELU itself by an absolute minimax polynomial; Phi(4u) by its Chebyshev series;
# the S-fraction from the Taylor series
# ---------------------------------------------------------------------------------------------

# fit_seed_poly(9) and fit_seed_poly(7): q_0..q_(d-1) of GELU(x) ~ x (q_0 + q_1 x + ...), a
# degree-d polynomial through 0 with least maximum ABSOLUTE error on [-4, 4] (the seed's "minimax
# polynomial directly approximating GELU(x)", its fits "over [-4, 4]"), rounded to float32 (the
# even-index terms past q_1 are fit noise, kept as fitted)
SEED_A1_9 = (_h("0x1.000000p-1"), _h("0x1.792770p-2"), _h("0x1.bbd156p-42"), _h("-0x1.52af6ep-5"),
             _h("-0x1.42da00p-44"), _h("0x1.5d5040p-9"), _h("0x1.530000p-49"),
             _h("-0x1.0f2d14p-14"), _h("-0x1.000000p-54"))
SEED_A1_7 = (_h("0x1.000000p-1"), _h("0x1.4fbca4p-2"), _h("0x1.001000p-50"), _h("-0x1.928a64p-6"),
             _h("0x1.900000p-53"), _h("0x1.8a8d50p-11"), _h("0x1.000000p-53"))
# SEED_A1_9 each rounded to nearest-even bfloat16: the seed's E9 ("Remez BF16": its figures are
# A1 Pure's, so A1 Pure's polynomial with bfloat16 coefficients)
SEED_E9 = (_h("0x1.00p-1"), _h("0x1.7ap-2"), _h("0x1.bcp-42"), _h("-0x1.52p-5"), _h("-0x1.42p-44"),
           _h("0x1.5ep-9"), _h("0x1.54p-49"), _h("-0x1.10p-14"), _h("-0x1.00p-54"))
SEED_A1_PURE_TAIL = -3.0  # the seed's A1 Pure: its tail_neg (x < -3) max is 2, the series'
SEED_A3_DEGREE = 12       # our reading: the seed does not state the degree
SEED_A3_SCALE = 0.25      # u = x/4: [-4, 4] onto [-1, 1] (exact)


def fit_seed_poly(degree: int, lo: float = -4.0, hi: float = 4.0,
                  points: int = 4000) -> tuple[np.float32, ...]:
    """Fit time: q_0..q_(degree-1) of GELU ~ x sum q_k x^k, minimax absolute on [lo, hi]
    (Lawson, float64), rounded to float32 (regenerates SEED_A1_9, SEED_A1_7)."""
    x = np.linspace(lo, hi, points)
    basis = np.stack([x**k for k in range(1, degree + 1)], 1)
    return tuple(lawson(basis, x * phi64(x), np.ones_like(x)).astype(f32))


def seed_chebyshev(degree: int = SEED_A3_DEGREE, nodes: int = 4000) -> tuple[np.float32, ...]:
    """c_0..c_degree of the Chebyshev series of Phi(4u) on [-1, 1]: c_n = (2/M) sum_j
    Phi(4 cos t_j) cos(n t_j), t_j = (j + 1/2) pi/M (Gauss-Chebyshev, float64), c_0 halved;
    Phi(4u) - 1/2 is odd, so c_0 = 1/2 and the other even c_n are 0 exactly."""
    t = (np.arange(nodes) + 0.5) * np.pi / nodes
    f = phi64(4.0 * np.cos(t))
    c = [0.5] + [0.0 if n % 2 == 0 else 2.0 / nodes * float(np.sum(f * np.cos(n * t)))
                 for n in range(1, degree + 1)]
    return tuple(f32(v) for v in c)


def seed_s_fraction() -> tuple[np.float32, ...]:
    """a_0..a_5 of the seed's A4 fraction 1/2 + x a0/(1 + u a1/(1 + ... u a5)), u = x^2, from the
    Taylor series of (Phi(x) - 1/2)/x (its [2/3] Pade at 0, by Viskovatov's algorithm)."""
    with mpmath.workdps(40):
        c = [(-1) ** k / (mpmath.sqrt(2 * mpmath.pi) * 2**k * mpmath.factorial(k) * (2 * k + 1))
             for k in range(6)]
        pp, qq = mpmath.pade(c, 2, 3)
        p = np.array([float(v / qq[0]) for v in pp])
        q = np.array([float(v / qq[0]) for v in qq[1:]])
    return tuple(f32(a) for a in rational_to_cf(p, q))


SEED_A3 = seed_chebyshev()
SEED_A4 = seed_s_fraction()


def gelu_poly_core(x: np.ndarray, p: Params) -> np.ndarray:
    """GELU = x Q(x) directly (the seed's A1/E9), Q by the method's scheme."""
    return x * evaluate_poly(p.SCHEME, x, p.GELU_P)


def a3_seed_core(x: np.ndarray, p: Params) -> np.ndarray:
    """The seed's A3: u = x/4, Clenshaw b_k = c_k + 2u b_k+1 - b_k+2, Phi = b_0 - u b_1, x Phi."""
    u = SEED_A3_SCALE * x
    u2 = 2.0 * u
    b1 = np.zeros_like(x)
    b2 = np.zeros_like(x)
    for c in p.A3_CHEB[::-1]:
        b1, b2 = c + u2 * b1 - b2, b1
    return x * (b1 - u * b2)


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

_SEED_NOTES = {
    "A1 Pure": "seed 1211, measured 247 (core_neg, at -3): the seed's coefficients and fit "
    "interval are not published; an absolute minimax of GELU on [-4, 4] is read here",
    "A1 Poly-9": "seed 1404, measured 29892: the absolute fit of GELU changes sign near -3.5, "
    "where the LUT takes over (the seed's fit is not published)",
    "A1 Poly-7": "seed 1547, measured 31036: the absolute fit of GELU changes sign from -2.48 "
    "(the seed's fit is not published)",
    "E9 Remez BF16": "seed 1211, measured 30267: A1 Pure's polynomial with bfloat16 "
    "coefficients changes sign near -3 (the seed's coefficients are not published)",
    "A3 Chebyshev": "seed 1207, measured 185 (at -3.5): the seed does not state the degree; "
    "12 read here (degrees 8, 10 give 30234, 30268, 14 and 16 give 87)",
    "A4 Cont.Frac": "seed 1206, measured 246 (at -3.5): the fraction from the Taylor series at "
    "depth 6 (the seed's depth and a_k are not published)",
}
_IMPROVED_NOTES = {
    "A1 Pure": "the seed's A1 Pure as a minimax of Phi in relative error with Phi(0) = 1/2, "
    "mirror from 2.5: bfloat16 max 247 -> 5",
    "A1 Poly-9": "the seed's A1 Poly-9 as a minimax of Phi in relative error with Phi(0) = 1/2: "
    "29892 -> 87 (the LUT's)",
    "A1 Poly-7": "the seed's A1 Poly-7 as a minimax of Phi in relative error with Phi(0) = 1/2: "
    "31036 -> 87 (the LUT's)",
    "E9 Remez BF16": "the project fitter's bfloat16 lattice fit of erfc in relative error: "
    "30267 -> 11",
    "A3 Chebyshev": "the seed's A3 on [-3.5, 3] as a minimax in relative error: 185 -> 87 "
    "(the LUT's)",
    "A4 Cont.Frac": "the seed's A4 as a minimax [2/3] in the relative error of Phi(-|x|): "
    "246 -> 87 (the LUT's)",
}
_SEED_VARIANTS = (
    ("A1 Pure", "the seed's: GELU by a degree-9 polynomial, absolute minimax on [-4, 4]; "
     "asymptotic tail below -3, mirror from 3", gelu_poly_core, "GELU_P", SEED_A1_9, "pure",
     SEED_A1_PURE_TAIL, (247, 0.1855), (1975, 11.9762)),
    ("A1 Poly-9", "the seed's: GELU by a degree-9 polynomial, absolute minimax on [-4, 4]; "
     "tail LUT below -3.5, x>=3 -> x", gelu_poly_core, "GELU_P", SEED_A1_9, "lut", -3.5,
     (29892, 1.2787), (9764, 22.4656)),
    ("A1 Poly-7", "the seed's: GELU by a degree-7 polynomial, absolute minimax on [-4, 4]; "
     "tail LUT below -3.5, x>=3 -> x", gelu_poly_core, "GELU_P", SEED_A1_7, "lut", -3.5,
     (31036, 26.9886), (18918, 152.8396)),
    ("E9 Remez BF16", "the seed's: A1 Pure's polynomial with bfloat16 coefficients; asymptotic "
     "tail below -3, mirror from 3", gelu_poly_core, "GELU_P", SEED_E9, "pure",
     SEED_A1_PURE_TAIL, (30267, 4.5654), (12754, 39.4827)),
    ("A3 Chebyshev", "the seed's: Phi(4u) by its degree-12 Chebyshev series, Clenshaw; tail LUT "
     "below -3.5, x>=3 -> x", a3_seed_core, "A3_CHEB", SEED_A3, "lut", -3.5,
     (185, 0.1283), (1474, 4.2295)),
    ("A4 Cont.Frac", "the seed's: Phi = 1/2 + x S-fraction of depth 6 in x^2 from the Taylor "
     "series; tail LUT below -3.5, x>=3 -> x", a4_core, "A4_CF", SEED_A4, "lut", -3.5,
     (246, 0.1186), (1966, 3.5443)),
)
for _name, _idea, _core, _cname, _coeffs, _kind, _start, _bf16, _fp16 in _SEED_VARIANTS:
    register(built(
        "gelu", _name, _FAMILY[_name[:2]], _idea, make_kernel(_core, _kind),
        Params({_cname: coeffs(_coeffs), **frame_params(_kind, _start, 3.0, seed_exp=True)}),
        claims=measured(_bf16, _fp16),
        seed=seed_figures(_name),
        note=_SEED_NOTES.get(_name, ""),
    ))
for _name, _idea, _core, _cname, _coeffs, _kind, _mirror, _bf16, _fp16 in _VARIANTS:
    register(built(
        "gelu", f"{_name} (improved)", _FAMILY[_name[:2]], _idea, make_kernel(_core, _kind),
        Params({_cname: coeffs(_coeffs), **frame_params(_kind, -3.5, _mirror)}),
        claims=measured(_bf16, _fp16),
        seed=seed_figures(f"{_name} (improved)"),
        note=_IMPROVED_NOTES.get(_name, ""),
    ))
