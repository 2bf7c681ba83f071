"""The seed's adaptive piecewise polynomial: C6 Adaptive (its best method, bfloat16 max 1).

Idea (seed): GELU itself on [-3.5, 3) by 16 segments (error-driven boundaries, of which the
last 7 cover [-3.5, 3)), each a degree-4 polynomial in u = (x - x_mid)/x_scale, fitted by least
squares and a Remez-like refinement in float64 (the seed's adaptive_poly.cpp) and printed with
4 significant digits; x (0.5 + x/sqrt(2 pi)) for |x| < 0.125; the asymptotic tail below -3.5;
x from 3.

This is the seed's method, bit for bit (its C++ at c2bf7bb, gelu_implementations.cpp:1753-1872;
every bfloat16 output checked against its build by tests/test_gelu_seed_bits.py), evaluated as
its README build evaluates it (g++ -O3 -march=native contracts a*b + c into one FMA):
    x >= 3                x
    x < -3.5              the seed's asymptotic tail (``tail.seed_asymptotic_tail``)
    |x| < 0.125           x fma(x, 0.3989422804, 0.5)
    else                  segment i = the one with x_start <= x < x_end (the last from its
                          x_start on), u = (x - x_mid)/x_scale, Horner with FMA in u.
The constants are the seed's decimals, each rounded to float32 (SEED_C6_SEGMENTS, with the
source line of each segment).

Measured (every input, this project's oracle; bfloat16 max / mean, float16 max / mean):
    C6 Adaptive  1 / 0.0032, 6 / 0.0704   seed 1 / 0.001 (its README at c2bf7bb; the seed's
                 text, seeds/000_*, predates C6)
No "(improved)" variant is registered: C6 already has the least bfloat16 maximum of the seed's
methods.
"""

from __future__ import annotations

import numpy as np

from ulplab.kit import fma, lookup
from ulplab.kit.ops import f32hex
from ulplab.methods.gelu import tail
from ulplab.methods.gelu.seed_table import seed_figures
from ulplab.methods.gelu.tail import where32
from ulplab.methods.params import Params, coeffs, table, threshold
from ulplab.methods.registry import ArrayFn, Claim, built, register

f32 = np.float32
_h = f32hex  # exact hex literal -> float32

# (x_start, x_end, x_mid, x_scale, c0, c1, c2, c3, c4) per segment, the seed's c6_adaptive::
# segments (4-significant-digit decimals), each rounded to float32
SEED_C6_SEGMENTS = np.array([[float.fromhex(v) for v in row] for row in (
    # segment 0, :1780-1781
    ("-0x1.b20000p+3", "-0x1.869860p+3", "-0x1.9c4c30p+3", "0x1.5b3d08p-1",
     "-0x1.364b84p-115", "0x1.50b186p-112", "0x1.506d78p-111",
     "-0x1.28ea92p-110", "-0x1.9867c2p-110"),
    # segment 1, :1783-1784
    ("-0x1.869860p+3", "-0x1.67e76cp+3", "-0x1.773f7cp+3", "0x1.eb1c44p-2",
     "-0x1.04c02cp-99", "0x1.ab25c6p-97", "0x1.e250d2p-97",
     "-0x1.5b222ap-94", "-0x1.769dbap-94"),
    # segment 2, :1786-1787
    ("-0x1.67e76cp+3", "-0x1.4935a8p+3", "-0x1.588e8ap+3", "0x1.eb1c44p-2",
     "-0x1.04b5cep-84", "0x1.1c7a86p-82", "0x1.935224p-83",
     "-0x1.3c2392p-79", "-0x1.413ed6p-79"),
    # segment 3, :1789-1790
    ("-0x1.4935a8p+3", "-0x1.2a84b6p+3", "-0x1.39dd98p+3", "0x1.eb1c44p-2",
     "-0x1.c8e9dcp-71", "0x1.a8effcp-70", "-0x1.a11454p-71",
     "-0x1.c52886p-66", "-0x1.ad2b2ep-66"),
    # segment 4, :1792-1793
    ("-0x1.2a84b6p+3", "-0x1.0bd2f2p+3", "-0x1.1b2bd4p+3", "0x1.eb1c44p-2",
     "-0x1.60a0c2p-58", "-0x1.c2fc6ap-60", "-0x1.3da726p-56",
     "-0x1.fd2150p-54", "-0x1.bbb0b8p-54"),
    # segment 5, :1795-1796
    ("-0x1.0bd2f2p+3", "-0x1.c0d844p+2", "-0x1.ec3fe6p+2", "0x1.5b3d08p-1",
     "-0x1.d05236p-44", "0x1.c205aep-42", "0x1.91b89ap-43",
     "-0x1.1c2624p-38", "-0x1.196794p-38"),
    # segment 6, :1798-1799
    ("-0x1.c0d844p+2", "-0x1.837660p+2", "-0x1.a22824p+2", "0x1.eb1c44p-2",
     "-0x1.d7e910p-33", "-0x1.25bc0ap-31", "-0x1.effd5cp-31",
     "-0x1.a51ceap-30", "-0x1.155a10p-30"),
    # segment 7, :1801-1802
    ("-0x1.837660p+2", "-0x1.46147ap+2", "-0x1.64c49cp+2", "0x1.eb1c44p-2",
     "-0x1.329324p-24", "-0x1.6c6d90p-23", "-0x1.ea7c3ap-23",
     "-0x1.1c0134p-22", "-0x1.3a9b3ap-23"),
    # segment 8, :1804-1805
    ("-0x1.46147ap+2", "-0x1.08b296p+2", "-0x1.2762b6p+2", "0x1.eb1c44p-2",
     "-0x1.3237bep-17", "-0x1.457a5ep-16", "-0x1.5b49d2p-16",
     "-0x1.13a650p-16", "-0x1.e28342p-18"),
    # segment 9, :1807-1808
    ("-0x1.08b296p+2", "-0x1.969e1cp+1", "-0x1.d401a4p+1", "0x1.eb1c44p-2",
     "-0x1.eabbccp-12", "-0x1.a80b4cp-11", "-0x1.5592dap-11",
     "-0x1.5f9668p-12", "-0x1.a3d98ep-14"),
    # segment 10, :1810-1811
    ("-0x1.969e1cp+1", "-0x1.1bda52p+1", "-0x1.593a92p+1", "0x1.eb1c44p-2",
     "-0x1.35115ap-7", "-0x1.869836p-7", "-0x1.a20ddcp-8",
     "-0x1.ae70c2p-10", "-0x1.d19158p-14"),
    # segment 11, :1813-1814
    ("-0x1.1bda52p+1", "-0x1.422680p+0", "-0x1.bced92p+0", "0x1.eb1c44p-2",
     "-0x1.249e44p-4", "-0x1.b87bdcp-5", "-0x1.527e52p-7",
     "0x1.85058ep-9", "0x1.8eb896p-10"),
    # segment 12, :1816-1817
    ("-0x1.422680p+0", "-0x1.327bb2p-2", "-0x1.8ecbfcp-1", "0x1.eb1c44p-2",
     "-0x1.5bc01ap-3", "-0x1.5d4e90p-8", "0x1.82be8cp-5",
     "0x1.c0980cp-7", "-0x1.1e0d32p-13"),
    # segment 13, :1819-1820
    ("-0x1.327bb2p-2", "0x1.51d14ep-1", "0x1.714120p-3", "0x1.eb1c44p-2",
     "0x1.a5e354p-4", "0x1.3b4a24p-2", "0x1.6b851ep-4",
     "-0x1.3f6c26p-8", "-0x1.98d046p-9"),
    # segment 14, :1822-1823
    ("0x1.51d14ep-1", "0x1.a4c2f8p+0", "0x1.26d5d0p+0", "0x1.f7b4a2p-2",
     "0x1.020c4ap+0", "0x1.180346p-1", "0x1.13165ep-6",
     "-0x1.90c0aep-7", "0x1.abd1aap-10"),
    # segment 15, :1825-1826
    ("0x1.a4c2f8p+0", "0x1.800000p+1", "0x1.2930bep+1", "0x1.5b3d08p-1",
     "0x1.2624dep+1", "0x1.6d9168p-1", "-0x1.595feep-6",
     "0x1.cc532ap-9", "0x1.615ec0p-10"),
)], dtype=np.float32)
SEED_C6_NEAR_ZERO = 0.125             # :1829 NEAR_ZERO_THRESH
SEED_C6_TAYLOR = (f32(0.5), _h("0x1.988454p-2"))  # :1830 0.5 and INV_SQRT_2PI = 0.3989422804f
SEED_C6_SATURATION = 3.0              # :1838 thresholds::POS


def build_c6(p: Params) -> ArrayFn:
    """The seed's C6 kernel (module docstring)."""
    seg = p.SEGMENTS
    starts = seg[1:, 0]  # segments are contiguous: each x_end is the next x_start

    def impl(x: np.ndarray) -> np.ndarray:
        with np.errstate(all="ignore"):
            idx = np.zeros(x.shape, dtype=np.int32)
            for s in starts:
                idx += x >= s
            u = (x - lookup(seg[:, 2], idx)) / lookup(seg[:, 3], idx)
            y = lookup(seg[:, 8], idx)
            for j in (7, 6, 5, 4):
                y = fma(u, y, lookup(seg[:, j], idx))
            c0, c1 = p.TAYLOR
            near = x * fma(x, np.full_like(x, c1), np.full_like(x, c0))
            y = where32(np.abs(x) < p.NEAR_ZERO, near, y)
            return tail.seed_finish(x, y, p, tail.seed_asymptotic_tail, p.SATURATION)

    return impl


register(built(
    "gelu", "C6 Adaptive", "adaptive",
    "16 degree-4 polynomials of GELU in scaled coordinates on error-driven segments, Taylor for "
    "|x|<0.125; the seed's asymptotic tail below -3.5, x>=3 -> x",
    build_c6,
    Params({"SEGMENTS": table(SEED_C6_SEGMENTS), "TAYLOR": coeffs(SEED_C6_TAYLOR),
            "NEAR_ZERO": threshold(SEED_C6_NEAR_ZERO), "SATURATION": threshold(SEED_C6_SATURATION),
            "TAIL_START": threshold(tail.TAIL_LUT_START), **tail.tail_params("seed-pure")}),
    table_bytes=SEED_C6_SEGMENTS.nbytes,
    claims={"bfloat16": Claim(1, 0.0032), "float16": Claim(6, 0.0704)},
    seed=seed_figures("C6 Adaptive"),
    note="bit for bit the seed's gelu_c6_adaptive (gelu_implementations.cpp:1833 at c2bf7bb)",
))
