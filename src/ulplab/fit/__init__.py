"""The minimax fitter: real minimax (Remez), coefficients in a format (lattice / re-fit), and the
error of the polynomial *as evaluated* in float32, with and without FMA.

``fit`` is what ``ulplab fit`` runs. Its evaluation order is fixed: for monomials k0, k0+s, k0+2s,
... the polynomial is evaluated as x^k0 * Horner(x^s) (e.g. sin's 1,3,5,7 as x * q(x^2)),
each Horner step an FMA or a multiply then an add; x^s and x^k0 are float32 products.
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable, Sequence
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


MAX_DEGREE = 40
"""The highest monomial ``fit`` takes: its Remez runs in 128-bit arithmetic on a 1,200-point
grid, and a float32 polynomial of higher degree gains nothing on any interval here."""
MAX_BOUND_CHARS = 500
FLOAT32_MAX = mpf(float.fromhex("0x1.fffffep+127"))


def parse_bound(text: str) -> mpf:
    """An interval end: a decimal, a hex float, or an expression such as -pi/4 or log(2).

    The value must be a finite real within float32's range (the polynomial is evaluated in
    float32); anything else is a ``UsageError`` naming the bound.
    """
    t = text.strip()
    usage = ("expected a number or an expression of pi, e, ln2, sqrt(), log(), exp() with a "
             "finite real value")
    if len(t) > MAX_BOUND_CHARS:
        raise UsageError(f"interval bound of {len(t)} characters: at most {MAX_BOUND_CHARS}")
    try:
        if t.lower().startswith(("0x", "-0x", "+0x")):
            value = mpf(float.fromhex(t))
        else:
            value = _evaluate_bound(ast.parse(t, mode="eval").body, text)
    except (ValueError, SyntaxError, ZeroDivisionError, OverflowError, RecursionError,
            TypeError, MemoryError):
        raise UsageError(f"malformed interval bound {text!r}: {usage}") from None
    if not isinstance(value, mpf) or not mp.isfinite(value):
        raise UsageError(f"interval bound {text.strip()!r} is not a finite real number")
    if abs(value) > FLOAT32_MAX:
        raise UsageError(f"interval bound {text.strip()!r} lies outside float32's range "
                         "(the polynomial is evaluated in float32)")
    return value


def _evaluate_bound(node: ast.AST, text: str) -> Any:
    def ev(n: ast.AST) -> Any:
        if isinstance(n, ast.Constant) and isinstance(n.value, int | float) \
                and not isinstance(n.value, bool):
            return mpf(str(n.value))
        if isinstance(n, ast.Name) and n.id in _CONSTANTS:
            return mpf(_CONSTANTS[n.id]())  # mpmath's constants are lazy objects, not mpf
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.USub | ast.UAdd):
            v = ev(n.operand)
            return -v if isinstance(n.op, ast.USub) else v
        if isinstance(n, ast.BinOp) and type(n.op) in _BINOPS:
            return _BINOPS[type(n.op)](ev(n.left), ev(n.right))
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in _CALLS \
                and len(n.args) == 1 and not n.keywords:
            arg = ev(n.args[0])
            if not isinstance(arg, mpf) or abs(arg) > mpf(2) ** 64:  # exp(exp(...)) stops here
                raise OverflowError
            return _CALLS[n.func.id](arg)
        raise ValueError

    with mp.workprec(256):
        return ev(node)


def _check_defined(func: str, lo: mpf, hi: mpf) -> None:
    """``func`` must be real and finite, within float32's range, on [lo, hi] (sampled at 65
    Chebyshev points and both ends), and sin/cos must not turn more often than a polynomial of
    degree MAX_DEGREE can: else a one-line UsageError saying why."""
    if func in ("sin", "cos") and (hi - lo) / mp.pi > MAX_DEGREE:
        raise UsageError(f"{func} has {mp.nstr((hi - lo) / mp.pi, 3)} extrema on "
                         f"[{mp.nstr(lo, 8)}, {mp.nstr(hi, 8)}]; a polynomial of degree "
                         f"<= {MAX_DEGREE} has fewer turns: fit a reduced range, e.g. "
                         "-pi/4 pi/4")
    f = get_function(func).mpmath_form
    with mp.workprec(64):
        points = [lo, hi] + [(lo + hi) / 2 - (hi - lo) / 2 * mp.cos(mp.pi * i / 64)
                             for i in range(65)]
        for x in points:
            try:
                y = f(x)
            except (ValueError, ZeroDivisionError, OverflowError):
                y = None
            if not isinstance(y, mpf) or not mp.isfinite(y):
                raise UsageError(f"{func} is not a finite real number at x = "
                                 f"{mp.nstr(x, 8)} in [{mp.nstr(lo, 8)}, {mp.nstr(hi, 8)}]")
            if abs(y) > FLOAT32_MAX:
                raise UsageError(f"{func}(x) exceeds float32's range at x = {mp.nstr(x, 8)}: "
                                 "a float32 polynomial cannot follow it there")


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


def _float32_count(a: float, b: float) -> int:
    """How many float32 values lie in [a, b] (+0 and -0 counted once): ordinals of the bits."""
    lo = np.float32(a) if np.float32(a) >= a else np.nextafter(np.float32(a), np.float32(np.inf))
    hi = np.float32(b) if np.float32(b) <= b else np.nextafter(np.float32(b), np.float32(-np.inf))

    def ordinal(v: np.float32) -> int:
        i = int(np.array([v], np.float32).view(np.int32)[0])
        return i if i >= 0 else -(i & 0x7FFFFFFF)

    return max(ordinal(hi) - ordinal(lo) + 1, 0)


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
                                       "exhaustive": int(xs.size) == _float32_count(a, b)}}
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
        evaluate_errors: bool = True,
        advance: Callable[[int], None] | None = None) -> FitResult:
    """The minimax fit and its float32 evaluation; ``advance(1)`` after each of the two stages
    (a progress bar's steps)."""
    get_function(func)
    if coefficients not in ("float32", "bfloat16", "float16", "exact"):
        raise UsageError(f"unknown coefficient format {coefficients!r}; valid: float32, "
                         "bfloat16, float16, exact")
    if error not in ("absolute", "relative"):
        raise UsageError(f"unknown error kind {error!r}; valid: absolute, relative")
    mons = sorted(set(int(k) for k in monomials))
    if not mons or mons[0] < 0 or mons[-1] > MAX_DEGREE:
        raise UsageError(f"monomials must be integers from 0 to {MAX_DEGREE}")
    if not get_format(target).exhaustive:
        raise UsageError(f"--format {target}: the target's every value in the interval is "
                         "measured, so it must be bfloat16, float16 or an fp8 format (float32 "
                         "is always measured, on samples)")
    lo = parse_bound(a) if isinstance(a, str) else mpf(a)
    hi = parse_bound(b) if isinstance(b, str) else mpf(b)
    if not lo < hi:
        raise UsageError("the interval must have A < B")
    _check_defined(func, lo, hi)
    fmt = None if coefficients == "exact" else get_format(coefficients)
    f = get_function(func).mpmath_form
    with mp.workprec(128):
        cs, err, errs, _real, real_err = constrained(f, lo, hi, mons, fmt, error == "relative")
    if advance is not None:
        advance(1)
    result = FitResult(func, (float(lo), float(hi)), mons, coefficients, error,
                       [float(c) for c in cs], float(err), float(real_err),
                       {k: float(v) for k, v in errs.items()})
    if evaluate_errors:
        result.evaluated = evaluated_errors(func, float(lo), float(hi), result.coefficients, mons,
                                            get_format(target))
    if advance is not None:
        advance(1)
    return result


__all__ = ["MAX_DEGREE", "FitResult", "evaluate_float32", "evaluated_errors", "fit", "hex_float",
           "parse_bound"]
