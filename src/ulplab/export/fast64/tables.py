"""The float64 tables of the float64 first passes, computed from exact arithmetic (mpmath at 200
bits, each entry rounded once to the nearest float64) and printed as C hex float literals."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from functools import cache

import mpmath

EXP_TABLE_BITS = 6
"""exp's table: 2^(j/64), j = 0..63."""

LOG_TABLE_BITS = 8
"""log's tables: 256 subintervals of [0.6875, 1.375), what log's and softplus's passes use
(``ulplab.export.fast64.log.BITS``; softplus had 128 until 2026-11-26)."""

LOG_OFF = 0x3FE6000000000000
"""0.6875: log's reduced argument z lies in [0.6875, 1.375), 2^-k times the input."""

LOG_INVC_BITS = 21
"""Significant bits of log's 1/c: z (24 bits) times 1/c is exact in float64."""


def _nearest(v: mpmath.mpf, bits: int = 53) -> float:
    """``v`` rounded to the nearest float64 (mpmath rounds to nearest at 53 bits), or with
    ``bits`` = 24 to the nearest float32 (no subnormal among the values rounded here)."""
    with mpmath.workprec(bits):
        return float(+v)


def horner(var: str, coefficients: Sequence[Fraction | float], fma: str = "UL_FMA") -> str:
    """C for the polynomial sum c[i] var^i (c low to high, each an exact rational rounded to
    the nearest float64, or a float64) in Horner's scheme through ``fma``."""
    hexes = [float(c).hex() for c in coefficients]
    text = hexes[-1]
    for h in reversed(hexes[:-1]):
        text = f"{fma}({var}, {text}, {h})"
    return text


def simd_horner(var: str, coefficients: Sequence[Fraction | float], width: int) -> str:
    """``horner`` on the float64 lanes of a ``width``-bit register (256: AVX2, 512: AVX-512;
    intrinsics): the same FMAs in the same order, the coefficients rounded to the nearest
    float64."""
    mm = {256: "_mm256", 512: "_mm512"}[width]
    hexes = [float(c).hex() for c in coefficients]
    text = f"{mm}_set1_pd({hexes[-1]})"
    for h in reversed(hexes[:-1]):
        text = f"{mm}_fmadd_pd({var}, {text}, {mm}_set1_pd({h}))"
    return text


def nearest32(c: Fraction | float) -> float:
    """The exact rational (or float64) ``c`` rounded once to the nearest float32."""
    with mpmath.workprec(300):
        exact = mpmath.mpf(c.numerator) / c.denominator if isinstance(c, Fraction) else (
            mpmath.mpf(c))
    return _nearest(exact, 24)


def horner512(var: str, coefficients: Sequence[Fraction | float]) -> str:
    """``simd_horner`` on eight float64 lanes (AVX-512)."""
    return simd_horner(var, coefficients, 512)


def _pair32(v: mpmath.mpf) -> tuple[float, float]:
    """``v`` rounded to the nearest float32 (hi), and the rest rounded to the nearest float32."""
    hi = _nearest(v, 24)
    return hi, _nearest(v - mpmath.mpf(hi), 24)


def log1p_taylor(degree: int) -> list[Fraction]:
    """(log1p(r) - r)/r^2 in powers of r: the Taylor coefficients c_i = (-1)^(i+1)/i,
    i = 2..degree (low to high), of log's and softplus's polynomials."""
    return [Fraction((-1) ** (i + 1), i) for i in range(2, degree + 1)]


def odd_fit_error(coefficients: Sequence[str], function: str, top: mpmath.mpf,
                  points: int = 2001) -> float:
    """max |P(y) - (g(sqrt y) - sqrt y) / y^(3/2)| over ``points`` Chebyshev points of [0, top]
    (g = mpmath's ``function``, "sin" or "tanh"; its limit at 0 there), P the polynomial of the
    float64 ``coefficients`` (hex literals, low to high) evaluated exactly, at 160 bits: the
    error of a fit of an odd function as r + r^3 P(r^2)."""
    g = getattr(mpmath, function)
    limit = {"sin": mpmath.mpf(-1) / 6, "tanh": mpmath.mpf(-1) / 3}[function]
    values = [mpmath.mpf(float.fromhex(c)) for c in coefficients]
    with mpmath.workprec(160):
        worst = mpmath.mpf(0)
        for i in range(points):
            y = mpmath.mpf(top) * (1 - mpmath.cos(mpmath.pi * i / (points - 1))) / 2
            r = mpmath.sqrt(y)
            f = limit if y == 0 else (g(r) - r) / (y * r)
            worst = max(worst, abs(sum(c * y**j for j, c in enumerate(values)) - f))
    return float(worst)


def c_array(name: str, values: list[float], ctype: str = "double") -> str:
    """The C array ``name`` of ``values`` as hex literals (``ctype`` double, or float: each
    value then a float32, written with the f suffix)."""
    suffix = "f" if ctype == "float" else ""
    rows = [", ".join(v.hex() + suffix for v in values[i:i + 4])
            for i in range(0, len(values), 4)]
    return (f"static const {ctype} {name}[{len(values)}] = {{\n    "
            + ",\n    ".join(rows) + "\n};\n")


def _split(v: mpmath.mpf, bits: int) -> tuple[float, float]:
    """(hi, lo): ``v`` rounded to ``bits`` significant bits, and the rest rounded to nearest."""
    with mpmath.workprec(bits):
        hi = +v
    return float(hi), _nearest(v - hi)


def c_constant(name: str, value: float) -> str:
    return f"static const double {name} = {value.hex()};\n"


@cache
def exp_table() -> str:
    """``ul_exp_tab[j]`` = 2^(j/64) rounded to nearest (relative error <= 2^-53), and ln2/64
    split in two: ``UL_LN2_64_HI`` (37 significant bits: k times it is exact for |k| < 2^16)
    and ``UL_LN2_64_LO`` (the rest, rounded to nearest)."""
    with mpmath.workprec(200):
        values = [_nearest(mpmath.mpf(2) ** (mpmath.mpf(j) / (1 << EXP_TABLE_BITS)))
                  for j in range(1 << EXP_TABLE_BITS)]
        hi, lo = _split(mpmath.log(2) / (1 << EXP_TABLE_BITS), 37)
    return (c_array("ul_exp_tab", values) + c_constant("UL_LN2_64_HI", hi)
            + c_constant("UL_LN2_64_LO", lo))


@cache
def exp_table32() -> str:
    """The float32 lanes' exp table and constants: ``ul_exp32_hi[j]`` = 2^(j/64) rounded to
    the nearest float32 and ``ul_exp32_lo[j]`` = the rest rounded to nearest (|error| <=
    2^-49); ``UL_64_LN2_F`` = 64/ln2 rounded to nearest; ``UL_LN2_64_F`` = ln2/64 rounded to
    nearest (0x1.62e43p-7: 21 significant bits, so k times it is a multiple of 2^-27);
    ``UL_LN2_64_F_OVER`` = by how much that float32 exceeds ln2/64, rounded to nearest
    (|error| <= 2^-59)."""
    with mpmath.workprec(200):
        hi, lo = zip(*(_pair32(mpmath.mpf(2) ** (mpmath.mpf(j) / (1 << EXP_TABLE_BITS)))
                       for j in range(1 << EXP_TABLE_BITS)), strict=True)
        ln2_64 = mpmath.log(2) / (1 << EXP_TABLE_BITS)
        l1 = _nearest(ln2_64, 24)
        nl2 = _nearest(mpmath.mpf(l1) - ln2_64, 24)
        c = _nearest((1 << EXP_TABLE_BITS) / mpmath.log(2), 24)

    def const(name: str, value: float) -> str:
        return f"static const float {name} = {value.hex()}f;\n"

    return (c_array("ul_exp32_hi", list(hi), "float") + c_array("ul_exp32_lo", list(lo), "float")
            + const("UL_64_LN2_F", c) + const("UL_LN2_64_F", l1)
            + const("UL_LN2_64_F_OVER", nl2))


EXP_SPLIT = 3
"""The avx2 build's float32 lanes read 2^(j/64), j = 8a + b, as 2^(a/8) 2^(b/64): two tables of
2^EXP_SPLIT = 8 float32 pairs, one register each (``exp_pairs32_split``)."""


@cache
def exp_pairs32_split() -> tuple[tuple[float, ...], ...]:
    """(a_hi, a_lo, b_hi, b_lo): 2^(a/8) and 2^(b/64), a, b = 0..7, each rounded to the nearest
    float32 (hi) and the rest rounded to the nearest float32 (lo)."""
    with mpmath.workprec(200):
        out: list[tuple[float, ...]] = []
        for den in (8, 64):
            out += zip(*(_pair32(mpmath.mpf(2) ** (mpmath.mpf(i) / den))
                         for i in range(1 << EXP_SPLIT)), strict=True)
    return tuple(out)


@cache
def exp_table32_split() -> str:
    """``exp_pairs32_split`` as C: ``ul_exp32_a_hi``, ``ul_exp32_a_lo``, ``ul_exp32_b_hi``,
    ``ul_exp32_b_lo``."""
    names = ("ul_exp32_a_hi", "ul_exp32_a_lo", "ul_exp32_b_hi", "ul_exp32_b_lo")
    return "".join(c_array(name, list(values), "float")
                   for name, values in zip(names, exp_pairs32_split(), strict=True))


def exp_split_products() -> list[tuple[float, float]]:
    """(th, tl) for j = 0..63 as the avx2 build's float32 lanes compute them from
    ``exp_pairs32_split`` (a = j >> 3, b = j & 7): th = ah bh rounded to float32,
    tl = fmaf(ah, bl, fmaf(al, bh, fmaf(ah, bh, -th))), each fmaf one rounding to nearest."""
    ahs, als, bhs, bls = exp_pairs32_split()

    def f32(v: Fraction) -> Fraction:
        with mpmath.workprec(300):
            exact = mpmath.mpf(v.numerator) / v.denominator
        return Fraction(_nearest(exact, 24))

    out = []
    for j in range(1 << EXP_TABLE_BITS):
        ah, al = Fraction(ahs[j >> EXP_SPLIT]), Fraction(als[j >> EXP_SPLIT])
        bh, bl = Fraction(bhs[j & 7]), Fraction(bls[j & 7])
        th = f32(ah * bh)
        tl = f32(ah * bl + f32(al * bh + f32(ah * bh - th)))
        out.append((float(th), float(tl)))
    return out


def exp_split_bounds() -> tuple[float, float]:
    """log2 of the largest |th + tl - 2^(j/64)| / 2^(j/64) and of the largest |tl| / th over the
    64 pairs of ``exp_split_products`` (exact: mpmath at 200 bits)."""
    err = size = mpmath.mpf(0)
    with mpmath.workprec(200):
        for j, (th, tl) in enumerate(exp_split_products()):
            t = mpmath.mpf(2) ** (mpmath.mpf(j) / (1 << EXP_TABLE_BITS))
            err = max(err, abs(mpmath.mpf(th) + mpmath.mpf(tl) - t) / t)
            size = max(size, abs(mpmath.mpf(tl)) / mpmath.mpf(th))
        return float(mpmath.log(err, 2)), float(mpmath.log(size, 2))


@cache
def pio2_split() -> str:
    """pi/2 split in three (Cody and Waite): ``UL_PIO2_1`` = pi/2 rounded to 36 significant
    bits, ``UL_PIO2_2`` the rest rounded to 36 bits, ``UL_PIO2_3`` what remains rounded to
    nearest (together pi/2 within 2^-125); k times the first two is exact for |k| < 2^17."""
    with mpmath.workprec(200):
        p1, _ = _split(mpmath.pi / 2, 36)
        p2, _ = _split(mpmath.pi / 2 - mpmath.mpf(p1), 36)
        p3 = _nearest(mpmath.pi / 2 - mpmath.mpf(p1) - mpmath.mpf(p2))
    return (c_constant("UL_PIO2_1", p1) + c_constant("UL_PIO2_2", p2)
            + c_constant("UL_PIO2_3", p3))


@cache
def pio2_parts() -> tuple[float, float]:
    """(P1, R): P1 = pi/2 rounded to 36 significant bits (``pio2_split``'s UL_PIO2_1) and R =
    pi/2 - P1 rounded to the nearest float64 (pi/2 - P1 - R = 2^-92.83): sin's and cos's two
    parts."""
    with mpmath.workprec(200):
        return _split(mpmath.pi / 2, 36)


@cache
def ln2_nearest() -> str:
    """``UL_LN2``: ln2 rounded to the nearest float64 (|error| < 2^-54 ln2)."""
    with mpmath.workprec(200):
        return c_constant("UL_LN2", _nearest(mpmath.log(2)))


@cache
def ln2_float32() -> str:
    """exp2's float32 lanes' ln2 in two float32: ``UL_LN2_F`` = ln2 rounded to the nearest
    float32 (0x1.62e43p-1) and ``UL_LN2_F_LO`` = the rest rounded to nearest (together ln2
    within 2^-53)."""
    with mpmath.workprec(200):
        ln2 = mpmath.log(2)
        hi = _nearest(ln2, 24)
        lo = _nearest(ln2 - mpmath.mpf(hi), 24)
    return (f"static const float UL_LN2_F = {hi.hex()}f;\n"
            f"static const float UL_LN2_F_LO = {lo.hex()}f;\n")


@cache
def invln2_nearest() -> str:
    """``UL_INVLN2``: 1/ln2 rounded to the nearest float64 (|error| < 2^-53 of it), log2's
    scale."""
    with mpmath.workprec(200):
        return c_constant("UL_INVLN2", _nearest(1 / mpmath.log(2)))


def log_subinterval(i: int, bits: int = LOG_TABLE_BITS) -> tuple[float, float]:
    """[lo, hi) of log's subinterval i of 2^bits: the float64 whose bits are LOG_OFF + i *
    2^(52 - bits) up to the next one (exponent changes included: with 7 bits, 80 subintervals
    of width 2^-8 below 1, 48 of 2^-7 above)."""
    import struct

    def at(code: int) -> float:
        return struct.unpack("<d", struct.pack("<Q", code))[0]

    step = 1 << (52 - bits)
    return at(LOG_OFF + i * step), at(LOG_OFF + (i + 1) * step)


@cache
def log_tables(bits: int = LOG_TABLE_BITS, prefix: str = "ul_log") -> str:
    """``ul_log_invc[i]``: 1/c for subinterval i's midpoint c (of 2^bits, ``log_subinterval``),
    rounded to LOG_INVC_BITS significant bits (so z * invc and z * invc - 1 are exact);
    ``ul_log_logc[i]`` = -log(invc) rounded to nearest. The two subintervals next to 1 ([1 -
    2^-(bits+1), 1) and [1, 1 + 2^-bits)) have invc = 1 and logc = 0: there log(z) = log1p(z -
    1) with z - 1 exact, so the result keeps its relative accuracy as it goes to 0. ``prefix``
    names the arrays (``{prefix}_invc``, ``{prefix}_logc``)."""
    invc, logc = [], []
    with mpmath.workprec(200):
        for i in range(1 << bits):
            lo, hi = log_subinterval(i, bits)
            if lo in (1.0 - 2.0 ** -(bits + 1), 1.0):
                invc.append(1.0)
                logc.append(0.0)
                continue
            c = (mpmath.mpf(lo) + mpmath.mpf(hi)) / 2
            with mpmath.workprec(LOG_INVC_BITS):
                r = +(1 / c)
            invc.append(float(r))
            logc.append(_nearest(-mpmath.log(r)))
    return c_array(f"{prefix}_invc", invc) + c_array(f"{prefix}_logc", logc)


LOG32_BITS = 5
"""The float32 lanes of log's avx512 build: 2^LOG32_BITS = 32 subintervals of [0.6875, 1.375)
(width 2^-6 below 1, 2^-5 above), two AVX-512 registers a table of float32."""

LOG32_LN2_UNIT = 16
"""``log_pairs32``'s ln2 hi part and each logc hi part are multiples of 2^-LOG32_LN2_UNIT."""


def _below32(v: float) -> float:
    """The largest float32 below the float32 ``v`` (v > 0)."""
    import struct

    return struct.unpack("<f", struct.pack("<I", struct.unpack("<I", struct.pack("<f", v))[0]
                                            - 1))[0]


def log_invc32(i: int) -> tuple[float, int, float]:
    """Subinterval i's (of ``LOG32_BITS``) 1/c for the float32 lanes, as (invc, m, |r|max):
    1/c (c the midpoint) rounded to m = 7 significant bits where every z of the subinterval has
    |z invc - 1| < 2^-6, else to m = 6 (then |z invc - 1| < 2^-5 holds for every subinterval);
    1 on the two subintervals next to 1. So z invc - 1 is exact in float32: z is a multiple
    of 2^-24 below 1 (2^-23 above) and invc of 2^-(m-1) above 1 (2^-m below), so z invc - 1
    is a multiple of 2^-(23+m) below 2^(1-m) in magnitude: 24 bits. r is monotonic in z, so
    |r|max is at an end of the subinterval (its first float32 and the last one below its end)."""
    lo, hi = log_subinterval(i, LOG32_BITS)
    if lo in (1.0 - 2.0 ** -(LOG32_BITS + 1), 1.0):
        return 1.0, 1, max(abs(lo - 1.0), abs(_below32(hi) - 1.0))
    c = (mpmath.mpf(lo) + mpmath.mpf(hi)) / 2
    for m in (7, 6):
        with mpmath.workprec(m):
            invc = float(+(1 / c))
        rmax = max(abs(lo * invc - 1.0), abs(_below32(hi) * invc - 1.0))  # exact in float64
        if rmax < 2.0 ** (1 - m):
            return invc, m, rmax
    raise AssertionError(f"no exact invc for subinterval {i}")  # pragma: no cover


@cache
def log_pairs32() -> tuple[tuple[float, ...], tuple[float, ...], tuple[float, ...],
                          float, float]:
    """The float32 lanes' log tables and ln2: (invc, lh, ll, L1, L2): ``log_invc32``'s 1/c per
    subinterval; logc = -log(invc) rounded to a multiple of 2^-16 (lh) and the rest rounded to
    the nearest float32 (ll, |ll| <= 2^-17, so |error| <= 2^-42); ln2 rounded to a multiple of
    2^-16 (L1 = 0x1.62e4p-1: k L1 + lh is then a multiple of 2^-16 below 2^7, exact in
    float32) and the rest rounded to the nearest float32 (L2)."""
    unit = mpmath.mpf(2) ** -LOG32_LN2_UNIT
    invc, lh, ll = [], [], []
    with mpmath.workprec(200):
        for i in range(1 << LOG32_BITS):
            inv = log_invc32(i)[0]
            logc = -mpmath.log(mpmath.mpf(inv))
            h = float(mpmath.nint(logc / unit) * unit)
            invc.append(inv)
            lh.append(h)
            ll.append(_nearest(logc - mpmath.mpf(h), 24))
        ln2 = mpmath.log(2)
        l1 = float(mpmath.nint(ln2 / unit) * unit)
        l2 = _nearest(ln2 - mpmath.mpf(l1), 24)
    return tuple(invc), tuple(lh), tuple(ll), l1, l2


@cache
def log_tables32() -> str:
    """``log_pairs32`` as C: ``ul_log32_invc``, ``ul_log32_lh``, ``ul_log32_ll`` (32 float32
    each), ``UL_LN2_F1`` and ``UL_LN2_F2``."""
    invc, lh, ll, l1, l2 = log_pairs32()
    return (c_array("ul_log32_invc", list(invc), "float")
            + c_array("ul_log32_lh", list(lh), "float")
            + c_array("ul_log32_ll", list(ll), "float")
            + f"static const float UL_LN2_F1 = {l1.hex()}f;\n"
            + f"static const float UL_LN2_F2 = {l2.hex()}f;\n")


def piecewise_table(name: str, text: str, pieces: int, degree: int) -> str:
    """The C array ``name`` of a piecewise polynomial's coefficients: ``text`` holds them as hex
    floats separated by white space, piece after piece, each piece's ``degree`` + 1 low to
    high (``benchmarks/fit_fast64.py`` prints them so); a ``ValueError`` if the count is not
    ``pieces`` (degree + 1)."""
    values = [float.fromhex(v) for v in text.split()]
    if len(values) != pieces * (degree + 1):
        raise ValueError(f"{name}: {len(values)} coefficients, not {pieces} x {degree + 1}")
    return c_array(name, values)


def piecewise_horner(table: str, index: str, var: str, degree: int) -> str:
    """C for piece ``index``'s polynomial in ``var`` (coefficients ``table[index * (degree +
    1) + j]``, low to high: one gather each) in Horner's scheme through ``UL_FMA``."""
    def c(j: int) -> str:
        return f"{table}[{index} * {degree + 1} + {j}]"

    text = c(degree)
    for j in reversed(range(degree)):
        text = f"UL_FMA({var}, {text}, {c(j)})"
    return text


__all__ = [
    "EXP_SPLIT",
    "EXP_TABLE_BITS",
    "LOG32_BITS",
    "LOG32_LN2_UNIT",
    "LOG_INVC_BITS",
    "LOG_OFF",
    "LOG_TABLE_BITS",
    "c_array",
    "exp_pairs32_split",
    "exp_split_bounds",
    "exp_split_products",
    "exp_table",
    "exp_table32",
    "exp_table32_split",
    "horner",
    "horner512",
    "invln2_nearest",
    "ln2_float32",
    "ln2_nearest",
    "log1p_taylor",
    "log_invc32",
    "log_pairs32",
    "log_subinterval",
    "log_tables",
    "log_tables32",
    "nearest32",
    "piecewise_horner",
    "piecewise_table",
    "simd_horner",
]
