"""The pytest plugin, run inside pytester: assert_max_ulp's failure message, the ulp_oracle
fixture and its options, the over_formats parametrization."""

import importlib.metadata
import tomllib
from pathlib import Path

import numpy as np
import pytest

from ulplab.testing import UlpAssertionError, assert_max_ulp

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[1]


def _plugin_args() -> list[str]:
    """-p loads the plugin where the installed metadata predates its entry point; the inner
    run is plain pytest (no xdist, and no pytest-benchmark, which refuses to run beside xdist
    where a machine happens to have it)."""
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
    res = pytester.runpytest(*_plugin_args(), "-v")
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
    res = pytester.runpytest(*_plugin_args(), "-q", "--ulplab-rounding", "toward-zero",
                             "--ulplab-denormals", "ftz")
    res.assert_outcomes(passed=1)


def test_bad_option_is_an_error(pytester):
    pytester.makepyfile(test_bad="def test_x(ulp_oracle):\n    pass\n")
    res = pytester.runpytest(*_plugin_args(), "-q", "--ulplab-rounding", "sideways")
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
