"""AVX2 steps of float64 passes: the piecewise ones (gelu, erf, gelu_grad) with their table rows
loaded whole; sin's and cos's (``ulplab.export.fast64.sin``: no table) with four blocks of 8
inputs an iteration, scheduled together, where gcc's loop ran one.

gcc vectorizes a piecewise pass's loop with one ``vgatherqpd`` per coefficient: four gathers of
four lanes for a cubic, sixteen loads through the load ports and the gathers' own micro-ops for
four results. The coefficients of a piece lie side by side in its table (row k holds c0..c3 of
piece k, 32 bytes), so an AVX2 build can read each lane's row with two 16-byte loads instead
and put the rows' halves in place with four in-lane unpacks: ``ul_rows4x4``. The rest of such a
pass's 8-input step is the generic loop's operations, in the same order, each an IEEE float64
(or integer) operation on the same operands, so the step computes the bits of the generic loop
on every input (and the exhaustive proof of the pass checks that the whole pass, step and
remainder loop, returns the float32 entry point's bits: ``benchmarks/verify_native.py
--fast64``). The step compiles where the target has AVX2 and FMA but not AVX-512F: the avx2
build. The avx512 build keeps gcc's 512-bit loop and its gathers of eight lanes: a prototype
AVX-512 step for erf (8 inputs an iteration, eight rows into four registers by 256-bit inserts,
unpacks and 128-bit block shuffles, all on the one shuffle port) took 1.13 ns an element
against the 512-bit loop's 0.95 (same harness as below, avx512 flags). The portable build has
no gathers.

Measured (the pass alone, 2^16 inputs in cache, one thread, this project's 2-core AVX-512 Xeon
VM with gcc 12 and the avx2 build's flags, the pass built with and without the step from the
same source and timed alternately in one C harness, ns an element, best of 300): gelu on
[-8, 8] 1.89 -> 1.695, erf on [-4, 4] 1.47-1.51 -> 1.33-1.36, gelu_grad on [-8, 8] 1.82 ->
1.59. Prototypes of the same steps, the
same harness: each row read by one 32-byte load and the four rows transposed with two more
cross-lane permutes, gelu 1.70 (the unpacks alone share the shuffle port less); the step with
its four gathers instead of rows, erf 1.45 against gcc's loop's 1.48, so the rows are the gain.
The loops stay bound by their arithmetic: ``llvm-mca -mcpu=icelake-server`` puts gelu's step at
about 31 cycles for 8 inputs, its three vector ports all near saturation.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

from ulplab.export.fast64.tables import simd_horner

GUARD = ("defined(__AVX2__) && defined(__FMA__) && !defined(__AVX512F__)"
         " && !defined(UL_GENERIC_ONLY)")
"""The preprocessor condition under which a pass compiles its AVX2 step (``UL_AVX2_ROWS``);
``UL_GENERIC_ONLY`` defined before the source leaves it out (the tests compare the two)."""

HELPERS = f"""
#if {GUARD}
#define UL_AVX2_ROWS 1
#include <immintrin.h>
/* a > b as unsigned 32-bit lanes: all ones where it holds (AVX2 compares signed only) */
static inline __m256i ul_gt_u32x8(__m256i a, __m256i b) {{
    const __m256i s = _mm256_set1_epi32((int)0x80000000u);
    return _mm256_cmpgt_epi32(_mm256_xor_si256(a, s), _mm256_xor_si256(b, s));
}}
/* rows k[0..3] (64-bit lanes) of a table of 4 float64 coefficients a row, as four registers,
   c[j] = coefficient j of the four rows: each row read by two 16-byte loads (rows 0 and 2, 1
   and 3 share a register), then an unpack per coefficient; no gather */
static inline void ul_rows4x4(const double *tab, __m256i k, __m256d c[4]) {{
    long long j[4] __attribute__((aligned(32)));
    _mm256_store_si256((__m256i *)j, k);
    const double *r0 = tab + 4 * j[0], *r1 = tab + 4 * j[1];
    const double *r2 = tab + 4 * j[2], *r3 = tab + 4 * j[3];
    const __m256d p02 = _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(r0)),
                                             _mm_loadu_pd(r2), 1);
    const __m256d p13 = _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(r1)),
                                             _mm_loadu_pd(r3), 1);
    const __m256d q02 = _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(r0 + 2)),
                                             _mm_loadu_pd(r2 + 2), 1);
    const __m256d q13 = _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(r1 + 2)),
                                             _mm_loadu_pd(r3 + 2), 1);
    c[0] = _mm256_unpacklo_pd(p02, p13);
    c[1] = _mm256_unpackhi_pd(p02, p13);
    c[2] = _mm256_unpacklo_pd(q02, q13);
    c[3] = _mm256_unpackhi_pd(q02, q13);
}}
/* ul_round_normal_or_flag on 8 lanes, y0 holding lanes 0-3 and y1 lanes 4-7: the low 32
   bits of each value put in lane order, the same midpoint test, `bad` all ones where
   flagged, `sign` or-ed into the kept results */
static inline __m256i ul_round_normal_x8(__m256d y0, __m256d y1, __m256i bad, uint32_t err,
                                         __m256i sign) {{
    const __m256 lows = _mm256_shuffle_ps(_mm256_castpd_ps(y0), _mm256_castpd_ps(y1), 0x88);
    const __m256i low = _mm256_permute4x64_epi64(_mm256_castps_si256(lows), 0xD8);
    const __m256i near = _mm256_add_epi32(_mm256_and_si256(low, _mm256_set1_epi32(0x1FFFFFFF)),
                                          _mm256_set1_epi32((int)(err - 0x10000000u)));
    const __m256i ok = _mm256_andnot_si256(
        bad, ul_gt_u32x8(near, _mm256_set1_epi32((int)(2u * err))));
    const __m256i f = _mm256_or_si256(
        _mm256_castps_si256(_mm256_set_m128(_mm256_cvtpd_ps(y1), _mm256_cvtpd_ps(y0))), sign);
    return _mm256_blendv_epi8(_mm256_set1_epi32(0x7FC00001), f, ok);
}}
#endif
"""
"""The C helpers of the AVX2 steps, compiled under ``GUARD`` (which defines ``UL_AVX2_ROWS``)."""


def entry(func: str) -> str:
    """The first lines of ``ulplab_FUNC_fast64`` for a pass with an AVX2 step: its signature,
    then (where the step is built) the step on the first n - n mod 8 inputs, the pointers and
    the count moved past them for the loop that follows."""
    return f"""
void ulplab_{func}_fast64(const float *restrict x, float *restrict y, long n) {{
#ifdef UL_AVX2_ROWS
    const long done = ul_{func}_avx2(x, y, n);
    x += done;
    y += done;
    n -= done;
#endif
"""


def horner(var: str, coefficients: Sequence[Fraction | float]) -> str:
    """``tables.simd_horner`` on four float64 lanes (AVX2)."""
    return simd_horner(var, coefficients, 256)


def rows_horner(c: str, var: str, degree: int) -> str:
    """``tables.piecewise_horner`` on four lanes, the coefficients in registers ``c[0..degree]``
    (from ``ul_rows4x4``)."""
    text = f"{c}[{degree}]"
    for j in reversed(range(degree)):
        text = f"_mm256_fmadd_pd({var}, {text}, {c}[{j}])"
    return text


__all__ = ["GUARD", "HELPERS", "entry", "horner", "rows_horner"]
