"""The minimax fitter: real minimax (Remez), coefficients in a format (lattice / re-fit), and the
error of the polynomial *as evaluated* in float32, with and without FMA.

``fit`` is what ``ulplab fit`` runs. Its evaluation order is fixed: for monomials k0, k0+s, k0+2s,
... the polynomial is evaluated as x^k0 * Horner(x^s) (e.g. sin's 1,3,5,7 as x * q(x^2)),
each Horner step an FMA or a multiply then an add; x^s and x^k0 are float32 products.
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from mpmath import mp, mpf

from ulplab.errors import UsageError
from ulplab.fit.fpminimax import constrained
from ulplab.formats import Format, get_format, round_to_format, to_values
from ulplab.functions import get_function
from ulplab.inputs import float32_between
from ulplab.kit import horner
from ulplab.oracle.table import evaluate, oracle_table
from ulplab.ulp import ulp_distance

_CONSTANTS = {"pi": lambda: mp.pi, "e": lambda: mp.e, "ln2": lambda: mp.ln2}
_CALLS = {"sqrt": mp.sqrt, "log": mp.log, "exp": mp.exp}
_BINOPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
           ast.Div: operator.truediv}


def hex_float(v: float) -> str:
    """Shortest exact hex literal: 0x1.55554p-3 rather than 0x1.5555400000000p-3."""
    s = float(v).hex()
    if "." in s:
        head, exp = s.split("p")
        s = head.rstrip("0").rstrip(".") + "p" + exp
    return s


def parse_bound(text: str) -> mpf:
    """An interval end: a decimal, a hex float, or an expression such as -pi/4 or log(2)."""
    t = text.strip()
    try:
        if t.lower().startswith(("0x", "-0x", "+0x")):
            return mpf(float.fromhex(t))
        node = ast.parse(t, mode="eval").body
    except (ValueError, SyntaxError):
        raise UsageError(f"malformed interval bound {text!r}: expected a number or an "
                         "expression of pi, e, ln2, sqrt(), log(), exp()") from None

    def ev(n: ast.AST) -> mpf:
        if isinstance(n, ast.Constant) and isinstance(n.value, int | float):
            return mpf(str(n.value))
        if isinstance(n, ast.Name) and n.id in _CONSTANTS:
            return _CONSTANTS[n.id]()
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.USub | ast.UAdd):
            v = ev(n.operand)
            return -v if isinstance(n.op, ast.USub) else v
        if isinstance(n, ast.BinOp) and type(n.op) in _BINOPS:
            return _BINOPS[type(n.op)](ev(n.left), ev(n.right))
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in _CALLS \
                and len(n.args) == 1:
            return _CALLS[n.func.id](ev(n.args[0]))
        raise UsageError(f"malformed interval bound {text!r}")

    with mp.workprec(256):
        return ev(node)


def evaluate_float32(x: np.ndarray, coeffs: Sequence[float], monomials: Sequence[int],
                     use_fma: bool) -> np.ndarray:
    """The polynomial in float32 in the module's evaluation order."""
    k0 = monomials[0]
    step = monomials[1] - monomials[0] if len(monomials) > 1 else 1
    full: list[float] = []
    for j in range((monomials[-1] - k0) // step + 1):
        k = k0 + j * step
        full.append(coeffs[monomials.index(k)] if k in monomials else 0.0)
    x = x.astype(np.float32)
    with np.errstate(all="ignore"):
        t = x
        for _ in range(step - 1):
            t = t * x
        q = horner(t, full, use_fma)
        for _ in range(k0):
            q = q * x
    return q


@dataclass
class FitResult:
    function: str
    interval: tuple[float, float]
    monomials: list[int]
    coefficient_format: str
    error_kind: str
    coefficients: list[float]
    error: float
    real_error: float
    candidates: dict[str, float]
    evaluated: dict[str, Any] = field(default_factory=dict)

    def to_json(self, command: str) -> dict[str, Any]:
        return {
            "command": command,
            "function": self.function,
            "interval": [hex_float(self.interval[0]), hex_float(self.interval[1])],
            "monomials": self.monomials,
            "coefficient_format": self.coefficient_format,
            "error_kind": self.error_kind,
            "coefficients": [{"monomial": k, "hex": hex_float(c), "value": c}
                             for k, c in zip(self.monomials, self.coefficients, strict=True)],
            "error": self.error,
            "real_minimax_error": self.real_error,
            "candidates": self.candidates,
            "evaluated": self.evaluated,
        }


def evaluated_errors(func: str, a: float, b: float, coeffs: Sequence[float],
                     monomials: Sequence[int], target: Format, samples: int = 1 << 15
                     ) -> dict[str, Any]:
    """Errors of the float32-evaluated polynomial against the oracle.

    float32: every float32 of [a, b] when there are at most ``samples``, else that many spread
    by bit pattern and by value; ULP against the correctly rounded float32 f(x) and absolute error
    against mpmath. Target format: every value of the format in [a, b], the float32 result rounded
    to nearest-even, ULP against the oracle's exhaustive table.
    """
    f32 = get_format("float32")
    xs = float32_between(a, b, samples)
    truth32 = evaluate(func, xs.astype(np.float64), f32)
    f = get_function(func).mpmath_form
    with mp.workprec(80):
        exact = np.array([float(f(mpf(float(x)))) for x in xs])
    out: dict[str, Any] = {"float32": {"inputs": int(xs.size),
                                       "exhaustive": bool(xs.size < samples)}}
    tbits = np.arange(target.n_patterns, dtype=np.int64).astype(target.uint)
    tx = to_values(tbits, target)
    inside = np.isfinite(tx) & (tx >= a) & (tx <= b)
    truth_t = oracle_table(func, target, progress=False)[inside]
    out[target.name] = {"inputs": int(inside.sum()), "exhaustive": True}
    for label, use_fma in (("fma", True), ("no_fma", False)):
        y = evaluate_float32(xs, coeffs, monomials, use_fma)
        u = ulp_distance(y.view(np.uint32), truth32, f32)
        out["float32"][label] = {"max_ulp": int(u.max()), "mean_ulp": float(u.mean()),
                                 "max_abs_error": float(np.max(np.abs(y - exact)))}
        yt = round_to_format(evaluate_float32(tx[inside].astype(np.float32), coeffs, monomials,
                                              use_fma), target)
        ut = ulp_distance(yt, truth_t, target)
        out[target.name][label] = {"max_ulp": int(ut.max()), "mean_ulp": float(ut.mean())}
    return out


def fit(func: str, a: str | float, b: str | float, monomials: Sequence[int],
        coefficients: str = "float32", error: str = "absolute", target: str = "bfloat16",
        evaluate_errors: bool = True) -> FitResult:
    get_function(func)
    if coefficients not in ("float32", "bfloat16", "float16", "exact"):
        raise UsageError(f"unknown coefficient format {coefficients!r}; valid: float32, "
                         "bfloat16, float16, exact")
    if error not in ("absolute", "relative"):
        raise UsageError(f"unknown error kind {error!r}; valid: absolute, relative")
    mons = sorted(set(int(k) for k in monomials))
    if not mons or mons[0] < 0:
        raise UsageError("monomials must be non-negative integers")
    lo = parse_bound(a) if isinstance(a, str) else mpf(a)
    hi = parse_bound(b) if isinstance(b, str) else mpf(b)
    if not lo < hi:
        raise UsageError("the interval must have A < B")
    fmt = None if coefficients == "exact" else get_format(coefficients)
    f = get_function(func).mpmath_form
    with mp.workprec(128):
        cs, err, errs, _real, real_err = constrained(f, lo, hi, mons, fmt, error == "relative")
    result = FitResult(func, (float(lo), float(hi)), mons, coefficients, error,
                       [float(c) for c in cs], float(err), float(real_err),
                       {k: float(v) for k, v in errs.items()})
    if evaluate_errors:
        result.evaluated = evaluated_errors(func, float(lo), float(hi), result.coefficients, mons,
                                            get_format(target))
    return result


__all__ = ["FitResult", "evaluate_float32", "evaluated_errors", "fit", "hex_float", "parse_bound"]
