"""Range reductions the kernels share: x = k ln2/64 + r (exp, exp2's table, expm1) and
x = q pi/2 + r (sin, cos, tan), with their split constants.

Every constant is an exact float32 hex literal; ``ln2_64_constants`` and ``pio2_constants``
regenerate them with mpmath (checked by the kernel tests and by ``python -m
ulplab.analysis.kernel_tables exp trig``), ``two_over_pi_hex`` the bits of 2/pi.
"""

from __future__ import annotations

import numpy as np
from mpmath import mp, mpf

from ulplab.kit import dd_mul, fast_two_sum, lookup, two_prod, two_sum
from ulplab.kit.ops import f32hex

f32 = np.float32
u32 = np.uint32
_h = f32hex  # exact hex literal -> float32

# -- x = k ln2/64 + r (Cody-Waite, three parts)
INV_LN2_64 = _h("0x1.715476p+6")  # 64/ln 2 rounded to float32
LN2_64_C1 = _h("0x1.63p-7")  # ln2/64 to 10 significant bits: k*C1 is exact for |k| < 2^14
LN2_64_C2 = _h("-0x1.bd0106p-19")  # ln2/64 - C1 rounded to float32
LN2_64_C3 = _h("0x1.cf79acp-46")  # ln2/64 - C1 - C2 rounded to float32


def ln2_64_constants() -> dict[str, float]:
    """Regenerate INV_LN2_64 and the ln2/64 split C1, C2, C3 from mpmath at 200 bits."""
    with mp.workprec(200):
        c = mp.ln2 / 64
        m, e = mp.frexp(c)
        c1 = mp.ldexp(mp.nint(m * 2**10) / 2**10, e)
        c2 = float(f32(float(c - c1)))
        c3 = float(f32(float(c - c1 - mpf(c2))))
        return {"INV_LN2_64": float(f32(float(64 / mp.ln2))), "LN2_64_C1": float(c1),
                "LN2_64_C2": c2, "LN2_64_C3": c3}


def reduce_ln2_64(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(k, r, rl) with x = k ln2/64 + r + rl, k an integer-valued float32, for finite
    |x| < 2^14 ln2/64 (about 177).

    k = rint(x 64/ln2); t = x - k C1 (exact: C1 has 10 significant bits and |k| < 2^14, and the
    difference is exact by Sterbenz); (p, pe) = two_prod(k, C2); (r, rl) = two_sum(t, -p);
    rl = rl - (pe + k C3). |r| <= ln2/128 (1 + 2^-20), and r + rl is x - k ln2/64 to about
    2^-60.
    """
    k = np.rint(x * INV_LN2_64)
    t = x - k * LN2_64_C1
    p, pe = two_prod(k, np.full_like(k, LN2_64_C2))
    r, rl = two_sum(t, -p)
    rl = rl - (pe + k * LN2_64_C3)
    return k, r, rl


# -- x = q pi/2 + r: Cody-Waite in four parts below 2^12, Payne-Hanek on integers above
TWO_OVER_PI = _h("0x1.45f306p-1")  # 2/pi rounded to float32
PIO2_C1 = _h("0x1.922p+0")  # pi/2 rounded to 12 significant bits
PIO2_C2 = _h("-0x1.2aeef4p-18")  # pi/2 - C1 rounded to float32
PIO2_C3 = _h("-0x1.73dcb4p-43")  # pi/2 - C1 - C2 rounded to float32
PIO2_C4 = _h("0x1.3198a2p-69")  # pi/2 - C1 - C2 - C3 rounded to float32
PIO2_HI = _h("0x1.921fb6p+0")  # pi/2 rounded to float32
PIO2_LO = _h("-0x1.777a5cp-25")  # pi/2 - PIO2_HI rounded to float32
CW_LIMIT = _h("0x1p+12")  # Cody-Waite below, Payne-Hanek from here on
CW_LIMIT_BITS = 0x45800000  # the encoding of 2^12
# The first 256 bits of 2/pi (bit 1 has weight 1/2), from ``two_over_pi_hex``
TWO_OVER_PI_HEX = ("a2f9836e4e441529fc2757d1f534ddc0db6295993c439041fe5163abdebbc561")
PAD = 32  # zero bits in front of the bits of 2/pi, so that |x| >= 2^-7 finds its window


def pio2_constants() -> dict[str, float]:
    """Regenerate TWO_OVER_PI and the pi/2 splits (C1 .. C4, HI + LO) from mpmath at 300 bits."""
    def rn(v: mpf) -> float:
        return float(f32(float(v)))

    with mp.workprec(300):
        h = mp.pi / 2
        m, e = mp.frexp(h)
        c1 = float(mp.ldexp(mp.nint(m * 2**12) / 2**12, e))
        c2 = rn(h - c1)
        c3 = rn(h - c1 - mpf(c2))
        c4 = rn(h - c1 - mpf(c2) - mpf(c3))
        return {"TWO_OVER_PI": rn(2 / mp.pi), "PIO2_C1": c1, "PIO2_C2": c2, "PIO2_C3": c3,
                "PIO2_C4": c4, "PIO2_HI": rn(h), "PIO2_LO": rn(h - mpf(rn(h)))}


def two_over_pi_hex(bits: int = 256) -> str:
    """The first ``bits`` bits of 2/pi as hex digits (floor of 2/pi 2^bits), by mpmath."""
    with mp.workprec(bits + 64):
        return format(int(mp.floor(2 / mp.pi * mpf(2) ** bits)), f"0{bits // 4}x")


def _limbs() -> np.ndarray:
    """PAD zero bits then TWO_OVER_PI_HEX, as 16-bit limbs (most significant first) in uint32."""
    digits = "0" * (PAD // 4) + TWO_OVER_PI_HEX
    return np.array([int(digits[i:i + 4], 16) for i in range(0, len(digits), 4)], u32)


LIMBS = _limbs()
LIMBS_BYTES = LIMBS.size * 2  # the table as 16-bit limbs


def cody_waite_pio2(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(q, rh, rl) with x = q pi/2 + rh + rl for |x| < 2^12; q is int32, |rh + rl| <= pi/4
    (1 + 2^-10), (rh, rl) normalized.

    q = rint(x TWO_OVER_PI); r1 = x - q C1 (q C1 exact as |q| < 2^12, the difference exact by
    Sterbenz); (p2, e2) = two_prod(q, C2); (p3, e3) = two_prod(q, C3); p4 = q C4;
    (s, a1) = two_sum(r1, -p2); (s, a2) = two_sum(s, -p3); (s, a3) = two_sum(s, -e2);
    lo = ((a1 + a2) + a3) + (-e3 - p4); (rh, rl) = fast_two_sum(s, lo). What the four parts
    of pi/2 miss is below 2^-93.
    """
    q = np.rint(x * TWO_OVER_PI)
    r1 = x - q * PIO2_C1
    p2, e2 = two_prod(q, np.full_like(q, PIO2_C2))
    p3, e3 = two_prod(q, np.full_like(q, PIO2_C3))
    p4 = q * PIO2_C4
    s, a1 = two_sum(r1, -p2)
    s, a2 = two_sum(s, -p3)
    s, a3 = two_sum(s, -e2)
    lo = ((a1 + a2) + a3) + (-e3 - p4)
    rh, rl = fast_two_sum(s, lo)
    return q.astype(np.int32), rh, rl


def payne_hanek_pio2(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(q, rh, rl) with x = q pi/2 + rh + rl (mod 2 pi) for finite |x| >= 2^-7, in exact
    integer arithmetic on 16-bit limbs held in uint32.

    |x| = M 2^E (M the 24-bit significand); the 112 bits of 2/pi from weight 2^(1-E) down (bits
    above it only add multiples of 4 to x 2/pi), read from ``LIMBS``, times M, exactly, as nine
    16-bit limbs P with x 2/pi = P 2^-110 mod 4 (truncation < 2^-87). q = the integer part mod
    4, rounded to nearest with the fraction (a fraction >= 1/2 is replaced by its 110-bit two's
    complement, exact, and q += 1); the fraction's seven limbs, each an exact float32, summed
    from the least significant by two_sum into a double-float f, |f| <= 1/2; r = f pi/2 by
    dd_mul(fh, fl, PIO2_HI, PIO2_LO); x < 0 negates r and q. Over all float32 |x| >= 1/2 the
    smallest |x 2/pi - q| is 2^-29.86 (x = 0x6f79be45, found by an exhaustive search), so the
    truncation costs < 2^-57 relative; dd_mul's 2^-47 dominates.
    """
    b = x.view(u32) & u32(0x7FFFFFFF)
    m = (b & u32(0x7FFFFF)) | u32(0x800000)
    start = (b >> 23).astype(np.int32) + np.int32(PAD - 152)  # bit index of weight 2^(1-E)
    w = start >> 4
    sh = (start & 15).astype(u32)
    win = [(((lookup(LIMBS, w + k) << 16) | lookup(LIMBS, w + k + 1)) << sh) >> 16
           for k in range(7)]
    m_hi, m_lo = m >> 16, m & u32(0xFFFF)
    col = [np.zeros_like(m) for _ in range(9)]  # col[i] has weight 2^(16 (8 - i))
    for k in range(7):
        lo_p = m_lo * win[k]
        hi_p = m_hi * win[k]
        col[k + 2] = col[k + 2] + (lo_p & u32(0xFFFF))
        col[k + 1] = col[k + 1] + (lo_p >> 16) + (hi_p & u32(0xFFFF))
        col[k] = col[k] + (hi_p >> 16)
    carry = np.zeros_like(m)
    p = [None] * 9
    for i in range(8, -1, -1):
        c = col[i] + carry
        p[i] = c & u32(0xFFFF)
        carry = c >> 16
    q = ((p[2] >> 14) & u32(3)).astype(np.int32)
    half = ((p[2] >> 13) & u32(1)) == 1
    frac = [p[2] & u32(0x3FFF), *p[3:]]  # seven limbs, weights 2^(-14 - 16 k)
    masks = [u32(0x3FFF)] + [u32(0xFFFF)] * 6
    neg = [f ^ mk for f, mk in zip(frac, masks, strict=True)]
    carry = np.ones_like(m)
    for k in range(6, -1, -1):  # two's complement: ~F + 1
        c = neg[k] + carry
        neg[k] = c & masks[k]
        carry = c >> (14 if k == 0 else 16)
    frac = [np.where(half, g, f) for g, f in zip(neg, frac, strict=True)]
    fh = frac[6].astype(f32) * _h("0x1p-110")
    fl = np.zeros_like(fh)
    for k in range(5, -1, -1):
        s, e = two_sum(frac[k].astype(f32) * f32(2.0 ** (-14 - 16 * k)), fh)
        fh, fl = fast_two_sum(s, e + fl)
    rh, rl = dd_mul(fh, fl, np.full_like(fh, PIO2_HI), np.full_like(fh, PIO2_LO))
    q = q + half.astype(np.int32)
    flip = (x < 0) != half  # x < 0 negates r; a rounded-up fraction is negative
    rh, rl = np.where(flip, -rh, rh), np.where(flip, -rl, rl)
    q = np.where(x < 0, -q, q)
    return q, rh, rl


def reduce_pio2(x: np.ndarray,
                payne_hanek: bool = True) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(q, rh, rl) with x = q pi/2 + (rh + rl) mod 2 pi, |rh + rl| <= pi/4 (1 + 2^-10), q int32
    (only q mod 4 is meaningful), for finite x: ``cody_waite_pio2`` below 2^12,
    ``payne_hanek_pio2`` from there on (both computed, one selected per lane). Without
    ``payne_hanek`` only for |x| < 2^12 (a fast path: the same values there, the
    large-argument work left out)."""
    big = np.abs(x) >= CW_LIMIT
    qc, rhc, rlc = cody_waite_pio2(np.where(big, f32(0.0), x))
    if not payne_hanek:
        return qc, rhc, rlc
    qp, rhp, rlp = payne_hanek_pio2(np.where(big, x, CW_LIMIT))
    return np.where(big, qp, qc), np.where(big, rhp, rhc), np.where(big, rlp, rlc)


__all__ = ["CW_LIMIT", "CW_LIMIT_BITS", "INV_LN2_64", "LIMBS", "LIMBS_BYTES", "LN2_64_C1",
           "LN2_64_C2", "LN2_64_C3", "PAD", "PIO2_C1", "PIO2_C2", "PIO2_C3", "PIO2_C4",
           "PIO2_HI", "PIO2_LO", "TWO_OVER_PI", "TWO_OVER_PI_HEX", "cody_waite_pio2",
           "ln2_64_constants", "payne_hanek_pio2", "pio2_constants", "reduce_ln2_64",
           "reduce_pio2", "two_over_pi_hex"]
