"""Float64 first passes of the compiled float32 runner: hand-written C, vectorized by the compiler.

The det kernels are correctly rounded, so any evaluation that returns the correctly rounded
float32 result returns their bits. A kernel listed in ``FUNCTIONS`` has, beside its float32-only
first pass (``KERNELS[..]["first_pass"]``, traced into C), this one: the function evaluated in
float64 arithmetic (AVX2: 4 lanes, AVX-512: 8) with a stated error bound, then a rounding test
(CORE-MATH's for binary32 functions): where the float64 value ``y`` lies more than the bound from
every float32 rounding boundary (the midpoints between float32 neighbours), the correctly
rounded result is ``(float)y``; elsewhere, and for every special input (NaN, infinities, zero
where its sign matters, results outside the normal float32 range), the lane is flagged
(``FLAG_NAN``) and the runner's second pass, the whole float32 entry point, decides it.
exp's pass, on targets with an FMA instruction, first evaluates in float32 lanes (twice the
elements per vector) with a rounding test of its own and runs the float64 evaluation on the
elements that test leaves undecided (``ulplab.export.fast64.exp``: ``LANES32``); exp2's pass
runs the same lanes with its own reduction (``ulplab.export.fast64.exp2``); log's and
softplus's avx512 builds do the same on AMD processors (``AVX512_LANES``). Those passes return
how many results they left flagged (``COUNTED``), so the runner need not look for flags.

No pass computes with a subnormal value unless the result it keeps is the one for zero: JAX's
CPU runtime runs with denormals read as zero and flushed (DAZ and FTZ in MXCSR), where the C's
conversions and float32 operations read a subnormal as 0 (rsqrt flags its subnormal inputs for
that reason; tests/test_fast64.py runs every pass with MXCSR's DAZ and FTZ set, and
tests/test_det_api.py every kernel on random bit patterns through JAX).

The C of each function is in its module (``SOURCE``), the shared part in ``COMMON``; the float64
tables are generated at build time from exact arithmetic (mpmath, ``tables``) and printed as
hex float literals. ``source(func)`` is the whole translation unit, one function
``ulplab_FUNC_fast64(const float *x, float *y, long n)`` (and, for the passes whose avx512 build
holds two loops, ``AVX512_PATHS``, ``int ulplab_FUNC_fast64_tables(int)``, which chooses
between them). The loops have no calls but ``fma``
(``UL_FMA``: the instruction where the target has one, a multiply and an add otherwise, so that
the portable build needs no software FMA), no branches (selects through ternaries) and
gathers for the tables, and no floating-point comparison: the tests on the input (NaN, clamping,
the choice between two evaluations) compare its bits as integers, since gcc does not if-convert
a floating-point comparison under the default -ftrapping-math (it may raise the invalid
flag); so gcc vectorizes them (tests/test_fast64.py reads ``-fopt-info-vec``). gelu's,
erf's and gelu_grad's avx2 builds run an AVX2 step before their loop, the loop's operations
on 8 inputs at a time with each table row loaded whole instead of gathered
(``ulplab.export.fast64.avx2``), sin's and cos's one with four blocks of 8 an iteration
(and their avx512 builds four blocks of 16);
log's, log2's, log1p's, softplus's and tanh's avx512 builds hold a second loop, written for
AVX-512 registers with smaller tables read by permutes (tanh's: no table, a rational
function), which runs on AMD processors (``AVX512_PATHS``; log's and softplus's, float32
lanes, on every processor: ``amd_everywhere``); tanh's avx2 build too (``AVX2_PATHS``).

The proof is exhaustive: ``python benchmarks/verify_native.py --fast64 FUNC`` runs this first
pass (and the second on its flagged lanes) against the one-pass build of the float32 entry point
on all 2^32 inputs, per build variant, and records the result in
``benchmarks/results/native/fast64-proofs.json``, which the registry's generator reads
(``registry.json``: ``fast64_proofs``).
"""

from __future__ import annotations

import hashlib
from functools import cache
from importlib import import_module
from types import ModuleType

from ulplab.errors import UsageError

FUNCTIONS = ("exp", "log", "tanh", "sin", "cos", "sigmoid", "silu", "softplus", "gelu", "erf",
             "exp2", "log2", "tan", "rsqrt", "tanh_grad", "gelu_tanh", "expm1", "log1p",
             "gelu_grad")
"""The kernels with a float64 first pass, each a module of this package."""

FLOAT32_LANES = ("exp", "exp2")
"""The passes that evaluate in float32 lanes first (then in float64 where that is undecided)
in the builds whose target has an FMA instruction (``__FMA__``: the build variants whose CPU
flags, ``native.VARIANTS``, include fma)."""


AVX512_LANES = ("log", "softplus")
"""The passes in ``AVX512_PATHS`` whose loop of the avx512 build that reads its tables by
permutes evaluates in float32 lanes first (16 a register; ``ulplab.export.fast64.log``:
``LANES32_AVX512``), then in float64 where that is undecided; the others' is a float64 loop."""

COUNTED = ("exp", "exp2", "log", "softplus", "tanh", "sin", "cos")
"""The passes whose C function returns ``long``: how many of its results it left flagged
(``FLAG_NAN``), or -1 where that build or loop did not count them (``counts``: the float64
loops, exp's and exp2's portable build, log's, softplus's and tanh's generic loop, sin's and
cos's portable build); the others return void.
The runner's driver does not look at a chunk again where every call returned 0
(``native.DRIVER``: ``ulplab_drive_counted``). Counting costs the float32 lanes nothing: they
return the bit mask of what they flag anyway, and only the float64 evaluation of those is
checked again; tanh's AMD loop (float64, ``ulplab.export.fast64.tanh``: ``RATIONAL``) counts
the bits of its flag masks, sin's and cos's AVX2 and AVX-512 steps the flags of each block
(the look cost their avx2 builds about 0.05 ns an element: ``fast64.sin``)."""


COUNTING_STEPS = ("sin", "cos")
"""The passes whose avx2 and avx512 builds run a step (``ul_FUNC_step``: ``fast64.sin``) that
counts its flags before gcc's loop takes the last inputs; their portable build returns -1."""


def counts(func: str, variant: str, amd_loop: bool = False) -> bool:
    """Whether ``func``'s ``variant`` build (on its AMD loop, ``amd_loop``, where it has two:
    ``two_loops``) returns how many results it left flagged rather than -1."""
    if func not in COUNTED:
        return False
    if func in FLOAT32_LANES:
        return variant != "portable"
    if func in COUNTING_STEPS:
        return variant in ("avx2", "avx512")
    return amd_loop and two_loops(func, variant)

AVX512_PATHS = ("log", "log2", "log1p", "softplus", "tanh")
"""The passes whose avx512 build holds two loops: gcc's vectorization of the generic loop, which
reads the tables by gathers, and a loop written for AVX-512 registers whose tables are smaller
and read by permutes of registers (each module's ``AVX512``; log's is its ``LANES32_AVX512`` and
``LANES32_LOOP``: float32 lanes, ``AVX512_LANES``; tanh's has no table, a rational function
instead of 1,185 entries: ``tanh.RATIONAL``). Which one runs is chosen at run time by the
processor's vendor (``avx512_choice``): the permutes on AMD processors, where gathers are slow,
the gathers elsewhere (on an Intel Xeon the float64 permute loops of log and log2 were no faster
and log1p's within that machine's noise, their permutes sharing one port with the loop's
conversions; tanh's rational loop and its table were within that machine's noise of each other),
except log's and softplus's float32 lanes, which run on every processor (``amd_everywhere``: on
the 16-core Intel Xeon, one thread, 2^24, log 752-787 Melem/s against 473-655 by gathers,
softplus 400-439 against 263-267; ``benchmarks/bench_native.py --loops permutes|gathers`` forces
one). The proofs sweep both (``benchmarks/verify_native.py --fast64``)."""

AVX2_PATHS = ("tanh",)
"""The passes whose avx2 build holds two loops the same way (chosen by the vendor, set by
``ulplab_FUNC_fast64_tables``): tanh's rational function on AMD processors (its table's gathers
cost more there than its division), gcc's loop with the table elsewhere (on the 16-core Intel
Xeon the avx2 build's tanh already took 0.71-0.84 times NumPy's time; the rational loop's
division is slower on Intel cores)."""


def two_loops(func: str, variant: str) -> bool:
    """Whether ``func``'s ``variant`` build holds two loops (``AVX512_PATHS`` on avx512,
    ``AVX2_PATHS`` on avx2), the AMD loop running by default on AMD processors or, where
    ``amd_everywhere``, on all."""
    return ((variant == "avx512" and func in AVX512_PATHS)
            or (variant == "avx2" and func in AVX2_PATHS))


def amd_loop(func: str) -> str:
    """What the loop that runs on AMD processors does differently, for labels: "rational"
    (tanh) or "permutes" (the tables read by permutes of registers)."""
    return "rational" if func == "tanh" else "permutes"


def amd_everywhere(func: str, variant: str) -> bool:
    """Whether ``func``'s ``variant`` build runs its AMD loop (``two_loops``) on every processor
    by default rather than on AMD processors only: the float32 lanes of the avx512 builds
    (``AVX512_LANES``), faster than gcc's gathers on the 16-core Intel Xeon as well
    (``benchmarks/results/native``: runs ``xeon16-avx512-T16-permutes-k``, ``-l``)."""
    return variant == "avx512" and func in AVX512_LANES


def vendor_choice(func: str, comment: str, flag: str, arg: str, getter: str,
                  local: str, everywhere: bool = False) -> str:
    """The C of a choice between two loops by the processor's vendor: ``getter()`` is 1 on an
    AMD processor (on every processor where ``everywhere``: ``amd_everywhere``), else 0, unless
    ``ulplab_FUNC_fast64_tables(1 or 0)`` has set it (-1: the default again; it returns the
    choice in effect); ``flag`` the static that holds it, ``arg`` and ``local`` the names of
    its argument and of the getter's value, ``comment`` the C comment above it (from its
    opening)."""
    default = "    if ({arg} < 0) {arg} = 1;" if everywhere else """\
    if ({arg} < 0) {{
        __builtin_cpu_init();
        {arg} = __builtin_cpu_is("amd") != 0;
    }}"""
    return f"""{comment}
static int {flag} = -1;
int ulplab_{func}_fast64_tables(int {arg}) {{
{default.format(arg=arg)}
    __atomic_store_n(&{flag}, {arg}, __ATOMIC_RELAXED);
    return {arg};
}}
static inline int {getter}(void) {{
    const int {local} = __atomic_load_n(&{flag}, __ATOMIC_RELAXED);
    return {local} < 0 ? ulplab_{func}_fast64_tables(-1) : {local};
}}
"""


def avx512_choice(func: str) -> str:
    """The C (for an avx512 build, after ``#include <immintrin.h>``) of the choice between the
    two loops of ``func``'s pass (``AVX512_PATHS``; ``vendor_choice``):
    ``ul_avx512_permutes()``."""
    if amd_everywhere(func, "avx512"):
        comment = f"""
/* which of the avx512 build's two loops runs (ulplab.export.fast64: AVX512_PATHS,
   AVX512_LANES): the float32 lanes, whose tables are read by permutes of registers, on every
   processor (they were faster than gcc's gathers on AMD and Intel processors alike);
   ulplab_{func}_fast64_tables(1 or 0) sets it (the proofs sweep both), -1 the default again;
   it returns the choice now in effect */"""
    else:
        comment = f"""
/* which of the avx512 build's two loops runs (ulplab.export.fast64: AVX512_PATHS): the one whose
   tables are read by permutes of registers on AMD processors (their gathers are slow), gcc's
   gathers elsewhere; ulplab_{func}_fast64_tables(1 or 0) sets it (the proofs sweep both), -1
   the processor's choice again; it returns the choice now in effect */"""
    return vendor_choice(func, comment, "ul_tables_by_permutes", "permutes",
                         "ul_avx512_permutes", "p", amd_everywhere(func, "avx512"))


def avx512_entry(func: str) -> str:
    """The first lines of ``ulplab_FUNC_fast64`` for a pass in ``AVX512_PATHS``: its signature,
    then (in an avx512 build) the permute loop ``ul_FUNC_permutes`` where it is chosen; the
    generic loop follows. A pass in ``COUNTED`` returns the permute loop's count (the generic
    loop returns -1)."""
    if func in COUNTED:
        return f"""
long ulplab_{func}_fast64(const float *restrict x, float *restrict y, long n) {{
#ifdef __AVX512F__
    if (ul_avx512_permutes()) return ul_{func}_permutes(x, y, n);
#endif
"""
    return f"""
void ulplab_{func}_fast64(const float *restrict x, float *restrict y, long n) {{
#ifdef __AVX512F__
    if (ul_avx512_permutes()) {{
        ul_{func}_permutes(x, y, n);
        return;
    }}
#endif
"""


def low_halves512(a: str, b: str) -> str:
    """The C (four-space indented lines) that sets ``low``, the low 32 bits of the eight float64
    lanes of ``a`` then of ``b`` (two __m512d), and ``f``, the sixteen values rounded to float32,
    in the same order: the midpoint test's operands on 16 lanes (tanh's and sin's AVX-512
    loops)."""
    return f"""\
    /* the low 32 bits of {a}'s and {b}'s lanes, in order: one permute of the pair */
    const __m512i low = _mm512_permutex2var_epi32(
        _mm512_castpd_si512({a}),
        _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30),
        _mm512_castpd_si512({b}));
    const __m512 f = _mm512_insertf32x8(_mm512_castps256_ps512(_mm512_cvtpd_ps({a})),
                                        _mm512_cvtpd_ps({b}), 1);
"""


def segment(text: str, first: str, last: str) -> str:
    """The lines of the C ``text`` from the one that starts with ``first`` to the one that
    starts with ``last``, both included (each found exactly once: an ``AssertionError`` if the
    text changed), for a pass whose C is made from another's."""
    if text.count(first) != 1 or text.count(last) != 1:
        raise AssertionError(f"the C a pass is made from changed: {first[:40]!r}, {last[:40]!r}")
    start = text.index(first)
    end = text.index("\n", text.index(last, start)) + 1
    return text[start:end]


def rerun_flagged(fallback: str, ctz: str = "__builtin_ctz") -> str:
    """The C, in the loop of a pass that evaluates in float32 lanes first, after a vector of
    lanes from element ``i`` on stored its results in ``y`` and returned the bit mask ``m`` of
    those it flagged (a uint32_t; a uint64_t with ``ctz`` = ``__builtin_ctzll``): each of those
    evaluated again by ``fallback`` (a C function of one float returning the result's bits or
    FLAG_NAN: the float64 evaluation), adding to ``left`` (a long) each result the fallback
    flags too. Flags are rare (about 5e-4 of ordinary inputs), so the branch is almost never
    taken; until 2026-11-26 (late evening) the passes counted the flags of a block of 256 and
    looked for them again in a block that had any, which cost log's about 50 ns a flag (inputs
    in [0.9, 1.1], 4e-3 of them flagged: 0.321 against 0.276 ns an element, 2^14 inputs in
    cache, one thread, the 2-core AMD EPYC VM)."""
    return f"""\
        while (__builtin_expect(m != 0, 0)) {{
            const int j = {ctz}(m);
            m &= m - 1;
            const uint32_t b = {fallback}(x[i + j]);
            memcpy(y + i + j, &b, 4);
            left += b == 0x7FC00001u;
        }}
"""


def lanes_loop_x16(lanes: str, tables: str, fallback: str, registers: int = 2) -> str:
    """The C of the loop over n inputs of a pass's AVX-512 float32 lanes (``lanes``, a function
    ``(x, y, keep, tables)`` returning the bit mask of the lanes it flagged), in a function that
    holds ``left`` (a long): ``registers`` (2 or 4) registers an iteration (the function and
    the lanes marked ``UL_SCHEDULE``, ``SCHEDULE``, so that gcc schedules them together), then
    the rest 16 at a time, the last under a mask; the flagged lanes evaluated again at once by
    ``fallback`` (``rerun_flagged``). Measured, each pass in cache on the 2-core AMD EPYC VM, one
    register an iteration against two: exp 0.237 -> 0.206 ns an element, log 0.230 -> 0.220,
    softplus 1.00 -> 0.72 (its chains, exp's then log's, are the longest; two registers
    unscheduled 0.94); four against two: log 0.211 -> 0.204, softplus 0.694 -> 0.676, exp
    0.197 -> 0.200 (so exp and exp2 keep two)."""
    if registers not in (2, 4):
        raise ValueError(f"registers must be 2 or 4, not {registers!r}")
    mask = "uint32_t" if registers == 2 else "uint64_t"
    calls = f"        {mask} m = {lanes}(x + i, y + i, 0xFFFF, {tables});\n" + "".join(
        f"        m |= {'' if registers == 2 else '(uint64_t)'}{lanes}(x + i + {16 * r}, "
        f"y + i + {16 * r}, 0xFFFF, {tables}) << {16 * r};\n" for r in range(1, registers))
    rerun = rerun_flagged(fallback)
    wide = rerun_flagged(fallback, "__builtin_ctz" if registers == 2 else "__builtin_ctzll")
    word = {2: "two", 4: "four"}[registers]
    return f"""\
    long i = 0;
    /* {word} registers of lanes an iteration, scheduled together (UL_SCHEDULE): one alone left
       the loop waiting on the latency of its chains */
    for (; i + {16 * registers} <= n; i += {16 * registers}) {{
{calls}{wide}\
    }}
    for (; i < n; i += 16) {{
        const long rest = n - i;
        const __mmask16 keep = rest >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << rest) - 1u);
        uint32_t m = {lanes}(x + i, y + i, keep, {tables});
{rerun}\
    }}
"""


def description(func: str, fma: bool, permutes: bool = False) -> str:
    """What ``func``'s pass evaluates in, built for a target with (``fma``) or without an FMA
    instruction, with the permute loop of an avx512 build chosen (``permutes``, for a pass in
    ``AVX512_PATHS``) or not: "float32 lanes, then float64" or "float64"."""
    module(func)
    lanes = (fma and func in FLOAT32_LANES) or (permutes and func in AVX512_LANES)
    return "float32 lanes, then float64" if lanes else "float64"


COMMON = r"""
#include <stdint.h>
#include <string.h>
#include <math.h>

#ifdef __FMA__
#define UL_FMA(a, b, c) fma((a), (b), (c))
#else
#define UL_FMA(a, b, c) ((a) * (b) + (c))
#endif

static inline uint64_t ul_bits64(double d) { uint64_t u; memcpy(&u, &d, 8); return u; }
static inline double ul_double(uint64_t u) { double d; memcpy(&d, &u, 8); return d; }
static inline uint32_t ul_bits32(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static inline float ul_float(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
/* c ? a : b through masks (c is 0 or 1): both sides are computed, and gcc makes no branch of
   it (a ternary whose sides trap under -ftrapping-math, such as a conversion, it may sink into
   one, which stops vectorization) */
static inline uint32_t ul_sel32(uint32_t c, uint32_t a, uint32_t b) {
    return (a & (0u - c)) | (b & (c - 1u));
}
static inline uint64_t ul_sel64(uint64_t c, uint64_t a, uint64_t b) {
    return (a & (0ull - c)) | (b & (c - 1ull));
}
"""


SCHEDULE = r"""
/* gcc's instruction scheduling before register allocation (off by default on x86), for a loop
   of float32 lanes whose chains are long: the same operations, so the same bits */
#if defined(__GNUC__) && !defined(__clang__)
#define UL_SCHEDULE __attribute__((optimize("schedule-insns", "sched-pressure")))
#else
#define UL_SCHEDULE
#endif
"""
"""``UL_SCHEDULE``, put in the source of the passes with AVX-512 float32 lanes (exp, exp2,
log, softplus): two registers of lanes an iteration (four for log and softplus), scheduled
together, so that one's operations fill the other's waits (``lanes_loop_x16`` has the
figures)."""


ROUND_NORMAL = r"""
/* The midpoint test of a float64 value y within `err` units in the last place of y of the
   exact value (err < 2^28), for a pass whose own test on x's bits (`bad`) leaves out every
   input whose y could fall outside the normal float32 range [2^-126, 0x1.fffffep127] (each
   such pass says why in its analysis): the float32 bits of y rounded to nearest with `sign`
   (a sign bit, or 0) or-ed in where the exact value rounds to the same float32, else the flag
   0x7FC00001 (FLAG_NAN). It rounds the same when the 29 bits of y below float32's last place
   differ from the midpoint pattern 0x10000000 by more than err (the exact value then lies on
   the same side of the midpoint as y). The test runs on the low 32 bits of y: those 29 bits
   plus err - 2^28 wrap past 2^32 exactly where they lie within err of the midpoint; 32-bit
   lanes hold twice the elements of 64-bit ones and need no 64-bit comparison (AVX2 has only
   a signed one, SSE2 none). */
static inline uint32_t ul_round_normal_or_flag(double y, uint32_t bad, uint32_t err,
                                               uint32_t sign) {
    const uint32_t near = ((uint32_t)ul_bits64(y) & 0x1FFFFFFFu) + (err - 0x10000000u);
    return ul_sel32(!bad & (near > 2u * err), ul_bits32((float)y) | sign, 0x7FC00001u);
}
"""
"""The midpoint test alone (``ul_round_normal_or_flag``), put in the source of the passes that
use it (log, sin, cos, tanh, gelu, erf, sigmoid, silu) rather than in ``COMMON``: no range test
(a subtraction, an unsigned 64-bit comparison and a mask a lane, 5 to 12% of the pass where the
input test is free), and on 32-bit lanes. With the clamps and signs changed the same day,
measured over two runs of the passes alone in cache: 3 to 18% off the AVX2 passes, 2 to 18% off
the AVX-512 ones, and a factor 2 to 2.6 off the portable ones, whose loops now vectorize (SSE2
has no 64-bit comparison; ``docs/kernels/shipping.md`` has the table)."""


ROUND_RANGE32 = r"""
/* The float32 bits of y rounded to nearest, or FLAG_NAN, for a pass whose y may leave the
   normal float32 range: where `bad` is 0, |y| lies in [2^-126, 0x47EFFFFF00000000) (a test on
   y's high 32 bits, from 0x38100000: below 2^-126 y may round to a subnormal and near the
   largest float32, 0x47EFFFFFE0000000, to infinity, which the second pass decides; the values
   within 2^-20 of it are flagged too) and the midpoint test of ul_round_normal_or_flag holds
   on its low 32 bits. */
static inline uint32_t ul_round_or_flag32(double y, uint32_t bad, uint32_t err) {
    const uint64_t u = ul_bits64(y);
    const uint32_t high = (uint32_t)(u >> 32) & 0x7FFFFFFFu;
    const uint32_t near = ((uint32_t)u & 0x1FFFFFFFu) + (err - 0x10000000u);
    const uint32_t ok = !bad & (high - 0x38100000u < 0x47EFFFFFu - 0x38100000u)
                        & (near > 2u * err);
    return ul_sel32(ok, ul_bits32((float)y), 0x7FC00001u);
}
"""
"""The range and midpoint tests on 32-bit lanes (``ul_round_or_flag32``), for the passes whose
values may leave the normal float32 range (exp's float64 evaluation, softplus). Until
2026-11-26 ``COMMON`` also held the same tests on 64-bit lanes, which no pass used any more."""


def module(func: str) -> ModuleType:
    """The module of ``func``'s float64 first pass (a ``UsageError`` for a kernel without
    one)."""
    if func not in FUNCTIONS:
        raise UsageError(f"no float64 first pass for {func!r}; valid: {', '.join(FUNCTIONS)}")
    return import_module(f"ulplab.export.fast64.{func}")


def symbol(func: str) -> str:
    """The C name of ``func``'s float64 first pass."""
    module(func)
    return f"ulplab_{func}_fast64"


def source(func: str) -> str:
    """The C translation unit of ``func``'s float64 first pass (tables included)."""
    module(func)
    return _source(func)


@cache
def _source(func: str) -> str:
    mod = module(func)
    return (f"/* ulplab: float64 first pass of det {func} (ulplab.export.fast64.{func}); "
            f"returns the correctly rounded float32 result or FLAG_NAN */\n"
            + COMMON + mod.tables() + mod.SOURCE)


def source_sha256(func: str) -> str:
    """SHA-256 of ``source(func)``: what a proof of the float64 pass names
    (``registry.Fast64Proof``)."""
    return hashlib.sha256(source(func).encode()).hexdigest()


__all__ = [
    "AVX2_PATHS",
    "AVX512_LANES",
    "AVX512_PATHS",
    "COMMON",
    "COUNTED",
    "COUNTING_STEPS",
    "FLOAT32_LANES",
    "FUNCTIONS",
    "ROUND_NORMAL",
    "ROUND_RANGE32",
    "SCHEDULE",
    "amd_loop",
    "avx512_choice",
    "avx512_entry",
    "counts",
    "description",
    "lanes_loop_x16",
    "low_halves512",
    "module",
    "rerun_flagged",
    "segment",
    "source",
    "source_sha256",
    "symbol",
    "two_loops",
    "vendor_choice",
]
