"""The pytest plugin, run inside pytester: assert_max_ulp's failure message, the ulp_oracle
fixture and its options, the over_formats parametrization."""

import importlib.metadata
import tomllib
from pathlib import Path

import numpy as np
import pytest

import ulplab
from ulplab.testing import UlpAssertionError, assert_max_ulp, over_formats

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[1]


def _plugin_args() -> list[str]:
    """-p loads the plugin where the installed metadata predates its entry point. The inner run
    is a subprocess (an in-process run drops the modules it imported: a C extension imported
    again afterwards, or a worker pool's pickled function, breaks the tests that follow) of
    plain pytest (no xdist, and no pytest-benchmark, which refuses to run beside xdist where a
    machine happens to have it)."""
    names = {ep.name for ep in importlib.metadata.entry_points(group="pytest11")}
    plain = ["-p", "no:xdist", "-p", "no:benchmark"]
    return plain if "ulplab" in names else [*plain, "-p", "ulplab.testing.plugin"]


def test_entry_point_declared():
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert meta["project"]["entry-points"]["pytest11"] == {"ulplab": "ulplab.testing.plugin"}


SLOPPY_GELU = '''
import numpy as np
from ulplab.testing import assert_max_ulp, over_formats

def tanh_gelu(x):  # the tanh form in float32: flushes the negative tail, NaN at -inf
    c = np.float32(0.7978846)
    return x * np.float32(0.5) * (1 + np.tanh(c * (x + np.float32(0.044715) * x**3)))

def test_sloppy():
    assert_max_ulp(tanh_gelu, "gelu", "bfloat16", max_ulp=1)

@over_formats("float8_e4m3fn", "float8_e5m2")
def test_tanh_exact(fmt):
    assert_max_ulp(np.tanh, "tanh", fmt, max_ulp=0)
'''


def test_failure_message_and_parametrization(pytester):
    pytester.makepyfile(test_kernel=SLOPPY_GELU)
    res = pytester.runpytest_subprocess(*_plugin_args(), "-v")
    res.assert_outcomes(passed=2, failed=1)
    res.stdout.fnmatch_lines([
        "*UlpAssertionError: tanh_gelu: gelu on exhaustive bfloat16 inputs (oracle nearest-even,"
        " denormals ieee): max 13342 ULP > max_ulp=1; 1 NaN and 0 inf disagreements",
        "*65536 inputs, 65280 finite results: max 13342 ULP*NaN disagreements 1, inf "
        "disagreements 0",
        "*worst inputs:",
        "*-5.4375 0xc0ae*-0x1.5cp+2*-1.47149e-07 (0xb41e)*-0 (0x8000)*13342",
        "*NaN/inf disagreements:",
        "*x = -inf (0xff80): oracle 0x8000, got 0x7fc0",
    ])
    res.stdout.fnmatch_lines(["*test_tanh_exact?float8_e4m3fn? PASSED*",
                              "*test_tanh_exact?float8_e5m2? PASSED*"])


def test_fixture_and_options(pytester):
    pytester.makepyfile(test_fixture='''
import numpy as np

def test_oracle(ulp_oracle):
    assert (ulp_oracle.rounding, ulp_oracle.denormals) == ("toward-zero", "ftz")
    t = ulp_oracle.table("exp", "bfloat16")
    assert float(t[0x3F80]) == 2.703125  # e toward zero in bfloat16
    ulp_oracle.assert_max_ulp(lambda x: ulp_oracle.table("exp", "bfloat16")[x.view(np.uint16)],
                              "exp", "bfloat16", max_ulp=0)
''')
    res = pytester.runpytest_subprocess(*_plugin_args(), "-q", "--ulplab-rounding", "toward-zero",
                             "--ulplab-denormals", "ftz")
    res.assert_outcomes(passed=1)


def test_bad_option_is_an_error(pytester):
    pytester.makepyfile(test_bad="def test_x(ulp_oracle):\n    pass\n")
    res = pytester.runpytest_subprocess(*_plugin_args(), "-q", "--ulplab-rounding", "sideways")
    res.assert_outcomes(errors=1)
    res.stdout.fnmatch_lines(["*unknown rounding mode 'sideways'*"])


def test_mean_bound_and_report_returned():
    rep = assert_max_ulp(np.tanh, "tanh", "float8_e5m2", max_ulp=0, max_mean_ulp=0.0)
    assert rep.max_ulp == 0
    with pytest.raises(UlpAssertionError) as info:
        assert_max_ulp("E9 Remez BF16 (improved)", "gelu", "bfloat16", max_ulp=11, max_mean_ulp=1.0)
    message = str(info.value)
    assert info.value.report.max_ulp == 11  # measured: E9's max on bfloat16; within the bound
    assert "mean " in message.splitlines()[0] and "max_mean_ulp=1.0" in message
    assert "max_ulp=" not in message and "disagreements" not in message.splitlines()[0]


def _exp_off_by(ulps):
    """exp on bfloat16, correctly rounded (the oracle's table) except on x in [1, 2), where the
    result is moved ``ulps`` patterns up: e^x in [2.7, 7.4] stays finite, so it is ``ulps`` ULP
    off there and exact elsewhere. ``exp_off.calls``: the sizes it was called on."""
    calls = []

    def exp_off(x):
        calls.append(x.size)
        out = ulplab.oracle("exp", "bfloat16").view(np.uint16)[x.view(np.uint16)]
        v = x.astype(np.float32)
        out[(v >= 1) & (v < 2)] += np.uint16(ulps)
        return out.view(x.dtype)

    exp_off.calls = calls
    return exp_off


def test_a_kernel_86_ulp_off_fails_at_85_and_passes_at_86():
    kernel = _exp_off_by(86)
    with pytest.raises(UlpAssertionError, match="max 86 ULP > max_ulp=85") as info:
        assert_max_ulp(kernel, "exp", "bfloat16", max_ulp=85)
    assert info.value.report.max_ulp == 86 and 1 <= info.value.report.worst[0].x < 2
    with pytest.raises(UlpAssertionError, match=r"max_ulp=85\.9"):
        assert_max_ulp(kernel, "exp", "bfloat16", max_ulp=85.9)  # whole ULPs: 85.9 allows 85
    for bound in (86, 86.0, np.int64(86), np.float32(86.5), 1e300, float("inf")):
        assert assert_max_ulp(kernel, "exp", "bfloat16", max_ulp=bound).max_ulp == 86
    # the 128 inputs of [1, 2) are 86 ULP off, the rest exact: the mean over the 49,715 finite
    # results (measured) is 86 * 128 / 49715 = 0.22142
    rep = assert_max_ulp(kernel, "exp", "bfloat16", max_ulp=86, max_mean_ulp=0.2215)
    assert rep.count == 49715 and rep.mean_ulp == pytest.approx(86 * 128 / 49715)
    with pytest.raises(UlpAssertionError, match=r"max_mean_ulp=0\.2214"):
        assert_max_ulp(kernel, "exp", "bfloat16", max_ulp=86, max_mean_ulp=0.2214)


NAN, INF = float("nan"), float("inf")
ODD_ARGUMENTS = [  # (argument, value, error): every one refused before the kernel runs
    *[("max_ulp", v, ValueError) for v in (NAN, -1, -0.5, -INF, np.float64(NAN))],
    *[("max_ulp", v, TypeError) for v in (None, "1", True, False, [1], 1j)],
    *[("max_mean_ulp", v, ValueError) for v in (NAN, -1, -1e-9, -INF)],
    *[("max_mean_ulp", v, TypeError) for v in ("0.5", True, [0.5])],
    *[("max_error", v, ValueError) for v in (NAN, -1, -0.01, -INF, np.float64(NAN))],
    *[("max_error", v, TypeError) for v in ("0.99", True, False, [0.99], 1j)],
    *[("show", v, ValueError) for v in (-1, np.int64(-3))],
    *[("show", v, TypeError) for v in (NAN, INF, 1e300, 2.0, None, "8", True)],
    *[("rounding", v, ValueError) for v in ("up-ish", "", "NEAREST-EVEN")],
    *[("rounding", v, TypeError) for v in (None, 1, True)],
    *[("denormals", v, ValueError) for v in ("flush", "")],
    *[("denormals", v, TypeError) for v in (None, 0, True)],
    *[("format", v, ValueError) for v in ("bfloat17", "")],
    *[("format", v, TypeError) for v in (None, 16, np.float16)],
    *[("function", v, ValueError) for v in ("expp", "")],
    *[("function", v, TypeError) for v in (None, np.exp)],
    *[("takes", v, ValueError) for v in ("fp32", "")],
    *[("takes", v, TypeError) for v in (32, True)],
    *[("inputs", v, ValueError) for v in ([], [0.1], [1e300], np.array([1e300]))],
    *[("inputs", v, TypeError) for v in ([True], ["1"], [None], "1")],
]


@pytest.mark.parametrize(("argument", "value", "error"), ODD_ARGUMENTS,
                         ids=[f"{a}={v!r}" for a, v, _ in ODD_ARGUMENTS])
def test_odd_arguments_are_refused_up_front(argument, value, error):
    kernel = _exp_off_by(86)
    args = {"impl": kernel, "function": "exp", "format": "bfloat16", "max_ulp": 1,
            argument: value}
    with pytest.raises(error, match=rf"\b{argument}\b") as info:
        assert_max_ulp(**args)
    if error is ValueError:  # a bad value is not reported as a bad type
        assert not isinstance(info.value, TypeError)
    assert "\n" not in str(info.value) and kernel.calls == []


def test_over_formats_refuses_odd_names():
    with pytest.raises(ValueError, match="unknown format 'bfloat17'"):
        over_formats("bfloat16", "bfloat17")
    with pytest.raises(TypeError, match="format must be a string"):
        over_formats(None)
    with pytest.raises(TypeError, match="argname must be a string"):
        over_formats("bfloat16", argname=3)
    with pytest.raises(ValueError, match="argname must be a Python identifier"):
        over_formats("bfloat16", argname="my fmt")


def test_max_error_bounds_the_error_against_the_real_value():
    """np.exp in float32 rounded to bfloat16 is within 1 ULP of the correctly rounded result
    everywhere, and faithful against the real value, but not correctly rounded: at x = 6.84375
    (0x40db) e^x = 938.0000478..., halfway between 936 and 940 plus 0.000012 ULP, and the
    float32 result rounds down to 936 (measured: max error 0.500012 ULP, one input > 0.5)."""
    rep = assert_max_ulp(np.exp, "exp", "bfloat16", max_ulp=1, max_error=0.99)
    assert 0.5 < rep.max_error < 0.50002 and rep.errors_gt_half == 1 and rep.errors_ge_1 == 0
    with pytest.raises(UlpAssertionError, match=r"max_error=0\.5 \(1 inputs above\)") as info:
        assert_max_ulp(np.exp, "exp", "bfloat16", max_ulp=1, max_error=0.5)
    message = str(info.value)
    assert "x = 6.84 (0x40db): real 938.0000478" in message
    assert "max 1 ULP > max_ulp" not in message  # only the bound that broke is listed
    assert info.value.report.max_error == rep.max_error

