"""The minimax fitter: Sollya's published figures, a non-Haar case, the float32 evaluation."""

import json

import pytest
from mpmath import mp

from ulplab.cli.main import main
from ulplab.fit import fit, hex_float, parse_bound
from ulplab.fit.remez import remez

SOLLYA_SIN = 1.81e-9  # Sollya 8.0 fpminimax: sin, [-pi/4, pi/4], x,x^3,x^5,x^7, float32, absolute
SOLLYA_EXP = 1.07e-4  # Sollya 8.0 fpminimax: exp, [0, ln 2], degree 3, float32, absolute


def test_sin_float32_within_one_percent_of_sollya():
    r = fit("sin", "-pi/4", "pi/4", [1, 3, 5, 7], "float32", evaluate_errors=False)
    assert r.error <= SOLLYA_SIN * 1.01
    assert r.real_error < r.error  # the real minimax is a lower bound
    assert r.coefficients[0] == 1.0 and r.coefficients[1] < 0  # x - x^3/6 ...


def test_exp_float32_within_one_percent_of_sollya():
    r = fit("exp", "0", "ln2", [0, 1, 2, 3], "float32", evaluate_errors=False)
    assert r.error <= SOLLYA_EXP * 1.01


def test_non_haar_odd_erf_on_an_interval_touching_zero():
    r = fit("erf", "0", "1", [1, 3, 5, 7, 9], "float32", evaluate_errors=False)
    assert r.real_error < 5.34e-7  # measured 5.3357e-7
    assert r.error < 5.35e-7  # measured 5.3490e-7 (re-fit candidate)
    rel = fit("erf", "0", "1", [1, 3, 5, 7, 9], "exact", "relative", evaluate_errors=False)
    assert rel.error < 1.14e-6  # relative error where erf has its zero: finite, measured 1.1337e-6


def test_remez_equioscillates():
    with mp.workprec(128):
        m = remez(mp.exp, 0, mp.ln2, [0, 1, 2, 3])
        errs = [mp.exp(x) - sum(c * x**k for c, k in zip(m.coefficients, m.monomials,
                                                         strict=True)) for x in m.reference]
    assert len(m.reference) == 5
    assert all(abs(abs(e) / m.error - 1) < 1e-6 for e in errs)
    assert all((errs[i] > 0) != (errs[i + 1] > 0) for i in range(4))


def test_float32_evaluation_report_and_json(tmp_path, capsys):
    out = tmp_path / "fit.json"
    assert main(["fit", "sin", "--interval", "-pi/4", "pi/4", "--monomials", "1,3,5,7",
                 "--json", str(out)]) == 0
    data = json.loads(out.read_text())
    assert data["command"].startswith("ulplab fit sin --interval")
    assert next(c["hex"] for c in data["coefficients"]) == "0x1p+0"
    ev = data["evaluated"]
    assert ev["float32"]["fma"]["max_ulp"] <= 1  # measured: 1
    assert ev["bfloat16"]["fma"]["max_ulp"] == 0 and ev["bfloat16"]["exhaustive"]
    assert "real minimax" in capsys.readouterr().out


def test_bounds_and_errors():
    assert hex_float(float.fromhex("0x1.55554p-3")) == "0x1.55554p-3"
    assert hex_float(-0.5) == "-0x1p-1"
    with mp.workprec(256):
        assert abs(parse_bound("-pi/4") + mp.pi / 4) < 1e-70
        assert abs(parse_bound("log(2)") - mp.ln2) < 1e-70
    with pytest.raises(ValueError, match="malformed interval bound"):
        parse_bound("__import__('os')")
    with pytest.raises(ValueError, match="coefficient format"):
        fit("sin", "0", "1", [1], "float64")


def test_remez_falls_back_to_lawson_when_the_exchange_breaks_down():
    # silu on [-1, 1] at degree 4: the exchange finds 5 alternating extrema for 6 points
    import itertools

    from mpmath import mpf

    from ulplab.fit.remez import remez
    from ulplab.functions import get_function

    f = get_function("silu").mpmath_form
    r = remez(f, -1, 1, [0, 1, 2, 3, 4])
    assert r.method == "lawson"
    assert 5.36e-5 < float(r.error) < 5.37e-5  # measured 5.3629e-5
    errs = [f(x) - sum(c * x**k for c, k in zip(r.coefficients, r.monomials, strict=True))
            for x in r.reference]
    assert len(errs) == 6
    assert all((a > 0) != (b > 0) for a, b in itertools.pairwise(errs))  # alternation
    assert all(abs(e) > r.error * mpf("0.99") for e in errs)  # equal ripple to 1 %


ORDINARY_FITS = [  # issue #10 section 6; seconds measured on the shared 2-core machine
    pytest.param(["silu", "--interval", "-1", "1", "--degree", "4"], id="silu-deg4"),  # 4.3 s
    pytest.param(["gelu", "--interval", "-3", "3", "--monomials", "1,2,3,4", "--error",
                  "relative"], id="gelu-relative"),  # 4.2 s
    pytest.param(["sigmoid", "--interval", "-5", "5", "--degree", "9", "--coefficients",
                  "float16"], id="sigmoid-float16", marks=pytest.mark.slow),  # 9.7 s
    pytest.param(["gelu", "--interval", "-8", "8", "--degree", "15"], id="gelu-deg15",
                 marks=pytest.mark.slow),  # 25 s
]


@pytest.mark.parametrize("argv", ORDINARY_FITS)
def test_ordinary_fit_requests_succeed(argv, capsys):
    assert main(["fit", *argv, "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "x^0" in out or "x^1" in out
    assert "chosen" in out and "evaluated in float32" in out


def test_float32_coverage_is_all_only_when_every_float32_is_sampled():
    from ulplab.fit import _float32_count

    assert _float32_count(1, 2) == 2**23 + 1  # [1, 2): 2^23 values, and 2 itself
    assert _float32_count(0, 0) == 1 and _float32_count(-1e-45, 1e-45) == 3  # -2^-149, 0, 2^-149
    assert _float32_count(-5, 5) == 2 * 0x40A00000 + 1  # 0x40a00000 = 5.0


def test_rational_remez_equioscillates_and_with_no_denominator_is_remez():
    """The rational exchange (``ulplab.fit.rational``): its error equioscillates on n + m + 2
    points at the level it reports; with Q of degree 0 it is the polynomial minimax, which
    ``remez`` finds independently (the same sup norm to 1e-9); a denominator buys accuracy
    (tanh on [0, 3], relative: degrees (3, 3) against a degree-6 polynomial)."""
    from ulplab.fit.rational import rational_remez

    with mp.workprec(128):
        r = rational_remez(mp.exp, -1, 1, 2, 2, relative=False)
        errs = [mp.polyval(r.p[::-1], x) / mp.polyval(r.q[::-1], x) - mp.exp(x)
                for x in r.reference]
        assert len(r.reference) == 6 and r.q[0] == 1
        assert all(abs(abs(e) / r.level - 1) < 1e-9 for e in errs)
        assert all((errs[i] > 0) != (errs[i + 1] > 0) for i in range(5))
        assert abs(r.error / r.level - 1) < 1e-9
        poly = rational_remez(mp.exp, 0, mp.ln2, 3, 0, relative=False)
        assert abs(poly.error / remez(mp.exp, 0, mp.ln2, [0, 1, 2, 3]).error - 1) < 1e-9

        def tanh_over(x):
            return mp.mpf(1) if x == 0 else mp.tanh(x) / x

        rational = rational_remez(tanh_over, 0, 3, 3, 3)
        polynomial = remez(tanh_over, 0, 3, list(range(7)), relative=True)
        assert rational.error < polynomial.error / 100
    with pytest.raises(ValueError, match="degrees"):
        rational_remez(mp.exp, 0, 1, -1, 2)
