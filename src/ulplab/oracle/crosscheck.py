"""An independent second opinion on the oracle: mpmath values, rounded by table lookup.

Nothing here is shared with the Arb oracle's evaluation or rounding code; the two share only the
function module's statement of f(±inf) and of its exact cases:

* values come from mpmath (with gmpy2 when installed) using mpmath's own functions (the function
  module's ``mpmath_form``), at a working precision that starts at 64 + 2*|exponent of x| bits
  and doubles (mpmath, unlike Arb, does not add the bits that exp(-x^2) needs for a huge x by
  itself);
* rounding to nearest-even is decided by locating the value in the sorted list of every finite
  value of the format (decoded by ml_dtypes) and comparing it with the midpoints between
  neighbours; a value within 2^-(P-8) (relative) of a midpoint is not trusted, and the precision
  doubles;
* NaN, infinities, zeros and exact values come from the function module (``at_inf``, ``exact``);
  an exact value is rounded with ties to even.

mpmath is not rigorous (its results are accurate, not proven), which is why it is the check and
Arb the oracle. The check covers round-to-nearest-even: in directed modes a saturated value such
as tanh(1e30) lands exactly on a representable number in mpmath, which cannot say which side the
truth lies; those modes are tested through their relations to nearest-even instead.
"""

from __future__ import annotations

import bisect
import functools
import itertools
import math
import os
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
from ulplab.functions import get_function
from ulplab.oracle.workers import pool_context, started_without_main, watch_main, worker_count

MAX_PRECISION = 4096


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


def _special(name: str, x: float) -> float | Fraction | None:
    """NaN, f(±inf) and the function module's exact cases (zeros, domain edges, Fractions)."""
    if math.isnan(x):
        return math.nan
    if math.isinf(x):
        return get_function(name).at_inf[0 if x > 0 else 1]
    return get_function(name).exact(x)


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


@functools.lru_cache(maxsize=8)
def _midpoints(fmt: Format) -> tuple[list[float], list[float], list[mpf], list[int], mpf]:
    """For the common path of ``_round_nearest``: the sorted values as Python floats, the
    midpoints between neighbours (exact: the values have few bits) with -inf/+inf at the ends,
    the same as mpf numbers, the patterns, and the overflow boundary max + ulp(max)/2."""
    vals, bits = _table(fmt)
    v = vals.tolist()
    mids = [-math.inf] + [(a + b) / 2 for a, b in itertools.pairwise(v)] + [math.inf]
    top = mpf(v[-1] + (v[-1] - v[-2]) / 2)
    return v, mids, [mpf(m) for m in mids], [int(b) for b in bits], top


def _round_nearest(v: mpf, negative_zero: bool, fmt: Format, prec: int,
                   exact: bool = False) -> int | None:
    """Nearest-even pattern of v, or None when v is too close to a midpoint to trust.

    With ``exact`` (v is the exact value, not an approximation) a tie goes to the even pattern.
    """
    if not fmt.signed and v <= 0:
        return fmt.nan_bits  # float8_e8m0fnu holds positive values only
    fvals, mids, mids_mp, fbits, top = _midpoints(fmt)
    av = abs(v)
    if av >= top:  # overflow boundary: max + ulp(max)/2
        if av - top <= mp.ldexp(av, 8 - prec):
            return None
        return _encode_special(math.copysign(math.inf, v), fmt)  # the format's overflow rule
    approx = float(v)
    if not exact:
        # the interval [mid j, mid j+1] that holds float(v), or a neighbour when float(v) is
        # a midpoint itself: v lies in one of them with the margin, or is not trusted
        i = min(max(bisect.bisect_left(mids, approx) - 1, 0), len(fvals) - 1)
        margin = mp.ldexp(av, 16 - prec)
        for j in (i, i + 1, i - 1):
            if 0 <= j < len(fvals) and mids_mp[j] + margin < v < mids_mp[j + 1] - margin:
                b = fbits[j]
                if fvals[j] == 0 and negative_zero and fmt.has_neg_zero:
                    b |= fmt.sign_bit
                return b
        return None
    vals, bits = _table(fmt)
    i = int(np.clip(np.searchsorted(vals, approx), 1, len(vals) - 2))
    margin = 0
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
    if isinstance(s, Fraction):  # an exact value (2^k, log2(2^k) = k ...): in fp8 it may be a tie
        with mp.workprec(64 + max(s.numerator.bit_length(), s.denominator.bit_length())):
            exact = mpf(s.numerator) / s.denominator  # exact: the denominator is a power of 2
            return _round_nearest(exact, False, fmt, 64, exact=True)
    if s is not None:
        return _encode_special(s, fmt)
    function = get_function(name)
    f = function.mpmath_form
    e = math.frexp(x)[1]
    prec = 64 + 2 * abs(e)  # tiny x: f(x) near x; huge x: x^2 needs 2e bits before exp()
    while prec <= MAX_PRECISION:
        with mp.workprec(prec):
            v = f(mpf(x))
            neg_zero = v < 0 or (v == 0 and x < 0 and function.negative_for_negative_x)
            r = _round_nearest(v, neg_zero, fmt, prec)
        if r is not None:
            return r
        prec *= 2
    raise ArithmeticError(f"cross-check undecided for {name}({x.hex()}) at {MAX_PRECISION} bits")


def _chunk(name: str, fmt_name: str, start: int, stop: int) -> tuple[int, np.ndarray]:
    fmt = get_format(fmt_name)
    xs = to_values(np.arange(start, stop, dtype=np.int64).astype(fmt.uint), fmt)
    return start, np.array([check_value(name, x, fmt) for x in xs.tolist()], dtype=np.int64)


def crosscheck_table(name: str, fmt: Format | str, workers: int = 0,
                     advance: Callable[[int], None] | None = None) -> np.ndarray:
    """Nearest-even results for every pattern of ``fmt`` by the independent method
    (``advance(n)`` is called as each chunk of ``n`` patterns is done)."""
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
            if advance is not None:
                advance(len(r))
    else:
        with ProcessPoolExecutor(max_workers=n, mp_context=pool_context(),
                                 initializer=watch_main, initargs=(os.getpid(),)) as pool:
            with started_without_main():  # map submits every task, starting the workers
                results = pool.map(_chunk, *zip(*tasks, strict=True))
            for s, r in results:
                out[s:s + len(r)] = r
                if advance is not None:
                    advance(len(r))
    return out.astype(fmt.uint)


__all__ = ["check_value", "crosscheck_table"]
