"""det expm1's float64 first pass.

exp's float64 split (``ulplab.export.fast64.exp``: ``CORE``, ``ul_exp_split``) on v = x, |x|
clamped to 104: x = k ln2/64 + r, |r| <= ln2/128 (1 + 2^-39), exp(x) = s (1 + q) with
s = 2^(k/64) (``tables.exp_table``, its power of two added to the exponent field) and
q = exp(r) - 1, and expm1(x) = (s - 1) + s q, in one FMA (a product and a sum without an FMA
instruction):
* k = 0 (|x| <= ln2/128 and a little): s = 1 exactly (the table's first entry, 2^0 added), so
  s - 1 = 0 and the result is q itself, rounded nothing more (fma(1, q, 0) = q = 1 q + 0): r = x
  exactly (the FMAs with k = 0 return x), so the result has q's relative error, below 2^-52
  (exp's analysis; measured 2^-52.13 at worst on 3,000 random inputs);
* k != 0: |x| >= ln2/128 (1 - 2^-39), so |expm1(x)| >= 0.00540. The errors, as parts of e^x,
  s or |s - 1|: s's table entry, rounded to nearest, 2^-53 s (s q's part too: 2^-53 e^x);
  r's rounding (one FMA, |r| < 2^-7.5) and ln2/64's two-part error, 2^-60.5 e^x; q's relative
  error 2^-52 (2^-51.9 taken) times s |q|, |q| < 2^-7.49; s - 1 exact by Sterbenz's lemma for
  s in [1/2, 2], else rounded once, 2^-53 |s - 1|; without an FMA instruction s q rounds once,
  2^-53 s |q|; the final rounding 2^-53 of the result. Divided by |expm1(x)|, the worst is at
  the inner edge of k = +-1 (x = +-ln2/128: e^x/|e^x - 1| = 185, s - 1 nearly twice the
  result): the table's 2^-53 e^x becomes 2^-45.47, and in all, bounded per k over each cell
  at 9 points (k = -9600..8191, x in [-104, 88.73]), below 2^-45.43 relative.
So below 2^-45.43 relative everywhere, 190.4 units in the last place of the float64 result
(|y| < 2^53 of its ulps); the rounding test (``fast64.ROUND_NORMAL``) takes ERR = 512 (a margin
of 2.7) and flags about 2 ERR / 2^29 = 1.9e-6 of ordinary inputs. Measured against mpmath (120
bits) on 3,000 random inputs per region, with and without FMA: 2^-47.8 at worst (near
x = -ln2/128), 2^-48.6 on [-20, 88.7], 2^-48.2 on [-1, 1].

Special inputs, by tests on x's bits (the thresholds are the float32 entry point's, read from
``ulplab.kernels.expm1``'s specification and checked on its outputs):
* NaN: flagged (the second pass returns its canonical NaN);
* x > 0x1.62e42ep+6 = 88.72283 (0x42B17217, ``OVERFLOW``; ``kernels.exp.EXP_OVERFLOW``): +inf,
  kept as such, +inf itself included (the entry point's expm1(0x42B17217) = 0x7F7FFF84 and
  expm1(0x42B17218) = +inf);
* |x| < 2^-25 (0x33000000, ``TINY``: the entry point's ``TINY_BITS``; zero and the subnormals
  included): x itself, kept (x^2/2 < 2^-26 |x| is below half the spacing on either side of
  x, the entry point's step 1); so every other kept result has |expm1(x)| >= 2^-25 (1 - 2^-25),
  in the normal float32 range, and below FLT_MAX's midpoint for x <= 88.72283: no range test;
* x < -104 and -inf: clamped to -104 (0x42D00000, exp's core's range), whose y is -1 exactly
  (s = 2^-150, s - 1 rounds to -1, and fma(s, q, -1) too); expm1(x) rounds to -1 for every
  x < -25 ln2 = -17.33 (e^x below 2^-25, half an ulp of 1 - 2^-24), the clamped inputs too,
  and the test keeps y = -1 (its low 29 bits are 0, far from the midpoint pattern).
Flagged on ordinary inputs (2^24 each, every variant the same lanes): uniform in [-80, 80]
1.0e-6, in [-1, 1] 1.7e-6; on random bit patterns the NaNs (2^-8).

Speed: 4,096 inputs in cache, one thread, best of 200 rounds of 200 calls, this project's
2-core AVX-512 Xeon VM (gcc 12), ns per element, beside exp's and log's passes in the same
script: avx512 build 0.57 (inputs in [-80, 80] and [-1, 1]; exp 0.39 with its float32 lanes,
log 0.53), avx2 build 1.12-1.17 (exp 0.77-0.79, log 0.93-0.95); the runner's float32 first
pass took about 3.3. The loop vectorizes with 64-byte vectors (avx512 build), 32-byte (avx2)
and 16-byte (portable: the tests on x and the rounding test are 32-bit lane work).
"""

from __future__ import annotations

from ulplab.export.fast64 import ROUND_NORMAL
from ulplab.export.fast64.exp import CORE as EXP_CORE
from ulplab.export.fast64.tables import exp_table

ERR = 512
"""The rounding test's bound, in units in the last place of the float64 result."""

TINY = 0x33000000
"""2^-25 as float32 bits (the entry point's ``TINY_BITS``): below it the result is x."""

OVERFLOW = 0x42B17217
"""0x1.62e42ep+6 = 88.72283: the largest float32 whose expm1 is finite (``EXP_OVERFLOW``)."""

CLAMP = 0x42D00000
"""104 as float32 bits: |x| is clamped to it (exp's core holds for |v| <= 104)."""

SOURCE = EXP_CORE + ROUND_NORMAL + f"""
void ulplab_expm1_fast64(const float *restrict x, float *restrict y, long n) {{
    for (long i = 0; i < n; i++) {{
        uint32_t u;
        memcpy(&u, x + i, 4);
        const uint32_t au = u & 0x7FFFFFFFu;
        /* NaN (either sign): flagged */
        const uint32_t bad = au > 0x7F800000u;
        /* x in (0x{OVERFLOW:08X} = 88.72283, +inf]: +inf */
        const uint32_t over = u - 0x{OVERFLOW + 1:08X}u < 0x7F800001u - 0x{OVERFLOW + 1:08X}u;
        /* |x| < 2^-25 (zero and the subnormals too): x itself */
        const uint32_t tiny = au < 0x{TINY:08X}u;
        /* |x| clamped to 104 (0x{CLAMP:08X}): x < -104 and -inf give y = -1 */
        const uint32_t c = (au < 0x{CLAMP:08X}u ? au : 0x{CLAMP:08X}u) | (u & 0x80000000u);
        const struct ul_exp_parts e = ul_exp_split((double)ul_float(c));
        /* expm1 = (s - 1) + s q: s - 1 exact for s in [1/2, 2]; k = 0: s = 1, the result q */
        const double t = UL_FMA(e.s, e.q, e.s - 1.0);
        const uint32_t b = ul_round_normal_or_flag(t, bad, {ERR}, 0);
        const uint32_t r = ul_sel32(tiny, u, ul_sel32(over, 0x7F800000u, b));
        memcpy(y + i, &r, 4);
    }}
}}
"""


def tables() -> str:
    return exp_table()
