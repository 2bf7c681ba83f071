"""sin and cos: deterministic float32 kernels, correctly rounded on every bfloat16/float16 input.

Specification (the evaluation order is part of it; every operation is IEEE float32 with
round-to-nearest-even, FMA only where written ``fma``; integer steps on uint32/int32):

1. Special values by encoding: NaN -> 0x7FC00000; ±inf -> 0x7FC00000 (sin and cos of an
   infinity are invalid). sin(±0) = ±0, cos(±0) = 1, both exact.
2. Tiny |x| < 2^-12, decided on the bits (a subnormal x is never an arithmetic operand, so
   flushing hardware gives the same bits): sin x = x - x^3/6 lies strictly between x and its
   float32 neighbour toward zero, less than half an ulp from x (x^2/6 < 2^-26.5 relative, and
   the gap below a power of two is still 2^-25 relative), so its round-to-odd (odd mode) is x
   when x's encoding is odd and the neighbour toward zero (encoding - 1) when it is even, and
   its nearest rounding (nearest and flag modes) is x; ±0 stay.
   cos x = 1 - x^2/2 lies in (1 - 2^-25, 1), above the midpoint 1 - 2^-25 below 1: its
   round-to-odd is 0x3F7FFFFF (odd mode), its nearest rounding 1 (other modes); 1 for x = ±0.
   Both thresholds hold in every mode.
3. Reduction x = q pi/2 + r, |r| <= pi/4 (1 + 2^-10), q taken mod 4 (``reduction.reduce_pio2``):
   a. |x| < 2^12, Cody-Waite with pi/2 = C1 + C2 + C3 + C4 (C1 has 12 bits, the others are the
      float32 roundings of what is left; what the four miss is < 2^-93):
      q = rint(x * TWO_OVER_PI); r1 = x - q C1 (q C1 exact as |q| < 2^12, the difference exact
      by Sterbenz); (p2, e2) = two_prod(q, C2); (p3, e3) = two_prod(q, C3); p4 = q C4;
      (s, a1) = two_sum(r1, -p2); (s, a2) = two_sum(s, -p3); (s, a3) = two_sum(s, -e2);
      lo = ((a1 + a2) + a3) + (-e3 - p4); (rh, rl) = fast_two_sum(s, lo).
   b. |x| >= 2^12, Payne-Hanek in exact integer arithmetic on 16-bit limbs held in uint32
      (``reduction.payne_hanek_pio2``): |x| = M 2^E (M the 24-bit significand); the 112 bits
      of 2/pi from weight 2^(1-E) down (bits above it only add multiples of 4 to x 2/pi), read
      from the 256-bit literal ``TWO_OVER_PI_HEX`` behind 32 zero bits, times M, exactly, as
      nine 16-bit limbs P with x 2/pi = P 2^-110 mod 4 (truncation < 2^-87). q = the integer
      part mod 4, rounded to nearest with the fraction (a fraction >= 1/2 is replaced by its
      110-bit two's complement, exact, and q += 1); the fraction's seven limbs, each an exact
      float32, summed from the least significant by two_sum into a double-float f, |f| <= 1/2;
      r = f pi/2 by dd_mul(fh, fl, PIO2_HI, PIO2_LO); x < 0 negates r and q. Over all
      float32 |x| >= 1/2 the smallest |x 2/pi - q| is 2^-29.86 (x = 0x6f79be45, found by an
      exhaustive search), so the truncation costs < 2^-57 relative; dd_mul's 2^-47 dominates.
4. r = a + t with a = j/128, j = rint(128 rh) (|j| <= 101), (th, tl) = fast_two_sum(rh - a, rl)
   (rh - a exact), |t| <= 2^-8. Tables (``sincos_table``, mpmath at import, each value rounded
   once as hi = RN(v), lo = RN(v - hi)): SIN_HI/LO[|j|] = sin(|j|/128), COS_HI/LO[|j|] =
   cos(|j|/128); S_a = sign(j) SIN[|j|], C_a = COS[|j|]. 102 x 4 float32 = 1632 bytes.
5. u = cos t - 1 and v = sin t as double-floats (Taylor, truncations < 2^-57 relative):
   (t2h, t2l) = two_prod(th, th); t2l = t2l + 2 th tl;
   uh = -t2h/2; ul = -t2l/2 + (t2h t2h) K4   (K4 = RN(1/24));
   (c3, c3e) = two_prod(th, t2h); c3e = c3e + (th t2l + tl t2h)   (t^3);
   (p, pe) = fast_two_sum(K3, t2h K5); pe = pe + K3_LO   (-1/6 + t^2/120, K3 + K3_LO = -1/6);
   (ch, cl) = two_prod(c3, p); cl = cl + (c3 pe + c3e p);
   (vh, vl) = two_sum(th, ch); vl = vl + (tl + cl); (vh, vl) = fast_two_sum(vh, vl).
6. Quadrant: Q = q for sin, q + 1 for cos (cos x = sin(x + pi/2)), mod 4. With A, B =
   (S_a, C_a) for even Q (the result is ±sin r = ±(S_a cos t + C_a sin t)) and (C_a, -S_a) for
   odd Q (±cos r): w = A + (A u + B v), evaluated as
   (bv, bve) = dd_mul(B, v); (au, aue) = two_prod(A_hi, uh); aue = aue + (A_hi ul + A_lo uh);
   (s, c1) = two_sum(A_hi, bv); (s, c2) = two_sum(s, au);
   lo = (c1 + c2) + ((bve + aue) + A_lo); (h, l) = fast_two_sum(s, lo);
   negated when Q is 2 or 3; result = round_result(h, l).

``sincos(x)`` runs steps 1 to 5 once and step 6 for both Q; its outputs are bit-identical to
sin(x) and cos(x) (the same operations on the same values). h + l is sin x or cos x to about
2^-46 relative (measured against mpmath on random inputs and on the hardest reduction cases:
2^-46.0 at worst seen); Cody-Waite and Payne-Hanek agree to 2^-45.2 on every float32 in
[2^-7, 2^12) (checked exhaustively).

Accuracy (measured by the tests and registered): 0 ULP after nearest-even rounding to bfloat16,
float16 and both fp8 formats on every input; float32 results within 1 ulp (faithful) in the odd
mode.

Correctly rounded float32 (``rounding="float32"``): the nearest mode of step 6 plus a table of
exceptional inputs (``kernels.exceptions``), found by a rounding test over all 2^32 inputs
(``python -m ulplab.analysis.cr_scan sin cos``) with the bound ``KERNELS[..]["bound"]`` =
2^-43: 8 times the largest relative error of h + l measured against mpmath (2^-46.0 on
random inputs over every binade, 2^-46.6 on the hard reduction cases of
tests/kernel_checks.py). sin: 8,786 inputs undecided, 90 exceptions; cos: 8,834 undecided, 74
exceptions (each checked on 2*10^6 random inputs against the oracle: 0 wrong).
"""

from __future__ import annotations

import numpy as np
from mpmath import mp, mpf

from ulplab.kernels.core import (
    FLAG_NAN,
    by_mode,
    canonical_nan_where,
    first_pass_result,
    round_result,
    tiny_magnitude,
)
from ulplab.kernels.reduction import CW_LIMIT as CW_LIMIT  # re-exported: step 3's constants
from ulplab.kernels.reduction import (
    CW_LIMIT_BITS,
    LIMBS_BYTES,
    PIO2_HI,
    PIO2_LO,
    TWO_OVER_PI,
    pio2_constants,
    reduce_pio2,
)
from ulplab.kernels.reduction import PIO2_C1 as PIO2_C1
from ulplab.kernels.reduction import PIO2_C2 as PIO2_C2
from ulplab.kernels.reduction import PIO2_C3 as PIO2_C3
from ulplab.kernels.reduction import PIO2_C4 as PIO2_C4
from ulplab.kernels.reduction import TWO_OVER_PI_HEX as TWO_OVER_PI_HEX
from ulplab.kernels.reduction import two_over_pi_hex as two_over_pi_hex
from ulplab.kit import dd_mul, fast_two_sum, fma, lookup, two_prod, two_sum
from ulplab.kit.ops import f32hex

f32 = np.float32
u32 = np.uint32
Pair = tuple[np.ndarray, np.ndarray]  # a double-float (hi, lo)
Parts = tuple[Pair, Pair, Pair, Pair]  # S_a, C_a, u, v of steps 4 and 5
Prepared = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, Parts]


_h = f32hex  # exact hex literal -> float32


K3 = _h("-0x1.555556p-3")  # -1/6 rounded to float32
K3_LO = _h("0x1.555556p-28")  # -1/6 - K3 rounded to float32
K5 = _h("0x1.111112p-7")  # 1/120 rounded to float32
K4 = _h("0x1.555556p-5")  # 1/24 rounded to float32
TINY_BITS = 0x39800000  # 2^-12
ONE = u32(0x3F800000)  # 1.0
ONE_DOWN = u32(0x3F7FFFFF)  # 1 - 2^-24, the odd neighbour of 1 below it
N_TABLE = 102  # j = 0 .. 101


def split_constants() -> dict[str, float]:
    """Regenerate the float32 constants of steps 3 and 5 from mpmath (test-checked): the pi/2
    splits (``reduction.pio2_constants``) and K3, K3_LO, K4, K5."""
    def rn(v: mpf) -> float:
        return float(f32(float(v)))

    with mp.workprec(300):
        third = mpf(-1) / 6
        return {**pio2_constants(), "K3": rn(third), "K3_LO": rn(third - mpf(rn(third))),
                "K5": rn(mpf(1) / 120), "K4": rn(mpf(1) / 24)}


def sincos_table(n: int = N_TABLE) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(SIN_HI, SIN_LO, COS_HI, COS_LO) of a = j/128, j = 0..n-1 (hi = RN(v), lo = RN(v - hi))."""
    out = [np.empty(n, f32) for _ in range(4)]
    with mp.workprec(200):
        for j in range(n):
            a = mpf(j) / 128
            for k, v in enumerate((mp.sin(a), mp.cos(a))):
                out[2 * k][j] = f32(float(v))
                out[2 * k + 1][j] = f32(float(v - mpf(float(out[2 * k][j]))))
    return out[0], out[1], out[2], out[3]


SIN_HI, SIN_LO, COS_HI, COS_LO = sincos_table()
TABLE_BYTES = SIN_HI.nbytes * 4 + LIMBS_BYTES


def _tables_and_t(rh: np.ndarray, rl: np.ndarray) -> Parts:
    """Steps 4 and 5: (S_a, C_a) as (hi, lo) pairs, u = cos t - 1 and v = sin t."""
    j = np.rint(rh * f32(128.0))
    th, tl = fast_two_sum(rh - j * f32(1.0 / 128), rl)
    ji = np.abs(j).astype(np.int32)
    sgn = np.where(j < 0, f32(-1.0), f32(1.0))
    sa = (sgn * lookup(SIN_HI, ji), sgn * lookup(SIN_LO, ji))
    ca = (lookup(COS_HI, ji), lookup(COS_LO, ji))
    t2h, t2l = two_prod(th, th)
    t2l = t2l + f32(2.0) * th * tl
    uh = -t2h * f32(0.5)
    ul = -t2l * f32(0.5) + (t2h * t2h) * K4
    c3, c3e = two_prod(th, t2h)
    c3e = c3e + (th * t2l + tl * t2h)
    p, pe = fast_two_sum(np.full_like(th, K3), t2h * K5)
    pe = pe + K3_LO
    ch, cl = two_prod(c3, p)
    cl = cl + (c3 * pe + c3e * p)
    vh, vl = two_sum(th, ch)
    vh, vl = fast_two_sum(vh, vl + (tl + cl))
    return sa, ca, (uh, ul), (vh, vl)


def combine_quadrant(big_q: np.ndarray, sa: Pair, ca: Pair, u: Pair, v: Pair) -> Pair:
    """Step 6 for quadrant Q (int32): (h, l), sin(x) when Q = q and cos(x) when Q = q + 1,
    from the parts of ``prepare_sincos`` (the dd sin x or cos x before its rounding, to about
    2^-46 relative; tan divides the two)."""
    odd = (big_q & 1) == 1
    ah, al = np.where(odd, ca[0], sa[0]), np.where(odd, ca[1], sa[1])
    bh, bl = np.where(odd, -sa[0], ca[0]), np.where(odd, -sa[1], ca[1])
    bv, bve = dd_mul(bh, bl, v[0], v[1])
    au, aue = two_prod(ah, u[0])
    aue = aue + (ah * u[1] + al * u[0])
    s, c1 = two_sum(ah, bv)
    s, c2 = two_sum(s, au)
    lo = (c1 + c2) + ((bve + aue) + al)
    h, low = fast_two_sum(s, lo)
    neg = (big_q & 2) == 2
    return np.where(neg, -h, h), np.where(neg, -low, low)


def prepare_sincos(x: np.ndarray, payne_hanek: bool = True) -> Prepared:
    """Steps 1 to 5 shared by sin, cos and sincos (and tan): (bad, b, tiny, q, parts) with bad
    the NaN/inf lanes, b the input's bits, tiny the lanes of step 2, q the quadrant of step 3
    and parts = (S_a, C_a, u, v) of steps 4 and 5, for ``combine_quadrant``. Without
    ``payne_hanek``, valid for |x| < 2^12 only."""
    b = x.view(u32)
    bad = (b & u32(0x7FFFFFFF)) >= u32(0x7F800000)
    tiny = tiny_magnitude(x, TINY_BITS)
    q, rh, rl = reduce_pio2(np.where(tiny | bad, f32(1.0), x), payne_hanek)
    return bad, b, tiny, q, _tables_and_t(rh, rl)


def _finish_sin(prep: Prepared) -> np.ndarray:
    bad, b, tiny, q, parts = prep
    y = round_result(*combine_quadrant(q, *parts)).view(u32)
    keep = ((b & u32(1)) == 1) | ((b & u32(0x7FFFFFFF)) == 0)
    y_tiny = by_mode(np.where(keep, b, b - u32(1)), b)  # step 2 (odd, nearest)
    return canonical_nan_where(bad, np.where(tiny, y_tiny, y).view(f32))


def _finish_cos(prep: Prepared) -> np.ndarray:
    bad, b, tiny, q, parts = prep
    y = round_result(*combine_quadrant(q + np.int32(1), *parts)).view(u32)
    y_tiny = np.where((b & u32(0x7FFFFFFF)) == 0, u32(0x3F800000), by_mode(ONE_DOWN, ONE))
    return canonical_nan_where(bad, np.where(tiny, y_tiny, y).view(f32))


def sin(x: np.ndarray) -> np.ndarray:
    """sin x, float32 in -> float32 out (see the module docstring for the specification)."""
    with np.errstate(all="ignore"):
        return _finish_sin(prepare_sincos(x))


def cos(x: np.ndarray) -> np.ndarray:
    """cos x, float32 in -> float32 out (see the module docstring)."""
    with np.errstate(all="ignore"):
        return _finish_cos(prepare_sincos(x))


def sin_below_2p12(x: np.ndarray) -> np.ndarray:
    """sin x for |x| < 2^12 only: the bits of ``sin`` there, without the Payne-Hanek reduction
    (the compiled runner's fast path, ``export.native``)."""
    with np.errstate(all="ignore"):
        return _finish_sin(prepare_sincos(x, payne_hanek=False))


def cos_below_2p12(x: np.ndarray) -> np.ndarray:
    """cos x for |x| < 2^12 only (as ``sin_below_2p12``)."""
    with np.errstate(all="ignore"):
        return _finish_cos(prepare_sincos(x, payne_hanek=False))


def sincos(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(sin x, cos x) with one reduction; bit-identical to sin(x) and cos(x)."""
    with np.errstate(all="ignore"):
        prep = prepare_sincos(x)
        return _finish_sin(prep), _finish_cos(prep)


# The first pass's polynomials: Taylor coefficients of (sin r - r)/r^3 and (cos r - 1)/r^2 in
# z = r^2 (-1/3!, 1/5!, ... and -1/2!, 1/4!, ...), each as hi = RN(c), lo = RN(c - hi)
# (``first_pass_constants``); the first three as pairs, the rest as hi only.
SIN_K = ((_h("-0x1.555556p-3"), _h("0x1.555556p-28")), (_h("0x1.111112p-7"), _h("-0x1.dddddep-32")),
         (_h("-0x1.a01a02p-13"), _h("0x1.7f97fap-39")), _h("0x1.71de3ap-19"),
         _h("-0x1.ae6456p-26"), _h("0x1.612462p-33"))
COS_K = ((_h("-0x1p-1"), _h("0x0p+0")), (_h("0x1.555556p-5"), _h("-0x1.555556p-30")),
         (_h("-0x1.6c16c2p-10"), _h("0x1.27d27ep-35")), _h("0x1.a01a02p-16"),
         _h("-0x1.27e4fcp-22"), _h("0x1.1eed8ep-29"))
FIRST_PASS_BOUND = 2.0**-37
PIO2_C3_FIRST = _h("-0x1.ee59dap-50")  # pi/2 - PIO2_HI - PIO2_LO rounded to float32
SHIFTER = _h("0x1.8p+23")  # v + 1.5 2^23 rounds v to an integer held in the low bits


def first_pass_constants() -> dict[str, tuple]:
    """Regenerate SIN_K and COS_K from mpmath at 200 bits (test-checked)."""
    def pair(v: mpf) -> tuple[float, float]:
        hi = float(f32(float(v)))
        return hi, float(f32(float(v - mpf(hi))))

    with mp.workprec(200):
        out = {}
        for name, first in (("SIN_K", 3), ("COS_K", 2)):
            ks = [mpf(-1) ** (n + 1) / mp.factorial(first + 2 * n) for n in range(6)]
            out[name] = tuple(pair(k) if n < 3 else pair(k)[0] for n, k in enumerate(ks))
        return out


def _dd_horner_step(zh: np.ndarray, zl: np.ndarray, kh: np.ndarray, kl: np.ndarray,
                    th: np.ndarray, tl: np.ndarray) -> Pair:
    """k + z t as a double-float, for |z t| <= |k| (fast_two_sum)."""
    p, pe = two_prod(zh, th)
    pe = pe + fma(zh, tl, zl * th)
    s, se = fast_two_sum(kh, p)
    return s, se + (pe + kl)


def _cody_waite_first(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(q, rh, rl) with x = q pi/2 + rh + rl for |x| < 2^12, the first pass's reduction: three
    parts of pi/2 instead of four, the first by one exact FMA."""
    v = x * TWO_OVER_PI + SHIFTER  # q = rint(x 2/pi), held in v's low bits
    q = v - SHIFTER
    t = fma(-q, np.full_like(q, PIO2_HI), x)  # exact (``sin_first_pass``)
    p2, e2 = two_prod(q, np.full_like(q, PIO2_LO))
    rh, a = two_sum(t, -p2)
    return v.view(np.int32) - SHIFTER.view(np.int32), rh, a - (e2 + q * PIO2_C3_FIRST)


def trig_first_parts(x: np.ndarray, cosine: bool) -> Pair:
    """(h, l) of ``sin_first_pass`` (cosine False) or ``cos_first_pass``: sin x or cos x as a
    normalized double-float within ``FIRST_PASS_BOUND`` |h|, for 2^-12 <= |x| < 2^12."""
    q, rh, rl = _cody_waite_first(x)
    big_q = q + np.int32(1) if cosine else q
    c = (big_q & 1) == 1  # this lane evaluates cos r (else sin r)

    def coef(k: int, part: int = -1) -> np.ndarray:
        cv = COS_K[k] if part < 0 else COS_K[k][part]
        sv = SIN_K[k] if part < 0 else SIN_K[k][part]
        return np.where(c, cv, sv)

    zh, zl = two_prod(rh, rh)
    zl = fma(rh + rh, rl, zl)  # z = r^2
    t4 = fma(fma(coef(5), zh, coef(4)), zh, coef(3))
    t3h, t3l = fast_two_sum(coef(2, 0), zh * t4)
    t3l = t3l + coef(2, 1)
    t2h, t2l = _dd_horner_step(zh, zl, coef(1, 0), coef(1, 1), t3h, t3l)
    t1h, t1l = _dd_horner_step(zh, zl, coef(0, 0), coef(0, 1), t2h, t2l)
    ph, pl = two_prod(zh, t1h)  # z P(z)
    pl = pl + fma(zh, t1l, zl * t1h)
    ah, al = np.where(c, f32(1.0), rh), np.where(c, f32(0.0), rl)  # f = A + A z P(z)
    mh, ml = two_prod(ah, ph)
    ml = ml + fma(ah, pl, al * ph)
    sh, sl = fast_two_sum(ah, mh)
    h, low = fast_two_sum(sh, sl + (ml + al))
    sign = ((big_q & 2) << 30).astype(u32)  # negated for Q = 2, 3
    return (h.view(u32) ^ sign).view(f32), (low.view(u32) ^ sign).view(f32)


def _trig_first_pass(x: np.ndarray, cosine: bool) -> np.ndarray:
    with np.errstate(all="ignore"):
        b = x.view(u32)
        mag = b & u32(0x7FFFFFFF)
        # lanes outside [2^-12, 2^12) compute garbage (no table is read; every integer step
        # wraps) and are all replaced below
        y = first_pass_result(*trig_first_parts(x, cosine), FIRST_PASS_BOUND).view(u32)
        y = np.where(mag < u32(TINY_BITS), ONE if cosine else b, y)
        y = np.where(mag >= u32(CW_LIMIT_BITS), FLAG_NAN, y)
        return np.where(mag > u32(0x7F7FFFFF), u32(0x7FC00000), y).view(f32)


_FIRST_PASS_DOC = """The compiled float32 runner's first pass of {f}: no table, one polynomial per
    lane, its own bound ``FIRST_PASS_BOUND`` = 2^-37, finished by ``core.first_pass_result``: the
    correctly rounded {f}(x), or ``FLAG_NAN`` where the second pass (the whole entry point)
    decides — h + l within the bound of a midpoint, |x| >= 2^12 (Payne-Hanek), and the rare
    h that is a power of two. Selects: |x| < 2^-12 -> {tiny} (step 2), inf and NaN -> NaN.

    Reduction x = q pi/2 + r, r = rh + rl (|r| <= pi/4 (1 + 2^-10)), q = rint(x 2/pi) by the
    shifter (as exp's first pass), three parts of pi/2: t = fma(-q, PIO2_HI, x) is exact
    (q != 0 needs |x| > 0.78, so x and q PIO2_HI are multiples of 2^-24, and |t| < 1), then
    t - q PIO2_LO by two_prod and two_sum, less q PIO2_C3_FIRST (rounding 2^-61; what the
    three parts miss, 2^-76.3 q, is under 2^-64);
    then the quadrant Q ({q}) picks, per lane, sin r = r + r z P_s(z) or cos r = 1 + z P_c(z),
    z = r^2 as a double-float, by selecting the coefficients (``SIN_K``/``COS_K``: Taylor to
    r^13 and r^12, truncation under 2^-41 relative at pi/4): P by Horner from the top, the
    last two terms in float32 (under 2^-18 of the result), the next as hi + lo, the first
    two as double-float steps (two_prod with z, fast_two_sum with the coefficient: each
    product is below its coefficient in magnitude); then A + A z P by two_prod and two
    fast_two_sum (A = r or 1), negated for Q = 2, 3. Error of h + l: measured max
    2^-39.35 (sin), 2^-39.37 (cos) over 2^22 random inputs (half uniform over [-2^12, 2^12],
    half log-uniform in magnitude 2^-12 to 2^12, both signs) against Arb
    (``python -m ulplab.analysis.first_pass {f}``), a factor 5 under the bound. The runner's output
    is the entry point's on every float32 input: ``benchmarks/verify_native.py {f}`` (all
    2^32, 0 mismatches)."""


def sin_first_pass(x: np.ndarray) -> np.ndarray:
    return _trig_first_pass(x, False)


def cos_first_pass(x: np.ndarray) -> np.ndarray:
    return _trig_first_pass(x, True)


sin_first_pass.__doc__ = _FIRST_PASS_DOC.format(f="sin", tiny="x", q="q")
cos_first_pass.__doc__ = _FIRST_PASS_DOC.format(f="cos", tiny="1", q="q + 1")


KERNELS = [
    {"function": "sin", "impl": sin, "table_bytes": TABLE_BYTES, "bound": 2.0**-43,
     "fast_path": (CW_LIMIT_BITS, sin_below_2p12), "first_pass": sin_first_pass,
     "idea": "Cody-Waite pi/2 in 4 parts below 2^12, integer Payne-Hanek above; "
             "sin/cos(j/128) table (double-float) x Taylor in t, |t| <= 2^-8"},
    {"function": "cos", "impl": cos, "table_bytes": TABLE_BYTES, "bound": 2.0**-43,
     "fast_path": (CW_LIMIT_BITS, cos_below_2p12), "first_pass": cos_first_pass,
     "idea": "sin's reduction and table, quadrant shifted by one (cos x = sin(x + pi/2))"},
]
"""What ``ulplab.methods.det`` registers from this module (sincos is a plain function)."""
