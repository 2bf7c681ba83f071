"""An independent second opinion on the oracle: mpmath values, rounded by table lookup.

Nothing here is shared with the Arb oracle's evaluation or rounding code:

* values come from mpmath (with gmpy2 when installed) using mpmath's own functions, at a working
  precision that starts at 64 + 2*|exponent of x| bits and doubles (mpmath, unlike Arb, does
  not add the bits that exp(-x^2) needs for a huge x by itself);
* rounding to nearest-even is decided by locating the value in the sorted list of every finite
  value of the format (decoded by ml_dtypes) and comparing it with the midpoints between
  neighbours; a value within 2^-(P-8) (relative) of a midpoint is not trusted, and the precision
  doubles;
* NaN, infinities and zeros have their own table.

mpmath is not rigorous (its results are accurate, not proven), which is why it is the check and
Arb the oracle. The check covers round-to-nearest-even: in directed modes a saturated value such
as tanh(1e30) lands exactly on a representable number in mpmath, which cannot say which side the
truth lies; those modes are tested through their relations to nearest-even instead.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from fractions import Fraction

import numpy as np
from mpmath import mp, mpf

from ulplab.formats import (
    Format,
    all_patterns,
    get_format,
    is_finite,
    round_to_format,
    to_values,
)
from ulplab.oracle.workers import pool_context, worker_count

MAX_PRECISION = 4096


def _gelu_tanh(x: mpf) -> mpf:
    k = mp.sqrt(2 / mp.pi)
    c = mpf(44715) / 10**6
    return x / (1 + mp.exp(-2 * k * (x + c * x**3)))  # = x/2 (1 + tanh u), no cancellation


MPMATH_FUNCTIONS: dict[str, Callable[[mpf], mpf]] = {
    "gelu": lambda x: x * mp.erfc(-x / mp.sqrt(2)) / 2,
    "gelu_tanh": _gelu_tanh,
    "tanh": mp.tanh,
    "exp": mp.exp,
    "exp2": lambda x: mp.power(2, x),
    "log": mp.log,
    "log2": lambda x: mp.log(x, 2),
    "sin": mp.sin,
    "cos": mp.cos,
    "sigmoid": lambda x: 1 / (1 + mp.exp(-x)),
    "softplus": lambda x: mp.log1p(mp.exp(x)) if x < 0 else x + mp.log1p(mp.exp(-x)),
    "silu": lambda x: x / (1 + mp.exp(-x)),
    "erf": mp.erf,
    "erfc": mp.erfc,
    "gelu_grad": lambda x: mp.erfc(-x / mp.sqrt(2)) / 2 + x * mp.npdf(x),
    "tanh_grad": lambda x: mp.sech(x) ** 2,
}

# sign of f(x) for x != 0 where the value may underflow to an unsigned mpmath zero
_NEGATIVE_FOR_NEGATIVE_X = {"gelu", "gelu_tanh", "silu", "gelu_grad", "tanh", "erf", "sin"}

_INF = math.inf
_SPECIAL_INF = {  # (f(+inf), f(-inf))
    "gelu": (_INF, -0.0), "gelu_tanh": (_INF, -0.0), "silu": (_INF, -0.0),
    "tanh": (1.0, -1.0), "erf": (1.0, -1.0), "erfc": (0.0, 2.0), "exp": (_INF, 0.0),
    "exp2": (_INF, 0.0), "log": (_INF, math.nan), "log2": (_INF, math.nan),
    "sin": (math.nan, math.nan), "cos": (math.nan, math.nan), "sigmoid": (1.0, 0.0),
    "softplus": (_INF, 0.0), "gelu_grad": (1.0, -0.0), "tanh_grad": (0.0, 0.0),
}


@functools.lru_cache(maxsize=8)
def _table(fmt: Format) -> tuple[np.ndarray, np.ndarray]:
    """Sorted distinct finite values and the patterns that encode them (+0 for zero)."""
    bits = all_patterns(fmt)
    bits = bits[is_finite(bits, fmt)]
    vals = to_values(bits, fmt)
    order = np.argsort(vals, kind="stable")
    vals, bits = vals[order], bits[order]
    keep = np.concatenate([[True], vals[1:] != vals[:-1]])  # -0 sorts before +0: drop one
    vals, bits = vals[keep], bits[keep]
    if fmt.has_zero:
        bits[int(np.searchsorted(vals, 0.0))] = 0
    return vals, bits


def _special(name: str, x: float) -> float | None:
    if math.isnan(x):
        return math.nan
    if math.isinf(x):
        return _SPECIAL_INF[name][0 if x > 0 else 1]
    if x == 0 and name in ("gelu", "gelu_tanh", "silu", "tanh", "erf", "sin"):
        return x
    if x <= 0 and name in ("log", "log2"):
        return -_INF if x == 0 else math.nan
    return None


def _encode_special(v: float, fmt: Format) -> int:
    """Pattern of an exact special value (NaN, +-inf, +-0, a value of ``fmt``): ``fmt``'s rules
    for NaN, infinities (inf, NaN or the largest finite value) and -0 apply."""
    if math.isfinite(v) and v != 0 and v not in _table(fmt)[0]:
        raise AssertionError(f"special value {v} is not in {fmt.name}")
    return int(round_to_format(np.array([v]), fmt)[0])


def _significand_is_even(v: float, other: float, fmt: Format) -> bool:
    """Is ``v`` an even multiple of the quantum below the larger of ``v`` and ``other``?

    The tie rule: of two neighbours, nearest-even picks the one whose significand is even in the
    binade of the smaller (with precision 1, float8_e8m0fnu, always the larger).
    """
    low = min(abs(v), abs(other))
    e = math.frexp(low)[1] - 1 if low else fmt.emin
    q = max(e, fmt.emin) - fmt.precision + 1
    return (Fraction(abs(v)) / Fraction(2) ** q) % 2 == 0


def _round_nearest(v: mpf, negative_zero: bool, fmt: Format, prec: int,
                   exact: bool = False) -> int | None:
    """Nearest-even pattern of v, or None when v is too close to a midpoint to trust.

    With ``exact`` (v is the exact value, not an approximation) a tie goes to the even pattern.
    """
    vals, bits = _table(fmt)
    if not fmt.signed and v <= 0:
        return fmt.nan_bits  # float8_e8m0fnu holds positive values only
    top = vals[-1] + (vals[-1] - vals[-2]) / 2  # overflow boundary: max + ulp(max)/2
    if abs(v) >= top:
        if abs(v) - top <= abs(v) * mpf(2) ** (8 - prec):
            return None
        return _encode_special(math.copysign(math.inf, v), fmt)  # the format's overflow rule
    approx = float(v)
    i = int(np.clip(np.searchsorted(vals, approx), 1, len(vals) - 2))
    margin = 0 if exact else abs(v) * mpf(2) ** (16 - prec)
    for j in (i - 1, i, i + 1):
        lo = (vals[j - 1] + vals[j]) / 2 if j > 0 else -math.inf
        hi = (vals[j] + vals[j + 1]) / 2 if j + 1 < len(vals) else math.inf
        inside = lo + margin < v < hi - margin
        if exact and ((v == lo and _significand_is_even(vals[j], vals[j - 1], fmt)) or
                      (v == hi and _significand_is_even(vals[j], vals[j + 1], fmt))):
            inside = True
        if inside:
            b = int(bits[j])
            if vals[j] == 0 and negative_zero and fmt.has_neg_zero:
                b |= fmt.sign_bit
            return b
    return None


def check_value(name: str, x: float, fmt: Format) -> int:
    """Nearest-even pattern of f(x) in ``fmt`` by the independent method."""
    s = _special(name, x)
    if s is not None:
        return _encode_special(s, fmt)
    f = MPMATH_FUNCTIONS[name]
    if name == "exp2" and x == int(x) and abs(x) < 4096:  # 2^k is exact: it may be a tie
        with mp.workprec(64):
            return _round_nearest(mp.ldexp(mpf(1), int(x)), False, fmt, 64, exact=True)
    if name == "log2" and x > 0 and math.frexp(x)[0] == 0.5:  # log2(2^k) = k: a tie in fp8
        with mp.workprec(64):
            return _round_nearest(mpf(math.frexp(x)[1] - 1), False, fmt, 64, exact=True)
    e = math.frexp(x)[1]
    prec = 64 + 2 * abs(e)  # tiny x: f(x) near x; huge x: x^2 needs 2e bits before exp()
    while prec <= MAX_PRECISION:
        with mp.workprec(prec):
            v = f(mpf(x))
            neg_zero = v < 0 or (v == 0 and x < 0 and name in _NEGATIVE_FOR_NEGATIVE_X)
            r = _round_nearest(v, neg_zero, fmt, prec)
        if r is not None:
            return r
        prec *= 2
    raise ArithmeticError(f"cross-check undecided for {name}({x.hex()}) at {MAX_PRECISION} bits")


def _chunk(name: str, fmt_name: str, start: int, stop: int) -> tuple[int, np.ndarray]:
    fmt = get_format(fmt_name)
    xs = to_values(np.arange(start, stop, dtype=np.int64).astype(fmt.uint), fmt)
    return start, np.array([check_value(name, x, fmt) for x in xs.tolist()], dtype=np.int64)


def crosscheck_table(name: str, fmt: Format | str, workers: int = 0) -> np.ndarray:
    """Nearest-even results for every pattern of ``fmt`` by the independent method."""
    fmt = get_format(fmt)
    step = 2048
    tasks = [(name, fmt.name, s, min(s + step, fmt.n_patterns))
             for s in range(0, fmt.n_patterns, step)]
    out = np.zeros(fmt.n_patterns, dtype=np.int64)
    n = workers or worker_count()
    if n == 1:
        for t in tasks:
            s, r = _chunk(*t)
            out[s:s + len(r)] = r
    else:
        with ProcessPoolExecutor(max_workers=n, mp_context=pool_context()) as pool:
            for s, r in pool.map(_chunk, *zip(*tasks, strict=True)):
                out[s:s + len(r)] = r
    return out.astype(fmt.uint)


__all__ = ["MPMATH_FUNCTIONS", "check_value", "crosscheck_table"]
