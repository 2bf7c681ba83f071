"""The gelu_grad methods (the seed's G4) and the derivative study's answer to the seed's question.

Claims (max/mean ULP per format) of every registered method are re-measured by
tests/test_methods.py; this file checks the kernel's construction and the study's findings.
"""

import numpy as np

from ulplab.methods import get_method, methods_for
from ulplab.methods.gelu import erf_b3
from ulplab.studies import RENDERERS, run_study

f32 = np.float32


def test_g4_is_the_seeds_b3_phi_plus_x_phi():
    g4 = get_method("gelu_grad", "G4")
    assert erf_b3.ERF_TAYLOR[:5] == g4.params.ERF_TAYLOR  # the seed's z^9 Taylor series
    assert g4.params.AS_COEFFS == erf_b3.AS_COEFFS_SEED
    assert (g4.params.CLAMP_LO, g4.params.CLAMP_HI) == (-0.5, 1.5)
    x = np.array([0.0, -0.0, np.inf, -np.inf, np.nan], dtype=f32)
    y = g4(x)
    assert y[0] == 0.5 and y[1] == 0.5 and y[2] == 1.0
    assert y[3] == 0 and np.signbit(y[3]) and np.isnan(y[4])
    # GELU' is negative below -0.7518; its minimum is Phi(-r) - r phi(r) = -0.12890 at -r = -sqrt 2
    xs = np.array([-0.76, -1.4142135, -3.0], dtype=f32)
    assert np.all(g4(xs) < 0) and abs(float(g4(xs)[1]) + 0.128904) < 1e-5


def test_g4_improved_is_exact_in_bfloat16():
    assert get_method("gelu_grad", "G4 (improved)").claims["bfloat16"].max_ulp == 0
    assert {m.name for m in methods_for("gelu_grad")} >= {"G4", "G4 (improved)"}


def test_derivative_study_answers_the_seeds_question():
    res = run_study("derivative", "bfloat16")
    rows = {r["kernel"]: r for r in res["kernels"]}
    assert rows["G4"]["max_ulp"] == 1 and rows["G4"]["wrong_sign"] == 0
    assert rows["G4 (improved)"]["max_ulp"] == 0
    first = rows["G4, the seed's first clamp [0, inf)"]
    # measured: the first clamp gets every negative GELU' wrong, 15876 ULP at x = -1.367
    assert first["wrong_sign"] == first["negative_inputs"] > 0
    assert first["max_ulp"] > 10_000
    assert len(RENDERERS["derivative"](res)) == 2
