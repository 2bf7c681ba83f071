"""Every registered method keeps its registered claims, and arithmetic methods stay arithmetic.

The claims (max and mean ULP, NaN and infinity disagreements, input count per format) live in
the registry; this test reads them from there, so a method that gets worse than its registered
figures fails here.
"""

import numpy as np
import pytest

from ulplab.formats import all_patterns, get_format, to_values
from ulplab.kit import run_guarded
from ulplab.methods import all_methods
from ulplab.sweep import analyze

CLAIMED = [(m, fmt) for m in all_methods() for fmt in m.claims]
ARITHMETIC = [m for m in all_methods() if not m.library_calls and m.float32_impl is not None]


def _id(v):
    if isinstance(v, tuple):
        return f"{v[0].function}/{v[0].name}/{v[1]}"
    return f"{v.function}/{v.name}"


@pytest.mark.parametrize("case", CLAIMED, ids=_id)
def test_method_keeps_its_claim(case):
    method, fmt = case
    claim = method.claims[fmt]
    res = analyze([method], method.function, fmt, progress=False)["methods"][0]
    assert res["max_ulp"] <= claim.max_ulp, (res["max_ulp"], claim)
    assert res["mean_ulp"] <= claim.mean_ulp, (res["mean_ulp"], claim)
    assert res["inputs"] == claim.inputs, (res["inputs"], claim)
    assert res["nan_mismatches"] <= claim.nan_mismatches, (res["nan_mismatches"], claim)
    assert res["inf_mismatches"] <= claim.inf_mismatches, (res["inf_mismatches"], claim)


@pytest.mark.parametrize("method", ARITHMETIC, ids=_id)
def test_arithmetic_method_uses_float32_arithmetic_only(method):
    fmt = get_format("bfloat16")
    x = to_values(all_patterns(fmt), fmt).astype(np.float32)
    guarded = run_guarded(method.float32_impl, x)
    plain = method(x) if method.takes == "float32" else method.float32_impl(x)
    assert np.array_equal(guarded.view(np.uint32), plain.view(np.uint32))


def test_every_library_method_says_what_it_calls():
    for m in all_methods():
        if m.family == "baseline":
            assert m.library_calls, m.name
