"""TT Accurate and TT Fast: models of the two Tenstorrent SFPU GELU kernels (Wormhole/Blackhole).

These are reference benchmarks: they reproduce what the hardware kernels compute, not what
GELU should be, so nothing here is tuned for accuracy.

TT Accurate (the non-approximate mode of the Chebyshev era)
    Source: ``tt_metal/hw/ckernels/wormhole_b0/metal/llk_api/llk_sfpu/ckernel_sfpu_gelu.h``,
    function ``calculate_gelu_chebyshev``, quoted from the fork ivoitovych/tt-metal @
    01abdd29f6566b29cb6e0916bc49503e2b58133d (the same coefficients are in the forks
    gacorpoll-ui/tt-metal @ d9d4456a0dc3c51b80762eb6c48a38a72a7d1b15, AllanLeal11/tt-metal @
    afa493942654e118df99a6aeec1987d51b0c65f0 and bzhangTT/tt-metal @
    2baf6ebb9ba832d62cc2ee69c51a48e13b30d3aa; no upstream tenstorrent/tt-metal commit of that
    era was available to check against). Semantics:

    * x == 0 -> 0; x >= 3 (and NaN, whose comparisons all fail) -> x unchanged;
    * x < -5.5 -> 0;
    * otherwise r = P(x), a degree-15 polynomial in x itself (not in x^2 or |x|), by Horner from
      the x^15 coefficient down, and the result takes the sign bit of x (``setsgn``).

    The sixteen coefficients are double literals in the source; the SFPU loads a float32
    immediate, so each is the float32 nearest the literal (written below in hex, with the source
    literal beside it). Modelling choice: every Horner step ``r*x + c`` is one SFPMAD, a fused
    multiply-add with a single round-to-nearest-even, so it is modelled as the kit's correctly
    rounded float32 ``fma``. Not modelled: the SFPU treats denormal inputs as zero and flushes
    denormal and -0 results to +0 (ulplab measures IEEE denormals; ``--denormals`` selects a
    flushing policy instead). Zero results are +0 (x = +-0 and x < -5.5), as the seed's model and
    the hardware write them (SIGNED_ZERO = 0: TT Accurate is the seed's, bit for bit, checked by
    tests/test_gelu_seed_bits.py); "TT Accurate (improved)" gives them the sign of x
    (gelu(-0) = -0, gelu(x < -5.5) = -0). The sign of a zero is invisible to the ULP measure
    (+0 and -0 share one index).

TT Fast (the approximate mode): a 6-segment table of slopes and intercepts
    Source: tenstorrent/tt-llk @ fc4b29c7bdaa513bb290d84520167d151b588cad,
    ``tt_llk_wormhole_b0/common/inc/sfpu/ckernel_sfpu_gelu.h`` (``_init_gelu_`` and
    ``_calculate_gelu_appx_``); the same words are in tt-llk @
    001c23a46fba8fea8f5646aa96d99c23c2143367 and, for Blackhole, tt-llk @
    fd28ebbfbb08b77e6965d37e3fb3de6bb3923c09. Six 32-bit words are loaded into LRegs 0, 1, 2
    (slopes) and 4, 5, 6 (intercepts); each word packs two 16-bit table entries, low half for
    the lower segment. ``SFPLUTFP32`` in 6-entry table-1 mode (tt-isa-documentation @
    135471044308278122aec9664bd5f0935429205f, ``SFPLUTFP32.md``) picks the pair (s, c) by |x| in
    [0, .5), [.5, 1), [1, 1.5), [1.5, 2), [2, 3), [3, inf), decodes each half with the
    hardware's own 16-bit rule (IEEE half layout, but exponent 31 means zero and exponent 0
    means 2^-15 times 1.mant: no infinities, no subnormals; so the word half 0x7C00 is +0.0, not
    +inf), and returns s*|x| + c with one rounding. ``lut2_sign`` uses the sign-update mode, so
    the table result is NOT given the sign of x. The kernel then adds 0.5*x (0.5 from a
    programmable constant):

        TT_Fast(x) = 0.5*x + (s_k*|x| + c_k),   k chosen by |x|.

    Both multiply-adds are modelled as correctly rounded float32 FMAs (the raw form in the
    source is one SFPMAD ``0.5*x + lut``). For x <= -3 the top segment (0.5, +0) gives 0.5x +
    0.5|x| = 0 exactly; for x >= 3 it gives x. The one input the hardware formula cannot handle
    is -inf (-inf + inf = NaN): it is given the limit -0, as ulplab requires.

What the seed's table says and what ulplab measures (all bfloat16 inputs)
    Seed: TT Accurate max 14330 ULP, mean 3224.82; TT Fast max 32639, mean 15782.90. Here: TT
    Accurate max 14330, mean 3224.77, and every region figure of the seed's row (near-zero max
    14330, core_pos 1, core_neg 4, tail_neg 13245) is reproduced; the mean differs in the fifth
    digit (separate float32 multiply and add give 3224.85, float64 Horner 3224.85: the seed's
    exact evaluation is not known). The maximum is the "floor value" defect: for tiny |x| the
    polynomial returns about c0 = 2.98e-5 (with the sign of x) instead of about x/2.
    TT Fast (tt-llk): max 29803, mean 6569.79, well below the seed. The seed modelled the table
    part as sign(x)*(s|x| + c) (its text: "returns x instead of ~0 for large negative inputs",
    tail max 32639), but the ISA documentation says lut2_sign keeps the sign of s|x| + c, so
    here x <= -3 gives 0 rather than x. "TT Fast" is the seed's model, bit for bit
    (``build_tt_fast_seed``; its C++ at c2bf7bb, every bfloat16 output checked by
    tests/test_gelu_seed_bits.py): sign(x) (A|x| + B) with sign(+-0) = 1 and its 4-digit decimal
    A, B (not the hardware's fp16 words); it measures the seed's row, max 32639 and mean
    15782.90 (its near-zero mean 19710.6 comes from B = -0.000104 multiplied by sign(x): tiny
    positive x get -1.04e-4). "TT Fast (improved)" is the same form with the hardware's decoded
    words and the sign copied (copysign, so tiny positive x get +1.04e-4): max 32639, mean
    9348.61. The remaining large errors: just above x = -3 the sum 0.5x + 0.54|x| - 0.119 is a
    tiny positive number where GELU is -0.004 (max, at x = -2.984375), the constant intercept
    for tiny |x|, and (tt-llk) the flush to 0 for -13.6 < x <= -3.
"""

from __future__ import annotations

import numpy as np

from ulplab.kit import fma, lookup
from ulplab.kit.ops import f32hex
from ulplab.methods.gelu.seed_table import seed_figures
from ulplab.methods.gelu.tail import where32
from ulplab.methods.params import Params, coeffs, evaluate_poly, integer, scheme, threshold
from ulplab.methods.params import knots as knots_param
from ulplab.methods.params import table as table_param
from ulplab.methods.registry import ArrayFn, Claim, built, register

f32 = np.float32


_h = f32hex  # exact hex literal -> float32


# ---------------------------------------------------------------------------------------------
# TT Accurate
# ---------------------------------------------------------------------------------------------

# POLYVAL15 coefficients, c0 .. c15 (low to high), each the float32 nearest the double literal
# of ivoitovych/tt-metal @ 01abdd29f6566b29cb6e0916bc49503e2b58133d (calculate_gelu_chebyshev).
TT_ACCURATE_COEFFS = (
    _h("0x1.f481f2p-16"),   # c0   2.98325768482e-05
    _h("0x1.ff27a4p-2"),    # c1   0.499174645395
    _h("0x1.982536p-2"),    # c2   0.398579460781
    _h("0x1.4086eep-9"),    # c3   0.00244542739174
    _h("-0x1.0cd954p-4"),   # c4  -0.0656369476513
    _h("-0x1.1141a0p-9"),   # c5  -0.00208478037614
    _h("0x1.2db58cp-7"),    # c6   0.0092074331601
    _h("0x1.92d4e2p-11"),   # c7   0.000768340223025
    _h("-0x1.c3f6b8p-11"),  # c8  -0.000862052441087
    _h("-0x1.223a8ep-13"),  # c9  -0.000138391838381
    _h("0x1.649d10p-15"),   # c10  4.25116466215e-05
    _h("0x1.8f8e2ep-17"),   # c11  1.19076782913e-05
    _h("-0x1.ed64acp-23"),  # c12 -2.29754133825e-07
    _h("-0x1.9228f0p-22"),  # c13 -3.74540617693e-07
    _h("-0x1.8a534ap-25"),  # c14 -4.59055119276e-08
    _h("-0x1.f217d8p-30"),  # c15 -1.81205228163e-09
)
TT_ACCURATE_POS = 3.0   # x >= 3 -> x (the `in < 3.0f` branch of calculate_gelu)
TT_ACCURATE_NEG = -5.5  # x < -5.5 -> 0 (the `val >= -5.5f` branch of calculate_gelu_chebyshev)


def build_tt_accurate(p: Params) -> ArrayFn:
    def impl(x: np.ndarray) -> np.ndarray:
        with np.errstate(all="ignore"):
            r = evaluate_poly(p.SCHEME, x, p.TT_ACCURATE_COEFFS)  # 15 SFPMADs
            r = np.copysign(np.abs(r), x)                          # setsgn(result, x)
            zero = np.zeros_like(x)
            if p.SIGNED_ZERO:
                zero = np.copysign(zero, x)
            r = where32(x < p.TT_ACCURATE_NEG, zero, r)
            r = where32(x < p.TT_ACCURATE_POS, r, x)             # NaN and x >= 3 -> x
            return where32(x == 0.0, x if p.SIGNED_ZERO else zero, r)

    return impl


# ---------------------------------------------------------------------------------------------
# TT Fast
# ---------------------------------------------------------------------------------------------

# The six packed LReg words of _init_gelu_, tenstorrent/tt-llk @
# fc4b29c7bdaa513bb290d84520167d151b588cad (low 16 bits loaded first, then the high 16 bits).
TT_FAST_SLOPE_WORDS = (0x37E7322B, 0x38E138F3, 0x38003852)      # LReg0, LReg1, LReg2
TT_FAST_INTERCEPT_WORDS = (0xB12286D8, 0xB437B479, 0x7C00AFA4)  # LReg4, LReg5, LReg6
TT_FAST_CUTS = (0.5, 1.0, 1.5, 2.0, 3.0)  # segment edges on |x|, FP16_6ENTRY_TABLE1
TT_FAST_HALF = 0.5  # vConstFloatPrgm0


def lut16_to_float(h: int) -> float:
    """The SFPLUTFP32 decoding of one 16-bit table entry (tt-isa-documentation, Lut16ToFp32).

    Sign, 5-bit exponent, 10-bit mantissa as IEEE half, rebuilt as float32 bits with the
    exponent rebased by 112; exponent 31 becomes float32 exponent 0 (so 0x7C00 is +0.0) and
    exponent 0 is an ordinary normal number 2^-15 * 1.mant.
    """
    if not 0 <= h <= 0xFFFF:
        raise ValueError(f"not a 16-bit entry: {h:#x}")
    sign, exp, man = h >> 15, (h >> 10) & 0x1F, h & 0x3FF
    exp32 = 0 if exp == 0x1F else 112 + exp
    return float(np.uint32((sign << 31) | (exp32 << 23) | (man << 13)).view(np.float32))


def unpack_words(words: tuple[int, ...]) -> np.ndarray:
    """Six decoded float32 entries, segment order: low half then high half of each word."""
    out = []
    for w in words:
        out += [lut16_to_float(w & 0xFFFF), lut16_to_float(w >> 16)]
    return np.array(out, dtype=np.float32)


TT_FAST_SLOPES = unpack_words(TT_FAST_SLOPE_WORDS)
TT_FAST_INTERCEPTS = unpack_words(TT_FAST_INTERCEPT_WORDS)


def build_tt_fast(p: Params) -> ArrayFn:
    def impl(x: np.ndarray) -> np.ndarray:
        with np.errstate(all="ignore"):
            ax = np.abs(x)
            cuts = p.TT_FAST_CUTS
            k = (ax >= cuts[0]).astype(np.int32)
            for cut in cuts[1:]:
                k = k + (ax >= cut).astype(np.int32)
            lut = fma(lookup(p.TT_FAST_SLOPES, k), ax,
                      lookup(p.TT_FAST_INTERCEPTS, k))           # SFPLUTFP32, sign kept
            if p.SIGN_COPY:
                lut = np.copysign(lut, x)                        # the seed's sign(x)*(s|x|+c)
            y = fma(x, np.full_like(x, TT_FAST_HALF), lut)       # SFPMAD 0.5*x + lut
            return where32(x == -np.inf, np.copysign(np.zeros_like(x), x), y)

    return impl


def _tt_accurate_params(signed_zero: int) -> Params:
    return Params({"TT_ACCURATE_COEFFS": coeffs(TT_ACCURATE_COEFFS), "SCHEME": scheme(),
                   "TT_ACCURATE_POS": threshold(TT_ACCURATE_POS),
                   "TT_ACCURATE_NEG": threshold(TT_ACCURATE_NEG),
                   "SIGNED_ZERO": integer(signed_zero)})


register(built(
    "gelu", "TT Accurate", "tenstorrent",
    "Tenstorrent SFPU accurate GELU: degree-15 polynomial in x (FMA Horner), sign of x copied, "
    "x>=3 -> x, x<-5.5 -> +0, x=0 -> +0",
    build_tt_accurate, _tt_accurate_params(signed_zero=0),
    claims={"bfloat16": Claim(14330, 3224.7677), "float16": Claim(3498, 67.9961)},
    seed=seed_figures("TT Accurate"),
    note="bit for bit the seed's gelu_tt_accurate (gelu_implementations.cpp:2647 at c2bf7bb)",
))
register(built(
    "gelu", "TT Accurate (improved)", "tenstorrent",
    "Tenstorrent SFPU accurate GELU: degree-15 polynomial in x (FMA Horner), sign of x copied, "
    "x>=3 -> x, x<-5.5 -> -0, x=0 -> x",
    build_tt_accurate, _tt_accurate_params(signed_zero=1),
    claims={"bfloat16": Claim(14330, 3224.7677), "float16": Claim(3498, 67.9961)},
    seed=seed_figures("TT Accurate (improved)"),
    note="the seed's TT Accurate with zero results carrying the sign of x (gelu(-0) = -0, "
    "gelu(x < -5.5) = -0); the ULP figures are the same",
))


def _tt_fast_params(sign_copy: int) -> Params:
    return Params({"TT_FAST_SLOPES": table_param(TT_FAST_SLOPES),
                   "TT_FAST_INTERCEPTS": table_param(TT_FAST_INTERCEPTS),
                   "TT_FAST_CUTS": knots_param(TT_FAST_CUTS), "SIGN_COPY": integer(sign_copy)})


# The seed's TT Fast (gelu_implementations.cpp:2710 at c2bf7bb), bit for bit: its table
# TT_LUT_SEGMENTS (:2582-2589) as 4-digit decimals, each rounded to float32 (not the words the
# hardware loads: "TT Fast (improved)" decodes those); the last segment, 0.5 |x| + 0, also
# serves |x| >= 1e30, inf and NaN (its loop's default)
SEED_TT_FAST_SLOPES = np.array([float.fromhex(h) for h in (
    "0x1.8adabap-3", "0x1.f9c0ecp-2", "0x1.3ce076p-1", "0x1.3844d0p-1", "0x1.149518p-1",
    "0x1.000000p-1")], dtype=np.float32)  # 0.1928, 0.4939, 0.6189, 0.6099, 0.5402, 0.5
SEED_TT_FAST_INTERCEPTS = np.array([float.fromhex(h) for h in (
    "-0x1.b43526p-14", "-0x1.48b43ap-3", "-0x1.1e69aep-2", "-0x1.0dd2f2p-2", "-0x1.e90ffap-4",
    "0x0p+0")], dtype=np.float32)  # -0.000104, -0.1605, -0.2797, -0.2635, -0.1194, 0


def build_tt_fast_seed(p: Params) -> ArrayFn:
    """The seed's TT Fast as its README build evaluates it: the segment of |x| among
    TT_FAST_CUTS, lut = sign (fma(A, |x|, B)) with sign = 1 for x >= 0 (so +-0 too) and -1
    otherwise, GELU = fma(0.5, x, lut); a NaN input gives its NaN without its sign, as the seed's
    build returns it."""
    def impl(x: np.ndarray) -> np.ndarray:
        with np.errstate(all="ignore"):
            ax = np.abs(x)
            k = np.zeros(x.shape, dtype=np.int32)
            for cut in p.TT_FAST_CUTS:
                k = k + (ax >= cut).astype(np.int32)
            lut = fma(lookup(p.SEED_TT_FAST_SLOPES, k), ax, lookup(p.SEED_TT_FAST_INTERCEPTS, k))
            lut = where32(x >= 0.0, lut, -lut)
            y = fma(x, np.full_like(x, TT_FAST_HALF), lut)
            return where32(np.isnan(x), ax, y)

    return impl


register(built(
    "gelu", "TT Fast", "tenstorrent",
    "Tenstorrent fast GELU as the seed modelled it: 0.5x + sign(x)(A|x| + B), (A, B) its "
    "4-digit decimals of the 6-segment table by |x|",
    build_tt_fast_seed,
    Params({"SEED_TT_FAST_SLOPES": table_param(SEED_TT_FAST_SLOPES),
            "SEED_TT_FAST_INTERCEPTS": table_param(SEED_TT_FAST_INTERCEPTS),
            "TT_FAST_CUTS": knots_param(TT_FAST_CUTS)}),
    table_bytes=48,
    claims={"bfloat16": Claim(32639, 15782.9011, inf_mismatches=1),
            "float16": Claim(31743, 6086.8741, inf_mismatches=1)},  # -inf -> -inf
    seed=seed_figures("TT Fast"),
    note="bit for bit the seed's gelu_tt_fast (gelu_implementations.cpp:2710 at c2bf7bb)",
))
register(built(
    "gelu", "TT Fast (improved)", "tenstorrent",
    "Tenstorrent fast GELU in the seed's form 0.5x + sign(x)|s|x| + c|, (s, c) the 6-segment fp16 "
    "table words the hardware loads, by |x|",
    build_tt_fast, _tt_fast_params(sign_copy=1),
    table_bytes=24,
    claims={"bfloat16": Claim(32639, 9348.6122), "float16": Claim(31743, 6071.4817)},
    seed=seed_figures("TT Fast (improved)"),
    note="the seed's TT Fast with the slopes and intercepts the hardware loads (tt-llk's packed "
    "fp16 words, decoded) instead of the seed's 4-digit decimals, and the sign copied",
))
register(built(
    "gelu", "TT Fast (tt-llk)", "tenstorrent",
    "Tenstorrent SFPU fast GELU: 0.5x + s|x| + c with (s, c) from a 6-segment fp16 table by |x|",
    build_tt_fast, _tt_fast_params(sign_copy=0),
    table_bytes=24,
    claims={"bfloat16": Claim(29803, 6569.793), "float16": Claim(11656, 320.8416)},
    seed=seed_figures("TT Fast (tt-llk)"),
    note="the kernel as tt-llk has it (the sign of s|x| + c kept, not x's): bfloat16 max 29803, "
    "the seed's sign copy 32639",
))
