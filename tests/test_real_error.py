"""The error against the real value (issue 19 item 6): ``ulp.real_ulp_error`` against an exact
calculation with Fractions and its defining properties, ``oracle.real``'s values against the
correctly rounded tables, Arb and mpmath, and the figures in ``analyze``."""

import json
import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import ulplab
from ulplab.cli.main import main
from ulplab.formats import (
    FORMATS,
    ROUNDING_MODES,
    Kind,
    all_patterns,
    classify,
    get_format,
    is_nan,
    round_to_format,
    to_values,
)
from ulplab.oracle.real import (
    GRID_BITS,
    REAL_RELATIVE_ERROR,
    accuracy_ulps,
    real_value_arb,
    real_values,
    real_values_at,
)
from ulplab.oracle.table import oracle_table
from ulplab.ulp import overflow_value, real_ulp_error, ulp_at

BF16, F32 = get_format("bfloat16"), get_format("float32")
FORMAT_NAMES = list(FORMATS)


# ---------------------------------------------------------------- an exact second calculator
def _binade(q: Fraction) -> int:
    """floor(log2 |q|) by counting, for q != 0."""
    e = 0
    q = abs(q)
    while q >= 2:
        q /= 2
        e += 1
    while q < 1:
        q *= 2
        e -= 1
    return e


def _ulp(r: Fraction, fmt) -> Fraction:
    e = fmt.emin if r == 0 else min(max(_binade(r), fmt.emin), fmt.emax)
    return Fraction(2) ** (e - fmt.precision + 1)


def exact_error(got_bits: int, real: float, fmt) -> float:
    """The definition of ``real_ulp_error``'s docstring, in Fractions."""
    g = float(to_values(np.array([got_bits]), fmt)[0])
    kind = int(classify(np.array([got_bits]), fmt)[0])
    if math.isnan(real):
        return 0.0 if kind == Kind.NAN else math.inf
    top = Fraction(fmt.max_value)
    overflow_result = kind == Kind.INF or (kind == Kind.NAN and fmt.overflow == "nan")
    if overflow_result:
        same_sign = kind == Kind.NAN or math.copysign(1, g) == math.copysign(1, real)
        if not same_sign or (not math.isinf(real) and abs(Fraction(real)) <= top):
            return math.inf
        if math.isinf(real):
            return 0.0
        ov = top + _ulp(top, fmt)
        return float(max(Fraction(0), ov - abs(Fraction(real))) / _ulp(top, fmt))
    if kind == Kind.NAN or math.isinf(real):
        return math.inf
    r = Fraction(real)
    return float(abs(Fraction(g) - r) / _ulp(r, fmt))


def _close(a: float, b: float) -> bool:
    return a == b or abs(a - b) <= 2.0**-45 * max(abs(a), abs(b))


interesting_reals = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.floats(min_value=-500.0, max_value=500.0),
    st.floats(min_value=-1e-38, max_value=1e-38),
    st.builds(lambda e, s: math.ldexp(1.0, e) * (1 + s * 2.0**-30), st.integers(-160, 130),
              st.sampled_from([-1, 0, 1])),  # powers of two and their neighbours
)


@settings(max_examples=600, deadline=None)
@given(st.sampled_from(FORMAT_NAMES), st.integers(0, 2**32 - 1), interesting_reals)
@example("bfloat16", 0x3F80, 1.0 + 2.0**-9)  # a quarter ULP above 1
@example("bfloat16", 0x7F80, 3.3961776e38)  # +inf against a value just above bfloat16's max
@example("float8_e4m3fn", 0x7F, 470.0)  # e4m3fn's NaN is its overflow: (480 - 470) / 32
@example("float6_e2m3fn", 0x1F, 1000.0)  # saturated at 7.5: measured as the value it is
def test_calculator_matches_the_exact_definition(name, pattern, real):
    fmt = get_format(name)
    bits = pattern % fmt.n_patterns
    got = real_ulp_error(np.array([bits], dtype=fmt.uint), np.array([real]), fmt)[0]
    assert _close(float(got), exact_error(bits, real, fmt)), (name, hex(bits), real, got)


@pytest.mark.parametrize(("name", "bits", "real", "error"), [
    ("bfloat16", 0x3F80, 1.0 + 2.0**-9, 0.25),
    ("bfloat16", 0x3F80, 1.0 - 2.0**-10, 0.25),  # below 1 the ULP is half as large
    ("bfloat16", 0x3F7F, 1.0 - 2.0**-10, 0.75),  # 1 - 2^-8 is one ULP below 1
    ("bfloat16", 0x7F80, 2.0**128, 0.0),  # +inf at the overflow value itself
    ("bfloat16", 0x7F80, float.fromhex("0x1.fep127"), math.inf),  # +inf for the largest
    ("bfloat16", 0xFF80, 2.0**128, math.inf),  # -inf for a positive value
    ("bfloat16", 0x7FC0, 1.0, math.inf),  # NaN for a number
    ("bfloat16", 0x7FC0, math.nan, 0.0),
    ("bfloat16", 0x3F80, math.nan, math.inf),
    ("bfloat16", 0x3F80, math.inf, math.inf),
    ("bfloat16", 0x8000, 0.0, 0.0),  # -0 against 0: no size
    ("bfloat16", 0x0000, 2.0**-130, 8.0),  # the subnormal quantum 2^-133
    ("float8_e4m3fn", 0x7F, 470.0, 0.3125),  # NaN is the overflow result: (480 - 470) / 32
    ("float8_e4m3fn", 0x7F, 400.0, math.inf),  # ... not for a value the format holds
])
def test_known_errors(name, bits, real, error):
    fmt = get_format(name)
    got = real_ulp_error(np.array([bits], dtype=fmt.uint), np.array([real]), fmt)[0]
    assert got == error


def test_flush_to_zero_counts_in_the_step_to_the_smallest_normal():
    zero, real = np.array([0], np.uint16), np.array([2.0**-130])
    assert real_ulp_error(zero, real, BF16)[0] == 8.0  # 2^-130 / 2^-133
    assert real_ulp_error(zero, real, BF16, ftz=True)[0] == 2.0**-4  # 2^-130 / 2^-126
    assert ulp_at(np.array([0.0, 2.0**-127]), BF16, ftz=True).tolist() == [2.0**-126] * 2


def test_ulp_at_powers_of_two_and_beyond_the_range():
    assert ulp_at(np.array([1.0, np.nextafter(1.0, 0.0), 2.0**127, 2.0**200, np.inf]),
                  BF16).tolist() == [2.0**-7, 2.0**-8, 2.0**120, 2.0**120, 2.0**120]
    assert overflow_value(BF16) == 2.0**128 and overflow_value(F32) == 2.0**128
    assert overflow_value(get_format("float8_e4m3fn")) == 480.0


# ---------------------------------------------------------------- the defining properties
# formats whose values are signed with a zero and an IEEE-like range (the sum property needs
# both neighbours of every real value in range)
SIGNED = [n for n, f in FORMATS.items() if f.signed and f.has_zero]


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(SIGNED), st.floats(min_value=-1.0, max_value=1.0), st.integers(-30, 30))
@example("bfloat16", 1.2341887091245662e-193, 0)  # rounded up to 2^-133: 1 - 2^-507, not 1.0
def test_rounding_to_nearest_is_at_most_half_and_the_neighbours_sum_to_one(name, m, e):
    fmt = get_format(name)
    real = math.ldexp(m, e)
    if not abs(real) < fmt.max_value:
        return
    r = np.array([real])
    err = {mode: real_ulp_error(round_to_format(r, fmt, mode), r, fmt)[0]
           for mode in ROUNDING_MODES}
    assert err["nearest-even"] <= 0.5
    assert err["down"] < 1 and err["up"] < 1  # directed rounding is faithful
    exact = (round_to_format(r, fmt, "down") == round_to_format(r, fmt, "up"))[0]
    if exact:
        assert err["down"] == err["up"] == 0
    else:  # the two neighbours of a real value are one ULP (of its binade) apart
        assert err["down"] + err["up"] == pytest.approx(1.0, abs=2.0**-40)


def test_one_ulp_off_everywhere_is_between_half_and_five_halves():
    """A correctly rounded table moved one value away from zero: every error in (0.5, 1.5],
    except where f(x) lies just below a power of two 2^k and rounded up to it: the next value,
    2^k + 2 ULP of f's binade, is then up to 2.5 ULP away."""
    real = real_values("tanh", BF16)
    table = oracle_table("tanh", BF16, progress=False).astype(np.int64)
    x = to_values(all_patterns(BF16), BF16)
    keep = np.isfinite(x) & (np.abs(x) > 2.0**-100) & (np.abs(x) < 4)  # tanh not saturated
    moved = np.where(table & 0x8000, table - 1, table + 1).astype(np.uint16)  # away from 0
    err = real_ulp_error(moved, real, BF16)[keep]
    assert np.all((err > 0.5) & (err <= 2.5)), (err.min(), err.max())
    beyond = err > 1.5
    assert beyond.any()
    rounded_to_power = to_values(table.astype(np.uint16), BF16)[keep][beyond]
    assert np.all(np.log2(np.abs(rounded_to_power)) % 1 == 0)


# ---------------------------------------------------------------- the real values
@pytest.mark.parametrize("name", ["bfloat16", "float8_e4m3fn", "float8_e5m2fnuz",
                                  "float6_e2m3fn"])
@pytest.mark.parametrize("func", ["gelu", "exp", "log", "tanh", "erf", "sin"])
def test_real_values_round_to_the_oracle_in_every_mode(name, func):
    """Rounded to the format in each mode, the stored values give the correctly rounded table:
    rounding to odd on 40 bits keeps every decision of a narrower rounding (exp beyond float64,
    stored as inf, aside: rounded toward zero, inf is not the largest finite value)."""
    fmt = get_format(name)
    v = real_values(func, fmt)
    for mode in ROUNDING_MODES:
        table = oracle_table(func, fmt, mode, progress=False)
        r = round_to_format(v, fmt, mode)
        same = (r == table) | (is_nan(r, fmt) & is_nan(table, fmt)) | np.isinf(v)
        assert same.all(), (mode, np.flatnonzero(~same)[:5])


SAMPLE = np.random.default_rng(19).integers(0, 2**32, 400, dtype=np.uint64).astype(np.uint32)


@pytest.mark.parametrize("func", ["exp", "gelu", "tanh", "log", "sigmoid", "erf", "sin"])
def test_fast_path_equals_arb_on_float32_samples(func):
    x = SAMPLE.view(np.float32).astype(np.float64)
    v = real_values_at(func, x)
    arb_v = np.array([real_value_arb(func, float(t)) for t in x])
    same = (v == arb_v) | (np.isnan(v) & np.isnan(arb_v))
    assert same.all(), x[~same][:5]


MPMATH = {
    "exp": mpmath.exp, "log": mpmath.log, "tanh": mpmath.tanh, "erf": mpmath.erf,
    "sin": mpmath.sin, "sigmoid": lambda t: 1 / (1 + mpmath.exp(-t)),
    "gelu": lambda t: t / 2 * mpmath.erfc(-t / mpmath.sqrt(2)),
}


@pytest.mark.parametrize("func", list(MPMATH))
def test_accuracy_and_binade_against_mpmath(func):
    """|v - f(x)| < 2^-39 |f(x)| and v in the binade of f(x), f computed by mpmath at 80 digits
    (inputs where f(x) is inside 2^-190 .. float64's largest value)."""
    x = SAMPLE.view(np.float32).astype(np.float64)
    x = x[np.isfinite(x) & (np.abs(x) < 1e6)]
    v = real_values_at(func, x)
    checked = 0
    with mpmath.workdps(80):
        for t, got in zip(x.tolist(), v.tolist(), strict=True):
            if func == "log" and t <= 0:
                continue
            f = MPMATH[func](mpmath.mpf(t))
            if f == 0 or not (2.0**-190 < abs(f) < 1e300) or abs(abs(f) - 1) < 1e-60:
                continue  # (80 digits cannot place tanh(10005) = 1 - 2e-8690 below 1)
            assert abs(mpmath.mpf(got) - f) < REAL_RELATIVE_ERROR * abs(f), (t, got)
            assert math.frexp(got)[1] == int(mpmath.floor(mpmath.log(abs(f), 2))) + 1, (t, got)
            checked += 1
    assert checked > 100


def test_values_are_odd_on_the_grid_or_exact():
    v = real_values("exp", BF16)
    ok = np.isfinite(v) & (np.abs(v) > 2.0**-190)
    m, _ = np.frexp(np.abs(v[ok]))
    k = np.ldexp(m, GRID_BITS).astype(np.int64)  # the 40-bit significand
    exact = k % 2 == 0  # only exact cases may be even: exp(+0) = exp(-0) = 1 here
    assert np.array_equal(v[ok][exact], [1.0, 1.0])


def test_daz_reads_a_subnormal_input_as_its_zero():
    ieee, daz = real_values("exp", BF16), real_values("exp", BF16, "daz")
    sub = classify(all_patterns(BF16), BF16) == Kind.SUBNORMAL
    assert np.all(daz[sub] == 1.0) and not np.all(ieee[sub] == 1.0)
    assert np.array_equal(daz[~sub], ieee[~sub], equal_nan=True)


def test_real_values_are_cached(tmp_path, monkeypatch):
    monkeypatch.setenv("ULPLAB_CACHE_DIR", str(tmp_path))
    first = real_values("silu", "float8_e5m2")
    assert len(list(tmp_path.glob(f"real{GRID_BITS}-silu-float8_e5m2-*.ulpc"))) == 1
    assert np.array_equal(real_values("silu", "float8_e5m2"), first, equal_nan=True)


def test_accuracy_figures():
    assert accuracy_ulps("bfloat16") == 2.0**-31 and accuracy_ulps("float32") == 2.0**-15
    assert accuracy_ulps("float16") == 2.0**-28


# ---------------------------------------------------------------- in analyze and the Report
def test_report_carries_the_error_per_input():
    r = ulplab.analyze("f32-naive", "exp", "bfloat16")
    expected = real_ulp_error(r.got_bits, real_values("exp", BF16), BF16)
    assert np.array_equal(r.error, expected)
    assert r.max_error == expected.max() and r.errors_ge_1 == int((expected >= 1).sum())
    assert r.errors_gt_half == int((expected > 0.5).sum())
    assert r.stats["worst_error"][0]["error"] == r.max_error
    assert "against the real value: max" in str(r)
    seed = ulplab.analyze("B3 Pure", "gelu", "bfloat16", metric="seed")
    assert seed.max_error is None and seed.error is None and "max_error" not in seed.stats


def test_float32_sample_gets_real_values_too():
    r = ulplab.analyze("det", "exp", "float32")
    assert r.max_ulp == 0 and r.max_error <= 0.5 and r.errors_gt_half == 0


def test_analyze_shows_the_error_beside_max_ulp(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    out = tmp_path / "a.json"
    csv = tmp_path / "a.csv"
    assert main(["analyze", "exp", "--format", "bfloat16", "--method", "det,f32-naive",
                 "--quiet", "--json", str(out), "--csv", str(csv)]) == 0
    text = capsys.readouterr().out
    assert max(len(line) for line in text.splitlines()) <= 80
    assert "Error against the real exp(x)" in text
    data = json.loads(out.read_text())
    by_name = {m["method"]: m for m in data["methods"]}
    assert by_name["det"]["max_error"] <= 0.5 and by_name["det"]["errors_gt_half"] == 0
    naive = by_name["f32-naive"]
    r = ulplab.analyze("f32-naive", "exp", "bfloat16")
    assert (naive["max_error"], naive["errors_ge_1"], naive["errors_gt_half"]) == (
        r.max_error, r.errors_ge_1, r.errors_gt_half)
    row = next(line for line in text.splitlines()
               if line.split()[:2] == ["f32-naive", str(naive["max_ulp"])])
    assert row.split()[3:5] == [f"{naive['errors_ge_1']:,}", f"{naive['errors_gt_half']:,}"]
    head = csv.read_text().splitlines()[0].split(",")
    assert head[-3:] == ["max_error", "errors_ge_1", "errors_gt_half"]


@pytest.mark.parametrize(("func", "fmt_name"), [("gelu", "bfloat16"), ("exp", "float16"),
                                                ("gelu", "float8_e4m3fn")])
def test_above_half_exactly_where_the_result_is_not_correctly_rounded(func, fmt_name):
    """Two truths agree: on every finite input of every registered method, the error against
    the real value exceeds 0.5 ULP exactly where the result differs from the correctly
    rounded one (every other value of the format is more than half an ULP of f(x) away). No
    tie: f(x) is never a midpoint here."""
    from ulplab.api import measure
    from ulplab.methods import methods_for

    fmt = get_format(fmt_name)
    methods = methods_for(func)
    with np.errstate(all="ignore"):  # a method's own NaN/overflow casts are not the subject
        reports = measure(methods, func, fmt, rounding="nearest-even", denormals="ieee",
                          inputs=None)
    real = real_values(func, fmt)
    inside = np.abs(real) <= fmt.max_value  # NaN and the overflow range left out
    checked = 0
    for r in reports:
        finite = (r.ulp >= 0) & inside
        assert np.array_equal(r.error[finite] > 0.5, r.ulp[finite] >= 1), r.method
        checked += int((r.ulp[finite] >= 1).sum())
    assert checked > 0
