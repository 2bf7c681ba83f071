"""det log's float64 first pass.

x = 2^k z with z in [0.6875, 1.375) (the float32 bits of x minus those of 0.6875 give k in the
exponent field and the subinterval i in the next 8 bits: the 256 subintervals of
``tables.log_subinterval`` with ``BITS`` = 8, of width 2^-9 below 1 and 2^-8 above; 32-bit
integer work, the float64 arithmetic starts at z), and log(x) = k ln2 + logc[i] + log1p(r),
r = z invc[i] - 1 (``tables.log_tables(8)``):
* r is exact: z has at most 24 significant bits and invc 21, so z invc is exact, and
  z invc - 1 is exact by Sterbenz's lemma; |r| < 2^-8 in the two subintervals next to 1
  ([1 - 2^-9, 1) and [1, 1 + 2^-8), where invc = 1 and logc = 0, r = z - 1), below
  2^-9 + 2^-21 elsewhere (half a subinterval over its midpoint, and invc's rounding);
* log1p(r) by its Taylor polynomial of degree 5 (``TAYLOR``, coefficients (-1)^(i+1)/i
  rounded to nearest): truncation below |r|^6/6 / (1 - |r|) < 2^-42.57 |log1p(r)| for
  |r| < 2^-8; the Horner roundings (r^2, the inner polynomial, the last FMA) add below
  2^-52.9 |log1p(r)|;
* k ln2 + logc in one FMA with ln2 rounded to the nearest float64 (``tables.ln2_nearest``):
  |k| |UL_LN2 - ln2| < 2^-54 |k ln2|, and one rounding (two without an FMA instruction);
  the result is that plus p, one more rounding.
Relative error: where k = 0 and invc = 1 the result is p alone: below 2^-42.57 + 2^-52.9 <
2^-42.56. For k = 0 elsewhere |log x| >= 2^-9 (z is at least 2^-9 from 1) and |logc| <= 2
|log x|, so the truncation, below |r|^6/6 < 2^-56.5, is below 2^-47.5 relative, the roundings
below 2^-50; for k != 0, |log x| >= log(1.375) = 0.318 and |k ln2 + logc| <= 1.02 |log x|:
below 2^-50 again. So below 2^-42.56 everywhere, 2^10.44 units in the last place of the
float64 result (whose ulp exceeds 2^-53 times it); the rounding test takes ERR = 4096 = 2^12
(a margin of 2.9), and flags about 2 ERR / 2^29 = 1.5e-5 of ordinary inputs.
Why this budget: until 2026-11-26 the pass had 128 subintervals, a degree-7 polynomial and
ln2 in two parts (below 2^-49, ERR = 64, flags 1.2e-7); a flag costs the second pass only
where a chunk of the runner has one, and at 1.5e-5 that is 3% of the chunks, so the looser
bound buys two FMAs and a product per lane: the pass alone on 2^16 inputs in cache (reused
output), one thread, this project's 2-core Xeon VM, took 0.96-1.04 -> 0.78-0.80 ns per
element (AVX-512 build) and 1.51-1.62 -> 1.36-1.40 (avx2), old and new timed alternately.
Flagged: NaN, zero, subnormal and negative inputs, +inf (the second pass returns their NaN,
-inf or inf, and the subnormals' logs), by a test on x's bits. The rounding test has no range
part (``ROUND_NORMAL``): for every other input y is 0 (x = 1: z = 1 lies in [1, 1 + 2^-8),
invc = 1, logc = 0, r = 0, so hi = p = 0, and +0, which the test keeps, is log(1)) or |y| lies
in [5.9e-8, 89] (|log x| >= -log(1 - 2^-24) for x != 1, below 88.73 for x < 2^128, within
2^-42.56 relative), the normal float32 range: the range test's subtraction, comparison and
mask fewer a lane, 0.77 -> 0.68 ns per element (AVX-512 build) and 1.33 -> 1.18 (avx2), the
pass alone as above.
"""

from __future__ import annotations

from ulplab.export.fast64 import ROUND_NORMAL
from ulplab.export.fast64.tables import (
    LOG_TABLE_BITS,
    horner,
    ln2_nearest,
    log1p_taylor,
    log_tables,
)

LOG_OFF32 = 0x3F300000
"""0.6875 as float32 bits (``tables.LOG_OFF`` as float64 bits): z's subintervals are the same."""

BITS = LOG_TABLE_BITS
"""log's tables: 2^BITS = 256 subintervals of [0.6875, 1.375) (``tables.log_tables(BITS)``;
softplus's too)."""

ERR = 4096
"""The rounding test's bound, in units in the last place of the float64 result."""

TAYLOR = log1p_taylor(5)
"""log1p(r) = r + r^2 (c2 + c3 r + c4 r^2 + c5 r^3): c_i = (-1)^(i+1)/i, i = 2..5."""

REDUCE = f"""\
        /* x = 2^k z, z in [0.6875, 1.375): tmp = bits(x) - bits(0.6875f); k = tmp >> 23
           (arithmetic), the subinterval i = the next {BITS} bits */
        const uint32_t tmp = ux - 0x{LOG_OFF32:08X}u;
        const int32_t k = (int32_t)tmp >> 23;
        const uint64_t idx = (tmp >> {23 - BITS}) & {(1 << BITS) - 1};
        const double z = (double)ul_float(ux - (tmp & 0xFF800000u));
"""
"""The C lines (in the loop, on x's bits ``ux``) of the reduction x = 2^k z and the subinterval
index (log's and log2's passes)."""

SOURCE = ROUND_NORMAL + f"""
void ulplab_log_fast64(const float *restrict x, float *restrict y, long n) {{
    for (long i = 0; i < n; i++) {{
        uint32_t ux;
        memcpy(&ux, x + i, 4);
        /* positive normal inputs only: +0 and subnormals (below 0x00800000), +inf, NaN and
           every negative input (sign bit set) are flagged (the subnormals' logs are ordinary
           numbers, but rare; the second pass takes them) */
        const uint32_t bad = ux - 0x00800000u >= 0x7F800000u - 0x00800000u;
{REDUCE}\
        const double kd = (double)k;
        const double r = UL_FMA(z, ul_log_invc[idx], -1.0);
        const double p = UL_FMA(r * r, {horner("r", TAYLOR)}, r);
        const double hi = UL_FMA(kd, UL_LN2, ul_log_logc[idx]);
        const uint32_t b = ul_round_normal_or_flag(hi + p, bad, {ERR}, 0);
        memcpy(y + i, &b, 4);
    }}
}}
"""


def tables() -> str:
    return log_tables(BITS) + ln2_nearest()
