"""The float32 kit: FMA against exact arithmetic and the C library, exact helpers, the guard."""

import ctypes
import ctypes.util
import shutil
import subprocess
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from ulplab.formats import get_format, round_fraction
from ulplab.kit import (
    GuardViolation,
    dd_mul,
    estrin,
    fma,
    frexp,
    horner,
    ldexp,
    run_guarded,
    two_prod,
    two_sum,
)

F32 = get_format("float32")
f32 = np.float32


def exact_fma_bits(a, b, c):
    """Correctly rounded a*b + c from rational arithmetic (IEEE sign rules for exact zeros)."""
    a, b, c = (float(v) for v in (a, b, c))
    if not all(np.isfinite([a, b, c])):
        return None
    v = Fraction(a) * Fraction(b) + Fraction(c)
    bits = round_fraction(v, F32)[0]
    if v == 0:
        prod_neg = np.signbit(a) != np.signbit(b)
        both_neg = prod_neg and np.signbit(c)
        bits = 0x80000000 if both_neg else 0
    return bits


def adversarial(n, seed):
    """Triples built to hit the hard cases: cancellation, exact ties, subnormal and huge results."""
    rng = np.random.default_rng(seed)
    k = n // 6

    def short(m, lo, hi):  # 12-bit significands: products are exact in 24 bits
        sig = 1 + rng.integers(0, 2**11, m) / 2**11
        return (sig * 2.0 ** rng.integers(lo, hi, m) * rng.choice([-1, 1], m)).astype(f32)

    a1 = rng.standard_normal(k).astype(f32)
    b1 = rng.standard_normal(k).astype(f32)
    c1 = -(a1 * b1)  # exact cancellation of the rounded product: the residual survives
    a2, b2 = short(k, -10, 10), short(k, -10, 10)
    p2 = a2.astype(np.float64) * b2
    half = 2.0 ** (np.floor(np.log2(np.abs(p2))) - 24)
    c2 = (half * rng.choice([-3, -1, 1, 3], k)).astype(f32)  # p + c lands on float32 midpoints
    a3, b3 = short(k, -75, -60), short(k, -75, -60)  # products far below float32's range
    c3 = (rng.standard_normal(k) * 2.0**-140).astype(f32)  # subnormal sums
    a4 = (rng.standard_normal(k) * 2.0**64).astype(f32)
    b4 = (rng.standard_normal(k) * 2.0**64).astype(f32)
    c4 = (rng.standard_normal(k) * 2.0**125).astype(f32)
    # double-rounding traps: a*b is a float32 midpoint (25 bits, odd) and c is far below its
    # float64 ulp, so fl64(a*b + c) is the midpoint and only the sticky c decides
    sa = rng.integers(2**12, 2**13, k) | 1
    sb = rng.integers(2**11, 2**12, k) | 1
    a6 = (sa * 2.0 ** rng.integers(-20, 0, k)).astype(f32)
    b6 = (sb * 2.0 ** rng.integers(-20, 0, k)).astype(f32)
    p6 = a6.astype(np.float64) * b6
    c6 = (np.abs(p6) * 2.0**-70 * rng.choice([-1, 1], k)).astype(f32)
    raw = rng.integers(0, 2**32, (3, n - 5 * k), dtype=np.uint64).astype(np.uint32)
    a5, b5, c5 = raw.view(f32)
    return tuple(np.concatenate(v) for v in ((a1, a2, a3, a4, a5, a6), (b1, b2, b3, b4, b5, b6),
                                             (c1, c2, c3, c4, c5, c6)))


def test_fma_matches_exact_arithmetic_on_adversarial_triples():
    a, b, c = adversarial(20_000, seed=3)
    got = fma(a, b, c).view(np.uint32)
    for i in range(len(a)):
        want = exact_fma_bits(a[i], b[i], c[i])
        if want is not None:
            assert int(got[i]) == want, (a[i].hex() if hasattr(a[i], "hex") else a[i], i)


_finite32 = st.floats(width=32, allow_nan=False, allow_infinity=False)


@given(_finite32, _finite32, _finite32)
@example(1.0 + 2.0**-23, 1.0 - 2.0**-23, -1.0)  # result -2^-46: exact
@example(2.0**-75, 2.0**-75, 0.0)  # underflows to zero
@example(2.0**-75, 2.0**-74, 2.0**-149)  # tiny product decides a subnormal tie
@example(3.4028234663852886e38, 2.0, -3.4028234663852886e38)  # intermediate overflow is fine
@example(0.0, -1.0, -0.0)
def test_fma_matches_exact_arithmetic(a, b, c):
    got = int(fma(np.array([a], f32), np.array([b], f32), np.array([c], f32)).view(np.uint32)[0])
    assert got == exact_fma_bits(f32(a), f32(b), f32(c))


def test_fma_special_values():
    inf, nan = np.inf, np.nan
    a = np.array([inf, inf, 1, 3e38, nan, 0], f32)
    b = np.array([0, 1, 1, 10, 1, 5], f32)
    c = np.array([1, -inf, inf, 0, 1, -0.0], f32)
    got = fma(a, b, c)
    assert np.isnan(got[0]) and np.isnan(got[1]) and got[2] == inf and got[3] == inf
    assert np.isnan(got[4]) and got[5] == 0 and not np.signbit(got[5])


def _compiled_fmaf(tmp_path_factory):
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        return None
    d = tmp_path_factory.mktemp("fmaf")
    src = d / "fmaf_loop.c"
    src.write_text("#include <math.h>\nvoid fmaf_loop(const float*a,const float*b,const float*c,"
                   "float*o,long n){for(long i=0;i<n;i++)o[i]=fmaf(a[i],b[i],c[i]);}\n")
    lib = d / "fmaf_loop.so"
    subprocess.run([cc, "-O2", "-ffp-contract=off", "-shared", "-fPIC", str(src), "-o",
                    str(lib), "-lm"], check=True)
    return ctypes.CDLL(str(lib)).fmaf_loop


def test_fma_matches_c_library_on_ten_million_triples(tmp_path_factory):
    fn = _compiled_fmaf(tmp_path_factory)
    if fn is None:
        pytest.skip("no C compiler on this machine: the C library's fmaf cannot be called")
    p = ctypes.POINTER(ctypes.c_float)
    total = 0
    for seed in range(5):
        a, b, c = adversarial(2_000_000, seed=100 + seed)
        want = np.empty_like(a)
        fn(a.ctypes.data_as(p), b.ctypes.data_as(p), c.ctypes.data_as(p),
           want.ctypes.data_as(p), ctypes.c_long(len(a)))
        got = fma(a, b, c)
        same = (got.view(np.uint32) == want.view(np.uint32)) | (np.isnan(got) & np.isnan(want))
        bad = np.flatnonzero(~same)
        assert not bad.size, f"{bad.size} mismatches, first at {bad[:1]}"
        total += len(a)
    assert total >= 10**7


def test_error_free_transformations_are_exact():
    rng = np.random.default_rng(5)
    a = (rng.standard_normal(5000) * 2.0 ** rng.integers(-20, 20, 5000)).astype(f32)
    b = (rng.standard_normal(5000) * 2.0 ** rng.integers(-20, 20, 5000)).astype(f32)
    s, e = two_sum(a, b)
    p, q = two_prod(a, b)
    for i in range(0, 5000, 7):
        fa, fb = Fraction(float(a[i])), Fraction(float(b[i]))
        assert Fraction(float(s[i])) + Fraction(float(e[i])) == fa + fb
        assert Fraction(float(p[i])) + Fraction(float(q[i])) == fa * fb
    hi, lo = dd_mul(a, np.zeros_like(a), b, np.zeros_like(b))
    assert np.array_equal(hi, p) and np.array_equal(lo, q)


def test_ldexp_and_frexp_with_subnormals():
    x = np.array([1.5, 2.0**-130, -3.0, 1.0], f32)
    m, e = frexp(x)
    assert np.array_equal(ldexp(m, e), x)
    # 1.5 * 2^-149 is a tie between 2^-149 and 2^-148: one rounding gives the even 2^-148
    assert ldexp(np.array([1.5], f32), -149)[0] == f32(2.0**-148)
    assert ldexp(np.array([1.25], f32), -149)[0] == f32(2.0**-149)


def test_horner_and_estrin_orders():
    x = np.linspace(-1, 1, 1001, dtype=f32)
    cs = [1.0, 0.5, 1 / 6, 1 / 24, 1 / 120, 1 / 720]
    exact = sum(np.float64(c) * x.astype(np.float64) ** i for i, c in enumerate(np.float32(cs)))
    for fn in (horner, estrin):
        for use_fma in (True, False):
            y = fn(x, cs, use_fma)
            assert y.dtype == f32
            assert np.max(np.abs(y - exact)) < 4e-7
    assert not np.array_equal(horner(x, cs, True), horner(x, cs, False))  # FMA changes bits


def test_guard_refuses_float64_and_transcendentals():
    x = np.linspace(-1, 1, 8, dtype=f32)
    assert run_guarded(lambda v: horner(v, [1, 2, 3]), x).dtype == f32
    assert run_guarded(lambda v: v * 2.0 + np.float32(1), x).dtype == f32
    with pytest.raises(GuardViolation, match=r"np\.exp"):
        run_guarded(np.exp, x)
    with pytest.raises(GuardViolation, match="float64"):
        run_guarded(lambda v: v * np.float64(2), x)
    with pytest.raises(GuardViolation, match="left the guarded path"):
        run_guarded(lambda v: np.asarray(v) * 2, x)


def test_guard_checks_array_functions_too():
    x = np.linspace(-1, 1, 8, dtype=f32)
    assert run_guarded(lambda v: np.where(v > 0, v, 0.5 * v), x).dtype == f32
    with pytest.raises(GuardViolation, match="where"):
        run_guarded(lambda v: np.where(v > 0, v, np.zeros(v.shape)), x)


def test_f32hex_accepts_only_float32_values():
    from ulplab.kit import f32hex

    assert f32hex("0x1.62e43p-1") == np.float32(float.fromhex("0x1.62e43p-1"))
    with pytest.raises(ValueError, match="not a float32 value"):
        f32hex("0x1.62e42fefa39efp-1")  # ln 2 in double: not a float32


def test_f32hex_builds_exact_bits_subnormals_included():
    from ulplab.kit.ops import f32hex

    cases = {"0x1p-149": 0x00000001, "-0x1p-149": 0x80000001, "0x1.fffffcp-127": 0x007FFFFF,
             "0x1p-126": 0x00800000, "0x1.fffffep+127": 0x7F7FFFFF, "-0x0p+0": 0x80000000,
             "0x1.62e43p-1": 0x3F317218}
    for literal, bits in cases.items():
        v = f32hex(literal)
        assert isinstance(v, np.float32) and int(np.array(v).view(np.uint32)) == bits, literal
    for bad in ("0x1p-150", "0x1.0000001p+0", "0x1p+128", "0x1.8p-149", "inf"):
        with pytest.raises(ValueError):
            f32hex(bad)
