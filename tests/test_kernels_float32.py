"""The correctly rounded float32 entry point: the final rounding modes of ``kernels.core``, the
exception tables, and every kernel that has a table checked against the oracle."""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kernel_checks import assert_correctly_rounded32
from ulplab.export import det_kernel, load
from ulplab.kernels import core, exceptions, registry

f32 = np.float32
DET = sorted(registry.functions())
WITH_TABLE = [f for f in DET if exceptions.table(f) is not None]


def _rn32(v: Fraction) -> int:
    """Bits of the float32 nearest-even rounding of the rational v (exact, subnormals, inf)."""
    if v == 0:
        return 0
    sign = 0x80000000 if v < 0 else 0
    a = abs(v)
    e = a.numerator.bit_length() - a.denominator.bit_length()
    while Fraction(2) ** e > a:
        e -= 1
    while Fraction(2) ** (e + 1) <= a:
        e += 1
    q = max(e, -126) - 23  # spacing 2^q
    n = a / Fraction(2) ** q
    m = n.numerator // n.denominator
    rest = n - m
    if rest > Fraction(1, 2) or (rest == Fraction(1, 2) and m % 2 == 1):
        m += 1
    value = Fraction(m) * Fraction(2) ** q
    if value >= Fraction(2) ** 128:
        return sign | 0x7F800000
    return sign | int(np.array([float(value)], f32).view(np.uint32)[0])


def _pair(hi_bits: int, lo_frac: float) -> tuple[np.ndarray, np.ndarray]:
    hi = np.array([hi_bits], np.uint32).view(f32)
    ulp = float(np.spacing(np.abs(hi[0])))
    lo = np.array([lo_frac * ulp / 2], f32)
    h, lo2 = hi + lo, lo - ((hi + lo) - hi)  # keep the pair normalized (hi = RN(hi + lo))
    return h.astype(f32), lo2.astype(f32)


@settings(max_examples=400, deadline=None)
@given(st.integers(0x3F000000, 0x3FFFFFFF), st.floats(-0.9999, 0.9999),
       st.integers(-170, 127), st.booleans())
def test_nearest_scaled_is_the_exact_rounding(hb: int, frac: float, m: int, neg: bool) -> None:
    hi, lo = _pair(hb, frac)
    if neg:
        hi, lo = -hi, -lo
    with core.rounding("nearest"):
        got = int(core.round_result_scaled(hi, lo, np.array([m], np.int32)).view(np.uint32)[0])
    exact = (Fraction(float(hi[0])) + Fraction(float(lo[0]))) * Fraction(2) ** m
    assert got == _rn32(exact), (hex(hb), frac, m)


@settings(max_examples=300, deadline=None)
@given(st.integers(0x3F000000, 0x3FFFFFFF), st.floats(-0.9999, 0.9999), st.integers(-170, 60))
def test_flag_marks_every_input_near_a_midpoint(hb: int, frac: float, m: int) -> None:
    """A pair within the bound of a midpoint is flagged; a flagged result is the flag NaN, and
    an unflagged one is the nearest rounding of every value within the bound."""
    bound = 2.0**-40
    hi, lo = _pair(hb, frac)
    mm = np.array([m], np.int32)
    with core.rounding("flag", bound):
        got = int(core.round_result_scaled(hi, lo, mm).view(np.uint32)[0])
    if got & 0x7FFFFFFF == int(core.FLAG_NAN):
        return
    exact = Fraction(float(hi[0])) + Fraction(float(lo[0]))
    width = abs(exact) * Fraction(bound)
    for v in (exact - width, exact + width):
        assert _rn32(v * Fraction(2) ** m) == got, (hex(hb), frac, m)


def test_flag_catches_a_midpoint() -> None:
    one = np.array([1.0], f32)
    half_ulp = np.array([2.0**-24], f32)
    with core.rounding("flag", 2.0**-40):
        assert core.round_result(one, half_ulp).view(np.uint32)[0] == core.FLAG_NAN
        assert core.round_result(one, half_ulp / 4).view(np.uint32)[0] == 0x3F800000
        # below a power of two the midpoint is a quarter ulp away
        assert core.round_result(one, -half_ulp / 2).view(np.uint32)[0] == core.FLAG_NAN


def test_rounding_modes_are_checked() -> None:
    with pytest.raises(ValueError, match="unknown rounding mode"), core.rounding("up"):
        pass
    with pytest.raises(ValueError, match="error bound"), core.rounding("flag", 0.0):
        pass
    assert core.current_rounding() == "odd"


def test_cuckoo_holds_every_key_and_nothing_else() -> None:
    rng = np.random.default_rng(1)
    keys = np.unique(rng.integers(0, 2**31, 3000, dtype=np.uint64).astype(np.uint32))
    values = (keys ^ np.uint32(0x5A5A5A5A)).astype(np.uint32)
    a1, a2, shift, sk, sv = exceptions.build_cuckoo(keys, values)
    for probe, expect in ((keys, values), (keys + np.uint32(1), None)):
        i1 = ((probe * np.uint32(a1)) >> np.uint32(shift)).astype(np.int64)
        i2 = ((probe * np.uint32(a2)) >> np.uint32(shift)).astype(np.int64)
        hit1, hit2 = sk[i1] == probe, sk[i2] == probe
        if expect is None:
            stray = np.isin(probe, keys)
            assert not np.any((hit1 | hit2) & ~stray)
        else:
            assert np.all(hit1 | hit2)
            assert np.array_equal(np.where(hit1, sv[i1], sv[i2]), expect)


def test_every_det_kernel_has_its_table() -> None:
    """The float32 entry point exists for every det kernel (a new kernel needs its scan)."""
    assert WITH_TABLE == DET, [f"python -m ulplab.analysis.cr_scan {f}" for f in DET
                               if f not in WITH_TABLE]


@pytest.mark.parametrize("func", WITH_TABLE)
def test_table_is_for_this_kernel(func: str) -> None:
    """A kernel changed after its scan has a stale table: rerun the scan."""
    from ulplab.analysis.cr_scan import nearest_hash

    t = exceptions.table(func)
    assert t is not None and t.kernel_hash == nearest_hash(func), (
        f"rerun: python -m ulplab.analysis.cr_scan {func}")


@pytest.mark.parametrize("func", WITH_TABLE)
def test_correctly_rounded_on_random_and_exceptional_inputs(func: str) -> None:
    """10^6 random bit patterns (the compiled entry point) and every exception input with its
    two neighbours (where the table must not apply), against the oracle."""
    rng = np.random.default_rng(2026)
    t = exceptions.table(func)
    assert t is not None
    assert_correctly_rounded32(func, rng.integers(0, 2**32, 10**6, dtype=np.uint64), True)
    assert_correctly_rounded32(func, np.concatenate([t.keys, t.keys + np.uint32(1),
                                                     t.keys - np.uint32(1)]))


@pytest.mark.parametrize("func", WITH_TABLE)
def test_every_table_entry_is_needed_and_applied(func: str) -> None:
    """Each entry is an input the nearest kernel alone gets wrong (the table holds nothing
    else), and the NumPy entry point returns the table's value there."""
    t = exceptions.table(func)
    assert t is not None
    x = t.keys.view(f32)
    with np.errstate(all="ignore"):
        with core.rounding("nearest"):
            plain = det_kernel(func, "odd")(x).view(np.uint32)
        entry = det_kernel(func, "float32")(x).view(np.uint32)
    assert not np.any(plain == t.values)
    assert np.array_equal(entry, t.values)


@pytest.mark.parametrize("func", WITH_TABLE)
def test_float32_entry_has_the_same_bits_everywhere(func: str) -> None:
    rng = np.random.default_rng(7)
    x = rng.integers(0, 2**32, 20_000, dtype=np.uint64).astype(np.uint32).view(f32)
    with np.errstate(all="ignore"):
        ref = det_kernel(func, "float32")(x).view(np.uint32)
        for backend in ("numpy", "torch", "jax", "c"):
            if backend in ("torch", "jax"):
                pytest.importorskip(backend)
            got = load(func, backend, "float32")(x).view(np.uint32)
            assert np.array_equal(got, ref), backend


@pytest.mark.parametrize("func", WITH_TABLE[:2])
def test_det_api_float32_rounding_on_every_framework(func: str) -> None:
    from ulplab import det

    x = np.linspace(-20, 20, 1001, dtype=f32)
    want = det_kernel(func, "float32")(x).view(np.uint32)
    assert np.array_equal(det.apply(func, x, "float32").view(np.uint32), want)
    torch = pytest.importorskip("torch")
    got = det.apply(func, torch.from_numpy(x.copy()), "float32")
    assert got.dtype == torch.float32 and np.array_equal(got.numpy().view(np.uint32), want)
    jnp = pytest.importorskip("jax.numpy")
    got = det.apply(func, jnp.asarray(x), "float32")
    assert np.array_equal(np.asarray(got).view(np.uint32), want)


@pytest.mark.parametrize("func", WITH_TABLE)
def test_fast_mode_flags_every_exception_and_agrees_elsewhere(func: str) -> None:
    """The compiled runner's first pass (the ``fast`` mode) must flag every input of the table
    (the runner fixes only flagged results), and give the nearest kernel's bits wherever it
    does not flag: on the table's inputs and their neighbours, 2^16 random patterns, and
    subnormal and huge inputs."""
    from ulplab.kernels import registry

    t = exceptions.table(func)
    assert t is not None
    bound = registry.get(func).entry()["bound"]
    rng = np.random.default_rng(11)
    x = np.concatenate([t.keys, t.keys + np.uint32(1), t.keys - np.uint32(1),
                        rng.integers(0, 2**32, 1 << 16, dtype=np.uint64).astype(np.uint32),
                        np.arange(0, 1 << 12, dtype=np.uint32) * np.uint32(0x100000),
                        np.uint32(0x80000000) + np.arange(1, 300, dtype=np.uint32)]).view(f32)
    kern = det_kernel(func, "odd")
    with np.errstate(all="ignore"):
        with core.rounding("fast", bound):
            fast = kern(x).view(np.uint32)
        with core.rounding("nearest"):
            plain = kern(x).view(np.uint32)
    flagged = (fast & np.uint32(0x7FFFFFFF)) == core.FLAG_NAN
    assert flagged[: t.keys.size].all()
    assert np.array_equal(fast[~flagged], plain[~flagged])
    # on ordinary inputs the first pass decides almost everything (random bit patterns are
    # half huge ones, whose tiny results some kernels' first pass leaves to the second)
    ordinary = rng.uniform(-10, 10, 1 << 16).astype(f32)
    with np.errstate(all="ignore"), core.rounding("fast", bound):
        share = ((kern(ordinary).view(np.uint32) & np.uint32(0x7FFFFFFF)) == core.FLAG_NAN)
    assert share.mean() < 0.005


def test_fast_mode_flags_subnormal_results() -> None:
    hi = np.array([1.0, 1.5, 1.0], f32)
    lo = np.zeros(3, f32)
    m = np.array([-126, -127, -149], np.int32)
    with core.rounding("fast", 2.0**-40):
        got = core.round_result_scaled(hi, lo, m).view(np.uint32)
    assert got[0] == 0x00800000 and (got[1:] == core.FLAG_NAN).all()


@settings(max_examples=500, deadline=None)
@given(st.integers(0, 0x7F7FFFFF), st.floats(-1.0, 1.0), st.booleans(),
       st.sampled_from([2.0**-37, 2.0**-41, 2.0**-44]))
def test_fast_undecided_covers_the_flag_test(hb: int, frac: float, neg: bool,
                                             bound: float) -> None:
    """The fast mode's shorter rounding test marks every pair the flag mode marks (it may mark
    more: the runner recomputes those), with lo at any fraction of hi's half ulp, midpoints
    and powers of two included."""
    hi = np.array([hb], np.uint32).view(f32)
    with np.errstate(all="ignore"):
        ulp = float(np.spacing(np.abs(hi[0])))
        lo = np.array([frac * ulp / 2], f32)
        if neg:
            hi, lo = -hi, -lo
        assert core._undecided_fast(hi, lo, bound)[0] or not core._undecided(hi, lo, bound)[0]
