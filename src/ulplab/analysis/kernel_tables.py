"""Regenerate the det kernels' stored coefficient tables and constants, and compare them with the
literals the kernel modules hold.

    python -m ulplab.analysis.kernel_tables NAME [NAME ...]   (NAME: a kernel module, or all)

The kernels (``ulplab.kernels``) keep every table as exact float32 literals and never compute
one from the project's fitter at run time; the recipes that made the fitted ones live here,
with the fitter (``ulplab.fit``): erf's minimax of erf on [0, 1/2] and its eight erfcx pieces,
gelu_grad's zero X0 and the polynomial of the window around it. For the other modules this
calls the mpmath regenerators they hold beside their literals (cheap, also run by their tests).
Each literal is printed as "ok" or with its first differing entry (hex floats, stored against
regenerated); the exit status is 1 when one differs, 2 for an unknown name.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable
from typing import Any

import numpy as np
from mpmath import mp, mpf

from ulplab.errors import UsageError

f32 = np.float32

ERF_FIT = {"func": "erf", "a": "0", "b": "0.5", "monomials": [1, 3, 5, 7, 9, 11, 13, 15],
           "coefficients": "exact", "error": "relative"}
"""The erf fit on [0, 1/2]: ``ulplab fit erf --interval 0 0.5 --monomials 1,3,5,7,9,11,13,15
--coefficients exact --error relative`` (ERF_HI/ERF_LO)."""


def _split(c: mpf) -> tuple[float, float]:
    """hi = RN32(c), lo = RN32(c - hi)."""
    hi = float(f32(float(c)))
    return hi, float(f32(float(mpf(c) - mpf(hi))))


def _float32_parts(c: mpf, n: int) -> list[float]:
    """c as n float32 parts, each the float32 rounding of what the earlier ones leave."""
    out, rest = [], mpf(c)
    for _ in range(n):
        out.append(float(f32(float(rest))))
        rest -= mpf(out[-1])
    return out


def erf_tables() -> dict[str, np.ndarray]:
    """Regenerate erf.py's ERF_HI/LO, ERFCX_HI/LO (as stored, [k][piece]) and RS_HI/LO: the
    fit ``ERF_FIT`` by ``ulplab.fit.fit``; for each piece [A, B] of
    ``erf.ERFCX_PIECES``, centre c = (A + B)/2, the real minimax (relative error, monomials
    0 .. ``erf.ERFCX_DEGREE``) of t -> erfc(c + t) e^((c + t)^2) on [A - c, B - c] by
    ``ulplab.fit.remez.remez`` at 128 bits; each coefficient split by ``_split``."""
    from ulplab.fit import fit
    from ulplab.fit.remez import remez
    from ulplab.kernels.erf import ERFCX_DEGREE, ERFCX_PIECES

    r = fit(ERF_FIT["func"], ERF_FIT["a"], ERF_FIT["b"], ERF_FIT["monomials"],
            coefficients=ERF_FIT["coefficients"], error=ERF_FIT["error"],
            evaluate_errors=False)
    erf = [_split(mpf(c)) for c in r.coefficients]
    his, los = [], []
    for a, b in ERFCX_PIECES:
        with mp.workprec(128):
            c = (mpf(a) + mpf(b)) / 2

            def f(t: mpf, c: mpf = c) -> mpf:
                return mp.erfc(c + t) * mp.exp((c + t) ** 2)

            fitted = remez(f, mpf(a) - c, mpf(b) - c, list(range(ERFCX_DEGREE + 1)),
                           relative=True)
            pairs = [_split(co) for co in fitted.coefficients]
        his.append([p[0] for p in pairs])
        los.append([p[1] for p in pairs])
    with mp.workprec(200):
        rs = _split(1 / mp.sqrt(2))
    return {"ERF_HI": np.array([p[0] for p in erf]).astype(f32),
            "ERF_LO": np.array([p[1] for p in erf]).astype(f32),
            "ERFCX_HI": np.array(his).astype(f32).T, "ERFCX_LO": np.array(los).astype(f32).T,
            "RS_HI": np.array([rs[0]]).astype(f32), "RS_LO": np.array([rs[1]]).astype(f32)}


def gelu_grad_zero_tables() -> dict[str, list[float]]:
    """Regenerate gelu_grad.py's X0 (as its three float32 parts X0_HI, X0_LO, X0_LO2) and the
    window polynomial ZERO_HI/ZERO_LO: X0 by mpmath's findroot at 200 bits; P(t) =
    gelu_grad(X0 + t)/t on ``ZERO_WINDOW`` - X0, the real minimax (relative error, monomials
    0 .. ZERO_HI.size - 1) by ``ulplab.fit.remez.remez`` at 160 bits; each coefficient split
    into two float32 parts, the low parts kept for the first ZERO_LO.size."""
    from ulplab.fit.remez import remez
    from ulplab.kernels.gelu_grad import ZERO_HI, ZERO_LO, ZERO_WINDOW

    with mp.workprec(200):
        def g(v: mpf) -> mpf:
            return mp.erfc(-v / mp.sqrt(2)) / 2 + v * mp.exp(-v * v / 2) / mp.sqrt(2 * mp.pi)

        x0 = mp.findroot(g, mpf(-0.7518))
        slope = mp.exp(-x0 * x0 / 2) / mp.sqrt(2 * mp.pi) * (2 - x0 * x0)  # g'(x0)
        with mp.workprec(160):
            fitted = remez(lambda t: g(x0 + t) / t if t != 0 else slope,
                           mpf(float(ZERO_WINDOW[0])) - x0, mpf(float(ZERO_WINDOW[1])) - x0,
                           list(range(ZERO_HI.size)), relative=True)
        parts = [_float32_parts(c, 2) for c in fitted.coefficients]
        return {"X0": _float32_parts(x0, 3), "ZERO_HI": [p[0] for p in parts],
                "ZERO_LO": [p[1] for p in parts[:ZERO_LO.size]]}


def _gelu_grad() -> dict[str, Any]:
    from ulplab.kernels.gelu_grad import split_constants

    zero = gelu_grad_zero_tables()
    x0_hi, x0_lo, x0_lo2 = zero.pop("X0")
    return {**split_constants(), "X0_HI": x0_hi, "X0_LO": x0_lo, "X0_LO2": x0_lo2, **zero}


def _exp() -> dict[str, Any]:
    from ulplab.kernels.exp import split_constants, two_pow_table

    hi, lo = two_pow_table()
    return {**split_constants(), "T_HI": hi, "T_LO": lo}


def _expm1() -> dict[str, Any]:
    from ulplab.kernels.expm1 import split_constants, two_pow_table_third

    c = split_constants()
    return {"Q0": c["Q0"], "Q0_LO": c["Q0_LO"], "Q": (c["Q1"], c["Q2"], c["Q3"]),
            "T_LO2": two_pow_table_third()}


def _log() -> dict[str, Any]:
    from ulplab.kernels.log import log_table, split_constants

    c = split_constants()
    invc, hi, lo = log_table()
    return {**{k: v for k, v in c.items() if not (k[0] == "P" and k != "P0_LO")},
            "P": tuple(c[f"P{j}"] for j in range(5)), "INVC": invc, "LOGC_HI": hi,
            "LOGC_LO": lo}


def _logistic() -> dict[str, Any]:
    from ulplab.kernels.logistic import log_table, taylor_constants

    hi, lo = log_table()
    return {**taylor_constants(), "LOG_HI": hi, "LOG_LO": lo}


def _tanh() -> dict[str, Any]:
    from ulplab.kernels.tanh import constants

    return constants()


def _trig() -> dict[str, Any]:
    from ulplab.kernels.reduction import two_over_pi_hex
    from ulplab.kernels.trig import first_pass_constants, sincos_table, split_constants

    sin_hi, sin_lo, cos_hi, cos_lo = sincos_table()
    return {**split_constants(), "TWO_OVER_PI_HEX": two_over_pi_hex(), "SIN_HI": sin_hi,
            "SIN_LO": sin_lo, "COS_HI": cos_hi, "COS_LO": cos_lo, **first_pass_constants()}


TABLES: dict[str, Callable[[], dict[str, Any]]] = {
    "erf": erf_tables, "exp": _exp, "expm1": _expm1, "gelu_grad": _gelu_grad, "log": _log,
    "logistic": _logistic, "tanh": _tanh, "trig": _trig,
}
"""Kernel module (``ulplab.kernels.NAME``) -> its regenerator: {literal name: value}."""


def _flat(v: Any) -> list[Any]:
    """A literal or regenerated value as a flat list (strings kept whole, floats exact)."""
    if isinstance(v, str):
        return [v]
    if isinstance(v, np.ndarray):
        return [float(e) for e in v.ravel()]
    if isinstance(v, (tuple, list)):
        return [e for item in v for e in _flat(item)]
    return [float(v)]


def _show(v: Any) -> str:
    return v if isinstance(v, str) else float(v).hex()


def compare(name: str) -> list[tuple[str, str]]:
    """(literal, verdict) for every literal of kernel module ``name`` that its recipe
    regenerates: "ok (N values)" or where it first differs."""
    if name not in TABLES:
        raise UsageError(f"no table recipe for {name!r}; valid: {', '.join(TABLES)}, all")
    module = importlib.import_module(f"ulplab.kernels.{name}")
    out = []
    for literal, value in TABLES[name]().items():
        stored, made = _flat(getattr(module, literal)), _flat(value)
        if stored == made:
            out.append((literal, f"ok ({len(made)} values)"))
        elif len(stored) != len(made):
            out.append((literal, f"DIFFERS: {len(stored)} stored values, {len(made)} made"))
        else:
            i = next(i for i, (s, m) in enumerate(zip(stored, made, strict=True)) if s != m)
            out.append((literal, f"DIFFERS at [{i}]: stored {_show(stored[i])}, "
                                 f"regenerated {_show(made[i])}"))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m ulplab.analysis.kernel_tables",
                                 description="regenerate det kernels' tables and compare them "
                                             "with the stored literals")
    ap.add_argument("names", nargs="+", help=f"of: {', '.join(TABLES)}, all")
    args = ap.parse_args(argv)
    names = list(TABLES) if "all" in args.names else args.names
    differs = False
    try:
        for bad in (n for n in names if n not in TABLES):
            raise UsageError(f"no table recipe for {bad!r}; valid: {', '.join(TABLES)}, all")
        for name in names:
            for literal, verdict in compare(name):
                print(f"{name}.{literal}: {verdict}")
                differs = differs or not verdict.startswith("ok")
    except UsageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 1 if differs else 0


if __name__ == "__main__":
    raise SystemExit(main())
