"""sigmoid, silu and softplus: deterministic float32 kernels built on ``exp.exp_parts``.

Specification (every operation is IEEE float32 with round-to-nearest-even, FMA only where written
``fma``; dd = double-float pair hi + lo of float32; every kernel ends in one ``round_result`` or
``round_result_scaled``, which rounds hi + lo in the mode of ``core.rounding``: round-to-odd by
default, nearest-even for the float32 entry point; special values that differ by mode are marked
"odd / nearest"):

Shared pieces
    exp_neg_parts(z, zl)  e^-(z + zl) = (h + l) 2^m for 0 <= z <= 200, |zl| <= 2^-20 z:
        (h, l, m) = exp_parts(-z) when z <= 100, else exp_parts(-z/2) squared with ``dd_mul``
        and m doubled (exp_parts is specified down to EXP_UNDERFLOW = -103.97 only); then, when
        zl is given, l += h (d + d*d/2) with d = -zl, and (h, l) = fast_two_sum(h, l).
    dd_div(ah, al, bh, bl)  (``doublefloat.dd_div``) q1 = ah/bh; r = fma(-q1, bh, ah) (exact);
        r = (r + al) - q1*bl; q2 = r/bh; (q, ql) = fast_two_sum(q1, q2). Relative error about
        2^-46.
    one_minus_scaled(q, ql, m)  (``doublefloat``) 1 - (q + ql) 2^m: (r, re) = two_sum(1,
        -scale(q, m)); fast_two_sum(r, re - scale(ql, m)).
    sigmoid_neg_parts(z, zl)  sigma(-(z + zl)) = (q + ql) 2^m, 0 <= z <= 200: E = e^-(z + zl) =
        (h + l) 2^m;
        D = 1 + E: (d, de) = two_sum(1, scale(h, m)); de += scale(l, m); fast_two_sum;
        (q, ql) = dd_div(h, l, d, de).

sigmoid(x)
    1. NaN -> 0x7FC00000; +inf -> 1; -inf -> +0; x < EXP_UNDERFLOW -> 2^-149 / +0 (sigma(x) <
       e^x < 2^-150: its round-to-odd is 2^-149, its nearest 0); |x| < 2^-30 (``tiny_where``) ->
       round_result(0.5, n 2^-84) with n the signed integer significand of x (``exact_parts``):
       sigma(x) = 1/2 + x/4 + O(x^3), only the sign of the correction matters (|x/4| < 2^-32 is
       far inside the 2^-26 to the nearest midpoint: nearest gives 0.5); sigma(±0) = 0.5.
       2^-30 <= |x| < 2^-9 (``SERIES_BITS``): (hi, lo) = ``sigmoid_series(x)``, 1/2 + x/4 -
       x^3/48 with the exact float32 midpoints 1/2 + x/4 (x an odd multiple of 2^-23) decided
       by the sign of -x^3/48, which a float32 pair would round away; m = 0.
    2. z = |x|, clamped to 20 for x > 0 (e^-20 < 2^-28: sigma(x) and sigma(20) lie in the same
       open interval (1 - 2^-25, 1), above the midpoint below 1, so their round-to-odd values
       (1 - 2^-24) agree and so do their nearest values (1)).
    3. (q, ql, m) = sigmoid_neg_parts(z). x <= 0: round_result_scaled(q, ql, m).
       x > 0: one_minus_scaled(q, ql, m) (s = scale(q, m), sl = scale(ql, m), exact, m >= -30;
       1 - s as (r, re) = two_sum(1, -s); re -= sl; fast_two_sum); round_result. The tiny
       distance to 1 is the lo part, so saturation keeps its sticky bit.

silu(x) = x sigma(x)
    Same steps with z clamped to 110 for x < 0; the product by x is (p, pe) = two_prod(x, q);
    pe += x ql; fast_two_sum (scaled by 2^m as sigma). Specials: NaN -> NaN, +inf -> +inf,
    -inf -> -0, x < -110 -> -2^-149 / -0 (|x| e^x < 2^-151 there); |x| < 2^-30: silu(x) = x/2 +
    x^2/4 + ..., evaluated from the bits, x = n 2^e exactly (``exact_parts``: n the signed integer
    significand, 1 <= |n| < 2^24): hi = n, lo = +|n| 2^-40, round_result_scaled(hi, lo, e - 1),
    so x/2 on a subnormal midpoint (x = 2^-149, 2^-133 ...) rounds by the sign of x^2/4 (silu(±0)
    = ±0: n = ±0, lo = 0); in nearest mode x/2 itself, or on a subnormal midpoint the neighbour
    the sign of x^2/4 points to. No operand is subnormal. x > 20: x sigma(20) = x (1 - d), d <
    2^-28, rounds as x (1 - e^-x) does in both modes (to x in nearest).

softplus(x) = log(1 + e^x)
    1. NaN -> NaN; +inf -> +inf; -inf -> +0; x < EXP_UNDERFLOW -> 2^-149 / +0 (0 < softplus <
       e^x < 2^-150).
    2. t = e^-|x| = (h + l) 2^m (exp_neg_parts, |x| clamped to 20 for x > 0: then log1p(t) < 2^-28
       < ulp(x)/2 and only its sign reaches the rounding: x + 0 < result < x + ulp(x)/2, in nearest
       mode x). log1p(t) as a dd (H + L) 2^M:
       a. m <= -13 (t < 2^-12): log1p(t)/2^m = (h + l)(1 + w), w = -t/2 + t^2 P(t), P(t) = 1/3 -
          t/4 + t^2/5 - t^3/6 by Horner with fma (Taylor, truncation t^6/7 < 2^-50 relative):
          (p, pe) = two_prod(h, h); (H, L) = fast_two_sum(h, -scale(p, m - 1));
          L += l - scale(pe + 2 h l, m - 1) + h (tf tf P(tf)), tf = scale(h, m); fast_two_sum;
          M = m.
       b. m >= -12: th = scale(h, m), tl = scale(l, m) (exact); j = rint(2048 th) in 0..2048,
          c = 1 + j/2048; v = (t - j/2048)/c: (d, de) = two_sum(th, -j/2048);
          (d, de) = fast_two_sum(d, de + tl); v = d/c, vl = (fma(-v, c, d) + de)/c; |v| <= 2^-12;
          log1p(v) = v - v^2/2 + v^3 P(v) (same P): (p, pe) = two_prod(v, v);
          (a, ae) = fast_two_sum(v, -p/2); ae += vl - (pe/2 + v vl) + v p P(v); fast_two_sum;
          (H, L) = dd_add(LOG_HI[j], LOG_LO[j], a, ae); M = 0.
    3. x <= 0: round_result_scaled(H, L, M). x > 0: dd_add(x, 0, scale(H, M), scale(L, M)) then
       round_result.
    The t^3 term is computed in float32 (a few roundings of 2^-24): the branch limits (t < 2^-12,
    |v| <= 2^-12 against log1p(t) >= 2^-12) keep it below 2^-25.6 of the result, so its error
    stays under 2^-47 (with 1/128 steps and t < 2^-8 it was 2^-39.6).

Constants and tables: 2^-60, 2^-40, 1/2048 ... are exact powers of two; P's coefficients are the
Taylor coefficients 1/3, 1/4, 1/5, 1/6 rounded to float32 (``taylor_constants``); LOG_HI/LOG_LO
is log(1 + j/2048), j = 0..2048, as float32 pairs (hi = RN(v), lo = RN(v - hi)), made with mpmath
at import by ``log_table`` (16392 bytes). EXP_UNDERFLOW comes from ``exp``.

Error bound and the correctly rounded float32 entry point. Measured maximum relative error of
hi + lo (before the final rounding) against mpmath at 120 bits, on 24,000 inputs per kernel
(uniform over the computed range, log-uniform magnitudes 2^-30 to 20, and +-3000 ULP around each
threshold; the tiny rules and clamps excluded, they are decided by the arguments above): sigmoid
2^-45.6, silu 2^-45.7, softplus 2^-46.0 (it was 2^-39.6 with a 1/128 table and t < 2^-8 on the
Taylor branch); all three are set by exp_parts (2^-46.6) and dd_div. ``KERNELS[..]["bound"]`` is
2^-43 for each (6 to 8 times the measured maximum). The float32 entry point
(``ulplab.kernels.exceptions``) rounds hi + lo to nearest and then applies a table of the inputs
whose rounding that bound leaves undecided and where RN(hi + lo) is not the correctly rounded
result, found over all 2^32 inputs by ``python -m ulplab.analysis.cr_scan FUNC`` (undecided /
exceptions; each scan took 17 to 23 min on a shared 2-core machine): sigmoid 48,442 / 9 (261
before sigmoid_series, nearly all of them the midpoints 1/2 + x/4), silu 48,041 / 16, softplus
46,999 / 19. The tiny rules keep lo only as the sign of the correction, so the bound does not
hold there; they are decided by the arguments above, and the nearest mode of silu (and of gelu,
gelu_tanh) takes x/2 from the bits (``half_x_nearest``).
Accuracy (measured, registered): 0 ULP after nearest-even rounding of the round-to-odd result to
bfloat16, float16, float8_e4m3fn and float8_e5m2 on every input; float32 results faithful in the
odd mode and correctly rounded in the float32 mode.
"""

from __future__ import annotations

import numpy as np
from mpmath import mp, mpf

from ulplab.kernels.core import (
    FLAG_NAN,
    by_mode,
    canonical_nan_where,
    current_rounding,
    first_pass_scaled,
    pow2,
    round_result_scaled,
    scale,
    tiny_magnitude,
)
from ulplab.kernels.doublefloat import dd_div, one_minus_scaled
from ulplab.kernels.exp import EXP_NORMAL, EXP_UNDERFLOW, exp_first_parts, exp_parts
from ulplab.kit import dd_add, dd_mul, fast_two_sum, fma, lookup, two_prod, two_sum
from ulplab.kit.ops import f32hex

f32 = np.float32
ONE = f32(1.0)
LOG_N = 2048  # log1p's table: log(1 + j/2048), j = 0..2048
TINY_SUB = f32(2.0**-149)  # the smallest subnormal: round-to-odd of anything in (0, 2^-149)
ZERO = f32(0.0)  # the nearest rounding of anything in [0, 2^-150]
# Taylor coefficients of (log1p(t) - t + t^2/2)/t^3 = 1/3 - t/4 + t^2/5 - t^3/6 (float32)
L1P = (f32(float.fromhex("0x1.555556p-2")), f32(-0.25), f32(float.fromhex("0x1.99999ap-3")),
       f32(float.fromhex("-0x1.555556p-3")))


def taylor_constants() -> dict[str, tuple[float, ...]]:
    """Regenerate L1P (1/3, -1/4, 1/5, -1/6 rounded once to float32) with mpmath (test-checked)."""
    with mp.workprec(100):
        return {"L1P": tuple(float(f32(float(mpf(s) / k))) for s, k in
                             ((1, 3), (-1, 4), (1, 5), (-1, 6)))}


def log_table(n: int = LOG_N) -> tuple[np.ndarray, np.ndarray]:
    """log(1 + j/n), j = 0..n, as float32 pairs hi + lo (hi = RN(v), lo = RN(v - hi))."""
    hi, lo = np.empty(n + 1, f32), np.empty(n + 1, f32)
    with mp.workprec(200):
        for j in range(n + 1):
            v = mp.log1p(mpf(j) / n)
            hi[j] = f32(float(v))
            lo[j] = f32(float(v - mpf(float(hi[j]))))
    return hi, lo


LOG_HI, LOG_LO = log_table()
TABLE_BYTES = LOG_HI.nbytes + LOG_LO.nbytes


def _c(x: np.ndarray, v: float) -> np.ndarray:
    return np.full_like(x, f32(v))


TINY_BITS = 0x30800000  # encoding of 2^-30: |x| below it takes the tiny paths


def tiny_where(x: np.ndarray) -> np.ndarray:
    """|x| < 2^-30, decided on the bits (a subnormal x counts even where hardware flushes it)."""
    return (x.view(np.uint32) & np.uint32(0x7FFFFFFF)) < np.uint32(TINY_BITS)


def exact_parts(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(n, e) with x = n 2^e exactly, from the bits: n is the signed integer significand as a
    float32 (|n| < 2^24, 0 for ±0, sign kept), e an int32 (-149 for subnormals). The tiny paths
    scale by this instead of multiplying a subnormal x, so every operand stays normal."""
    b = x.view(np.uint32)
    mag = b & np.uint32(0x7FFFFFFF)
    be = (mag >> np.uint32(23)).astype(np.int32)
    frac = mag & np.uint32(0x7FFFFF)
    sig = np.where(be == 0, frac, frac | np.uint32(0x800000)).astype(np.int32).astype(f32)
    n = np.where(np.signbit(x), -sig, sig)
    return n, np.where(be == 0, -149, be - 150).astype(np.int32)


def exp_neg_parts(z: np.ndarray, zl: np.ndarray | None = None
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """e^-(z + zl) = (h + l) 2^m for 0 <= z <= 200 (see the module docstring)."""
    half = z > f32(100.0)
    h, lw, m = exp_parts(np.where(half, z * f32(-0.5), -z))
    h2, l2 = dd_mul(h, lw, h, lw)
    h, lw, m = np.where(half, h2, h), np.where(half, l2, lw), np.where(half, m + m, m)
    if zl is not None:
        d = -zl
        h, lw = fast_two_sum(h, lw + h * (d + d * d * f32(0.5)))
    return h, lw, m


def sigmoid_neg_parts(z: np.ndarray, zl: np.ndarray | None = None
                      ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """sigma(-(z + zl)) = 1/(1 + e^(z + zl)) = (q + ql) 2^m for 0 <= z <= 200."""
    h, lw, m = exp_neg_parts(z, zl)
    d, de = two_sum(_c(z, 1.0), scale(h, m))
    d, de = fast_two_sum(d, de + scale(lw, m))
    q, ql = dd_div(h, lw, d, de)
    return q, ql, m


def _sigma_parts(x: np.ndarray, neg_clamp: float):
    """(hi, lo, m, pos) with sigma(x) = (hi + lo) 2^m, for finite x (tiny |x| not special)."""
    pos = x > 0
    z = np.where(pos, np.minimum(x, f32(20.0)), np.minimum(-x, f32(neg_clamp)))
    z = np.where(np.isnan(z), f32(0.0), z)
    q, ql, m = sigmoid_neg_parts(z)
    r, rl = one_minus_scaled(q, ql, np.where(pos, m, 0))
    hi, lo = np.where(pos, r, q), np.where(pos, rl, ql)
    return hi, lo, np.where(pos, 0, m), pos


SERIES_BITS = 0x3B000000  # 2^-9: 2^-30 <= |x| below it take sigmoid's Taylor series
INV48 = f32hex("0x1.555556p-6")  # 1/48 rounded to float32


def sigmoid_series(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """sigma(x) = 1/2 + x/4 - x^3/48 as a pair (hi, lo) for 2^-30 <= |x| < 2^-9 (x^5/480 < 2^-52
    relative, dropped): (s, e) = fast_two_sum(1/2, x/4) is exact, c = -x^3/48. Where s + e is a
    float32 midpoint (|e| half an ulp of s; x an odd multiple of 2^-23) and c is too small to
    survive e + c, the pair is chosen by the sign of c: (s + 2e, c - e) when c points past the
    midpoint, else (s, e + c). Elsewhere (hi, lo) = fast_two_sum(s, e + c)."""
    s, e = fast_two_sum(np.full_like(x, f32(0.5)), x * f32(0.25))
    c = -(x * x * x) * INV48
    hi, lo = fast_two_sum(s, e + c)
    half_ulp = np.where((s > f32(0.5)) | ((s == f32(0.5)) & (e > 0)), f32(2.0**-25),
                        f32(2.0**-26))
    tie = (np.abs(e) == half_ulp) & (c != 0)
    past = (c > 0) == (e > 0)
    hi = np.where(tie, np.where(past, s + (e + e), s), hi)
    lo = np.where(tie, np.where(past, c - e, e + c), lo)
    return hi, lo


def sigmoid(x: np.ndarray) -> np.ndarray:
    """1/(1 + e^-x), float32 in -> float32 out (see the module docstring)."""
    with np.errstate(all="ignore"):
        hi, lo, m, _ = _sigma_parts(x, 110.0)
        series = tiny_magnitude(x, SERIES_BITS)
        sh, sl = sigmoid_series(x)
        hi, lo, m = np.where(series, sh, hi), np.where(series, sl, lo), np.where(series, 0, m)
        tiny = tiny_where(x)
        n, _ = exact_parts(x)
        hi = np.where(tiny, f32(0.5), hi)
        lo = np.where(tiny, n * f32(2.0**-84), lo)  # the sign of x (0 for ±0), |lo| < 2^-60
        m = np.where(tiny, 0, m)
        y = round_result_scaled(hi, lo, m)
        y = np.where(x < EXP_UNDERFLOW, by_mode(TINY_SUB, ZERO), y)
        y = np.where(x == np.inf, ONE, y)
        y = np.where(x == -np.inf, f32(0.0), y)
        return canonical_nan_where(np.isnan(x), y)


def silu(x: np.ndarray) -> np.ndarray:
    """x sigma(x), float32 in -> float32 out (see the module docstring)."""
    with np.errstate(all="ignore"):
        hi, lo, m, _ = _sigma_parts(x, 110.0)
        xs = np.where(np.isfinite(x), x, f32(0.0))
        p, pe = two_prod(xs, hi)
        p, pe = fast_two_sum(p, pe + xs * lo)
        return finish_half_x(x, p, pe, m, -110.0)


def half_x_nearest(x: np.ndarray) -> np.ndarray:
    """The float32 nearest rounding of x/2 + d for 0 < d far below half an ulp of x/2 (d of
    the order x^2), from the bits: x/2 itself when it is a float32; on a subnormal midpoint (|x| <
    2^-125, where x = mag 2^-149 exactly and mag is odd) the neighbour above, which is the larger
    magnitude for x > 0 and the smaller for x < 0. Exact integer operations only."""
    b = x.view(np.uint32)
    sign = b & np.uint32(0x80000000)
    mag = b & np.uint32(0x7FFFFFFF)
    up = (mag & np.uint32(1)) & ((b >> np.uint32(31)) ^ np.uint32(1))
    half = np.where(mag < np.uint32(0x01000000), (mag >> np.uint32(1)) + up,
                    mag - np.uint32(0x00800000))  # a subnormal x/2, else the exponent less one
    return (half | sign).view(np.float32)


def finish_half_x(x: np.ndarray, hi: np.ndarray, lo: np.ndarray, m: np.ndarray,
                  flush_below: float) -> np.ndarray:
    """The last step of x * F(x) for silu, gelu and gelu_tanh, whose factor F is 1/2 plus a
    positive multiple of x at 0: round (hi + lo) 2^m in the current mode; |x| < 2^-30 (on the
    bits) gives x/2 with a positive rest: in the odd mode round_result_scaled(n, |n| 2^-40, e - 1)
    (x = n 2^e exactly, so no subnormal operand), in the nearest and flag modes
    ``half_x_nearest`` (a subnormal midpoint x/2 is decided by the rest's sign, which a float32
    pair cannot carry through ``round_result_scaled``: its remainder 1/2 + lo 2^(m+149) rounds
    to the tie); x < flush_below gives -2^-149 / -0; +inf -> +inf, -inf -> -0, NaN -> the
    canonical NaN."""
    tiny = tiny_where(x)
    n, e = exact_parts(x)
    hi = np.where(tiny, n, hi)
    lo = np.where(tiny, np.abs(n) * f32(2.0**-40), lo)
    m = np.where(tiny, e - 1, m)
    y = round_result_scaled(hi, lo, m)
    if current_rounding() != "odd":
        y = np.where(tiny, half_x_nearest(x), y)
    y = np.where(x < f32(flush_below), by_mode(-TINY_SUB, -ZERO), y)
    y = np.where(x == np.inf, f32(np.inf), y)
    y = np.where(x == -np.inf, f32(-0.0), y)
    return canonical_nan_where(np.isnan(x), y)


SMALL_M = -13  # t = (h + l) 2^m with m <= -13 (t < 2^-12) takes log1p's Taylor branch


def log1p_parts(h: np.ndarray, lw: np.ndarray,
                m: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """log1p(t) = (H + L) 2^M for t = (h + l) 2^m in [0, 1], 0.99 <= h < 2 (steps 2a, 2b)."""
    # a. t < 2^-12: scaled by 2^-m
    p, pe = two_prod(h, h)
    sa, sae = fast_two_sum(h, -scale(p, m - 1))
    tf = scale(h, m)
    poly = fma(fma(fma(_c(tf, L1P[3]), tf, L1P[2]), tf, L1P[1]), tf, L1P[0])
    sae = sae + ((lw - scale(pe + f32(2.0) * h * lw, m - 1)) + h * (tf * tf * poly))
    sa, sae = fast_two_sum(sa, sae)
    # b. t >= 2^-12: table of log(1 + j/512)
    mb = np.maximum(m, SMALL_M + 1)
    th, tl = scale(h, mb), scale(lw, mb)
    jf = np.rint(th * f32(LOG_N))
    j = jf.astype(np.int32)
    c = ONE + jf * f32(1.0 / LOG_N)
    d, de = two_sum(th, -(jf * f32(1.0 / LOG_N)))
    d, de = fast_two_sum(d, de + tl)
    v = d / c
    vl = (fma(-v, c, d) + de) / c
    p, pe = two_prod(v, v)
    a, ae = fast_two_sum(v, p * f32(-0.5))
    poly = fma(fma(fma(_c(v, L1P[3]), v, L1P[2]), v, L1P[1]), v, L1P[0])
    ae = ae + ((vl - (pe * f32(0.5) + v * vl)) + v * p * poly)
    a, ae = fast_two_sum(a, ae)
    jc = np.minimum(np.maximum(j, 0), LOG_N)
    b, be = dd_add(lookup(LOG_HI, jc), lookup(LOG_LO, jc), a, ae)
    small = m <= SMALL_M
    return np.where(small, sa, b), np.where(small, sae, be), np.where(small, m, 0)


def softplus(x: np.ndarray) -> np.ndarray:
    """log(1 + e^x), float32 in -> float32 out (see the module docstring)."""
    with np.errstate(all="ignore"):
        pos = x > 0
        z = np.where(pos, np.minimum(x, f32(20.0)), np.minimum(-x, f32(110.0)))
        z = np.where(np.isnan(z), f32(0.0), z)
        H, L, M = log1p_parts(*exp_neg_parts(z))
        Mp = np.where(pos, M, 0)
        xs = np.where(pos & np.isfinite(x), x, f32(0.0))
        s, sl = dd_add(xs, np.zeros_like(xs), scale(H, Mp), scale(L, Mp))
        hi, lo, m = np.where(pos, s, H), np.where(pos, sl, L), np.where(pos, 0, M)
        y = round_result_scaled(hi, lo, m)
        y = np.where(x < EXP_UNDERFLOW, by_mode(TINY_SUB, ZERO), y)
        y = np.where(x == np.inf, f32(np.inf), y)
        y = np.where(x == -np.inf, f32(0.0), y)
        return canonical_nan_where(np.isnan(x), y)


FIRST_PASS_BOUND = 2.0**-38
SATURATED = f32(18.0)  # x >= 18: 1 - 2^-25.9 < sigma(x) < 1, nearest 1 (silu: x)
HALF_BITS = 0x32800000  # 2^-26: |x| below it, nearest sigma(x) = 1/2 (silu: x/2)


def sigma_first_parts(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(q, ql, m) with sigma(x) = (q + ql) 2^m within ``FIRST_PASS_BOUND`` |q| (analysis in
    ``sigmoid_first_pass``), for finite -86.5 <= x <= 18; q normalized, 2^-28 < q <= 1,
    -125 <= m <= 26."""
    h, lw, k = exp_first_parts(-x, normalize=False)  # e^-x = (h + lw) 2^-m
    m = -(k >> 6)
    d, de = two_sum(h, pow2(m))  # D = 2^m (1 + e^-x) = d + de
    de = de + lw
    q1 = ONE / d
    q2 = (fma(-q1, d, ONE) - q1 * de) * q1  # the residual 1 - q1 d is exact
    q, ql = fast_two_sum(q1, q2)
    return q, ql, m


def sigmoid_first_pass(x: np.ndarray) -> np.ndarray:
    """The compiled float32 runner's first pass of sigmoid: one path for both signs instead of
    ``sigmoid``'s two, with its own bound ``FIRST_PASS_BOUND`` = 2^-38, finished by
    ``core.first_pass_scaled``: the correctly rounded sigma(x), or ``FLAG_NAN`` where the
    second pass (the whole entry point) decides — hi + lo within the bound of a midpoint,
    x in [-103.97, -86.5) (results near or below 2^-126), and the rare hi that is a power of
    two. Selects: |x| < 2^-26 -> 1/2 (sigma(x) = 1/2 + x/4 + O(x^3), inside 0.5's rounding
    interval), x >= 18 -> 1 (+inf included), x < -103.97 -> +0 (-inf included), NaN -> NaN.

    One formula for both signs, sigma(x) = 1/(1 + e^-x), with e^-x = (h + l) 2^-m from
    ``exp.exp_first_parts`` (2^-38 bound, 2^-40.76 measured; -x in [-18, 86.5]) and the
    scaling kept out of the sum, so no operand gets near the subnormals: D = h + l + 2^m =
    2^m (1 + e^-x) in [1, 2^26 + 2) by two_sum(h, 2^m) plus l; q = 1/D as q1 + q2: q1 =
    RN(1/d), q2 = (fma(-q1, d, 1) - q1 de) q1 (the residual is exact; q1 for 1/d costs 2^-24
    of q2, 2^-48 of q); sigma(x) = q 2^m. E's relative error reaches sigma scaled by
    E/(1 + E) < 1. Error of hi + lo: measured max 2^-40.75 (x = -84.09; 2^-40.70 with another
    seed) over 2 x 2^22 random inputs (half over [-86.5, 18], half log-uniform in magnitude
    2^-26 to 18, both signs) against Arb (``python -m ulplab.analysis.first_pass sigmoid``), a
    factor 6.5 under the bound. The runner's output is the entry point's on every float32
    input: ``benchmarks/verify_native.py sigmoid`` (all 2^32, 0 mismatches)."""
    with np.errstate(all="ignore"):
        inside = (x >= EXP_NORMAL) & (x < SATURATED)
        hi, lo, m = sigma_first_parts(np.where(inside, x, ZERO))
        y = first_pass_scaled(hi, lo, m, FIRST_PASS_BOUND, m_checked=False,
                              positive=True).view(np.uint32)
        y = np.where(tiny_magnitude(x, HALF_BITS), np.uint32(0x3F000000), y)
        special = np.where(x >= SATURATED, np.uint32(0x3F800000),
                           np.where(x < EXP_UNDERFLOW, np.uint32(0), FLAG_NAN))
        y = np.where(inside, y, np.where(x != x, np.uint32(0x7FC00000), special))
        return y.view(np.float32)


def silu_first_pass(x: np.ndarray) -> np.ndarray:
    """The compiled float32 runner's first pass of silu: x (hi + lo) 2^m from
    ``sigma_first_parts`` (two_prod(x, hi) plus x lo, normalized), finished by
    ``core.first_pass_scaled`` with ``FIRST_PASS_BOUND``: the correctly rounded silu(x), or
    ``FLAG_NAN`` — hi + lo within the bound of a midpoint, x in [-110, -86.5), |x| < 2^-125
    (x/2 subnormal: on a subnormal midpoint it rounds by the sign of x^2/4), and the rare hi
    that is a power of two. Selects: 2^-125 <= |x| < 2^-26 -> x/2 (exact and normal; x^2/4
    is far below half its ulp), x >= 18 -> x (+inf included; x e^-x < 2^-25.9 x), x < -110
    -> -0 (|x| e^x < 2^-151; -inf included), NaN -> NaN. Error: sigma's plus two roundings
    of 2^-48; measured max 2^-40.74 over 2 x 2^22 random inputs as sigmoid's
    (``python -m ulplab.analysis.first_pass silu``), a factor 6.7 under the bound. The runner's
    output is the entry point's on every float32 input: ``benchmarks/verify_native.py silu``
    (all 2^32, 0 mismatches)."""
    with np.errstate(all="ignore"):
        inside = (x >= EXP_NORMAL) & (x < SATURATED)
        xs = np.where(inside, x, ZERO)
        hi, lo, m = sigma_first_parts(xs)
        p, pe = two_prod(xs, hi)
        p, pe = fast_two_sum(p, fma(xs, lo, pe))
        y = first_pass_scaled(p, pe, m, FIRST_PASS_BOUND, m_checked=False).view(np.uint32)
        b = x.view(np.uint32)
        mag = b & np.uint32(0x7FFFFFFF)
        half = (mag - np.uint32(0x01000000)) < np.uint32(HALF_BITS - 0x01000000)
        y = np.where(half, (x * f32(0.5)).view(np.uint32), y)
        y = np.where(mag < np.uint32(0x01000000), FLAG_NAN | (b & np.uint32(0x80000000)), y)
        special = np.where(x >= SATURATED, b,
                           np.where(x < f32(-110.0), np.uint32(0x80000000),
                                    FLAG_NAN | np.uint32(0x80000000)))
        y = np.where(inside, y, np.where(x != x, np.uint32(0x7FC00000), special))
        return y.view(np.float32)


KERNELS = [
    {"function": "sigmoid", "impl": sigmoid, "table_bytes": 512, "bound": 2.0**-43,
     "first_pass": sigmoid_first_pass,
     "idea": "sigma(-|x|) = e^-|x|/(1 + e^-|x|) as a double-float from exp_parts; "
             "1 - it for x > 0"},
    {"function": "silu", "impl": silu, "table_bytes": 512, "bound": 2.0**-43,
     "first_pass": silu_first_pass,
     "idea": "x times sigmoid's double-float; tiny x scaled by 2^64 with the sign of x^2/4"},
    {"function": "softplus", "impl": softplus, "table_bytes": 512 + TABLE_BYTES,
     "bound": 2.0**-43,
     "idea": "log1p(e^-|x|) by a log(1 + j/128) double-float table and Taylor; + x for x > 0"},
]
"""What ``ulplab.methods.det`` registers from this module (ops: float32 operations per
element, counted by running the kernel under a counting Float32Guard; every branch is computed
for every element, so the counts cover all of them; fma counted once each)."""
