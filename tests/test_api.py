"""The Python API: ulplab.analyze and Report, oracle, correctly_rounded, ulp_distance, formats."""

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

import ulplab
from conftest import needs
from ulplab import api
from ulplab.errors import UsageError
from ulplab.formats import EXHAUSTIVE_FORMATS, all_patterns, get_format, next_up
from ulplab.methods import get_method
from ulplab.oracle.table import oracle_table
from ulplab.sweep import analyze as sweep_analyze

SRC = Path(__file__).resolve().parents[1] / "src"


def test_guardless_script_on_a_cold_cache(tmp_path):
    """A script with no __main__ guard, an empty cache and a worker pool: the workers must not
    re-run it (they did, and the pool died with BrokenProcessPool)."""
    script = tmp_path / "measure.py"
    script.write_text(textwrap.dedent("""
        import numpy as np
        import ulplab
        print("top level ran")
        r = ulplab.analyze(np.tanh, "tanh", "float8_e5m2")
        print("max", r.max_ulp, "count", r.count)
    """))
    env = {**os.environ, "ULPLAB_CACHE_DIR": str(tmp_path / "cache"), "ULPLAB_WORKERS": "2",
           "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")])}
    run = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True,
                         timeout=300, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert run.stdout.count("top level ran") == 1
    # measured: np.tanh in float32 rounded to float8_e5m2 is correctly rounded on all 256 inputs
    assert "max 0 count" in run.stdout
    assert list((tmp_path / "cache").glob("tanh-float8_e5m2-*.ulpc"))


REAL_KEYS = ("max_error", "errors_ge_1", "errors_gt_half", "error_accuracy", "worst_error")
"""What ``measure`` adds to ``stats.summarize``'s figures: the error against the real value."""


def _without_real(stats, *drop):
    out = {k: v for k, v in stats.items() if k not in (*REAL_KEYS, *drop)}
    out["worst"] = [{k: v for k, v in w.items() if k != "error"} for w in out["worst"]]
    return out


def test_method_name_reports_the_sweep_figures():
    """A Report holds exactly sweep.analyze's statistics for the same method."""
    fmt = get_format("bfloat16")
    r = ulplab.analyze("E9 Remez BF16 (improved)", "gelu", fmt)
    ref = sweep_analyze([get_method("gelu", "E9 Remez BF16 (improved)")], "gelu", fmt,
                        progress=False)["methods"][0]
    assert _without_real(ref, "method", "seed_max_ulp") == _without_real(r.stats)
    assert set(REAL_KEYS) <= set(r.stats) and all("error" in w for w in r.stats["worst"])
    assert (r.max_ulp, r.count, r.nan_mismatches) == (ref["max_ulp"], ref["count"],
                                                      ref["nan_mismatches"])
    assert r.worst[0].ulp == r.max_ulp == 11  # measured: E9's max on bfloat16 is 11 ULP
    assert r.worst[0].x_bits == int(ref["worst"][0]["hex"], 16)
    assert r.inputs == "exhaustive" and r.x_bits.size == 65536


@pytest.mark.parametrize("fmt", EXHAUSTIVE_FORMATS)
def test_callable_in_the_formats_dtype_reading_the_oracle_is_exact(fmt):
    table = ulplab.oracle("tanh", fmt)
    f = get_format(fmt)

    def exact_tanh(x):
        assert x.dtype == f.dtype
        return table[x.view(f.uint)]

    r = ulplab.analyze(exact_tanh, "tanh", fmt)
    assert (r.max_ulp, r.exact_fraction, r.nan_mismatches, r.inf_mismatches) == (0, 1.0, 0, 0)


def test_callable_one_ulp_up_everywhere():
    table = ulplab.oracle("exp", "float16").view(np.uint16)
    fmt = get_format("float16")

    def exp_plus_one_ulp(x):
        b = table[x.view(np.uint16)]
        return np.where(np.isfinite(b.view(np.float16)) & (b != fmt.max_bits)
                        & (b != fmt.sign_bit), next_up(b, fmt), b).astype(np.uint16).view(
            np.float16)

    r = ulplab.analyze(exp_plus_one_ulp, "exp", "float16")
    assert r.max_ulp == 1 and r.within1_fraction == 1.0
    # exact only where the truth is NaN or inf (left as they are): 14,963 of 65,536, measured
    nonfinite = int(np.count_nonzero(~np.isfinite(table.view(np.float16))))
    assert nonfinite == 14963 and r.exact_fraction == nonfinite / 65536


def test_nan_everywhere_is_all_disagreement():
    r = ulplab.analyze(lambda x: np.full_like(x, np.nan), "tanh", "float8_e4m3fn")
    assert r.disagreements().sum() == r.nan_mismatches + r.inf_mismatches
    assert r.nan_mismatches == 254  # every input but the two NaN patterns


@needs("torch")
def test_torch_callables():
    """Framework and dtype are found by probing. Only what holds on every host is asserted:
    torch's CPU kernels differ with the SIMD level (torch.backends.cpu.get_cpu_capability())."""
    import torch

    seen = []

    def torch_bf16_tanh(t):
        if not isinstance(t, torch.Tensor) or t.dtype != torch.bfloat16:
            raise TypeError("bfloat16 tensors only")
        seen.append(t.numel())
        return torch.tanh(t)

    r = ulplab.analyze(torch_bf16_tanh, "tanh", "bfloat16")
    assert r.method == "torch_bf16_tanh" and seen[-1] == 65536
    # torch computes a bfloat16 tanh in float32, within 1 ULP there; every bfloat16 input's tanh
    # is more than a float32 ULP from a bfloat16 rounding boundary (checked in float64), so any
    # such result rounds correctly: 0 ULP on every host
    assert (r.max_ulp, r.nan_mismatches, r.inf_mismatches) == (0, 0, 0)
    g = ulplab.analyze(torch.nn.functional.gelu, "gelu", "bfloat16")  # float32, rounded
    # the erf form in float32 flushes the negative tail to -0 (erf rounds to -1 there): the
    # worst inputs are there, thousands of ULP off (13,215 measured on AVX2 and AVX-512 hosts)
    assert g.max_ulp > 10_000 and g.worst[0].x < -5 and g.worst[0].got_bits == 0x8000
    # NaN and inf disagreements differ with the host (AVX-512: gelu(+inf) is NaN and x Phi(x)
    # overflows to inf above 1.7e38; AVX2: neither), so they are read from torch's own results
    # on the same float32 inputs: NaN for a non-NaN input, inf for a finite one
    x = g.x_values()
    y = torch.nn.functional.gelu(torch.from_numpy(x.astype(np.float32))).numpy()
    assert np.count_nonzero(np.isnan(y[x == -np.inf])) == 1  # -inf * Phi(-inf): -inf * 0
    assert g.nan_mismatches == np.count_nonzero(np.isnan(y) & ~np.isnan(x))
    assert g.inf_mismatches == np.count_nonzero(np.isinf(y) & np.isfinite(x))
    assert g.disagreements().sum() == g.nan_mismatches + g.inf_mismatches


@needs("jax")
def test_jax_callable():
    import jax.numpy as jnp

    rj = ulplab.analyze(jnp.tanh, "tanh", "float8_e5m2")
    # JAX's float32 tanh is within 1 ULP, and no float8_e5m2 tanh is that close to a rounding
    # boundary of the format: exact on every host
    assert (rj.max_ulp, rj.nan_mismatches, rj.x_bits.size) == (0, 0, 256)


def test_float32_default_sample_is_fixed_and_cached(monkeypatch):
    monkeypatch.setattr(api, "FLOAT32_SAMPLES", 512)
    a = ulplab.analyze(get_method("tanh", "det"), "tanh", "float32")
    b = ulplab.analyze("det", "tanh", "float32")
    assert a.inputs == "512 sampled" and a.x_bits.size == 512
    assert np.array_equal(a.x_bits, b.x_bits) and a.stats == b.stats


def test_inputs_array():
    xs = np.array([-1.0, 0.5, 2.0], dtype=ml_dtypes.bfloat16)
    r = ulplab.analyze(np.tanh, "tanh", "bfloat16", inputs=xs)
    assert r.inputs == "3 given" and list(r.x_bits) == list(xs.view(np.uint16))
    assert ulplab.analyze(np.tanh, "tanh", "bfloat16", inputs=[-1.0, 0.5, 2.0]).stats == r.stats


@pytest.mark.parametrize("call", [
    lambda: ulplab.analyze(np.tanh, "tanh", "bfloat16", inputs=[0.1]),
    lambda: ulplab.analyze(np.tanh, "tanh", "bfloat16", inputs=[]),
    lambda: ulplab.analyze(42, "tanh", "bfloat16"),
    lambda: ulplab.analyze(lambda x: "no", "tanh", "bfloat16"),
    lambda: ulplab.analyze("no such method", "tanh", "bfloat16"),
    lambda: ulplab.analyze(np.tanh, "tanhh", "bfloat16"),
    lambda: ulplab.analyze(np.tanh, "tanh", "bfloat17"),
    lambda: ulplab.analyze(np.tanh, "tanh", "bfloat16", rounding="up-ish"),
    lambda: ulplab.oracle("tanh", "float32"),
])
def test_bad_input_is_a_usage_error(call):
    with pytest.raises(UsageError):
        call()


def test_oracle_correctly_rounded_ulp_distance_formats():
    fmt = get_format("bfloat16")
    table = ulplab.oracle("exp", "bfloat16")
    assert table.dtype == ml_dtypes.bfloat16
    assert np.array_equal(table.view(np.uint16), oracle_table("exp", fmt))
    one = ulplab.correctly_rounded("exp", 1.0, "bfloat16")
    assert one == table[all_patterns(fmt)[np.float32(1.0).view(np.uint32) >> 16]]
    assert float(one) == 2.71875  # e = 2.71828... rounds to 2.71875 = 0x402e in bfloat16
    e32 = ulplab.correctly_rounded("exp", [1.0], "float32")
    assert e32.view(np.uint32)[0] == 0x402DF854  # e rounded to float32
    assert ulplab.ulp_distance(-0.0, 0.0, "float16") == 0
    assert ulplab.ulp_distance(1.0, 1.0078125, "bfloat16") == 1
    assert list(ulplab.ulp_distance([1.0, np.nan, np.inf], [-1.0, np.nan, np.inf],
                                    "bfloat16")) == [2 * 0x3F80, -1, -1]
    from ulplab.formats import FORMATS

    assert list(ulplab.formats()) == list(FORMATS) and "float4_e2m1fn" in ulplab.formats()
    assert ulplab.formats.get_format("float16").bits == 16  # still the formats package


def test_report_outputs():
    r = ulplab.analyze("f32-naive", "gelu", "float8_e4m3fn")
    js = __import__("json").loads(r.to_json())
    assert js["max_ulp"] == r.max_ulp and js["method"] == "f32-naive"
    assert f"<td class=\"num\" data-key=\"max_ulp\">{r.max_ulp}</td>" in r._repr_html_()
    fig = r.plot()
    assert len(fig.axes) == 2
    assert sum(len(line.get_xdata()) for line in fig.axes[0].lines) == 256 - 2  # no NaN x
    try:
        import pandas  # noqa: F401
    except ImportError:
        with pytest.raises(ImportError, match="needs pandas"):
            r.to_dataframe()
    else:
        df = r.to_dataframe()
        assert len(df) == 256 and int(df["ulp"].max()) == r.max_ulp


def _never_called(x):
    raise AssertionError("an argument check came after the callable ran")


NAN = float("nan")
API_ODD_CALLS = [  # (argument, call, error): checked before anything runs
    *[("worst", lambda v=v: ulplab.analyze(_never_called, "tanh", "bfloat16", worst=v), e)
      for v, e in ((-1, ValueError), (NAN, TypeError), (2.0, TypeError), (True, TypeError),
                   (None, TypeError), ("3", TypeError), (1e300, TypeError))],
    *[("progress", lambda v=v: ulplab.analyze(_never_called, "tanh", "bfloat16", progress=v),
       TypeError) for v in (1, None, "yes")],
    *[("output_rounding", lambda v=v: ulplab.analyze(_never_called, "tanh", "bfloat16",
                                                     output_rounding=v), e)
      for v, e in (("odd", ValueError), (None, TypeError))],
    *[("rounding", lambda v=v: ulplab.oracle("tanh", "bfloat16", v), e)
      for v, e in (("up-ish", ValueError), (None, TypeError), (0, TypeError))],
    *[("denormals", lambda v=v: ulplab.oracle("tanh", "bfloat16", denormals=v), e)
      for v, e in (("flush", ValueError), (True, TypeError))],
    *[("function", lambda v=v: ulplab.correctly_rounded(v, 1.0, "bfloat16"), e)
      for v, e in (("tanhh", ValueError), (None, TypeError))],
    *[("x", lambda v=v: ulplab.correctly_rounded("tanh", v, "bfloat16"), e)
      for v, e in ((0.1, ValueError), (1e300, ValueError), (True, TypeError),
                   (None, TypeError), ("1", TypeError))],
    *[("format", lambda v=v: ulplab.ulp_distance(1.0, 1.0, v), e)
      for v, e in (("bfloat17", ValueError), (None, TypeError), (16, TypeError))],
    *[("a", lambda v=v: ulplab.ulp_distance(v, 1.0, "bfloat16"), e)
      for v, e in ((0.1, ValueError), (None, TypeError), ("1", TypeError))],
    *[("b", lambda v=v: ulplab.ulp_distance(1.0, v, "bfloat16"), TypeError)
      for v in (True, [None])],
    *[("methods", lambda v=v: api.measure(v, "tanh", "bfloat16", rounding="nearest-even",
                                          denormals="ieee", inputs=None), TypeError)
      for v in ("det", [np.tanh], None)],
    ("impl", lambda: api.callable_method(42, "tanh", "bfloat16"), TypeError),
    ("impl", lambda: ulplab.analyze(None, "tanh", "bfloat16"), TypeError),
    ("takes", lambda: api.callable_method(_never_called, "tanh", "bfloat16", "fp32"),
     ValueError),
    ("inputs", lambda: api.input_bits(None, "bfloat16"), TypeError),
]


@pytest.mark.parametrize(("argument", "call", "error"), API_ODD_CALLS,
                         ids=[f"{a}-{i}" for i, (a, _, _) in enumerate(API_ODD_CALLS)])
def test_odd_arguments_name_the_argument(argument, call, error):
    with pytest.raises(error, match=rf"\b{argument}\b") as info:
        call()
    if error is ValueError:
        assert not isinstance(info.value, TypeError)
    assert isinstance(info.value, UsageError) and "\n" not in str(info.value)


def test_report_to_json_indent_is_checked():
    r = ulplab.analyze(np.tanh, "tanh", "float8_e5m2", inputs=[1.0])
    assert r.to_json(indent=None).count("\n") == 0 and r.to_json(indent=0).count("\n") > 10
    for bad, error in ((-1, ValueError), (True, TypeError), (2.5, TypeError), ("  ", TypeError)):
        with pytest.raises(error, match="indent"):
            r.to_json(indent=bad)
