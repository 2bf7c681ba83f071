"""The seed's R5 family: a table of Phi with linear interpolation (R5 Pure, R5 LUT).

Table: Phi(x_i) at x_i = -9 + i h, h = 12/512 = 0.0234375 (an exact binary fraction), i = 0..512:
the seed's 512 intervals on [-9, 3], 513 float32 entries built at import time from mpmath
(``tail.phi_cdf_exact``), each rounded once. Phi(x) between knots is ``tail.lerp_uniform``
(index by floor((x + 9)/h), one FMA), and GELU = x Phi(x).

Interpolation error is h^2/8 |Phi''| = 6.9e-5 |x| phi(x): absolute, so it is small relative to
Phi on the positive side and near zero, but relative to Phi(x) ~ phi(x)/|x| it grows like
6.9e-5 x^2, about 1e-3 at x = -4 (a quarter of a bfloat16 ulp) and 1.7e-3 at -5. The 4-term
asymptotic tail has relative error below 105/x^8 (1.6e-3 at -4, 6.3e-4 at -4.5). The Pure
threshold is where the two meet; the seed used -3, where the series is 1.6% off.

Positive side: for x >= 3 both variants use GELU(x) = x + GELU(-x) with the asymptotic tail
for GELU(-x) (``tail.mirror_positive``), which gives x from about 5.5 on and keeps inf. The
seed's x >= 3 -> x is exact in bfloat16 but 2 float16 ulps off at x = 3.

    R5 Pure  the seed's: table on [-3, 3), asymptotic tail below SEED_R5_TAIL = -3.
    R5 Pure (improved)  table on [R5_TAIL, 3), asymptotic tail below R5_TAIL = -4.25 (chosen
             by measuring thresholds -3, -3.5, -4, -4.25, -4.5, -5 on all bfloat16 and
             float16 inputs: max ulp 2/1/1/1/1/1 in bfloat16 and 18/5/3/3/3/3 in float16;
             -4.25 has the smallest mean in both; the seed's -3 reproduces its bfloat16 max
             of 2 and mean 0.003 (seed 0.002)).
    R5 LUT   table on [-3.5, 3), the seed's shared tail LUT below -3.5.
R5 Pure and R5 LUT take every exp (tail, mirror) from the seed's fast exp
(``tail.seed_fast_exp_neg``); R5 Pure (improved) from this project's (``tail.exp_neg``).
"""

from __future__ import annotations

import numpy as np

from ulplab.methods.gelu import tail
from ulplab.methods.gelu.seed_table import seed_figures
from ulplab.methods.gelu.tail import where32
from ulplab.methods.params import Params, threshold
from ulplab.methods.params import table as table_param
from ulplab.methods.registry import ArrayFn, Claim, built, register

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


register(built(
    "gelu", "R5 Pure", "lut",
    "Phi from a 513-knot table on [-9, 3] by linear interpolation; asymptotic tail below -3 "
    "(the seed's)",
    build_r5, _params("pure", SEED_R5_TAIL),
    table_bytes=PHI_TABLE.nbytes,
    claims={"bfloat16": Claim(2, 0.0029), "float16": Claim(18, 0.0562)},
    seed=seed_figures("R5 Pure"),
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
    "Phi from a 513-knot table by linear interpolation; the seed's tail LUT below -3.5",
    build_r5, _params("lut", tail.TAIL_LUT_START),
    table_bytes=PHI_TABLE.nbytes + tail.TAIL_LUT_BYTES,
    claims={"bfloat16": Claim(87, 0.0719), "float16": Claim(190, 0.5785)},
    seed=seed_figures("R5 LUT"),
))
