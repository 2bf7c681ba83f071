"""The seed's R5 family: a table of Phi with linear interpolation (R5 Pure, R5 LUT).

Table of the "(improved)" variants: Phi(x_i) at x_i = -9 + i h, h = 12/512 = 0.0234375 (an
exact binary fraction), i = 0..512: 512 intervals on [-9, 3], 513 float32 entries built at
import time from mpmath (``tail.phi_cdf_exact``), each rounded once. Phi(x) between knots is
``tail.lerp_uniform`` (index by floor((x + 9)/h), one FMA), and GELU = x Phi(x).

Interpolation error is h^2/8 |Phi''| = 6.9e-5 |x| phi(x): absolute, so it is small relative to
Phi on the positive side and near zero, but relative to Phi(x) ~ phi(x)/|x| it grows like
6.9e-5 x^2, about 1e-3 at x = -4 (a quarter of a bfloat16 ulp) and 1.7e-3 at -5. The 4-term
asymptotic tail has relative error below 105/x^8 (1.6e-3 at -4, 6.3e-4 at -4.5). The Pure
threshold is where the two meet; the seed used -3, where the series is 1.6% off.

Positive side: for x >= 3 both improved variants use GELU(x) = x + GELU(-x) with the asymptotic tail
for GELU(-x) (``tail.mirror_positive``), which gives x from about 5.5 on and keeps inf. The
seed's x >= 3 -> x is exact in bfloat16 but 2 float16 ulps off at x = 3.

    R5 Pure (improved)  table on [R5_TAIL, 3), asymptotic tail below R5_TAIL = -4.25 (chosen
             by measuring thresholds -3, -3.5, -4, -4.25, -4.5, -5 on all bfloat16 and
             float16 inputs: max ulp 2/1/1/1/1/1 in bfloat16 and 18/5/3/3/3/3 in float16;
             -4.25 has the smallest mean in both).
    R5 LUT (improved)  table on [-3.5, 3), the tail LUT of exact knots below -3.5 (with the
             reading of the seed's fast exp, ``tail.seed_fast_exp_neg``, at its far end).
R5 Pure (improved) takes every exp from this project's (``tail.exp_neg``).

The seed's names are the seed's methods, bit for bit (``build_r5_seed``; its C++ at c2bf7bb,
every bfloat16 output checked against its build by tests/test_gelu_seed_bits.py): its own
512-entry float table SEED_PHI_TABLE on [-9, 3] (step 12/511, not a binary fraction; built by
the seed with the C library's erff, copied here as bit patterns), index trunc((x + 9) 511/12),
one FMA, x >= 3 -> x, and its own tails:
    R5 Pure  its asymptotic tail below -3 (bfloat16 2 / 0.003, float16 18 / 0.0621);
    R5 LUT   its tail LUT below -3.5 (bfloat16 87 / 0.072, float16 190 / 0.583).
"""

from __future__ import annotations

import numpy as np

from ulplab.kit import fma, lookup
from ulplab.kit.ops import f32hex
from ulplab.methods.gelu import tail
from ulplab.methods.gelu.seed_table import seed_figures
from ulplab.methods.gelu.tail import where32
from ulplab.methods.params import Params, threshold
from ulplab.methods.params import table as table_param
from ulplab.methods.registry import ArrayFn, Claim, built, register

f32 = np.float32
_h = f32hex  # exact hex literal -> float32

R5_LO = -9.0
R5_STEP = 0.0234375  # 12/512
R5_KNOTS = 513
SEED_R5_TAIL = -3.0  # the seed's R5 Pure: the asymptotic tail below -3
PHI_TABLE = tail.uniform_table(tail.phi_cdf_exact, R5_LO, R5_STEP, R5_KNOTS)
R5_HI = R5_LO + R5_STEP * (R5_KNOTS - 1)  # 3.0
R5_TAIL = -4.25
R5_KNOT_XS = [R5_LO + R5_STEP * i for i in range(R5_KNOTS)]  # exact binary fractions


def phi_r5(x: np.ndarray, p: Params) -> np.ndarray:
    """Phi by linear interpolation in PHI_TABLE (x clamped to [-9, 3])."""
    return tail.lerp_uniform(x, R5_LO, R5_STEP, p.PHI_TABLE)


def build_r5(p: Params) -> ArrayFn:
    """An R5 kernel: x Phi_table(x) on [TAIL_START, 3), the tail below (asymptotic, or the LUT
    where declared), the mirror above."""
    tail_fn = tail.tail_lut if "TAIL_COARSE" in p else tail.asymptotic_tail

    def impl(x: np.ndarray) -> np.ndarray:
        with np.errstate(all="ignore"):
            core = x * phi_r5(x, p)
            pos = tail.mirror_positive(x, tail.asymptotic_tail, p)
            core = where32(x >= R5_HI, pos, core)
            y = tail.with_tail(x, core, p.TAIL_START, tail_fn, p)
            return where32(np.isnan(x), x, y)  # NaN -> the input NaN itself

    return impl


def _params(tail_kind: str, tail_start: float, seed_exp: bool = True) -> Params:
    return Params({"PHI_TABLE": table_param(PHI_TABLE, of="Phi", at=R5_KNOT_XS),
                   **tail.tail_params(tail_kind, seed_exp),
                   "TAIL_START": threshold(tail_start)})


# ---------------------------------------------------------------------------------------------
# The seed's R5 (gelu_implementations.cpp at c2bf7bb), bit for bit
# ---------------------------------------------------------------------------------------------

SEED_PHI_LO = -9.0  # :879 LUT_MIN, the seed's thresholds::NEG
SEED_PHI_INV_STEP = _h("0x1.54aaaap+5")  # :882 LUT_INV_STEP = 511/12 in float32
# :900-906 GeLU_LUT::initialize, 512 entries: x_i = fma(i, 12/511 in float32, -9) (its build
# contracts -9 + i * LUT_STEP), Phi_i = 0.5f * (1 + erff(x_i * (float)(1/sqrt 2))), with the
# C library's erff. These are the float32 bit patterns its README build made with glibc 2.36
# (Debian 12); a correctly rounded erff gives 6 entries (302, 336, 338, 425, 454, 466) one
# float32 ulp apart, so they are copied, not recomputed (docs/seed-rebuild.md regenerates them).
SEED_PHI_BITS = (
    0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000,
    0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000,
    0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000,
    0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000,
    0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000,
    0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000,
    0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000,
    0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000,
    0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000,
    0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000,
    0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000,
    0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000,
    0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000,
    0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000,
    0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000,
    0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000,
    0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000,
    0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000,
    0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x33000000, 0x33000000, 0x33000000, 0x33000000,
    0x33000000, 0x33000000, 0x33000000, 0x33000000, 0x33800000, 0x33800000, 0x33800000, 0x33800000,
    0x33c00000, 0x33c00000, 0x33c00000, 0x34000000, 0x34000000, 0x34200000, 0x34400000, 0x34400000,
    0x34600000, 0x34800000, 0x34900000, 0x34a00000, 0x34c00000, 0x34d00000, 0x34f00000, 0x35080000,
    0x35180000, 0x35280000, 0x35400000, 0x35580000, 0x35700000, 0x35880000, 0x35980000, 0x35ac0000,
    0x35c00000, 0x35d80000, 0x35f40000, 0x36080000, 0x36180000, 0x362a0000, 0x363e0000, 0x36540000,
    0x366e0000, 0x36850000, 0x36940000, 0x36a50000, 0x36b80000, 0x36cd0000, 0x36e40000, 0x36fe0000,
    0x370d0000, 0x371d0000, 0x372e8000, 0x37418000, 0x37570000, 0x376e8000, 0x37840000, 0x37924000,
    0x37a20000, 0x37b38000, 0x37c68000, 0x37db8000, 0x37f28000, 0x38060000, 0x3813e000, 0x38232000,
    0x3833e000, 0x38466000, 0x385a8000, 0x3870a000, 0x38846000, 0x3891a000, 0x38a01000, 0x38afe000,
    0x38c13000, 0x38d40000, 0x38e8a000, 0x38ff1000, 0x390bc000, 0x39191800, 0x39279800, 0x39376000,
    0x39489000, 0x395b3800, 0x396f8000, 0x3982c000, 0x398eb400, 0x399ba800, 0x39a9b400, 0x39b8e800,
    0x39c96400, 0x39db3800, 0x39ee8000, 0x3a01ac00, 0x3a0cf000, 0x3a191800, 0x3a263800, 0x3a346000,
    0x3a43a200, 0x3a541400, 0x3a65c800, 0x3a78d600, 0x3a86aa00, 0x3a91af00, 0x3a9d8500, 0x3aaa3b00,
    0x3ab7e000, 0x3ac68300, 0x3ad63400, 0x3ae70400, 0x3af90500, 0x3b062580, 0x3b107400, 0x3b1b7980,
    0x3b274000, 0x3b33d380, 0x3b414000, 0x3b4f9200, 0x3b5ed700, 0x3b6f1c00, 0x3b803800, 0x3b897100,
    0x3b9340c0, 0x3b9daf80, 0x3ba8c580, 0x3bb48bc0, 0x3bc10b80, 0x3bce4e40, 0x3bdc5dc0, 0x3beb4440,
    0x3bfb0c80, 0x3c05e0e0, 0x3c0eb760, 0x3c180fe0, 0x3c21f040, 0x3c2c5f00, 0x3c376260, 0x3c430120,
    0x3c4f4200, 0x3c5c2c00, 0x3c69c680, 0x3c7818a0, 0x3c839510, 0x3c8b8150, 0x3c93d520, 0x3c9c9470,
    0x3ca5c370, 0x3caf6650, 0x3cb98150, 0x3cc418e0, 0x3ccf3170, 0x3cdacf60, 0x3ce6f740, 0x3cf3add0,
    0x3d007bd0, 0x3d076cb0, 0x3d0eabf0, 0x3d163be8, 0x3d1e1f00, 0x3d2657a8, 0x3d2ee848, 0x3d37d348,
    0x3d411b10, 0x3d4ac218, 0x3d54cab0, 0x3d5f3740, 0x3d6a0a30, 0x3d7545d0, 0x3d807638, 0x3d86802c,
    0x3d8cc1e0, 0x3d933c6c, 0x3d99f0e8, 0x3da0e054, 0x3da80bc4, 0x3daf7424, 0x3db71a6c, 0x3dbeff84,
    0x3dc72448, 0x3dcf898c, 0x3dd83014, 0x3de11898, 0x3dea43c8, 0x3df3b240, 0x3dfd648c, 0x3e03ad98,
    0x3e08cb50, 0x3e0e0b9a, 0x3e136e9e, 0x3e18f476, 0x3e1e9d3e, 0x3e2468fe, 0x3e2a57b6, 0x3e306960,
    0x3e369dea, 0x3e3cf534, 0x3e436f1a, 0x3e4a0b66, 0x3e50c9e0, 0x3e57aa3c, 0x3e5eac28, 0x3e65cf46,
    0x3e6d1330, 0x3e74776c, 0x3e7bfb7a, 0x3e81cf69, 0x3e85b070, 0x3e89a07f, 0x3e8d9f40, 0x3e91ac59,
    0x3e95c768, 0x3e99f008, 0x3e9e25cb, 0x3ea26843, 0x3ea6b6fa, 0x3eab1174, 0x3eaf7736, 0x3eb3e7b9,
    0x3eb86278, 0x3ebce6e4, 0x3ec17472, 0x3ec60a8b, 0x3ecaa899, 0x3ecf4e03, 0x3ed3fa2a, 0x3ed8ac70,
    0x3edd6430, 0x3ee220c8, 0x3ee6e18f, 0x3eeba5dd, 0x3ef06d08, 0x3ef53665, 0x3efa0148, 0x3efecd03,
    0x3f01cc75, 0x3f043227, 0x3f069741, 0x3f08fb6e, 0x3f0b5e57, 0x3f0dbfa7, 0x3f101f09, 0x3f127c2a,
    0x3f14d6b5, 0x3f172e5b, 0x3f1982c9, 0x3f1bd3b1, 0x3f1e20c4, 0x3f2069b7, 0x3f22ae3f, 0x3f24ee12,
    0x3f2728ec, 0x3f295e85, 0x3f2b8e9c, 0x3f2db8f0, 0x3f2fdd44, 0x3f31fb5a, 0x3f3412f9, 0x3f3623eb,
    0x3f382dfb, 0x3f3a30f8, 0x3f3c2cb2, 0x3f3e20fc, 0x3f400dae, 0x3f41f2a0, 0x3f43cfad, 0x3f45a4b5,
    0x3f47719a, 0x3f49363e, 0x3f4af28a, 0x3f4ca667, 0x3f4e51c2, 0x3f4ff48a, 0x3f518eb1, 0x3f53202c,
    0x3f54a8f4, 0x3f562900, 0x3f57a050, 0x3f590ee0, 0x3f5a74b4, 0x3f5bd1d0, 0x3f5d2638, 0x3f5e71f6,
    0x3f5fb516, 0x3f60efa4, 0x3f6221ae, 0x3f634b46, 0x3f646c7e, 0x3f65856c, 0x3f669626, 0x3f679ec3,
    0x3f689f5e, 0x3f699810, 0x3f6a88f7, 0x3f6b7230, 0x3f6c53da, 0x3f6d2e14, 0x3f6e0100, 0x3f6eccc0,
    0x3f6f9176, 0x3f704f46, 0x3f710654, 0x3f71b6c3, 0x3f7260ba, 0x3f730460, 0x3f73a1d7, 0x3f743949,
    0x3f74cada, 0x3f7556b2, 0x3f75dcf8, 0x3f765dd2, 0x3f76d965, 0x3f774fda, 0x3f77c156, 0x3f782e00,
    0x3f7895fc, 0x3f78f972, 0x3f795885, 0x3f79b35a, 0x3f7a0a16, 0x3f7a5cdc, 0x3f7aabcf, 0x3f7af712,
    0x3f7b3ec8, 0x3f7b8310, 0x3f7bc40c, 0x3f7c01dc, 0x3f7c3ca0, 0x3f7c7475, 0x3f7ca97a, 0x3f7cdbcc,
    0x3f7d0b88, 0x3f7d38c9, 0x3f7d63aa, 0x3f7d8c45, 0x3f7db2b4, 0x3f7dd70f, 0x3f7df96e, 0x3f7e19e9,
    0x3f7e3895, 0x3f7e5588, 0x3f7e70d8, 0x3f7e8a98, 0x3f7ea2dc, 0x3f7eb9b6, 0x3f7ecf38, 0x3f7ee375,
    0x3f7ef67c, 0x3f7f085c, 0x3f7f1928, 0x3f7f28ea, 0x3f7f37b4, 0x3f7f4592, 0x3f7f5290, 0x3f7f5ebc,
    0x3f7f6a20, 0x3f7f74ca, 0x3f7f7ec1, 0x3f7f8812, 0x3f7f90c4, 0x3f7f98e4, 0x3f7fa078, 0x3f7fa788,
)
SEED_PHI_TABLE = np.array(SEED_PHI_BITS, dtype=np.uint32).view(np.float32)
SEED_PHI_XS = [float(v) for v in fma(np.arange(512, dtype=np.float32),
                                      np.full(512, (f32(3.0) - f32(-9.0)) / f32(511)),
                                      np.full(512, f32(-9.0)))]
SEED_R5_SATURATION = 3.0  # :927 x >= 3 -> x


def seed_phi_r5(x: np.ndarray, p: Params) -> np.ndarray:
    """The seed's interpolation (:932-941): s = (x + 9) SEED_PHI_INV_STEP, i = trunc(s) limited
    to [0, 510] (t = s - i taken before the limit), T[i] + t (T[i+1] - T[i]) as one FMA."""
    with np.errstate(all="ignore"):
        s = (x - f32(SEED_PHI_LO)) * SEED_PHI_INV_STEP
        i = np.trunc(where32(np.isfinite(s), s, 0.0))
        t = s - i
        ii = np.clip(i, 0.0, 510.0).astype(np.int32)
        y0 = lookup(p.SEED_PHI_TABLE, ii)
        y1 = lookup(p.SEED_PHI_TABLE, ii + 1)
        return fma(t, y1 - y0, y0)


def build_r5_seed(p: Params) -> ArrayFn:
    """The seed's R5 kernel: x Phi_table(x), the seed's tail (asymptotic, or its LUT where
    declared) below TAIL_START, x from 3."""
    return tail.seed_frame(seed_phi_r5, SEED_R5_SATURATION, p)


def _seed_params(tail_kind: str, tail_start: float) -> Params:
    return Params({"SEED_PHI_TABLE": table_param(SEED_PHI_TABLE, of="Phi", at=SEED_PHI_XS),
                   **tail.tail_params(tail_kind), "TAIL_START": threshold(tail_start)})


register(built(
    "gelu", "R5 Pure", "lut",
    "Phi from the seed's 512-entry float table on [-9, 3] by linear interpolation; asymptotic "
    "tail below -3 (the seed's)",
    build_r5_seed, _seed_params("seed-pure", SEED_R5_TAIL),
    table_bytes=SEED_PHI_TABLE.nbytes,
    claims={"bfloat16": Claim(2, 0.003), "float16": Claim(18, 0.0621)},
    seed=seed_figures("R5 Pure"),
    note="bit for bit the seed's gelu_r5_pure (gelu_implementations.cpp:970 at c2bf7bb)",
))
register(built(
    "gelu", "R5 Pure (improved)", "lut",
    "Phi from a 513-knot table on [-9, 3] by linear interpolation; asymptotic tail below -4.25",
    build_r5, _params("pure", R5_TAIL, seed_exp=False),
    table_bytes=PHI_TABLE.nbytes,
    claims={"bfloat16": Claim(1, 0.0022), "float16": Claim(3, 0.0182)},
    seed=seed_figures("R5 Pure (improved)"),
    note="the seed's R5 Pure with the tail from -4.25 instead of -3: bfloat16 max 2 -> 1, "
    "float16 18 -> 3",
))
register(built(
    "gelu", "R5 LUT", "lut",
    "Phi from the seed's 512-entry float table by linear interpolation; the seed's tail LUT "
    "below -3.5",
    build_r5_seed, _seed_params("seed-lut", tail.TAIL_LUT_START),
    table_bytes=SEED_PHI_TABLE.nbytes + 4 * (tail.SEED_TAIL_MAIN.size + tail.SEED_TAIL_FINE.size),
    claims={"bfloat16": Claim(87, 0.072), "float16": Claim(190, 0.583)},
    seed=seed_figures("R5 LUT"),
    note="bit for bit the seed's gelu_r5_lut (gelu_implementations.cpp:951 at c2bf7bb)",
))
register(built(
    "gelu", "R5 LUT (improved)", "lut",
    "Phi from a 513-knot table of exact values by linear interpolation; tail LUT of exact knots "
    "below -3.5, the mirror x + GELU(-x) from 3",
    build_r5, _params("lut", tail.TAIL_LUT_START),
    table_bytes=PHI_TABLE.nbytes + tail.TAIL_LUT_BYTES,
    claims={"bfloat16": Claim(87, 0.0719), "float16": Claim(190, 0.5785)},
    seed=seed_figures("R5 LUT (improved)"),
    note="the seed's R5 LUT with 513 exact knots (rounded once from 40 digits), the tail LUT's "
    "knots exact and a minimax cubic in its fast exp",
))
