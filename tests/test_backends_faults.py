"""Bad backends: one that crashes its process, returns the wrong dtype or shape, hangs, raises,
or is half-installed gets one line in the card and the card completes (the other backends'
rows are there). The fakes are module-level functions so that a child process imports them by
name (``ulplab.backends._isolated`` sends a backend it does not know whole)."""

import os
import signal
import sys
import time

import numpy as np
import pytest

from ulplab.backends import BACKENDS, Backend, Unavailable, _module
from ulplab.peers import report_card


def _segfault(x):
    os.kill(os.getpid(), signal.SIGSEGV)


def _float64(x):
    return np.tanh(x.astype(np.float64))


def _short(x):
    return np.tanh(x)[:-1]


def _hang(x):
    time.sleep(600)


def _raise(x):
    raise RuntimeError("kernel not implemented\nsecond line never shown")


def make_crash(func, fmt, backward):
    return _segfault, "float32"


def make_float64(func, fmt, backward):
    return _float64, "float32"


def make_short(func, fmt, backward):
    return _short, "float32"


def make_hang(func, fmt, backward):
    return _hang, "float32"


def make_raise(func, fmt, backward):
    return _raise, "float32"


def make_hang_on_make(func, fmt, backward):
    time.sleep(600)


def make_half_installed(func, fmt, backward):
    _module("ulplab_fake_framework")
    raise AssertionError("unreachable: the import fails")


CASES = [
    ("crash", make_crash, "crashed (killed by SIGSEGV)"),
    ("float64", make_float64, "failed: TypeError: method float64 returned float64(65536,), "
                              "expected float32(65536,)"),
    ("short", make_short, "failed: TypeError: method short returned float32(65535,)"),
    ("hang", make_hang, "timed out: no answer in 5 s (killed)"),
    ("raise", make_raise, "failed: RuntimeError: kernel not implemented"),
    ("hang-on-make", make_hang_on_make, "timed out: no answer in 5 s (killed)"),
]


@pytest.mark.parametrize(("name", "make", "reason"), CASES, ids=[c[0] for c in CASES])
def test_a_bad_backend_is_one_line_and_the_card_completes(monkeypatch, name, make, reason):
    monkeypatch.setitem(BACKENDS, name, Backend(name, f"fake: {name}", make))
    start = time.perf_counter()
    card = report_card("tanh", "bfloat16", ["numpy", name, "libm"], backward=False,
                       time_limit=5.0)
    assert time.perf_counter() - start < 120
    assert [r["backend"] for r in card["backends"]] == ["numpy", "libm"]
    (row,) = card["skipped"]
    assert row["backend"] == name and row["status"] in ("failed",)
    assert reason in row["reason"] and "\n" not in row["reason"]


def test_half_installed_framework_is_a_skipped_row(monkeypatch, tmp_path):
    pkg = tmp_path / "ulplab_fake_framework"
    pkg.mkdir()
    (pkg / "__init__.py").write_text(
        'raise OSError("libfake.so.1: cannot open shared object file")\n')
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(BACKENDS, "half", Backend("half", "fake", make_half_installed))
    card = report_card("tanh", "bfloat16", ["half", "numpy"], backward=False)
    assert [r["backend"] for r in card["backends"]] == ["numpy"]
    assert card["skipped"] == [{
        "backend": "half", "status": "skipped",
        "reason": "ulplab_fake_framework is installed but does not import: OSError: "
                  "libfake.so.1: cannot open shared object file"}]


def test_a_real_backend_half_installed(monkeypatch, tmp_path):
    """onnxruntime shadowed by a copy whose import fails (its shared library missing)."""
    pkg = tmp_path / "onnxruntime"
    pkg.mkdir()
    (pkg / "__init__.py").write_text(
        'raise ImportError("libonnxruntime.so.1: cannot open shared object file", '
        'name="onnxruntime.capi")\n')
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "onnxruntime", raising=False)
    card = report_card("tanh", "bfloat16", ["onnxruntime", "numpy"], backward=False)
    (row,) = card["skipped"]
    assert row["status"] == "skipped"
    assert row["reason"].startswith("onnxruntime is installed but does not import: "
                                    "ImportError: libonnxruntime.so.1")
    assert [r["backend"] for r in card["backends"]] == ["numpy"]


def test_absent_framework_is_a_skipped_row(monkeypatch):
    monkeypatch.setitem(BACKENDS, "absent", Backend("absent", "fake", make_absent))
    card = report_card("tanh", "bfloat16", ["absent", "numpy"], backward=False)
    assert card["skipped"] == [{"backend": "absent", "status": "skipped",
                                "reason": "ulplab_no_such_framework is not installed"}]


def make_absent(func, fmt, backward):
    _module("ulplab_no_such_framework")
    raise Unavailable("unreachable")
