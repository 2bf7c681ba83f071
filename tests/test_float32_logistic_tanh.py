"""The correctly rounded float32 entry point of sigmoid, silu, softplus, tanh, gelu_tanh and
tanh_grad (nearest-mode kernel + exception table): bit-exact against the oracle on every
threshold and clamp of the kernels +-2000 ULP, on subnormal results, on the family's hard cases
(few-bit inputs near 0, where 1/2 + x/4 or x/2 + x^2/4 sits on a float32 midpoint), on 10^6
random bit patterns and on the exception inputs themselves; special values per rounding mode."""

import numpy as np
import pytest

from kernel_checks import assert_correctly_rounded32
from ulplab.export import det_kernel
from ulplab.oracle.fast32 import correctly_rounded32

f32 = np.float32
u32 = np.uint32
FUNCS = ("sigmoid", "silu", "softplus", "tanh", "gelu_tanh", "tanh_grad")

# Each kernel's thresholds and clamps as float32 bit patterns (both signs where the kernel has
# the threshold on both sides); every one is checked +-2000 ULP.
TINY = [0x30800000, 0xB0800000]  # +-2^-30: the tiny-input rule of logistic/tanh below it
THRESHOLDS = {
    "sigmoid": [*TINY,
        0x41A00000,  # 20: z clamp for x > 0
        0x418AA123,  # 25 ln 2 = 17.33: sigma(x) crosses the midpoint 1 - 2^-25 below 1
        0xC2AEAC50,  # -126 ln 2 = -87.34: results become subnormal
        0xC2CFF1B4,  # EXP_UNDERFLOW = -103.972: below it 2^-149 (odd) / +0 (nearest)
        0xC2C80000,  # -100: exp_neg_parts squares exp(-z/2) above z = 100
    ],
    "silu": [*TINY,
        0x41A00000,  # 20: z clamp for x > 0
        0xC2B7B6AB,  # -90.9: |silu| = 2^-126, results become subnormal
        0xC2D95213,  # -108.66: |silu| = 2^-150, results round to -0 in nearest
        0xC2DC0000,  # -110: below it -2^-149 (odd) / -0 (nearest)
        0xC2C80000,  # -100: exp_neg_parts squares exp(-z/2) above z = 100
    ],
    "softplus": [
        0x41A00000,  # 20: z clamp for x > 0
        0xC1051592,  # -12 ln 2 = -8.32: t = e^x crosses 2^-12, log1p's Taylor/table switch
        0xC2AEAC50,  # -87.34: results become subnormal
        0xC2CFF1B4,  # EXP_UNDERFLOW: below it 2^-149 (odd) / +0 (nearest)
        0xC2C80000,  # -100: exp_neg_parts squares exp(-z/2)
        0x00000000, 0x80000000,  # +-0: softplus(0) = log 2
    ],
    "tanh": [*TINY,
        0x3E000000, 0xBE000000,  # +-1/8: Taylor below, 1 - 2 sigma(-2a) above
        0x41102CB3, 0xC1102CB3,  # +-13 ln 2 = 9.01: tanh crosses the midpoint 1 - 2^-25
        0x41A00000, 0xC1A00000,  # +-20: 2a clamped to 40
    ],
    "gelu_tanh": [*TINY,
        0x41000000,  # 8: the sigmoid's argument clamped at x = 8
        0xC1300000,  # -11: below it -2^-149 (odd) / -0 (nearest)
        0xC128682E,  # -10.53: z = 2u crosses -100 (exp_neg_parts squares exp(-z/2))
        0xC1219C36,  # -10.10: |gelu_tanh| = 2^-126, results become subnormal
        0xC12C557A,  # -10.77: |gelu_tanh| = 2^-150, results round to -0 in nearest
    ],
    "tanh_grad": [
        0x39000000, 0xB9000000,  # +-2^-13: below it 1 - 2^-24 (odd) / 1 (nearest)
        0x393504F3,  # 2^-12.5: 1 - x^2 crosses the midpoint 1 - 2^-25
        0x41A00000, 0xC1A00000,  # +-20: 1 - sigma(-2a) taken as 1 above
        0x42317218,  # 64 ln 2 = 44.36: results become subnormal
        0x4252B77C,  # 76 ln 2 = 52.68: results round to +0 in nearest
        0x42800000, 0xC2800000,  # +-64: a clamped to 64
        0x00000000, 0x80000000,  # +-0
    ],
}

# Ranges whose results are subnormal (float64 bounds of x).
SUBNORMAL_RESULTS = {
    "sigmoid": [(-103.98, -87.33)],
    "silu": [(-110.01, -90.9), (-2.0**-124, 2.0**-124)],
    "softplus": [(-103.98, -87.33)],
    "tanh": [(-2.0**-125, 2.0**-125)],
    "gelu_tanh": [(-11.01, -10.1), (-2.0**-124, 2.0**-124)],
    "tanh_grad": [(44.3, 52.7), (-52.7, -44.3)],
}


def _check(func: str, bits: np.ndarray) -> None:
    assert_correctly_rounded32(func, np.unique(bits.astype(u32)), compiled=True)


def _around(bits: int, n: int = 2000) -> np.ndarray:
    """The float32 patterns within n ULP of ``bits`` on the same side of zero."""
    sign, mag = bits & 0x80000000, bits & 0x7FFFFFFF
    m = np.arange(max(mag - n, 0), min(mag + n, 0x7F800000) + 1, dtype=np.int64)
    return (m | sign).astype(u32)


def _few_bit_inputs() -> np.ndarray:
    """x = +-s 2^e with an 8-bit significand s, 2^-30 <= |x| < 2^-6: the family's structured
    hard cases (1/2 + x/4, x/2 + x^2/4 and x - x^3/3 land on or next to float32 midpoints)."""
    e = np.arange(-30, -6)
    s = np.arange(128, 256)
    mag = (s[None, :] * 2.0 ** (e[:, None] - 7)).ravel().astype(f32).view(u32)
    return np.concatenate([mag, mag | u32(0x80000000)])


@pytest.mark.parametrize("func", FUNCS)
def test_thresholds_plus_minus_2000_ulp(func: str) -> None:
    _check(func, np.concatenate([_around(b) for b in THRESHOLDS[func]]))


@pytest.mark.parametrize("func", FUNCS)
def test_subnormal_results(func: str) -> None:
    rng = np.random.default_rng(11)
    parts = []
    for lo, hi in SUBNORMAL_RESULTS[func]:
        if hi - lo < 2.0**-100:  # a tiny interval around 0: every subnormal input and some more
            parts.append(np.arange(0, 0x00800000, 97, dtype=np.uint32))
            parts.append(np.arange(0x80000000, 0x80800000, 97, dtype=np.uint32))
            parts.append(rng.integers(0x00800000, 0x01800000, 20_000).astype(u32))
        else:
            parts.append(rng.uniform(lo, hi, 40_000).astype(f32).view(u32))
    _check(func, np.concatenate(parts))


@pytest.mark.parametrize("func", FUNCS)
def test_few_bit_hard_cases(func: str) -> None:
    _check(func, _few_bit_inputs())


SPECIAL_BY_MODE = [  # (func, input bits, odd result bits, float32 result bits)
    ("sigmoid", 0xC2D20000, 0x00000001, 0x00000000),  # sigmoid(-105) < 2^-150
    ("sigmoid", 0x41A00000, 0x3F7FFFFF, 0x3F800000),  # sigmoid(20) = 1 - 2e-9
    ("silu", 0xC3480000, 0x80000001, 0x80000000),  # silu(-200): the example
    ("softplus", 0xC2DC0000, 0x00000001, 0x00000000),  # softplus(-110) < 2^-150
    ("tanh", 0x41200000, 0x3F7FFFFF, 0x3F800000),  # tanh(10): the example
    ("tanh", 0xC1A00000, 0xBF7FFFFF, 0xBF800000),  # tanh(-20)
    ("gelu_tanh", 0xC1400000, 0x80000001, 0x80000000),  # gelu_tanh(-12)
    ("tanh_grad", 0x38800000, 0x3F7FFFFF, 0x3F800000),  # tanh_grad(2^-14) = 1 - 2^-28
    ("tanh_grad", 0x42C80000, 0x00000001, 0x00000000),  # tanh_grad(100) < 2^-150
]


@pytest.mark.parametrize(("func", "xb", "odd", "nearest"), SPECIAL_BY_MODE)
def test_special_values_per_mode(func: str, xb: int, odd: int, nearest: int) -> None:
    x = np.array([xb], u32).view(f32)
    assert int(det_kernel(func, "odd")(x).view(u32)[0]) == odd
    assert int(det_kernel(func, "float32")(x).view(u32)[0]) == nearest
    assert int(correctly_rounded32(func, x)[0][0]) == nearest
