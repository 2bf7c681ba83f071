"""erf and gelu (erf form): deterministic float32 kernels built on ``exp.exp_parts``.

Specification (every operation is IEEE float32 with round-to-nearest-even, FMA only where written
``fma``; dd = double-float pair hi + lo of float32; ``exp_neg_parts`` is ``logistic``'s,
``one_minus_scaled`` (1 - (q + ql) 2^m) and the Horner steps ``dd_horner_step`` and
``dd_horner_step_lazy`` are ``doublefloat``'s; every kernel ends in one round_result_scaled, in
the mode of ``core.rounding``):

erf_series(q, qe)  S(q) = erf(a)/a for q = a^2 = q + qe, a <= 1/2: S = sum_k ERF[k] q^k, k = 0..7,
    by Horner from the top: acc = ERF_HI[7] in float32, then k = 6 .. 0 as dd steps (see
    ``dd_horner_step``: acc = ERF[k] + (q + qe) acc, coefficient hi + lo). The term left to float32
    is below 2^-26 of S, so its rounding stays under 2^-50.
erfcx_parts(y, yl)  R(y) = e^(y^2) erfc(y) for 1/2 <= y <= 10.5 as a dd: piece i of
    [0.5, 1, 1.5, 2, 3, 4, 5.5, 7.5, 10.5] (i = number of bounds 1 .. 7.5 that y reaches),
    t = (y - CENTER[i]) + yl (y - CENTER[i] exact: Sterbenz), R = sum_k ERFCX[i][k] t^k, k = 0..12:
    k = 12 .. 10 in float32 with fma, k = 9 .. 0 as dd steps (terms below 2^-24 are left to
    float32).
dd_horner_step  (p, pe) = two_prod(ah, t); pe += ah tl + al t; (s, se) = two_sum(c_hi, p);
    se += pe + c_lo; (ah, al) = fast_two_sum(s, se).
exp_neg_dd(z, zl)  e^-(z + zl) = (h + l) 2^m: (h, l, m) = exp_neg_parts(z); d = -zl;
    (p, pe) = two_prod(h, d); (s, se) = two_sum(h, p); se += l + (pe + (l d + p (d/2)));
    fast_two_sum (e^d = 1 + d + d^2/2; the product h d exact, as |d| reaches 2^-17).
erfc_parts(y, yl, s, se)  erfc(y + yl) = (f + fl) 2^m, given s + se = (y + yl)^2 exactly as a
    dd: (h, l, m) = exp_neg_dd(s, se) (e^-(s + se)); (f, fl) = dd_mul(h, l, R).

erf(x)   (odd: computed for a = |x|, hi and lo negated when x has its sign bit set)
    1. NaN -> 0x7FC00000; ±inf -> ±1; ±0 -> ±0 (step 2 gives exactly 0).
    2. a < 1/2: a = n 2^e exactly from the bits (``exact_parts``: n the integer significand, e
       its exponent, -149 for subnormals); hi + lo = n S(a^2) as a dd: (q, qe) = two_prod(a, a);
       S = erf_series(q, qe); (hi, lo) = two_prod(n, S_hi); lo += n S_lo; fast_two_sum; m = e
       (no subnormal operand: erf(2^-149) = 2/sqrt(pi) 2^-149 rounds correctly).
    3. a >= 1/2: y = min(a, 4.5) (erfc(4.5) < 2^-32: erf of larger a has the same round-to-odd,
       just below 1, and the same nearest rounding, 1); (hi, lo) = 1 - erfc(y) by
       one_minus_scaled(erfc_parts(y, 0, two_prod(y, y))), the tiny distance to 1 kept as lo;
       m = 0.

gelu(x) = x Phi(x), Phi(x) = erfc(-x/sqrt2)/2
    1. NaN -> NaN; +inf -> +inf; -inf -> -0; x < -14.5 (``GELU_FLUSH``; |gelu(x)| < 2^-152
       there) -> -2^-149 in the odd mode (the round-to-odd of a tiny negative value), -0 in the
       nearest and flag modes;
       |x| < 2^-30 (on the bits): gelu(x) = x/2 + x^2/sqrt(2 pi) + ...: x = n 2^e exactly
       (``exact_parts``); hi = n, lo = +|n| 2^-40, m = e - 1 (x/2 on a subnormal midpoint, e.g.
       x = 2^-133 in bfloat16, rounds by the sign of x^2; ±0 -> ±0). Every mode.
    2. xc = min(max(x, -14.5), 9) (for x > 9, erfc(x/sqrt2)/2 < 2^-62 and x Phi(x) has the same
       round-to-odd as x Phi(9), and the same nearest rounding, x); y + yl = |xc|/sqrt2:
       (y, yl) = two_prod(|xc|, RS_HI); yl += |xc| RS_LO; fast_two_sum. y^2 = x^2/2 exactly:
       (q, qe) = two_prod(xc, xc) times 1/2 (from y + yl, whose error is 2^-49 relative, e^-y^2
       near y = 9 would lose 2^-42).
    3. y < 1/2: erf(y) = (y + yl) erf_series(q, qe) as dd_mul; Phi = (1 ± erf)/2 (two_sum(1,
       ±e), lo += ±el, fast_two_sum, times 1/2), + for x >= 0; scale 0.
       y >= 1/2: (f, fl, m) = erfc_parts(y, yl, q, qe); x >= 0: Phi = one_minus_scaled(f, fl,
       m - 1), scale 0;
       x < 0: Phi = f + fl, scale m - 1 (erfc for the negative tail: nothing cancels).
    4. gelu = x Phi (x itself for x > 9): (r, re) = two_prod(x, P); re += x Pl; fast_two_sum;
       round_result_scaled(r, re, scale).

Constants and their provenance (``python -m ulplab.analysis.kernel_tables erf`` regenerates every
literal with the fitter and compares it with the stored one; test-checked):
ERF_HI/ERF_LO: the real minimax of erf on [0, 1/2], relative error, monomials 1, 3, ..., 15, from
    the project's fitter: ``fit("erf", "0", "0.5", [1, 3, 5, 7, 9, 11, 13, 15],
    coefficients="exact", error="relative")`` = ``ulplab fit erf --interval 0 0.5 --monomials
    1,3,5,7,9,11,13,15 --coefficients exact --error relative`` (real error 6.3e-16 = 2^-50.5);
    each coefficient c (a float64) split as hi = RN32(c), lo = RN32(c - hi).
ERFCX_HI/ERFCX_LO: piece i, centre c = (A + B)/2: the real minimax (relative error, monomials
    0..12) of t -> erfc(c + t) e^((c + t)^2) on [A - c, B - c] from the fitter's Remez stage,
    ``ulplab.fit.remez.remez(f, A - c, B - c, range(13), relative=True)`` (128-bit mpmath; sup
    errors 2^-53.1, -55.8, -58.2, -48.6, -52.5, -49.1, -48.5, -46.3 on the eight pieces), each
    coefficient split as hi = RN32(c), lo = RN32(c - hi). (``fit`` itself only fits the
    catalogue's functions; erfcx is not one.) The recipes are ``ERF_FIT`` and ``erf_tables`` in
    ``ulplab.analysis.kernel_tables``: the kernel never imports the fitter.
RS_HI + RS_LO = 1/sqrt2 as float32 pair. Tables: 8 x 13 x 2 + 8 x 2 float32 (896 bytes).

Measured relative error of hi + lo (before the final rounding, away from the clamps and the tiny
cases, against mpmath at 140 bits): erf 2^-46.6 (9,000 random inputs over (0, 4.5], both signs),
gelu 2^-45.0 (15,000 over [-14.4, 9], x = -14.3 at worst: the erfcx piece [7.5, 10.5] fits to
2^-46.3). Accuracy (measured, registered): 0 ULP after nearest-even rounding to bfloat16,
float16, float8_e4m3fn and float8_e5m2 on every input; float32 results faithful on every input
checked in the odd mode.

Correctly rounded float32 (``rounding="float32"``): the nearest mode plus a table of exceptional
inputs (``kernels.exceptions``), found by a rounding test over all 2^32 inputs (``python -m
ulplab.analysis.cr_scan erf gelu``) with the bounds ``KERNELS[..]["bound"]``: erf 2^-44 (6
times the measured 2^-46.6), gelu 2^-42 (8 times the measured 2^-45.0). erf: 2,483,814
inputs undecided, 12 exceptions (0 wrong on 2*10^6 random inputs against the oracle); of the
undecided, 2,478,080 are the subnormal inputs, whose subnormal results core's test for scaled
subnormal results flags whenever hi 2^(m+149) ends in .5 (it flags |r| > 1/2 - slack, past the
midpoint too, not only ||r| - 1/2| < slack), so only 5,734 are undecided by the bound. gelu:
31,129 undecided, 20 exceptions over all 2^32 inputs (rescanned after the merge that made
``logistic.finish_half_x`` take x/2 from the bits in nearest mode; before it the tiny path's
positive rest was absorbed by core's nearest rounding of scaled subnormal results, (s - n) +
lo 2^t rounding to exactly 1/2 and the tie going to even, and the table held 32,788 entries).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ulplab.kernels.core import (
    FLAG_NAN,
    by_mode,
    canonical_nan_where,
    first_pass_scaled,
    pow2,
    round_result_scaled,
)
from ulplab.kernels.doublefloat import dd_horner_step, dd_horner_step_lazy, one_minus_scaled
from ulplab.kernels.exp import exp_first_parts
from ulplab.kernels.logistic import TINY_SUB, exact_parts, exp_neg_parts, finish_half_x
from ulplab.kit import dd_mul, fast_two_sum, fma, lookup, two_prod, two_sum

f32 = np.float32


def _hx(values: tuple[str, ...]) -> np.ndarray:
    return np.array([float.fromhex(v) for v in values], dtype=np.float64).astype(f32)


def _table(rows: tuple[tuple[str, ...], ...]) -> np.ndarray:
    """Pieces x coefficients, stored transposed: [k][piece] (gathered by piece index)."""
    return np.ascontiguousarray(np.array([_hx(r) for r in rows]).T)


ERF_HI = _hx((
    "0x1.20dd76p+0", "-0x1.812746p-2", "0x1.ce2f22p-4", "-0x1.b82ce2p-6", "0x1.565b8cp-8",
    "-0x1.c01c32p-11", "0x1.f70864p-14", "-0x1.c0a08p-17",
))
ERF_LO = _hx((
    "-0x1.f7ac92p-25", "-0x1.606c0ap-27", "-0x1.874f24p-30", "-0x1.f64574p-36", "-0x1.ac72e4p-34",
    "-0x1.424434p-36", "0x1.63ff96p-39", "0x1.6d293ep-43",
))
ERFCX_HI = _table((
    (
        "0x1.038d54p-1", "-0x1.78cdd6p-2", "0x1.d90094p-3", "-0x1.09e77ep-3", "0x1.1192f6p-4",
        "-0x1.054d68p-5", "0x1.d43a7cp-7", "-0x1.8c9802p-8", "0x1.3f818cp-9", "-0x1.ebee84p-11",
        "0x1.6b8dbp-12", "-0x1.08c3aep-13", "0x1.69c008p-15",
    ),
    (
        "0x1.78a692p-2", "-0x1.abaacep-3", "0x1.b56f46p-4", "-0x1.9b635ap-5", "0x1.68a25ap-6",
        "-0x1.299636p-7", "0x1.d1b696p-9", "-0x1.5b8bdap-10", "0x1.f0fe76p-12", "-0x1.55b26cp-13",
        "0x1.c56564p-15", "-0x1.289926p-16", "0x1.6fbe02p-18",
    ),
    (
        "0x1.23cfc2p-2", "-0x1.0c3d54p-3", "0x1.c8d0cep-5", "-0x1.6cb53p-6", "0x1.13648ap-7",
        "-0x1.8bf716p-9", "0x1.106bd6p-10", "-0x1.683892p-12", "0x1.cb4c6ep-14",
        "-0x1.1b213ap-15", "0x1.526dbep-17", "-0x1.8f3e6p-19", "0x1.c20d4ap-21",
    ),
    (
        "0x1.afbb4p-3", "-0x1.3086d8p-4", "0x1.98958ap-6", "-0x1.063208p-7", "0x1.435c04p-9",
        "-0x1.809ce8p-11", "0x1.ba8a68p-13", "-0x1.edd584p-15", "0x1.0bcc1p-16",
        "-0x1.1a8806p-18", "0x1.2317e8p-20", "-0x1.339206p-22", "0x1.2cf614p-24",
    ),
    (
        "0x1.3e0a9ap-3", "-0x1.5285d2p-5", "0x1.5d5812p-7", "-0x1.5e5d7ep-9", "0x1.563214p-11",
        "-0x1.460abep-13", "0x1.2f839ep-15", "-0x1.146c06p-17", "0x1.ed2ae8p-20",
        "-0x1.af2666p-22", "0x1.7228dap-24", "-0x1.4333f2p-26", "0x1.0b2ff8p-28",
    ),
    (
        "0x1.dc603ap-4", "-0x1.81149cp-6", "0x1.317c14p-8", "-0x1.dc1af8p-11", "0x1.6cc10cp-13",
        "-0x1.12f172p-15", "0x1.9818cp-18", "-0x1.2a6354p-20", "0x1.ae20c8p-23",
        "-0x1.3167f4p-25", "0x1.ac8926p-28", "-0x1.3942bp-30", "0x1.ab445ep-33",
    ),
    (
        "0x1.5f75c4p-4", "-0x1.a6e2dp-7", "0x1.f75ef8p-10", "-0x1.28788p-12", "0x1.59b292p-15",
        "-0x1.8f23fcp-18", "0x1.c8719ep-21", "-0x1.02906ap-23", "0x1.224794p-26",
        "-0x1.428726p-29", "0x1.63d5d4p-32", "-0x1.9db1fcp-35", "0x1.bfd90ap-38",
    ),
    (
        "0x1.fe6cc4p-5", "-0x1.c0466ap-8", "0x1.876374p-11", "-0x1.53c132p-14", "0x1.254382p-17",
        "-0x1.f77346p-21", "0x1.adc5fp-24", "-0x1.6ce9f4p-27", "0x1.342f4cp-30",
        "-0x1.023ffcp-33", "0x1.afbddp-37", "-0x1.85417p-40", "0x1.418952p-43",
    ),
))
ERFCX_LO = _table((
    (
        "0x1.d47b06p-26", "0x1.5c2362p-27", "-0x1.47bd88p-29", "0x1.7e2a76p-28",
        "-0x1.0a9268p-30", "-0x1.40e4f2p-33", "0x1.12fdap-32", "0x1.2b0b0cp-35", "0x1.023168p-34",
        "0x1.5a3ceep-36", "-0x1.1a6336p-38", "-0x1.660dbep-39", "0x1.c3b9dep-40",
    ),
    (
        "0x1.38767ap-30", "0x1.015d42p-29", "-0x1.10818cp-32", "-0x1.8c5334p-30",
        "0x1.98fa5ep-32", "-0x1.99d578p-32", "-0x1.4e0a22p-35", "-0x1.907f0cp-37",
        "0x1.67d168p-37", "0x1.bb319ap-38", "0x1.2b0b66p-42", "0x1.aeadb8p-44", "-0x1.15089ap-47",
    ),
    (
        "0x1.e3b8fcp-27", "0x1.eee6eep-29", "0x1.e1f022p-30", "0x1.b755a4p-34", "0x1.1ff6d2p-35",
        "-0x1.46d658p-34", "-0x1.006438p-36", "0x1.222f0cp-38", "-0x1.888988p-40",
        "0x1.ab88f2p-43", "0x1.a09068p-49", "-0x1.668ab2p-44", "-0x1.8e08aap-47",
    ),
    (
        "-0x1.891978p-28", "0x1.fcae48p-33", "0x1.ea3ab2p-32", "0x1.2e51b6p-32", "0x1.c3d2c4p-34",
        "0x1.dec2e2p-36", "-0x1.888d94p-38", "0x1.724a34p-40", "-0x1.9f3d1ep-41",
        "0x1.a4d768p-43", "-0x1.79a1c4p-46", "0x1.25c0ep-48", "0x1.26665ep-53",
    ),
    (
        "-0x1.7c45bcp-29", "-0x1.d63de4p-30", "-0x1.9990dcp-32", "-0x1.317f7cp-34",
        "-0x1.24d784p-36", "0x1.c44502p-38", "0x1.7b4632p-42", "-0x1.8eeec8p-44",
        "0x1.5aabcep-46", "0x1.5bfe66p-48", "0x1.bf07p-50", "-0x1.588aacp-53", "-0x1.d37e48p-56",
    ),
    (
        "0x1.f3bf4ep-31", "0x1.daf9b4p-33", "0x1.3e2d24p-34", "-0x1.0a289cp-36", "0x1.6a223ap-41",
        "-0x1.e7e23p-40", "-0x1.40dd2ep-43", "0x1.34cc18p-45", "0x1.a351d4p-54",
        "-0x1.a80ebap-50", "0x1.51db12p-57", "0x1.6a559cp-58", "-0x1.16bf56p-60",
    ),
    (
        "0x1.74b8b8p-31", "0x1.b10caap-32", "-0x1.7c13cp-36", "0x1.e0557p-37", "0x1.2f89bap-40",
        "-0x1.0c318ep-45", "0x1.f49ee6p-46", "-0x1.443b9ap-49", "0x1.9affeap-51",
        "0x1.1658f4p-57", "0x1.9045c2p-57", "-0x1.bf4692p-65", "0x1.8f0adap-63",
    ),
    (
        "0x1.41f2a6p-30", "0x1.8a277ap-34", "-0x1.6bfbe8p-40", "0x1.13aadap-40",
        "-0x1.f1b7a4p-42", "-0x1.f23f68p-46", "0x1.eccd66p-49", "0x1.8c47a4p-52",
        "-0x1.8dc27ep-56", "-0x1.bf8beep-58", "-0x1.944108p-63", "-0x1.a90c0ep-66",
        "-0x1.793d1p-68",
    ),
))
ERFCX_PIECES = ((0.5, 1.0), (1.0, 1.5), (1.5, 2.0), (2.0, 3.0), (3.0, 4.0), (4.0, 5.5),
                (5.5, 7.5), (7.5, 10.5))
ERFCX_DEGREE = 12
CENTERS = np.array([(a + b) / 2 for a, b in ERFCX_PIECES], dtype=np.float64).astype(f32)
BOUNDS = tuple(f32(a) for a, _ in ERFCX_PIECES[1:])
GELU_FLUSH = f32(-14.5)  # below it |gelu(x)| < 2^-152: -2^-149 (odd mode), -0 (nearest)
RS_HI = f32(float.fromhex("0x1.6a09e6p-1"))  # 1/sqrt2 rounded to float32
RS_LO = f32(float.fromhex("0x1.9fcef4p-27"))  # 1/sqrt2 - RS_HI rounded to float32
TABLE_BYTES = ERF_HI.nbytes + ERF_LO.nbytes + ERFCX_HI.nbytes + ERFCX_LO.nbytes
ERF_DD_STEPS = 7  # coefficients 0..6 of erf_series in double-float
ERFCX_DD_STEPS = 10  # coefficients 0..9 of erfcx_parts in double-float


def erf_series(q: np.ndarray, qe: np.ndarray, dd_steps: int = ERF_DD_STEPS,
               step: Callable[..., tuple[np.ndarray, np.ndarray]] = dd_horner_step
               ) -> tuple[np.ndarray, np.ndarray]:
    """erf(a)/a for a^2 = q + qe <= 1/4, as a dd (see the module docstring); the first pass
    asks for fewer double-float steps, made by ``dd_horner_step_lazy``."""
    n = len(ERF_HI)
    acc = np.full_like(q, ERF_HI[n - 1])
    for k in range(n - 2, dd_steps - 1, -1):
        acc = fma(acc, q, np.full_like(q, ERF_HI[k]))
    ah, al = acc, np.zeros_like(acc)
    for k in range(dd_steps - 1, -1, -1):
        ah, al = step(ah, al, q, qe, np.full_like(q, ERF_HI[k]), ERF_LO[k])
    return ah, al


def erfcx_parts(y: np.ndarray, yl: np.ndarray, dd_steps: int = ERFCX_DD_STEPS,
                step: Callable[..., tuple[np.ndarray, np.ndarray]] = dd_horner_step
                ) -> tuple[np.ndarray, np.ndarray]:
    """e^(y^2) erfc(y) for 1/2 <= y + yl <= 10.5, as a dd (piecewise, see the docstring); the
    first pass asks for fewer double-float steps, made by ``dd_horner_step_lazy``."""
    idx = np.zeros_like(y, dtype=np.int32)
    for b in BOUNDS:
        idx = idx + (y >= b).astype(np.int32)
    t = y - lookup(CENTERS, idx)
    n = ERFCX_DEGREE + 1
    acc = lookup(ERFCX_HI[n - 1], idx)
    for k in range(n - 2, dd_steps - 1, -1):
        acc = fma(acc, t, lookup(ERFCX_HI[k], idx))
    ah, al = acc, np.zeros_like(acc)
    for k in range(dd_steps - 1, -1, -1):
        ah, al = step(ah, al, t, yl, lookup(ERFCX_HI[k], idx), lookup(ERFCX_LO[k], idx))
    return ah, al


def exp_neg_dd(z: np.ndarray, zl: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """e^-(z + zl) = (h + l) 2^m for 0 <= z <= 200, |zl| <= 2^-23 z (a normalized dd): e^-z by
    ``exp_neg_parts`` times e^-zl = 1 + d + d^2/2 (d = -zl; d^3/6 < 2^-49 is dropped), with
    h d exact by two_prod: rounded in float32, h d (up to 2^-17 h) would cost 2^-41."""
    h, lw, m = exp_neg_parts(z)
    d = -zl
    p, pe = two_prod(h, d)
    s, se = two_sum(h, p)
    se = se + (lw + (pe + (lw * d + p * (d * f32(0.5)))))
    h, lw = fast_two_sum(s, se)
    return h, lw, m


def erfc_parts(y: np.ndarray, yl: np.ndarray, s: np.ndarray,
               se: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """erfc(y + yl) = (f + fl) 2^m for 1/2 <= y <= 10.5, given s + se = (y + yl)^2 (a dd)."""
    h, lw, m = exp_neg_dd(s, se)
    rh, rl = erfcx_parts(y, yl)
    f, fl = dd_mul(h, lw, rh, rl)
    return f, fl, m


def erf(x: np.ndarray) -> np.ndarray:
    """erf(x), float32 in -> float32 out (see the module docstring)."""
    with np.errstate(all="ignore"):
        a = np.abs(x)
        a = np.where(np.isnan(a), f32(0.0), a)
        # 2. a < 1/2, scaled by 2^64
        q, qe = two_prod(a, a)
        sh, sl = erf_series(q, qe)
        n, e = exact_parts(a)
        ph, pl = two_prod(n, sh)
        ph, pl = fast_two_sum(ph, pl + n * sl)
        # 3. a >= 1/2
        y = np.minimum(a, f32(4.5))
        r, rl = one_minus_scaled(*erfc_parts(y, np.zeros_like(y), *two_prod(y, y)))
        big = a >= f32(0.5)
        hi, lo = np.where(big, r, ph), np.where(big, rl, pl)
        m = np.where(big, 0, e)
        neg = np.signbit(x)
        y = round_result_scaled(np.where(neg, -hi, hi), np.where(neg, -lo, lo), m)
        y = np.where(x == np.inf, f32(1.0), y)
        y = np.where(x == -np.inf, f32(-1.0), y)
        return canonical_nan_where(np.isnan(x), y)


def gelu(x: np.ndarray) -> np.ndarray:
    """x Phi(x) = x erfc(-x/sqrt2)/2, float32 in -> float32 out (see the module docstring)."""
    with np.errstate(all="ignore"):
        xc = np.minimum(np.maximum(x, GELU_FLUSH), f32(9.0))
        xc = np.where(np.isnan(xc), f32(0.0), xc)
        s = np.abs(xc)
        y, yl = two_prod(s, np.full_like(s, RS_HI))
        y, yl = fast_two_sum(y, yl + s * RS_LO)
        pos = xc >= 0
        q, qe = two_prod(xc, xc)  # y^2 = x^2/2 exactly (no error of y + yl enters e^-y^2)
        q, qe = q * f32(0.5), qe * f32(0.5)
        # 3a. y < 1/2: Phi = (1 ± erf(y))/2
        sh, sl = erf_series(q, qe)
        eh, el = dd_mul(y, yl, sh, sl)
        eh, el = np.where(pos, eh, -eh), np.where(pos, el, -el)
        ph, pl = two_sum(np.full_like(eh, f32(1.0)), eh)
        ph, pl = fast_two_sum(ph, pl + el)
        ph, pl = ph * f32(0.5), pl * f32(0.5)
        # 3b. y >= 1/2: erfc
        f, fl, m = erfc_parts(np.maximum(y, f32(0.5)), yl, q, qe)
        r, rl = one_minus_scaled(f, fl, np.where(pos, m - 1, 0))
        qh, ql = np.where(pos, r, f), np.where(pos, rl, fl)
        qm = np.where(pos, 0, m - 1)
        small = y < f32(0.5)
        Ph, Pl = np.where(small, ph, qh), np.where(small, pl, ql)
        m = np.where(small, 0, qm)
        # 4. x Phi
        xs = np.where((x > f32(9.0)) & np.isfinite(x), x, xc)
        hi, lo = two_prod(xs, Ph)
        hi, lo = fast_two_sum(hi, lo + xs * Pl)
        y = finish_half_x(x, hi, lo, m, GELU_FLUSH)
        flushed = (x < GELU_FLUSH) & (x != -np.inf)  # -inf gives -0 in every mode
        return np.where(flushed, by_mode(-TINY_SUB, f32(-0.0)), y)


FIRST_PASS_BOUND = 2.0**-36
FIRST_ERF_DD = 4  # erf_series coefficients 0..3 as double-float steps in the first pass
FIRST_ERFCX_DD = 6  # erfcx coefficients 0..5 likewise
GELU_FIRST_LOW = f32(-12.5)  # below it the first pass leaves gelu to the second
GELU_IS_X = f32(9.0)  # above it gelu(x) rounds to x (Phi(9) > 1 - 2^-62)
GELU_HALF_X_BITS = 0x32000000  # 2^-27: 2^-125 <= |x| below it, gelu(x) rounds to x/2


def gelu_first_parts(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(h, l, m) with gelu(x) = (h + l) 2^m within ``FIRST_PASS_BOUND`` |h| (analysis in
    ``gelu_first_pass``), for -12.5 <= x <= 9 and |x| >= 2^-27; normalized."""
    s = np.abs(x)
    y, yl = two_prod(s, np.full_like(s, RS_HI))  # |x|/sqrt2
    yl = fma(s, np.full_like(s, RS_LO), yl)
    q, qe = two_prod(x, x)
    q, qe = q * f32(0.5), qe * f32(0.5)  # y^2 exactly
    pos = x >= 0
    # y < 1/2: Phi = (1 +- y S(y^2))/2
    sh, sl = erf_series(q, qe, FIRST_ERF_DD, dd_horner_step_lazy)
    eh, el = two_prod(y, sh)
    el = el + fma(y, sl, yl * sh)
    sign = np.where(pos, np.uint32(0), np.uint32(0x80000000))
    eh, el = (eh.view(np.uint32) ^ sign).view(f32), (el.view(np.uint32) ^ sign).view(f32)
    ph, pl = fast_two_sum(np.full_like(eh, f32(1.0)), eh)
    ph, pl = ph * f32(0.5), (pl + el) * f32(0.5)
    # y >= 1/2: erfc(y) = e^-y^2 erfcx(y) = (f + fl) 2^m
    h, lw, k = exp_first_parts(-q, normalize=False)
    d = -qe  # e^-qe = 1 + d + d^2/2
    lw = lw + h * fma(d, d * f32(0.5), d)
    rh, rl = erfcx_parts(y, yl, FIRST_ERFCX_DD, dd_horner_step_lazy)
    f, fl = two_prod(h, rh)
    fl = fl + fma(h, rl, lw * rh)
    m = (k >> 6) - 1  # Phi = erfc(y)/2 for x < 0
    sc = pow2(m)
    oh, ol = fast_two_sum(np.full_like(f, f32(1.0)), -(f * sc))  # 1 - erfc(y)/2 for x >= 0
    ol = ol - fl * sc
    qh, ql = np.where(pos, oh, f), np.where(pos, ol, fl)
    small = y < f32(0.5)
    big_ph, big_pl = np.where(small, ph, qh), np.where(small, pl, ql)
    m = np.where(small | pos, 0, m)
    gh, gl = two_prod(x, big_ph)
    gh, gl = fast_two_sum(gh, fma(x, big_pl, gl))
    return gh, gl, m


def gelu_first_pass(x: np.ndarray) -> np.ndarray:
    """The compiled float32 runner's first pass of gelu: ``gelu``'s evaluation with fewer
    double-float steps, ``exp.exp_first_parts`` for e^-y^2 and no squaring branch, its own
    bound ``FIRST_PASS_BOUND`` = 2^-36, finished by ``core.first_pass_scaled``: the correctly
    rounded gelu(x), or ``FLAG_NAN`` where the second pass (the whole entry point) decides —
    hi + lo within the bound of a midpoint, x in [-14.5, -12.5), |x| < 2^-125, and the rare
    hi that is a power of two. Selects: 2^-125 <= |x| < 2^-27 -> x/2 (x^2/sqrt(2 pi) is far
    below half its ulp, and positive), x > 9 -> x (+inf included), x < -14.5 -> -0 (-inf
    included), NaN -> NaN.

    As ``gelu`` (y + yl = |x|/sqrt2, y^2 = x^2/2 exactly), with: erf_series's first four
    coefficients (``FIRST_ERF_DD``) and erfcx's first six (``FIRST_ERFCX_DD``) as
    double-float Horner steps (the rest in float32; with three and four the error measured
    2^-33.4, with seven and ten no better than these at x < -10.6),
    each step's sum by fast_two_sum and left unnormalized; e^-y^2 = e^-q (1 - qe + qe^2/2)
    from exp's first pass (q <= 78.2 here); erfc = e^-y^2 erfcx by two_prod plus cross terms;
    1 - erfc/2 by fast_two_sum for x >= 0. Error of h + l: measured max 2^-38.78 (x = -11.86;
    2^-38.80 with another seed) over 2 x 2^22 random inputs (half uniform over [-12.5, 9],
    half log-uniform in magnitude 2^-27 to 12.5, both signs) against Arb (``python -m
    ulplab.analysis.first_pass gelu``), a factor 6.9 under the bound. The runner's output is
    the entry point's on every float32 input: ``benchmarks/verify_native.py gelu`` (all 2^32,
    0 mismatches)."""
    with np.errstate(all="ignore"):
        b = x.view(np.uint32)
        mag = b & np.uint32(0x7FFFFFFF)
        inside = (x >= GELU_FIRST_LOW) & (x <= GELU_IS_X) & (mag >= np.uint32(GELU_HALF_X_BITS))
        h, lo, m = gelu_first_parts(np.where(inside, x, f32(1.0)))
        y = first_pass_scaled(h, lo, m, FIRST_PASS_BOUND).view(np.uint32)
        half = (mag - np.uint32(0x01000000)) < np.uint32(GELU_HALF_X_BITS - 0x01000000)
        special = np.where(half, (x * f32(0.5)).view(np.uint32), FLAG_NAN)
        special = np.where(x > GELU_IS_X, b, special)
        special = np.where(x < GELU_FLUSH, np.uint32(0x80000000), special)
        special = np.where(mag > np.uint32(0x7F800000), np.uint32(0x7FC00000), special)
        return np.where(inside, y, special).view(np.float32)


KERNELS = [
    {"function": "erf", "impl": erf, "table_bytes": TABLE_BYTES + 512, "bound": 2.0**-44,
     "idea": "odd minimax (double-float Horner) below 1/2; 1 - e^-x^2 erfcx(x), 8 pieces, above"},
    {"function": "gelu", "impl": gelu, "table_bytes": TABLE_BYTES + 512, "bound": 2.0**-42,
     "first_pass": gelu_first_pass,
     "idea": "x (1 ± erf(|x|/sqrt2))/2 near 0; x erfc(-x/sqrt2)/2 by e^-y^2 erfcx(y) elsewhere"},
]
"""What ``ulplab.methods.det`` registers from this module (ops: float32 operations per
element, counted by running the kernel under a counting Float32Guard; every branch is computed
for every element, so the counts cover all of them; fma counted once each)."""
