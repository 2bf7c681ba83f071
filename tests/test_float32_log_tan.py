"""The correctly rounded float32 entry point of log, log2, log1p, rsqrt and tan (issue 9, part 1).

Each kernel in its ``float32`` rounding (nearest mode plus its exception table) is compared bit
for bit with the oracle's nearest-even rounding (``ulplab.oracle.fast32``) on: every threshold
and clamp constant of the kernel +-2000 encodings; subnormal inputs and results; the family's
hard cases (inputs near 1 for the logarithms, near 0 and -1 for log1p, 4^k for rsqrt, the
closest float32 to multiples of pi/2 and TRIG_HARD for tan); 10^6 random bit patterns through
the compiled C kernel (same bits as NumPy's, tests/test_kernels_float32.py); and the exception
inputs themselves. The exhaustive narrow-format claims (odd mode) stay in tests/test_methods.py.
"""

import math
import sys

import numpy as np
import pytest

from kernel_checks import assert_correctly_rounded32, trig_hard_bits
from ulplab.analysis.cr_scan import kernel_info
from ulplab.kernels import exceptions
from ulplab.kernels import log as klog
from ulplab.kernels import log1p as klog1p
from ulplab.kernels import trig as ktrig

FUNCS = ("log", "log2", "log1p", "rsqrt", "tan")
f32 = np.float32
u32 = np.uint32


def _bits(v: float) -> int:
    return int(np.array([v], f32).view(u32)[0])


def _around(centres: list[int], width: int = 2000) -> np.ndarray:
    """Every encoding within ``width`` of each centre, clipped to [0, 2^32)."""
    d = np.arange(-width, width + 1, dtype=np.int64)
    b = (np.asarray(centres, np.int64)[:, None] + d[None, :]).ravel()
    return np.unique(b[(b >= 0) & (b < 2**32)]).astype(u32)


def _both_signs(b: np.ndarray) -> np.ndarray:
    return np.concatenate([b, b | u32(0x80000000)])


_LOG_CUTS = [0x00000001, 0x00800000, klog.OFF, 0x3F800000, klog.OFF + klog.N_TABLE * 2**16,
             0x7F7FFFFF]  # subnormal/normal, table interval 0 (k steps), 1, the top, FLT_MAX
THRESHOLDS = {  # encodings where the kernel changes path or a special value starts
    "log": _LOG_CUTS,
    "log2": _LOG_CUTS,
    "log1p": [0x00000000, 0x80000000, klog1p.TINY_BITS, klog1p.TINY_BITS | 0x80000000,
              0x00800000, 0x80800000, _bits(-1.0), _bits(float.fromhex("0x1.67p-1") - 1),
              _bits(float.fromhex("0x1.67p+0") - 1), _bits(float(klog1p.BIG)), 0x7F7FFFFF],
    "rsqrt": [0x00000000, 0x00800000, 0x3F800000, 0x40800000, 0x7F7FFFFF, 0x80000000],
    "tan": [0x00000000, 0x80000000, ktrig.TINY_BITS, ktrig.TINY_BITS | 0x80000000,
            _bits(float(ktrig.CW_LIMIT)), _bits(-float(ktrig.CW_LIMIT)), 0x7F7FFFFF,
            0xFF7FFFFF],
}


SCAN = {  # (undecided, exceptions) of the scans over all 2^32 inputs (module docstrings)
    "log": (4001, 45), "log2": (9876, 48), "rsqrt": (3955, 0), "log1p": (5694, 43),
    "tan": (8912, 86),
}


def _pio2_multiples() -> np.ndarray:
    """The float32 nearest to k pi/2 and its neighbours, k up to 2^20 and a few huge ones."""
    k = np.concatenate([np.arange(1, 4096), np.unique(np.geomspace(4096, 2**20, 3000).astype(
        np.int64))])
    c = (k * (math.pi / 2)).astype(f32).view(u32).astype(np.int64)
    b = (c[:, None] + np.arange(-2, 3)[None, :]).ravel().astype(u32)
    return _both_signs(b)


def _hard(func: str) -> np.ndarray:
    """The family's hard cases and, where the function has them, subnormal results."""
    rng = np.random.default_rng(9)
    sub = rng.integers(1, 0x00800000, 20_000, dtype=np.int64).astype(u32)
    if func in ("log", "log2"):  # near 1 (no table value added), exact log2(2^k), subnormals
        pow2 = (np.arange(1, 255, dtype=np.int64) << 23).astype(u32)
        return np.concatenate([_around([0x3F800000], 2**16), _around(list(pow2), 2), sub])
    if func == "log1p":  # near 0 (subnormal results), at -1, small |x| above the tiny rule
        small = rng.integers(klog1p.TINY_BITS, 0x3A000000, 40_000, dtype=np.int64).astype(u32)
        return np.concatenate([_both_signs(sub), _both_signs(small),
                               np.arange(0xBF7F0000, 0xBF800001, dtype=np.int64).astype(u32)])
    if func == "rsqrt":  # the exact cases 4^k and the odd powers of two, subnormal inputs
        pow2 = (np.arange(1, 255, dtype=np.int64) << 23).astype(u32)
        return np.concatenate([_around(list(pow2), 3), sub])
    tb = trig_hard_bits().astype(np.int64)  # tan
    hard = (tb[:, None] + np.arange(-2, 3)[None, :]).ravel().astype(u32)
    return np.concatenate([_both_signs(hard), _pio2_multiples(), _both_signs(sub)])


@pytest.mark.parametrize("func", FUNCS)
def test_thresholds(func: str) -> None:
    assert_correctly_rounded32(func, _around(THRESHOLDS[func]))


@pytest.mark.parametrize("func", FUNCS)
def test_hard_cases_and_subnormals(func: str) -> None:
    assert_correctly_rounded32(func, _hard(func))


@pytest.mark.parametrize("func", FUNCS)
def test_scan_counts_are_the_documented_ones(func: str) -> None:
    """The undecided and exception counts the docstrings state (the entries themselves are
    checked for every kernel by tests/test_kernels_float32.py)."""
    t = exceptions.table(func)
    assert t is not None and (t.undecided, t.keys.size) == SCAN[func]


def _main_path_sample(func: str, rng: np.random.Generator) -> np.ndarray:
    """Inputs that reach round_result: random encodings over the kernel's main range and the
    family's hard regions (near 1; small |x| for log1p; near multiples of pi/2 for tan)."""
    def enc(lo: int, hi: int, n: int) -> np.ndarray:
        return rng.integers(lo, hi, n, dtype=np.int64).astype(u32)

    if func in ("log", "log2"):
        b = np.concatenate([enc(1, 0x7F800000, 1000), enc(0x3F7F0000, 0x3F810000, 1000)])
    elif func == "log1p":
        b = _both_signs(enc(klog1p.TINY_BITS, 0x3F000000, 1000))
        b = np.concatenate([b, enc(0x3F000000, 0x7F800000, 500)])
    elif func == "rsqrt":
        b = enc(1, 0x7F800000, 2000)
    else:
        pio2 = _pio2_multiples()
        b = np.concatenate([_both_signs(enc(ktrig.TINY_BITS, 0x7F800000, 1000)),
                            rng.choice(pio2, 500, replace=False)])
    return b.view(f32)


@pytest.mark.parametrize("func", FUNCS)
def test_hi_lo_error_is_a_quarter_of_the_bound(func: str, monkeypatch) -> None:
    """The rounding test assumes |h + l - f(x)| <= bound |f(x)|; the bound is 4 to 8 times the
    largest error measured (the module docstrings); here a sample against mpmath at 300 bits."""
    from mpmath import mp, mpf

    from ulplab.kernels import core

    info = kernel_info(func)
    mod = sys.modules[info["impl"].__module__]
    seen = {}

    def record(hi: np.ndarray, lo: np.ndarray) -> np.ndarray:
        seen["hl"] = (hi.copy(), lo.copy())
        return core.round_to_odd(hi, lo)

    monkeypatch.setattr(mod, "round_result", record)
    xs = _main_path_sample(func, np.random.default_rng(3 + FUNCS.index(func)))
    with np.errstate(all="ignore"):
        info["impl"](xs)
    h, lo = seen["hl"]
    scale = np.ones(xs.size)
    if func == "rsqrt":  # h + l is 1/sqrt(z) for x = z 4^k; the result is scaled by 2^-k
        scale = np.ldexp(1.0, -mod._split(xs)[1])
    ref = {"log": mp.log, "log2": lambda v: mp.log(v, 2), "log1p": mp.log1p,
           "rsqrt": lambda v: 1 / mp.sqrt(v), "tan": mp.tan}[func]
    worst = 0.0
    with mp.workprec(300):
        for i, x in enumerate(xs):
            t = ref(mpf(float(x)))
            got = (mpf(float(h[i])) + mpf(float(lo[i]))) * mpf(scale[i])
            worst = max(worst, float(abs(got - t) / abs(t)))
    assert 0 < worst <= info["bound"] / 4, (func, math.log2(worst))


