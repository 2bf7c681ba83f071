"""log and log2: deterministic float32 kernels, correctly rounded on every bfloat16/float16 input.

Specification (the evaluation order is part of it; every operation is IEEE float32 with
round-to-nearest-even, FMA only where written ``fma``):

log(x)
    1. Special values by encoding (decided on the bits, so flushing hardware agrees): NaN ->
       0x7FC00000; x < 0 (-inf and negative subnormals included) -> 0x7FC00000; ±0 -> -inf;
       +inf -> +inf. A subnormal x = n 2^-149 (n its encoding, 1 <= n < 2^23) is replaced by
       the normal float32(n) (an exact integer conversion) and k starts at -149; no arithmetic
       operand of the kernel is ever subnormal.
    2. Split (integer ops on the encoding ix, ``OFF`` = 0x3F338000): tmp = ix - OFF (int32);
       k += tmp >> 23 (arithmetic); i = (tmp >> 16) & 127; z = float(ix - (tmp & 0xFF800000)).
       Then x = z 2^k exactly, z in [0x1.67p-1, 0x1.67p+0) (0.70117 .. 1.40234), and sub-interval
       i of z holds 2^16 consecutive encodings. 1.0 sits in the middle of interval 76
       (z in [1 - 2^-9, 1 + 2^-8)), whose entry is invc = 1, log c = 0: near x = 1 no table
       value is added, so log stays relatively accurate as x -> 1.
    3. r = fma(z, invc_i, -1), exact: invc_i has 8 significant bits (a multiple of 2^-7 above
       1, of 2^-8 below), and |z invc_i - 1| < 2^24 ulp(z) ulp(invc_i) for every z of the
       interval (checked by ``log_table`` and by an exhaustive test). |r| < 2^-7.
    4. log1p(r) = r - r^2/2 + r^3 P(r), P(r) = 1/3 - r/4 + r^2/5 - r^3/6 + r^4/7 (Taylor
       coefficients rounded to float32, 1/3 also as P0 + P0_LO; truncation |r|^8/8 < 2^-59),
       every part above 2^-48 relative carried as a double-float:
       (h2, l2) = two_prod(r, r); c3 = r h2; c3l = fma(r, h2, -c3) + r l2   (r^3 = c3 + c3l);
       q = fma(fma(fma(P4, r, P3), r, P2), r, P1) (Horner with FMA); (u, ue) = two_prod(q, r);
       (p, pe) = fast_two_sum(P0, u); pl = pe + (ue + P0_LO)   (P(r) = p + pl);
       (t3, t3e) = two_prod(c3, p); t3e = t3e + (c3 pl + c3l p).
    5. L = log c_i + log1p(r) as a double-float, in this order:
       (s, a1) = two_sum(LOGC_HI_i, r); (s, a2) = two_sum(s, -h2/2); (s, a3) = two_sum(s, t3);
       lo = ((a1 + a2) + a3) + (LOGC_LO_i + (t3e - l2/2)); (Lh, Ll) = fast_two_sum(s, lo).
       (LOGC_HI + LOGC_LO = -log(invc_i) to 2^-48 relative, made by ``log_table`` with mpmath
       at import: 128 x 3 float32 = 1536 bytes.)
    6. log x = k ln2 + L: ln 2 = LN2_HI (16 bits, so k LN2_HI is exact for |k| < 2^8) + LN2_MID
       + LN2_LO; (pm, pe) = two_prod(k, LN2_MID); (s, b1) = two_sum(k LN2_HI, pm);
       (s, b2) = two_sum(s, Lh); lo = (b1 + b2) + (pe + (k LN2_LO + Ll));
       (h, l) = fast_two_sum(s, lo); result = round_result(h, l).

log2(x)
    Steps 1 to 5 as log; then L / ln 2 as a double-float, (m, me) = dd_mul(Lh, Ll, INVLN2_HI,
    INVLN2_LO) (1/ln 2 = INVLN2_HI + INVLN2_LO), (s, b) = two_sum(k, m); lo = b + me;
    (h, l) = fast_two_sum(s, lo); result = round_result(h, l).

Exact cases: x = 1 gives z = 1, i = 76, r = 0 and every term 0, so log(1) = +0 (lo = 0); x = 2^k
gives L = 0 exactly, so log2(2^k) = k with lo = 0 (ties such as log2(2^-15) in float8_e5m2 round
as the exact value does). Error budget: every term that the final sum can cancel against is
exact or a double-float, so h + l is log x (log2 x) to about 2^-46 relative (measured against
mpmath at 300 bits on about 47,000 inputs — random encodings, 2^20 encodings either side of 1,
random z over the table's range, subnormals: 2^-46.04 for log, 2^-45.76 for log2).

Accuracy (measured by the tests and registered): 0 ULP after nearest-even rounding to bfloat16,
float16 and both fp8 formats on every input; float32 results within 1 ulp (faithful).

Correctly rounded float32 (the ``float32`` entry point, issue 9): the same evaluation rounded
to nearest (``core.rounding("nearest")``) plus a table of exceptional inputs. The rounding test
assumes |h + l - f(x)| <= bound |f(x)| with bound 2^-44 for log and 2^-43 for log2
(``KERNELS[..]["bound"]``: 4.1 and 6.8 times the largest error measured above). Every float32
input whose h + l lies within that bound of a midpoint was found over all 2^32 inputs and
decided by the oracle (``python -m ulplab.analysis.cr_scan log log2``): log 4,001 undecided,
45 where RN(h + l) is wrong; log2 9,876 undecided, 48 wrong. Those are the tables
``exceptions/log.json`` and ``exceptions/log2.json``. No special value depends on the mode:
±0, +inf, x < 0, log(1) = +0 and log2(2^k) = k are exact in both.
"""

from __future__ import annotations

import numpy as np
from mpmath import mp, mpf

from ulplab.kernels.core import FLAG_NAN, canonical_nan_where, first_pass_result, round_result
from ulplab.kit import dd_mul, fast_two_sum, fma, lookup, two_prod, two_sum
from ulplab.kit.ops import f32hex

f32 = np.float32


_h = f32hex  # exact hex literal -> float32


OFF = 0x3F338000  # encoding where interval 0 starts; 1.0 = OFF + 76 * 2^16 + 2^15
N_TABLE = 128
LN2_HI = _h("0x1.62e4p-1")  # ln 2 to 16 significant bits (nearest)
LN2_MID = _h("0x1.7f7d1cp-20")  # ln 2 - LN2_HI rounded to float32
LN2_LO = _h("0x1.ef357ap-45")  # ln 2 - LN2_HI - LN2_MID rounded to float32
INVLN2_HI = _h("0x1.715476p+0")  # 1/ln 2 rounded to float32
INVLN2_LO = _h("0x1.4ae0cp-26")  # 1/ln 2 - INVLN2_HI rounded to float32
# Taylor coefficients of (log1p(r) - r + r^2/2)/r^3: 1/3, -1/4, 1/5, -1/6, 1/7 rounded to float32
P = (_h("0x1.555556p-2"), _h("-0x1p-2"), _h("0x1.99999ap-3"), _h("-0x1.555556p-3"),
     _h("0x1.24924ap-3"))
P0_LO = _h("-0x1.555556p-27")  # 1/3 - P[0] rounded to float32


def split_constants() -> dict[str, float]:
    """Regenerate the ln 2 split, 1/ln 2 and the P coefficients from mpmath (test-checked)."""
    with mp.workprec(200):
        m, e = mp.frexp(mp.ln2)
        hi = mp.ldexp(mp.nint(m * 2**16) / 2**16, e)
        mid = float(f32(float(mp.ln2 - hi)))
        lo = float(f32(float(mp.ln2 - hi - mpf(mid))))
        inv_hi = float(f32(float(1 / mp.ln2)))
        inv_lo = float(f32(float(1 / mp.ln2 - mpf(inv_hi))))
        out = {"LN2_HI": float(hi), "LN2_MID": mid, "LN2_LO": lo, "INVLN2_HI": inv_hi,
               "INVLN2_LO": inv_lo}
        for j, c in enumerate((3, -4, 5, -6, 7)):
            out[f"P{j}"] = float(f32(float(mpf(1) / c)))
        out["P0_LO"] = float(f32(float(mpf(1) / 3 - mpf(out["P0"]))))
        return out


def _interval(i: int) -> tuple[float, float, float, float]:
    """(z0, z1, ulp of z, grid of invc) for table interval i: z0 <= z <= z1."""
    b0, b1 = OFF + i * 2**16, OFF + (i + 1) * 2**16 - 1
    z0, z1 = (float(np.uint32(b).view(f32)) for b in (b0, b1))
    g_z = 2.0**-24 if z1 < 1 else 2.0**-23
    g_i = 2.0**-7 if z1 < 1 else 2.0**-8
    return z0, z1, g_z, g_i


def log_table() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(INVC, LOGC_HI, LOGC_LO), 128 entries each.

    Interval i covers encodings OFF + i 2^16 .. OFF + (i+1) 2^16 - 1 (z0 <= z <= z1). Interval 76
    (it holds 1.0) gets invc = 1. Every other gets invc on the grid g (2^-7 when z < 1, 2^-8 when
    z >= 1) next to 2/(z0 + z1): of floor and ceil, the one with the smaller max |z invc - 1|.
    The exactness condition of step 3, max |z invc - 1| < 2^24 ulp(z) g, is asserted here.
    Then LOGC_HI = RN(-log invc), LOGC_LO = RN(-log invc - LOGC_HI), by mpmath at 200 bits.
    """
    invc = np.empty(N_TABLE, f32)
    hi, lo = np.empty(N_TABLE, f32), np.empty(N_TABLE, f32)
    one = (0x3F800000 - OFF) >> 16
    with mp.workprec(200):
        for i in range(N_TABLE):
            z0, z1, g_z, g_i = _interval(i)
            if i == one:
                v = 1.0  # r = z - 1: exact (Sterbenz)
            else:
                t = 2 / (z0 + z1) / g_i
                cands = [np.floor(t) * g_i, np.ceil(t) * g_i]
                v = min(cands, key=lambda c: max(abs(z0 * c - 1), abs(z1 * c - 1)))
                worst = max(abs(z0 * v - 1), abs(z1 * v - 1))
                assert worst < 2**24 * g_z * g_i, (i, worst)
            invc[i] = f32(v)
            lc = -mp.log(mpf(v))
            hi[i] = f32(float(lc))
            lo[i] = f32(float(lc - mpf(float(hi[i]))))
    return invc, hi, lo


INVC, LOGC_HI, LOGC_LO = log_table()
TABLE_BYTES = INVC.nbytes + LOGC_HI.nbytes + LOGC_LO.nbytes


def log_parts(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(k, Lh, Ll) with x = 2^k z and log z = Lh + Ll (steps 1 to 5), for finite x > 0
    (a subnormal x included, read on its bits).

    k is float32 (an integer). Lh + Ll is log z to about 2^-44 relative; Lh = Ll = 0 when z = 1.
    """
    b = x.view(np.uint32).astype(np.int32)
    sub = b < np.int32(0x00800000)
    ix = np.where(sub, b.astype(f32).view(np.uint32).astype(np.int32), b)  # n -> float32(n)
    tmp = ix - np.int32(OFF)
    k = (tmp >> 23).astype(f32) - np.where(sub, f32(149.0), f32(0.0))
    i = (tmp >> 16) & np.int32(N_TABLE - 1)
    z = (ix - (tmp & np.int32(-0x800000))).astype(np.uint32).view(f32)
    r = fma(z, lookup(INVC, i), np.full_like(z, f32(-1.0)))
    h2, l2 = two_prod(r, r)
    c3 = r * h2
    c3l = fma(r, h2, -c3) + r * l2
    q = fma(fma(fma(np.full_like(r, P[4]), r, P[3]), r, P[2]), r, P[1])
    u, ue = two_prod(q, r)
    p, pe = fast_two_sum(np.full_like(r, P[0]), u)
    pl = pe + (ue + P0_LO)
    t3, t3e = two_prod(c3, p)
    t3e = t3e + (c3 * pl + c3l * p)
    s, a1 = two_sum(lookup(LOGC_HI, i), r)
    s, a2 = two_sum(s, -(h2 * f32(0.5)))
    s, a3 = two_sum(s, t3)
    lo = ((a1 + a2) + a3) + (lookup(LOGC_LO, i) + (t3e - l2 * f32(0.5)))
    lh, ll = fast_two_sum(s, lo)
    return k, lh, ll


def _special(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Step 1, on the bits."""
    b = x.view(np.uint32)
    mag = b & np.uint32(0x7FFFFFFF)
    y = np.where(mag == 0, f32(-np.inf), y)
    y = np.where(b == np.uint32(0x7F800000), f32(np.inf), y)
    invalid = (mag > np.uint32(0x7F800000)) | (((b >> np.uint32(31)) == 1) & (mag != 0))
    return canonical_nan_where(invalid, y)


def _clean(x: np.ndarray) -> np.ndarray:
    """x where it takes the main path (0 < x < inf, on the bits), 1.0 where a special value
    replaces the result."""
    b = x.view(np.uint32)
    return np.where((b != 0) & (b < np.uint32(0x7F800000)), x, f32(1.0))


def k_ln2_plus(k: np.ndarray, lh: np.ndarray, ll: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(h, l) = k ln 2 + (lh + ll) as a normalized double-float (step 6 before the rounding)."""
    pm, pe = two_prod(k, np.full_like(k, LN2_MID))
    s, b1 = two_sum(k * LN2_HI, pm)
    s, b2 = two_sum(s, lh)
    lo = (b1 + b2) + (pe + (k * LN2_LO + ll))
    return fast_two_sum(s, lo)


def log(x: np.ndarray) -> np.ndarray:
    """Natural logarithm, float32 in -> float32 out (see the module docstring)."""
    with np.errstate(all="ignore"):
        y = round_result(*k_ln2_plus(*log_parts(_clean(x))))
        return _special(x, y)


def log2(x: np.ndarray) -> np.ndarray:
    """Base-2 logarithm, float32 in -> float32 out (see the module docstring)."""
    with np.errstate(all="ignore"):
        k, lh, ll = log_parts(_clean(x))
        m, me = dd_mul(lh, ll, np.full_like(lh, INVLN2_HI), np.full_like(lh, INVLN2_LO))
        s, b = two_sum(k, m)
        y = round_result(*fast_two_sum(s, b + me))
        return _special(x, y)


FIRST_PASS_BOUND = 2.0**-37
ONE_BITS = 0x3F800000


def log_first_parts(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(h, l) of ``log_first_pass``: log x = h + l within ``FIRST_PASS_BOUND`` |h|, for
    normal finite x > 0."""
    ix = x.view(np.int32)
    tmp = ix - np.int32(OFF)
    k = (tmp >> 23).astype(f32)
    i = (tmp >> 16) & np.int32(N_TABLE - 1)
    z = (ix - (tmp & np.int32(-0x800000))).view(f32)
    r = fma(z, lookup(INVC, i), np.full_like(z, f32(-1.0)))
    h2, l2 = two_prod(r, r)
    u = fma(fma(fma(np.full_like(r, P[4]), r, P[3]), r, P[2]), r, P[1]) * r
    c3 = r * h2
    c3e = fma(r, h2, -c3) + r * l2  # r^3 = c3 + c3e to 2^-48 relative
    t3 = fma(c3, np.full_like(c3, P[0]), c3 * (u + P0_LO) + c3e * P[0])  # r^3 P(r)
    s, a1 = fast_two_sum(lookup(LOGC_HI, i), r)  # exponent of LOGC_HI >= r's, or LOGC_HI = 0
    s, a2 = fast_two_sum(s, -(h2 * f32(0.5)))
    s, a3 = fast_two_sum(s, t3)
    s, b = fast_two_sum(k * LN2_HI, s)
    lo = b + (k * LN2_MID + (((a1 + a2) + a3) + (lookup(LOGC_LO, i) - l2 * f32(0.5))))
    return fast_two_sum(s, lo)


def log_first_pass(x: np.ndarray) -> np.ndarray:
    """The compiled float32 runner's first pass of log: a shorter evaluation than ``log``, with
    its own bound ``FIRST_PASS_BOUND`` = 2^-37, finished by ``core.first_pass_result``: the
    correctly rounded log x, or ``FLAG_NAN`` where the second pass (the whole entry point)
    decides — h + l within the bound of a midpoint, x = +-0, +inf or subnormal, and the rare h
    that is a power of two. x = 1 gives +0 by a select; x < 0 and NaN the canonical NaN.

    Steps 2 and 3 as ``log`` (the same table; r exact, |r| < 2^-7.4). Then what ``log`` carries
    as double-floats, cut to what 2^-37 needs near the intervals next to 1, where log z is as
    small as 2^-9 while |r| is 2^-7.4: r^2 = h2 + l2 exactly; r^3 = c3 + c3e (two_prod, plus
    r l2); r^3 P(r) = fma(c3, 1/3, c3 (u + P0_LO) + c3e/3) with u = r (P1 + r (P2 + ...)) by
    Horner with FMA (one rounding of 2^-48.8 at most); the sum LOGC_HI + r - h2/2 + r^3 P by
    three fast_two_sum (LOGC_HI's exponent is at least r's in every interval, or LOGC_HI = 0 —
    checked over every z by a test; each later addend is smaller than the sum), then
    fast_two_sum(k LN2_HI, .) (k LN2_HI exact; k = 0 or |k ln2| > 0.69 > |L|), k LN2_MID
    rounded once and LN2_LO left out (each under |k| 2^-44 absolute, 2^-42.4 relative, as
    |log x| > 0.34 |k|), the errors and LOGC_LO - l2/2 in float32, and (h, l) normalized.
    Error of h + l: measured max 2^-39.01 over 2 x 2^22 inputs (half random normal encodings,
    half within 2^-6 of 1: nearly every float32 there) against Arb
    (``python -m ulplab.analysis.first_pass log``), a factor 4 under the bound. The runner's output
    is the entry point's on every float32 input: ``benchmarks/verify_native.py log`` (all 2^32,
    0 mismatches)."""
    with np.errstate(all="ignore"):
        b = x.view(np.uint32)
        normal = (b - np.uint32(0x00800000)) < np.uint32(0x7F000000)
        y = first_pass_result(*log_first_parts(np.where(normal, x, f32(1.0))),
                              FIRST_PASS_BOUND).view(np.uint32)
        y = np.where(b == np.uint32(ONE_BITS), np.uint32(0), y)
        # NaN and x < 0 -> NaN; +-0 (-0 too), +inf and subnormal x: the second pass
        nan = (b > np.uint32(0x7F800000)) & (b != np.uint32(0x80000000))
        special = np.where(nan, np.uint32(0x7FC00000), FLAG_NAN)
        return np.where(normal, y, special).view(np.float32)


KERNELS = [
    {"function": "log", "impl": log, "table_bytes": TABLE_BYTES, "bound": 2.0**-44,
     "first_pass": log_first_pass,
     "idea": "exponent split, 128-entry 1/c table with exact fma reduction, Taylor log1p, "
             "ln2 in 3 parts, double-float sum"},
    {"function": "log2", "impl": log2, "table_bytes": TABLE_BYTES, "bound": 2.0**-43,
     "idea": "log's table and log1p as a double-float, times 1/ln2 (double-float), plus k"},
]
"""What ``ulplab.methods.det`` registers from this module."""
