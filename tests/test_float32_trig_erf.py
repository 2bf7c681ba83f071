"""The correctly rounded float32 entry point of sin, cos, expm1, erf, gelu and gelu_grad (issue 9,
part 1).

Each kernel in its ``float32`` rounding (nearest mode plus its exception table) is compared bit
for bit with the oracle's nearest-even rounding (``ulplab.oracle.fast32``) on: every threshold
and clamp constant of the kernel +-2000 encodings (both signs where the kernel has them);
subnormal inputs and results; the family's hard cases (TRIG_HARD and the float32 nearest to
multiples of pi/2 for sin and cos, small |x| and the 2^(j/64) switch points for expm1, the
erfcx piece bounds for erf and gelu, the zero of gelu_grad); 10^6 random bit patterns through
the compiled C kernel (same bits as NumPy's, tests/test_kernels_float32.py); and the exception
inputs themselves. The exhaustive narrow-format claims (odd mode) stay in tests/test_methods.py.
"""

import math
import sys

import numpy as np
import pytest

from kernel_checks import assert_correctly_rounded32, trig_hard_bits
from ulplab.analysis.cr_scan import kernel_info
from ulplab.kernels import erf as kerf
from ulplab.kernels import exceptions
from ulplab.kernels import expm1 as kexpm1
from ulplab.kernels import gelu_grad as kgg
from ulplab.kernels import logistic as klogistic
from ulplab.kernels import trig as ktrig
from ulplab.kernels.core import rounding
from ulplab.kernels.exp import EXP_OVERFLOW

FUNCS = ("sin", "cos", "expm1", "erf", "gelu", "gelu_grad")
f32 = np.float32
u32 = np.uint32
SQRT2 = math.sqrt(2.0)


def _bits(v: float) -> int:
    return int(np.array([v], f32).view(u32)[0])


def _around(centres: list[int], width: int = 2000) -> np.ndarray:
    """Every encoding within ``width`` of each centre, clipped to [0, 2^32)."""
    d = np.arange(-width, width + 1, dtype=np.int64)
    b = (np.asarray(centres, np.int64)[:, None] + d[None, :]).ravel()
    return np.unique(b[(b >= 0) & (b < 2**32)]).astype(u32)


def _signed(values: list[int]) -> list[int]:
    """Each encoding and its negative."""
    return [v for b in values for v in (b, b | 0x80000000)]


_ERFCX_SWITCHES = [0.5, *(float(b) for b in kerf.BOUNDS)]  # y where erf/gelu change piece
THRESHOLDS = {  # encodings where the kernel changes path or a special value starts
    "sin": _signed([0, ktrig.TINY_BITS, _bits(float(ktrig.CW_LIMIT)), 0x7F7FFFFF]),
    "cos": _signed([0, ktrig.TINY_BITS, _bits(float(ktrig.CW_LIMIT)), 0x7F7FFFFF]),
    "expm1": [*_signed([0, kexpm1.TINY_BITS]), _bits(float(EXP_OVERFLOW)),
              _bits(float(kexpm1.NEG_LIMIT)), 0x7F7FFFFF],
    "erf": _signed([0, 0x00800000, *(_bits(y) for y in _ERFCX_SWITCHES), _bits(4.5),
                    0x7F7FFFFF]),
    "gelu": [*_signed([0, klogistic.TINY_BITS, *(_bits(y * SQRT2) for y in _ERFCX_SWITCHES),
                       _bits(9.0), 0x7F7FFFFF]), _bits(float(kerf.GELU_FLUSH))],
    "gelu_grad": [*_signed([0, klogistic.TINY_BITS, *(_bits(y * SQRT2) for y in _ERFCX_SWITCHES),
                            _bits(float(kgg.POS_LIMIT)), 0x7F7FFFFF]),
                  _bits(float(kgg.NEG_LIMIT)), *(_bits(float(v)) for v in kgg.ZERO_WINDOW)],
}

SCAN = {  # (undecided, exceptions) of the scans over all 2^32 inputs (module docstrings)
    "sin": (8786, 90), "cos": (8834, 74), "expm1": (951, 13), "erf": (2483814, 12),
    "gelu": (31129, 20), "gelu_grad": (31144, 14),
}


def _pio2_neighbours() -> np.ndarray:
    """The float32 nearest to k pi/2 (zeros of sin or cos) +-2 encodings, k < 2^12 and a
    geometric sample of k up to 2^24, both signs."""
    k = np.concatenate([np.arange(1, 4096), np.unique(np.geomspace(4096, 2**24, 3000)
                                                      .astype(np.int64))])
    c = (k * (math.pi / 2)).astype(f32).view(u32).astype(np.int64)
    return np.array(_signed(list((c[:, None] + np.arange(-2, 3)[None, :]).ravel())), u32)


def _hard(func: str) -> np.ndarray:
    """The family's hard cases and, where the function has them, subnormal results."""
    rng = np.random.default_rng(11)
    sub = np.array(_signed(list(rng.integers(1, 0x00800000, 10_000))), u32)

    def enc(lo: float, hi: float, n: int) -> np.ndarray:
        return rng.integers(_bits(lo), _bits(hi), n, dtype=np.int64).astype(u32)

    if func in ("sin", "cos"):  # reduction's hard cases, zeros, subnormal x (sin x = x)
        tb = trig_hard_bits().astype(np.int64)
        hard = (tb[:, None] + np.arange(-2, 3)[None, :]).ravel()
        return np.concatenate([np.array(_signed(list(hard)), u32), _pio2_neighbours(), sub])
    if func == "expm1":  # small |x| above the tiny rule, M = 0 and -1 (cancelling), and
        # where k = rint(64 x/ln2) passes a multiple of 64 (M changes)
        k = np.arange(-26 * 64, 128 * 64 + 1, 64) - 0.5
        at_k = _around([_bits(v) for v in k * (math.log(2) / 64)], 3)
        small = np.array(_signed(list(enc(2.0**-25, 2.0**-6, 20_000))), u32)
        return np.concatenate([small, np.array(_signed(list(enc(2.0**-6, 0.7, 20_000))), u32),
                               at_k, sub])
    if func == "erf":  # subnormal x gives subnormal erf(x); the switch at 1/2; |x| near 4.5
        return np.concatenate([sub, np.array(_signed(list(enc(0.45, 0.55, 20_000))), u32),
                               np.array(_signed(list(enc(3.8, 4.6, 5000))), u32)])
    if func == "gelu":  # subnormal x (x/2 midpoints), subnormal results near -14.5, |x| ~ 0.7
        return np.concatenate([sub, enc(-13.0, -14.5, 20_000),
                               np.array(_signed(list(enc(0.65, 0.75, 20_000))), u32)])
    # gelu_grad: its zero X0 +-2^15 encodings, the window's inside, subnormal results, |x| ~ 0.7
    return np.concatenate([_around([_bits(float(kgg.X0_HI))], 2**15), enc(-0.5, -1.0, 20_000),
                           enc(-13.0, -14.75, 20_000), sub,
                           np.array(_signed(list(enc(0.65, 0.75, 20_000))), u32)])


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
    """Inputs that reach the final rounding through h + l (not a special value)."""
    def logu(lo: float, hi: float, n: int) -> np.ndarray:
        return np.exp(rng.uniform(math.log(lo), math.log(hi), n)).astype(f32)

    if func in ("sin", "cos"):
        x = np.concatenate([logu(2.0**-12, 3e38, 500), _pio2_neighbours()[::97].view(f32)])
        return np.concatenate([x, -x[::2]])
    if func == "expm1":
        x = logu(2.0**-25, 88.7, 400)
        return np.concatenate([x, -logu(2.0**-25, 18.0, 400)])
    if func == "erf":
        x = logu(2.0**-30, 4.5, 600)
        return np.concatenate([x, -x[::3]])
    lo = 14.5 if func == "gelu" else 14.7
    x = np.concatenate([logu(2.0**-29, 9.0, 300), -logu(2.0**-29, lo, 500)])
    return np.concatenate([x, rng.uniform(-1.0, -0.5, 200).astype(f32)])


def _reference(func: str):
    from mpmath import mp

    def phi_upper(v):  # Phi(v) = erfc(-v/sqrt2)/2
        return mp.erfc(-v / mp.sqrt(2)) / 2

    return {"sin": mp.sin, "cos": mp.cos, "expm1": mp.expm1, "erf": mp.erf,
            "gelu": lambda v: v * phi_upper(v),
            "gelu_grad": lambda v: phi_upper(v) + v * mp.exp(-v * v / 2) / mp.sqrt(2 * mp.pi)
            }[func]


@pytest.mark.parametrize("func", FUNCS)
def test_hi_lo_error_is_a_quarter_of_the_bound(func: str, monkeypatch) -> None:
    """The rounding test assumes |(h + l) 2^m - f(x)| <= bound |f(x)|; the bound is 4 to 9 times
    the largest error measured (the module docstrings); here a sample against mpmath at 300
    bits, captured at the kernel's final rounding call."""
    from mpmath import mp, mpf

    from ulplab.kernels import core

    info = kernel_info(func)
    mod = sys.modules[info["impl"].__module__]
    seen = {}

    def record(hi: np.ndarray, lo: np.ndarray, m: np.ndarray | None = None) -> np.ndarray:
        if m is None:
            seen["hlm"] = (hi.copy(), lo.copy(), np.zeros(hi.shape, np.int64))
            return core.round_to_odd(hi, lo)
        seen["hlm"] = (hi.copy(), lo.copy(), np.broadcast_to(m, hi.shape).astype(np.int64))
        return core.round_to_odd_scaled(hi, lo, m)

    if func == "gelu":  # its final call is in logistic's finish_half_x
        mod = klogistic
    name = "round_result" if func in ("sin", "cos") else "round_result_scaled"
    monkeypatch.setattr(mod, name, record)
    xs = _main_path_sample(func, np.random.default_rng(3 + FUNCS.index(func)))
    with np.errstate(all="ignore"):
        info["impl"](xs)
    h, lo, m = seen["hlm"]
    ref = _reference(func)
    worst = 0.0
    with mp.workprec(300):
        for i, x in enumerate(xs):
            t = ref(mpf(float(x)))
            got = (mpf(float(h[i])) + mpf(float(lo[i]))) * mpf(2) ** int(m[i])
            worst = max(worst, float(abs(got - t) / abs(t)))
    assert 0 < worst <= info["bound"] / 4, (func, math.log2(worst))


def test_gelu_grad_zero_window_constants_regenerate() -> None:
    """X0 (the zero of gelu_grad) and the window polynomial are what
    ``kernel_tables.gelu_grad_zero_tables`` makes."""
    from ulplab.analysis.kernel_tables import gelu_grad_zero_tables

    fitted = gelu_grad_zero_tables()
    assert fitted["X0"] == [float(kgg.X0_HI), float(kgg.X0_LO), float(kgg.X0_LO2)]
    assert fitted["ZERO_HI"] == [float(v) for v in kgg.ZERO_HI]
    assert fitted["ZERO_LO"] == [float(v) for v in kgg.ZERO_LO]


def test_sincos_in_nearest_mode_equals_sin_and_cos() -> None:
    """sincos shares steps 1 to 5 and the per-mode tiny rules with sin and cos."""
    rng = np.random.default_rng(12)
    b = np.concatenate([rng.integers(0, 2**32, 50_000, dtype=np.uint64).astype(u32),
                        _around(THRESHOLDS["sin"], 50)])
    x = b.view(f32)
    with np.errstate(all="ignore"), rounding("nearest"):
        s, c = ktrig.sincos(x)
        assert np.array_equal(s.view(u32), ktrig.sin(x).view(u32))
        assert np.array_equal(c.view(u32), ktrig.cos(x).view(u32))
