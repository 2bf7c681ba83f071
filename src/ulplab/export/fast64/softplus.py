"""det softplus's float64 first pass.

softplus(x) = max(x, 0) + log1p(E), E = exp(-|x|) in (0, 1], |x| clamped to 104 (exp's float64
split, ``ulplab.export.fast64.exp``: relative error < 2^-51.9; for |x| > 104 the true E is
below 2^-150, softplus(x) is x for x > 104 and below 2^-126 for x < -104, and the clamped
E = exp(-104) keeps both). log1p(E) with log's float64 tables of 256 subintervals
(``tables.log_tables(8)``) and log's degree-5 polynomial (``ulplab.export.fast64.log``'s
``BITS`` and ``TAYLOR``, imported):
* u = 1 + E rounded, c = E - (u - 1) exact (Fast2Sum: 1 >= E), so 1 + E = u + c exactly and
  log1p(E) = log(u) + log1p(c/u); |c| <= 2^-53 (half an ulp of u in [1, 2]), and c <= E.
  log1p(c/u) is taken as c: the difference is at most |c| (u - 1) + c^2 < 2^-52.4 E, and
  log1p(E) >= E ln2, so below 2^-51.9 relative;
* u = 2^k z with z in [0.6875, 1.375) (k = 0 or 1; the float64 bits of u minus those of 0.6875
  give k and log's subinterval i, ``tables.log_subinterval``), r = z invc[i] - 1 in one FMA:
  rounded once (z has 53 significant bits, so z invc is not exact), relative error 2^-53;
  without an FMA instruction (the portable build) z invc rounds first, an absolute error below
  2^-53 (z invc - 1 is then exact by Sterbenz's lemma), which is below 2^-45 |log u| wherever
  invc != 1 (there |log u| >= 2^-8.01: u is at least 2^-8 above 1, or k = 1 and log u >=
  0.318); where invc = 1 (the two subintervals next to 1), r = z - 1 exactly. |r| < 2^-8 next
  to 1, below 2^-9 + 2^-21 elsewhere (``tables.log_tables``' test);
* log(u) = (k ln2 + logc[i]) + p, p = log1p(r) by log's degree-5 Taylor polynomial,
  k ln2 + logc in one FMA with ln2 rounded to the nearest float64 (``tables.ln2_nearest``):
  where k = 0 and invc = 1 log(u) is p alone, truncation below |r|^6/6 / (1 - |r|) < 2^-42.57
  |log1p(r)|, the Horner roundings below 2^-52.9; elsewhere for k = 0 |logc| <= 2 |log u| and
  the truncation, below 2^-56.5, is below 2^-48.5 relative, the roundings below 2^-50; for
  k = 1, log u >= 0.318 and k ln2 + logc <= 1.02 log u, below 2^-50 again (log's analysis,
  ``ulplab.export.fast64.log``: here z has 53 bits instead of 24, which only r's rounding
  above sees);
* c is added to p, one more rounding (below 2^-53 relative), then hi + (p + c) one more.
So log1p(E) within 2^-51.9 (E) + 2^-42.57 + 2^-45 + 2^-51.9 (c) + 3 2^-53 < 2^-42.35
relative; the last sum max(x, 0) + log1p(E) adds 2^-53 (both terms are nonnegative: no
cancellation). Relative error below 2^-42.3, 2^10.7 units in the last place of the float64
result; the rounding test takes ERR = 4096 = 2^12 (a margin of 2.5) and flags about
2 ERR / 2^29 = 1.5e-5 of ordinary inputs.
Why this budget: until 2026-11-26 the pass had log's 128-subinterval tables, a degree-7
polynomial, ln2 in two parts and r made exact by splitting z in two (below 2^-48.4, ERR = 128):
a flag costs the second pass only where a chunk of the runner has one (3% of the chunks at
1.5e-5), and the looser bound buys two FMAs, the split (a mask, a subtraction and an FMA) and
ln2's second part a lane; the r of an FMA build is the same as the split's (one rounding of
z invc - 1 either way). The pass alone, 2^16 inputs in cache, one thread, this project's 2-core
AVX-512 VM, old and new timed alternately: see ``docs/kernels/shipping.md`` (2026-11-26).
Flagged: NaN (a test on x's bits); +inf (the sum is infinite) and results below 2^-126
(x < -87.34 and -inf) by the rounding test.

**The avx512 build's second loop**, run on AMD processors (``fast64.AVX512_PATHS``: on the
16-core Intel Xeon the float64 loop of 2026-11-26, night, took 311 Melem/s into a reused output
against 433-460 for gcc's loop, which runs there), **evaluates in float32 lanes first** since
2026-11-26, late evening (``LANES32_AVX512``, 16 inputs a register, four registers an
iteration scheduled together: ``fast64.SCHEDULE``), then in float64 (``ul_softplus_lanes64``,
the generic loop's body) on the lanes it flags. u = 2^-24; each operation a float32 one
rounded to nearest (fmaf one rounding):
* |x| > 64 (and NaN): x > 64 (+inf included) keeps x itself (log1p(E) < 2^-92, below half an
  ulp of x), the rest is flagged (x < -64: results below 2^-92, which the float64 evaluation
  and the second pass take, with their subnormal cases);
* E = exp(-|x|) by exp's float32 lanes (``ulplab.export.fast64.exp``: their text, ``EXP_LANES``,
  in a C block of its own; its 64-entry tables in eight registers) as (S + Se) 2^m, S + Se within
  2^-36.22 of the scaled-down value (S in [0.9945, 1.99)): E = Eh + El within 2^-36.21
  relative (``EXP_LANES_ERROR``); 2^m scales both exactly (m >= -93: both stay normal);
* U = 1 + E = Uh + t1 + El exactly (Uh = 1 + Eh rounded, t1 = Eh - (Uh - 1): Fast2Sum, 1 >=
  Eh); Uh = 2^k z by log's reduction (k = 0 or 1, log's 32 subintervals,
  ``ulplab.export.fast64.log``: its float32 tables, and its lanes' text, ``log.lanes32_core``);
  next to 1 (Uh < 1 + 2^-5, |x| > 3.47) log1p(E) = log1p(r + rl) with r = Eh, rl = El
  exactly (|r| < 2^-5 + 2^-23, |rl| <= 2^-24 r); elsewhere log(U) = k ln2 + logc +
  log1p(r + rl), r = z invc - 1 exact, rl = (t1 + El) 2^-k invc rounded twice (|rl| <= 2^-23
  invc 2^-k, each rounding 2^-24 of it);
* log1p(r + rl) as log's lanes compute log1p(r) (hi + r - r^2/2 + r^3 p + ll + k L2 in two
  Fast2Sums and the small terms), with rl (1 - r + r^2 - r^3) added to e1 + e2 (the terms
  dropped: below rl r^4 / (1 - |r|) + rl^2 / (1 - |r|)^2); the bound of each rounding as in
  ``log.lanes32_error``, which takes rl;
* max(x, 0) + (s2 + lo): the larger of max(x, 0) and s2 plus the smaller (Fast2Sum: both
  >= 0), lo and that error added (one rounding, 2^-24 |lo2|), then s + e (Fast2Sum).
Relative to log1p(E) (``lanes32_bound``: E's error carries over at most as is, since log1p's
derivative 1/(1 + E) is below log1p(E)/E): 2^-32.47 next to 1, 2^-33.49 for k = 0 elsewhere,
2^-35.47 for k = 1; and adding max(x, 0) >= 0 only lowers it relative to the result. s is the
correctly rounded result where |e| < H - B: H = 2^(E-24) as in log's lanes (E the exponent of
the float32 below s), taken as H (1 - 2^-20), whose margin covers lo2's rounding of d1 (2^-48
of the result at most) and makes the one rounding of H - B err low; B = beta s2 (s2 is
log1p(E) within 2^-11), beta = 1.5 2^-32 next to 1, 1.5 2^-35 for k = 1, 1.5 2^-33 elsewhere
(margins of 2.1). The lanes flag, measured on 2^24 inputs, 3.2e-3 of uniform [-8, 8] (most
below -3.47, where the result is log1p(E) itself), 8.5e-4 of [-1, 1], 3.8e-3 of [-20, 20].
The whole pass on 2^14 inputs in cache, one thread, one C harness with the runner's avx512
flags, best of 2,000 calls, on the 2-core AMD EPYC VM (family 26, gcc 12): 1.44 ns an element
(the float64 loop with permutes below) -> 0.72 ([-8, 8]), 1.39 -> 0.67 ([-1, 1]) with two
registers of lanes an iteration (one took 1.00, two unscheduled 0.94; four 0.694 -> 0.676).

Until then that loop was a float64 one reading no table by a gather: exp's table of 64
float64s in eight AVX-512 registers (four permutes and three blends) and log's avx512 tables
of 32 subintervals with its degree-8 polynomial (``ulplab.export.fast64.log``:
``AVX512_BITS``, ``AVX512_TAYLOR`` and their analysis; u = 1 + E in [1, 2]: |r| < 2^-5 on
[1, 1 + 2^-5), below 2^-6.06 elsewhere; log1p(E) within 2^-43.0 relative, the result 2^-42.9,
ERR = 4096), which took the pass from 1.85 (gathers) to 1.45 ns an element in cache on the
same VM.
"""

from __future__ import annotations

import math

from ulplab.export.fast64 import (
    ROUND_RANGE32,
    SCHEDULE,
    avx512_choice,
    avx512_entry,
    lanes_loop_x16,
    log,
    segment,
)
from ulplab.export.fast64 import exp as exp_pass
from ulplab.export.fast64.exp import CORE as EXP_CORE
from ulplab.export.fast64.log import BITS, TAYLOR
from ulplab.export.fast64.tables import (
    LOG_OFF,
    exp_table,
    exp_table32,
    horner,
    ln2_nearest,
    log_invc32,
    log_subinterval,
    log_tables,
    log_tables32,
)

ERR = 4096
"""The rounding test's bound, in units in the last place of the float64 result."""


LOG_CORE = f"""
/* log(1 + e) for e in [0, 1], relative error < 2^-42.35 given e within 2^-51.9 (ulplab.export.
   fast64.softplus): u = 1 + e rounded, c = e - (u - 1) exact, log(u) from log's tables, + c */
static inline double ul_log1p_unit(double e) {{
    const double u = 1.0 + e;
    const double c = e - (u - 1.0);
    /* u = 2^k z, z in [0.6875, 1.375): tmp = bits(u) - bits(0.6875); k = tmp >> 52 (0 or 1
       here), the subinterval i = the next {BITS} bits */
    const uint64_t ub = ul_bits64(u);
    const uint64_t tmp = ub - 0x{LOG_OFF:016X}ull;
    const uint64_t idx = (tmp >> {52 - BITS}) & {(1 << BITS) - 1};
    const double kd = ul_double(ul_sel64(tmp >> 52, 0x3FF0000000000000ull, 0));  /* k */
    const double z = ul_double(ub - (tmp & 0xFFF0000000000000ull));
    const double r = UL_FMA(z, ul_log_invc[idx], -1.0);
    const double p = UL_FMA(r * r, {horner("r", TAYLOR)}, r);
    const double hi = UL_FMA(kd, UL_LN2, ul_log_logc[idx]);
    return hi + (p + c);
}}
"""

LANES32_BETA_NEAR = 1.5 * 2.0**-32
"""The float32 lanes' rounding test next to 1 (u = 1 + E below 1 + 2^-5: |x| > 3.47):
B = 1.5 2^-32 log1p(E) (``lanes32_bound``: 2^-32.47, a margin of 2.1)."""

LANES32_BETA = 1.5 * 2.0**-33
"""The float32 lanes' rounding test elsewhere for k = 0 (u in [1 + 2^-5, 1.375): 0.98 < |x| <
3.47): B = 1.5 2^-33 log1p(E) (``lanes32_bound``: 2^-33.49, a margin of 2.1)."""

LANES32_BETA_K1 = 1.5 * 2.0**-35
"""The float32 lanes' rounding test for k = 1 (u in [1.375, 2]: |x| < 0.98): B = 1.5 2^-35
log1p(E) (``lanes32_bound``: 2^-35.47, a margin of 2.1)."""

EXP_LANES_ERROR = 2.0**-36.22 / 0.9945
"""The relative error of exp's float32 lanes' S + Se (``ulplab.export.fast64.exp``: |delta| <
2^-36.22 on S in [0.9945, 1.99)), here E's."""


def lanes32_bound() -> dict[str, tuple[float, int, int]]:
    """The float32 lanes' error bound relative to log1p(E) (the module docstring), per class:
    log2 of the largest value and the subinterval i and k where it is reached. "near" (u next
    to 1: r = Eh up to 2^-5 + 2^-23, rl = El with |El| <= 2^-24 Eh; on a grid of 64 |r|, relative
    to log1p(E) >= (|r| - rl)(1 - (|r| + rl)/2)); "k0" (k = 0 elsewhere, subintervals 21..31:
    relative to the log of the subinterval's lower end) and "k1" (k = 1, u in [1.375, 2]:
    subintervals 0..19 and z = 1, relative to ln2 + log z), with |rl| <= 2^-23 invc 2^-k (one
    more rounding: 2 2^-24 rl). Each adds E's error (``EXP_LANES_ERROR``: log1p's derivative
    is below log1p(E)/E) and lo2's rounding (2^-24 |lo|); lo2's rounding of d1 (2^-48 of the
    result at most) lies in the test's margin of 2^-20 H."""
    u = 2.0**-24
    invc, lh, _, l1, *_ = log._lanes32_constants()
    worst: dict[str, tuple[float, int, int]] = {}

    def keep(key: str, rel: float, i: int, k: int) -> None:
        if rel > worst.get(key, (0.0, 0, 0))[0]:
            worst[key] = (rel, i, k)

    tmax = 2.0**-5 + 2.0**-23
    for q in range(1, 65):
        t = tmax * q / 64
        rl = 2.0**-24 * t * (1 + 2.0**-20)
        err, lo = log.lanes32_error(t, 0.0, 20, 0, rl)
        keep("near", EXP_LANES_ERROR + (err + u * lo) / ((t - rl) * (1 - (t + rl) / 2)), 20, 0)
    for k in (0, 1):
        for i in range(21, 32) if k == 0 else range(21):
            t = 0.0 if i == 20 else log_invc32(i)[2]
            rl = 2.0**-23 * invc[i] * (0.5 if k else 1.0) * (1 + u) ** 2
            err, lo = log.lanes32_error(t, abs(k * l1 + lh[i]), i, k, rl)
            smallest = k * math.log(2) + math.log(log_subinterval(i, 5)[0])
            keep("k1" if k else "k0", EXP_LANES_ERROR + (err + 2 * u * rl + u * lo) / smallest,
                 i, k)
    return {key: (math.log2(v[0]), v[1], v[2]) for key, v in worst.items()}


EXP_LANES = "".join("    " + line + "\n" for line in segment(
    exp_pass.LANES32_AVX512, "    const __m512 kt =", "    const __m512 e = ").splitlines())
"""exp's AVX-512 float32 lanes from k to their result s + e (``exp.LANES32_AVX512``'s text,
indented for a block of its own), softplus's E."""


LANES32_AVX512 = f"""
/* softplus(x) in the 16 float32 lanes of an AVX-512 register (ulplab.export.fast64.softplus:
   the analysis): E = exp(-|x|) by exp's float32 lanes (ulplab.export.fast64.exp: the same
   operations in the same order) as E = (S + Se) 2^m, then log1p(E) by log's float32 lanes
   (ulplab.export.fast64.log) on U = 1 + E = Uh + Ul, then max(x, 0) + log1p(E); tables in
   t[0..7] (exp's hi and lo, four registers each) and t[8..13] (log's invc, lh, ll, two
   each). A lane gets the correctly rounded result's bits, x itself for x > 64 (+inf
   included: log1p(E) < 2^-92 there, below half an ulp of x), or 0x7FC00001 where the
   rounding test cannot decide, x < -64 or x is NaN; returns the bit mask of the lanes
   flagged. */
UL_SCHEDULE static inline uint32_t ul_softplus_lanes32_x16(const float *x, float *y,
                                                           __mmask16 keep, const __m512 *t) {{
    const __m512i u = keep == (__mmask16)0xFFFF ? _mm512_loadu_si512(x)
                                                : _mm512_maskz_loadu_epi32(keep, x);
    const __m512i au = _mm512_and_si512(u, _mm512_set1_epi32(0x7FFFFFFF));
    const __mmask16 big = _mm512_cmpgt_epu32_mask(au, _mm512_set1_epi32(0x42800000)); /* 64 */
    const __mmask16 kept = _mm512_mask_cmple_epu32_mask(big, u, _mm512_set1_epi32(0x7F800000));
    /* E = exp(v), v = -|x|: exp's float32 lanes, their text (ulplab.export.fast64.exp: the
       same operations in the same order), in a block of their own: E = (es + ee) 2^m */
    const __m512 v = _mm512_castsi512_ps(
        _mm512_or_si512(au, _mm512_set1_epi32((int)0x80000000u)));
    __m512 es, ee;
    __m512i kbs;
    {{
        const __m512 *hi = t, *lo = t + 4;
{EXP_LANES}\
        es = s;
        ee = e;
        kbs = kb;
    }}
    /* 2^m, m = k >> 6 (kb >> 6 << 23 is m << 23 mod 2^32, as in exp's lanes): m >= -93 here,
       so Eh and El are es and ee scaled exactly, and normal */
    const __m512 scale = _mm512_castsi512_ps(_mm512_add_epi32(
        _mm512_slli_epi32(_mm512_srli_epi32(kbs, 6), 23), _mm512_set1_epi32(0x3F800000)));
    const __m512 eh = _mm512_mul_ps(es, scale);
    const __m512 el = _mm512_mul_ps(ee, scale);
    /* U = 1 + E = uh + t1 + el exactly (Fast2Sum: 1 >= eh) */
    const __m512 uh = _mm512_add_ps(_mm512_set1_ps(1.0f), eh);
    const __m512 t1 = _mm512_sub_ps(eh, _mm512_sub_ps(uh, _mm512_set1_ps(1.0f)));
    /* log's reduction of uh in [1, 2]: k2 = 0 or 1, the subinterval idx, z = uh 2^-k2 */
    const __m512i ub = _mm512_castps_si512(uh);
    const __m512i tmp = _mm512_sub_epi32(ub, _mm512_set1_epi32(0x3F300000));
    const __m512i k2i = _mm512_srli_epi32(tmp, 23);
    const __m512 k2 = _mm512_cvtepi32_ps(k2i);
    const __mmask16 k1 = _mm512_test_epi32_mask(k2i, k2i);
    const __m512i idx = _mm512_srli_epi32(tmp, 18);
    const __m512 z = _mm512_castsi512_ps(_mm512_sub_epi32(
        ub, _mm512_and_si512(tmp, _mm512_set1_epi32((int)0xFF800000u))));
    const __m512 invc = _mm512_permutex2var_ps(t[8], idx, t[9]);
    const __m512 lh = _mm512_permutex2var_ps(t[10], idx, t[11]);
    const __m512 ll = _mm512_permutex2var_ps(t[12], idx, t[13]);
    /* next to 1 (uh < 1 + 2^-5): log1p(E) = log1p(r + rl) with r = eh, rl = el; elsewhere
       log(U) = k2 ln2 + logc + log1p(r + rl), r = z invc - 1 (exact), rl = (t1 + el) 2^-k2
       invc */
    const __mmask16 near = _mm512_cmplt_epu32_mask(ub, _mm512_set1_epi32(0x3F840000));
    const __m512 r = _mm512_mask_blend_ps(near, _mm512_fmadd_ps(z, invc, _mm512_set1_ps(-1.0f)),
                                          eh);
    const __m512 rl = _mm512_mask_blend_ps(
        near, _mm512_mul_ps(_mm512_add_ps(t1, el),
                            _mm512_mul_ps(invc, _mm512_fnmadd_ps(k2, _mm512_set1_ps(0.5f),
                                                                 _mm512_set1_ps(1.0f)))),
        el);
    /* log's lanes on r (ulplab.export.fast64.log), then r's low part */
{log.lanes32_core("k2")}    /* rl (1 - r + r^2 - r^3): log1p(r + rl) - log1p(r) to below 2^-45 */
    const __m512 gr = _mm512_fmsub_ps(r, _mm512_fnmadd_ps(r, r, r), r);
    const __m512 rlc = _mm512_fmadd_ps(rl, gr, rl);
    const __m512 lo = _mm512_add_ps(a, _mm512_add_ps(_mm512_add_ps(e1, e2), rlc));
    /* max(x, 0) + s2 + lo: the larger of the first two first (Fast2Sum), then lo */
    const __m512 xp = _mm512_max_ps(_mm512_castsi512_ps(u), _mm512_setzero_ps());
    const __m512 big1 = _mm512_max_ps(xp, s2), small1 = _mm512_min_ps(xp, s2);
    const __m512 h1 = _mm512_add_ps(big1, small1);
    const __m512 d1 = _mm512_sub_ps(small1, _mm512_sub_ps(h1, big1));
    const __m512 lo2 = _mm512_add_ps(lo, d1);
    const __m512 s = _mm512_add_ps(h1, lo2);
    const __m512 e = _mm512_sub_ps(lo2, _mm512_sub_ps(s, h1));
    /* s is the correctly rounded result where |e| < H - B: H = 2^(E-24) (E the exponent of
       the float32 below s: half the smaller gap beside s), taken as H (1 - 2^-20) so that
       the one rounding of H - B can only lower it; B = beta s2 (s2 >= log1p(E) (1 - 2^-11)),
       beta = 1.5 2^-32 next to 1, 1.5 2^-35 where k2 = 1, 1.5 2^-33 elsewhere */
    const __m512 hh = _mm512_castsi512_ps(_mm512_add_epi32(
        _mm512_and_si512(_mm512_sub_epi32(_mm512_castps_si512(s), _mm512_set1_epi32(1)),
                         _mm512_set1_epi32(0x7F800000)),
        _mm512_set1_epi32({log.lanes32_threshold(2.0**-45)})));
    const __m512 beta = _mm512_mask_blend_ps(
        near, _mm512_mask_blend_ps(k1, _mm512_set1_ps({LANES32_BETA.hex()}f),
                                   _mm512_set1_ps({LANES32_BETA_K1.hex()}f)),
        _mm512_set1_ps({LANES32_BETA_NEAR.hex()}f));
    const __m512 thr = _mm512_fnmadd_ps(s2, beta, hh);
    const __m512 m = _mm512_castsi512_ps(_mm512_and_si512(_mm512_castps_si512(e),
                                                          _mm512_set1_epi32(0x7FFFFFFF)));
    const __mmask16 ok = _mm512_mask_cmp_ps_mask((__mmask16)~big, m, thr, _CMP_LT_OQ);
    const __m512i res = _mm512_mask_blend_epi32(
        kept, _mm512_mask_blend_epi32(ok, _mm512_set1_epi32(0x7FC00001), _mm512_castps_si512(s)),
        u);
    if (keep == (__mmask16)0xFFFF) _mm512_storeu_si512(y, res);
    else _mm512_mask_storeu_epi32(y, keep, res);
    return (uint32_t)(keep & (__mmask16)~(ok | kept));
}}
"""
"""The avx512 build's float32 lanes: ``ul_softplus_lanes32_x16(x, y, keep, t)``."""

LANES32_LOOP = f"""
/* the avx512 build's loop on AMD processors (ul_avx512_permutes()): the float32 lanes, 16
   inputs at a time (the last n mod 16 under a mask), then the float64 evaluation on what they
   flagged; returns how many of its results that left flagged */
UL_SCHEDULE static long ul_softplus_permutes(const float *restrict x, float *restrict y,
                                             long n) {{
    long left = 0;
    __m512 t[14];
    for (int j = 0; j < 4; j++) {{
        t[j] = _mm512_loadu_ps(ul_exp32_hi + 16 * j);
        t[4 + j] = _mm512_loadu_ps(ul_exp32_lo + 16 * j);
    }}
    t[8] = _mm512_loadu_ps(ul_log32_invc);
    t[9] = _mm512_loadu_ps(ul_log32_invc + 16);
    t[10] = _mm512_loadu_ps(ul_log32_lh);
    t[11] = _mm512_loadu_ps(ul_log32_lh + 16);
    t[12] = _mm512_loadu_ps(ul_log32_ll);
    t[13] = _mm512_loadu_ps(ul_log32_ll + 16);
{lanes_loop_x16("ul_softplus_lanes32_x16", "t", "ul_softplus_lanes64", registers=4)}    return left;
}}
"""
"""The avx512 build's loop of float32 lanes."""

AVX512 = LANES32_AVX512 + LANES32_LOOP
"""The avx512 build's second loop (compiled where the target has AVX-512F, beside the generic
loop, and run where ``fast64.avx512_choice`` chooses it: every processor,
``fast64.amd_everywhere``)."""

LANES64 = f"""
/* softplus(x) in float64 (the analysis above): the result's bits or FLAG_NAN */
static inline uint32_t ul_softplus_lanes64(float xf) {{
    uint32_t u;
    memcpy(&u, &xf, 4);
    const uint32_t au = u & 0x7FFFFFFFu;
    const uint32_t nan = au > 0x7F800000u;
    /* |x| clamped to 104 (0x42D00000); max(x, 0): 0 for a set sign bit */
    const double a = (double)ul_float(au < 0x42D00000u ? au : 0x42D00000u);
    const double xpos = (double)ul_float(ul_sel32(u >> 31, 0u, u));
    const struct ul_exp_parts e = ul_exp_split(-a);
    const double t = xpos + ul_log1p_unit(UL_FMA(e.s, e.q, e.s));
    return ul_round_or_flag32(t, nan, {ERR});
}}
"""
"""The float64 evaluation of one input: the generic loop's body, and the float32 lanes'
fallback."""

SOURCE = (EXP_CORE + LOG_CORE + ROUND_RANGE32 + LANES64
          + "\n#ifdef __AVX512F__\n#include <immintrin.h>\n" + SCHEDULE + avx512_choice("softplus")
          + AVX512 + "#endif\n" + avx512_entry("softplus")) + """\
    for (long i = 0; i < n; i++) {
        const uint32_t b = ul_softplus_lanes64(x[i]);
        memcpy(y + i, &b, 4);
    }
    return -1;
}
"""


def tables() -> str:
    return (exp_table() + log_tables(BITS) + ln2_nearest() + "#ifdef __AVX512F__\n"
            + exp_table32() + log_tables32() + "#endif\n")
