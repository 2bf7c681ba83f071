"""det log2's float64 first pass: log's reduction, table and polynomial
(``ulplab.export.fast64.log``) scaled by 1/ln2.

x = 2^k z, z in [0.6875, 1.375), subinterval i of 256, r = z invc[i] - 1 exact, |r| < 2^-8, as
in log's pass; log2(x) = k + (logc[i] + log1p(r)) / ln2:
* p = log1p(r) by log's Taylor polynomial of degree 5 (``log.TAYLOR``): truncation below
  2^-42.57 |log1p(r)|, Horner's roundings below 2^-52.9 |log1p(r)| (log's analysis);
* hi = k + logc invln2 in one FMA (two roundings without an FMA instruction), invln2 = 1/ln2
  rounded to the nearest float64 (``tables.invln2_nearest``, relative error < 2^-53), logc
  relative error <= 2^-53; then y = hi + p invln2 in one more FMA.
Relative error: where k = 0 and invc = 1 (z within 2^-9 below and 2^-8 above 1), hi = 0 and
y = p invln2 rounded: below 2^-42.57 + 2^-52.9 + 2 2^-53 < 2^-42.55. For k = 0 elsewhere
|log x| >= 2^-9 and |logc| <= 2 |log x|: p's truncation, below |r|^6/6 < 2^-56.5, is below
2^-47.5 relative; logc's, invln2's and the two FMAs' roundings (relative to terms at most
twice the result) below 6 2^-53: below 2^-47.4 in all. For k != 0, |log2 x| >= log2(1.375) =
0.459, |k| + |logc| invln2 <= 1.02 |log2 x| + 1: below 2^-49.5. So below 2^-42.55 everywhere,
2^10.45 units in the last place of the float64 result; the rounding test takes ERR = 4096 =
2^12 (a margin of 2.9), as log's, and flags about 2 ERR / 2^29 = 1.5e-5 of ordinary inputs.
Exact results: log2(2^k) = k for the 254 normal powers of two (z = 1: invc = 1, logc = 0,
r = p = 0, so hi = y = k exactly), kept; for every other x, log2(x) is irrational.
Flagged: NaN, zero, subnormal and negative inputs and +inf, by log's test on x's bits. No range
part in the rounding test (``ROUND_NORMAL``): for every other input y is +0 (x = 1, log2(1)) or
|y| lies in [8.5e-8, 128] (|log2 x| >= -log2(1 - 2^-24) for x != 1), the normal float32 range.

**The avx512 build's second loop** (``AVX512``, since 2026-11-26, night; run on AMD
processors, ``fast64.AVX512_PATHS``): log's permute loop (its 32-entry
tables read by permutes of registers, its degree-8 polynomial: ``ulplab.export.fast64.log``)
with log2's last two FMAs, made from log's text (``AVX512_SWAPS``). The analysis above with
log's avx512 bounds: where k = 0 and invc = 1 (z within 2^-6 below and 2^-5 above 1) the
truncation is below 2^-43.10 |log1p(r)|, so y within 2^-43.10 + 2^-52.9 + 2 2^-53 < 2^-43.09;
elsewhere |log x| >= 2^-6 where k = 0 (|logc| <= 1.51 |log x|) and the truncation is below
2^-51.7 relative: below 2^-43.09 everywhere, ERR = 4096 (a margin of 4.2). Exact results as
above (z = 1 lies in [1, 1 + 2^-5), invc = 1). The whole pass, 2^16 inputs log-uniform in
[1e-30, 1e30] in cache, one thread, one C harness with the runner's avx512 flags, the gather
build against this one, timed alternately: 0.67 -> 0.45 ns per element on a 2-core AMD EPYC
VM (family 26, gcc 12).
"""

from __future__ import annotations

from ulplab.export.fast64 import ROUND_NORMAL, avx512_choice, avx512_entry
from ulplab.export.fast64 import log as log_pass
from ulplab.export.fast64.log import BITS, REDUCE, TAYLOR
from ulplab.export.fast64.tables import horner, invln2_nearest, log_tables

ERR = 4096
"""The rounding test's bound, in units in the last place of the float64 result."""

AVX512_SWAPS = [
    ("   (ulplab.export.fast64.log: AVX512_BITS, AVX512_TAYLOR and the analysis): 8 inputs at a\n",
     "   (ulplab.export.fast64.log2: log's with its last steps log2's): 8 inputs at a\n"),
    ("   r = z invc - 1, Horner's scheme, k ln2 + logc, and ul_round_normal_or_flag's midpoint "
     "test\n   on the low 32 bits */\n",
     "   r = z invc - 1, Horner's scheme, k + logc/ln2 + p/ln2 (two FMAs), and\n"
     "   ul_round_normal_or_flag's midpoint test on the low 32 bits */\n"),
    ("static void ul_log_permutes(", "static void ul_log2_permutes("),
    ("        const __m512d v = _mm512_add_pd("
     "_mm512_fmadd_pd(kd, _mm512_set1_pd(UL_LN2), lc), p);\n",
     "        const __m512d v = _mm512_fmadd_pd(\n"
     "            p, _mm512_set1_pd(UL_INVLN2),\n"
     "            _mm512_fmadd_pd(lc, _mm512_set1_pd(UL_INVLN2), kd));\n"),
]
"""log's avx512 pass made log2's: its header, its name and its last step (log2's generic loop's
two FMAs in place of log's k ln2 + logc + p), each found in log's text exactly once."""


def _swapped(text: str) -> str:
    for old, new in AVX512_SWAPS:
        if text.count(old) != 1:
            raise AssertionError(f"log's avx512 pass changed: {old[:60]!r}")
        text = text.replace(old, new)
    return text


AVX512 = _swapped(log_pass.AVX512)
"""log2's avx512 permute loop (beside the generic loop, run where ``fast64.avx512_choice``
chooses it): log's 32-entry tables read by permutes and its degree-8 polynomial."""

SOURCE = (ROUND_NORMAL + "\n#ifdef __AVX512F__\n#include <immintrin.h>\n"
          + avx512_choice("log2") + AVX512 + "#endif\n"
          + avx512_entry("log2")) + f"""\
    for (long i = 0; i < n; i++) {{
        uint32_t ux;
        memcpy(&ux, x + i, 4);
        /* positive normal inputs only: +0 and subnormals (below 0x00800000), +inf, NaN and
           every negative input (sign bit set) are flagged */
        const uint32_t bad = ux - 0x00800000u >= 0x7F800000u - 0x00800000u;
{REDUCE}\
        const double r = UL_FMA(z, ul_log_invc[idx], -1.0);
        const double p = UL_FMA(r * r, {horner("r", TAYLOR)}, r);
        const double hi = UL_FMA(ul_log_logc[idx], UL_INVLN2, (double)k);
        const uint32_t b = ul_round_normal_or_flag(UL_FMA(p, UL_INVLN2, hi), bad, {ERR}, 0);
        memcpy(y + i, &b, 4);
    }}
}}
"""


def tables() -> str:
    return (log_tables(BITS) + invln2_nearest() + "#ifdef __AVX512F__\n"
            + log_tables(log_pass.AVX512_BITS, "ul_log5") + "#endif\n")
