"""Minimax polynomials: the Remez exchange in high precision (mpmath).

Fits p(x) = sum_j c_j x^(k_j) to f on [a, b], minimizing max |w(x) (f(x) - p(x))| with
w = 1 (absolute error) or w = 1/|f| (relative error).

Two cases Sollya's remez refuses are handled:

* a monomial list whose members all vanish at a point of the interval (odd monomials on an
  interval touching 0: not a Haar system there). If f has the same parity as the monomials and the
  interval is symmetric, the problem folds onto [0, b]; at 0 the error is f(0) - 0 = 0 for an odd
  f, so 0 is never an extremum and the exchange runs on (0, b] where the system is Haar;
* relative error where f has a zero at 0 that the monomials share (erf on [0, 1] with odd
  monomials): w(f - p) = 1 - p/f extends continuously to 0 and is evaluated a hair away from it.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import mpmath
import numpy as np
from mpmath import mp, mpf

MpFunc = Callable[[mpf], mpf]


@dataclass
class Minimax:
    coefficients: list[mpf]
    monomials: list[int]
    interval: tuple[mpf, mpf]
    error: mpf
    """max |w (f - p)| on a dense grid around the final reference (the sup norm)."""
    reference: list[mpf]
    iterations: int
    method: str = "remez"
    """"remez" (the exchange converged or ran its iterations) or "lawson" (its fallback)."""


def _basis(x: mpf, monomials: Sequence[int]) -> list[mpf]:
    return [x**k for k in monomials]


def _grid(a: mpf, b: mpf, n: int, avoid_zero: bool) -> list[mpf]:
    """``_chebyshev_grid`` at the working precision (kept: the re-fit asks for the same grids
    again and again, and 4,000 cosines at 128 bits take a tenth of a second)."""
    return list(_chebyshev_grid(a, b, n, avoid_zero, mp.prec))


@functools.lru_cache(maxsize=64)
def _chebyshev_grid(a: mpf, b: mpf, n: int, avoid_zero: bool, prec: int) -> tuple[mpf, ...]:
    """Chebyshev-distributed points (dense near the ends), a hair away from 0 when asked.

    The points rise with i, so duplicates (from the nudge off 0) are neighbours: one linear pass
    drops them (no set, no sort: mpf comparisons are slow)."""
    pts = [(a + b) / 2 - (b - a) / 2 * mp.cos(mp.pi * i / (n - 1)) for i in range(n)]
    if avoid_zero:
        eps = (b - a) * mpf(2) ** -40
        pts = [p if abs(p) > eps else (eps if p >= 0 else -eps) for p in pts]
    out: list[mpf] = []
    for p in pts:
        if not out or p > out[-1]:
            out.append(p)
    return tuple(out)


def memoized(f: MpFunc) -> MpFunc:
    """f with its values kept per (x, working precision): the exchange, Lawson, the re-fit and
    every sup-norm scan revisit the same grid points, and f is the costly part (mpmath)."""
    cache: dict[tuple[mpf, int], mpf] = {}

    def g(x: mpf) -> mpf:
        key = (x, mp.prec)
        y = cache.get(key)
        if y is None:
            y = cache[key] = f(x)
        return y

    return g


class _ErrorScan:
    """Weighted errors w (f - p) at many points, f(x) and the basis row of x kept per point."""

    def __init__(self, f: MpFunc, monomials: Sequence[int], relative: bool) -> None:
        self.f, self.monomials, self.relative = f, list(monomials), relative
        self.rows: dict[mpf, tuple[mpf, list[mpf]]] = {}

    def __call__(self, coeffs: Sequence[mpf], x: mpf) -> mpf:
        got = self.rows.get(x)
        if got is None:
            got = self.rows[x] = (self.f(x), _basis(x, self.monomials))
        fx, row = got
        d = fx - mpmath.fdot(coeffs, row)
        return d / abs(fx) if self.relative else d


def _local_extrema(xs: list[mpf], es: list[mpf]) -> list[int]:
    idx = []
    for i in range(len(xs)):
        left = abs(es[i - 1]) if i > 0 else mpf(-1)
        right = abs(es[i + 1]) if i + 1 < len(xs) else mpf(-1)
        if abs(es[i]) >= left and abs(es[i]) >= right:
            idx.append(i)
    return idx


def _refine(g: Callable[[mpf], mpf], x0: mpf, x1: mpf, x2: mpf, e0: mpf, e1: mpf, e2: mpf,
            steps: int = 12) -> tuple[mpf, mpf]:
    """The maximum of |g| between x0 < x1 < x2, where |g(x1)| is the largest of the three:
    successive parabolic interpolation on |g| (superlinear; a dozen steps at most, where the
    golden section needed 40 for a bracket 4e-9 of its width). Returns (x, g(x))."""
    a0, a1, a2 = abs(e0), abs(e1), abs(e2)
    for _ in range(steps):
        p, q = (x1 - x0) * (a1 - a2), (x1 - x2) * (a1 - a0)
        den = 2 * (p - q)
        if den == 0:
            break
        v = x1 - ((x1 - x0) * p - (x1 - x2) * q) / den
        if not x0 < v < x2 or v == x1:
            break
        ev = g(v)
        av = abs(ev)
        moved = abs(v - x1)
        if av > a1:  # v is the new middle, the old middle an end
            if v < x1:
                x2, a2 = x1, a1
            else:
                x0, a0 = x1, a1
            x1, e1, a1 = v, ev, av
        elif v < x1:
            x0, a0 = v, av
        else:
            x2, a2 = v, av
        if moved <= (x2 - x0) * mpf(2) ** -40:
            break
    return x1, e1


def refined_extrema(g: Callable[[mpf], mpf], pts: list[mpf]) -> list[tuple[mpf, mpf]]:
    """The local extrema of |g| over the rising points ``pts``, each inner one refined
    (``_refine``), as (x, g(x)) rising in x."""
    es = [g(x) for x in pts]
    out = []
    for i in _local_extrema(pts, es):
        if 0 < i < len(pts) - 1:
            out.append(_refine(g, pts[i - 1], pts[i], pts[i + 1], es[i - 1], es[i], es[i + 1]))
        else:
            out.append((pts[i], es[i]))
    out.sort(key=lambda t: t[0])
    return out


def _alternating(points: list[tuple[mpf, mpf]], n: int) -> list[mpf]:
    """Choose n points with alternating error signs and the largest magnitudes."""
    merged: list[tuple[mpf, mpf]] = []
    for x, e in points:
        if merged and (merged[-1][1] > 0) == (e > 0):
            if abs(e) > abs(merged[-1][1]):
                merged[-1] = (x, e)
        else:
            merged.append((x, e))
    while len(merged) > n:  # drop the weaker end, keeping alternation
        if abs(merged[0][1]) < abs(merged[-1][1]):
            merged.pop(0)
        else:
            merged.pop()
    if len(merged) < n:
        raise ArithmeticError(f"only {len(merged)} alternating extrema for {n} reference points")
    return [x for x, _ in merged]


def remez(f: MpFunc, a: float | mpf, b: float | mpf, monomials: Sequence[int],
          relative: bool = False, prec: int = 128, grid: int = 1200,
          max_iter: int = 40, tol: float = 1e-10) -> Minimax:
    """The real minimax polynomial (coefficients in high precision).

    When the exchange breaks down (too few alternating extrema on the grid, or a singular
    reference system: silu on [-1, 1] at degree 4, gelu on [-8, 8] at degree 15), the discrete
    minimax of ``lawson`` on a dense grid is returned instead (``iterations`` then counts Lawson
    steps, and ``method`` says "lawson")."""
    f = memoized(f)
    try:
        return _exchange(f, a, b, monomials, relative, prec, grid, max_iter, tol)
    except ArithmeticError:  # ZeroDivisionError (singular system) included
        return lawson(f, a, b, monomials, relative)


def lawson(f: MpFunc, a: float | mpf, b: float | mpf, monomials: Sequence[int],
           relative: bool = False, grid: int = 4000, steps: int = 400) -> Minimax:
    """Discrete minimax by Lawson's iteration (iteratively reweighted least squares): on a
    Chebyshev grid of ``grid`` points, weights w <- w |e| / sum(w |e|) after each weighted
    least-squares solve; the weighted errors converge to equioscillation on the grid.

    The solves are float64 on a basis scaled to [-1, 1] (columns x^k / max|x|^k), enough for
    coefficients that are then rounded to float32 or narrower; ``error`` is the sup norm in
    high precision (``sup_error``)."""
    monomials = list(monomials)
    with mp.workprec(128):
        a, b = mpf(a), mpf(b)
        xs = _grid(a, b, grid, a <= 0 <= b and (relative or all(k > 0 for k in monomials)))
        fx = [f(x) for x in xs]
    x64 = np.array([float(x) for x in xs])
    y64 = np.array([float(v) for v in fx])
    keep = (y64 != 0) if relative else np.ones(len(x64), bool)
    x64, y64 = x64[keep], y64[keep]
    scale = float(max(abs(a), abs(b)))
    basis = np.stack([(x64 / scale) ** k for k in monomials], axis=1)
    rel = 1 / np.abs(y64) if relative else np.ones_like(y64)
    weights = np.full(len(x64), 1 / len(x64))
    c = np.zeros(len(monomials))
    for _ in range(steps):
        sw = np.sqrt(weights) * rel
        c = _least_squares(basis * sw[:, None], y64 * sw)
        err = np.abs((y64 - basis @ c) * rel)
        total = float(np.sum(weights * err))
        # sum(w |e|) (weights summing to 1) bounds the discrete minimax error from below and
        # max |e| from above: stop once they agree to 2^-20 (each solve is a float64 SVD)
        if total == 0 or float(err.max()) - total <= total * 2.0**-20:
            break
        weights = weights * err / total
    coeffs = [mpf(float(ck)) / mpf(scale) ** k for ck, k in zip(c, monomials, strict=True)]
    e = (y64 - basis @ c) * rel
    peaks = [i for i in range(len(e)) if (i == 0 or abs(e[i]) >= abs(e[i - 1]))
             and (i == len(e) - 1 or abs(e[i]) >= abs(e[i + 1]))]
    top = sorted(sorted(peaks, key=lambda i: -abs(e[i]))[:len(monomials) + 1])
    reference = [mpf(float(x64[i])) for i in top]
    sup = sup_error(f, coeffs, monomials, a, b, relative)
    return Minimax(coeffs, monomials, (a, b), sup, reference, steps, "lawson")


def _least_squares(a: np.ndarray, y: np.ndarray) -> np.ndarray:
    """argmin |a c - y| by modified Gram-Schmidt on the augmented system [a | y] (backward
    stable for least squares, Bjorck 1967), in element-wise NumPy: on a shared machine
    lstsq's threaded LAPACK took 30 ms a solve for 4,000 x 16, this takes about 1 ms."""
    q = np.array(a.T, dtype=np.float64)  # rows are the columns of a
    z = np.array(y, dtype=np.float64)
    n = q.shape[0]
    r = np.zeros((n, n))
    d = np.zeros(n)
    for j in range(n):
        r[j, j] = np.sqrt(np.sum(q[j] * q[j]))
        q[j] /= r[j, j]
        r[j, j + 1:] = np.sum(q[j + 1:] * q[j], axis=1)
        q[j + 1:] -= r[j, j + 1:, None] * q[j]
        d[j] = np.sum(q[j] * z)
        z -= d[j] * q[j]
    c = np.zeros(n)
    for j in range(n - 1, -1, -1):
        c[j] = (d[j] - np.sum(r[j, j + 1:] * c[j + 1:])) / r[j, j]
    return c


def _exchange(f: MpFunc, a: float | mpf, b: float | mpf, monomials: Sequence[int],
              relative: bool, prec: int, grid: int, max_iter: int, tol: float) -> Minimax:
    monomials = list(monomials)
    n = len(monomials)
    with mp.workprec(prec):
        a, b = mpf(a), mpf(b)
        fold = False
        if a == -b and all(k % 2 == monomials[0] % 2 for k in monomials):
            probe = [b / 3, b / 7, b * 5 / 11]
            sign = -1 if monomials[0] % 2 else 1
            fold = all(abs(f(-p) - sign * f(p)) <= abs(f(p)) * mpf(2) ** (20 - prec) for p in probe)
        lo = mpf(0) if fold else a
        zero_inside = lo <= 0 <= b
        avoid_zero = zero_inside and (fold or relative or all(k > 0 for k in monomials))
        xs = _grid(lo, b, grid, avoid_zero)
        scan = _ErrorScan(f, monomials, relative)
        # initial reference: n + 1 Chebyshev extrema of the (possibly folded) interval; when the
        # error must vanish at 0 = lo, the first point moves inside (the error cannot peak at 0)
        if avoid_zero and lo == 0:
            ref = [b * (1 - mp.cos(mp.pi * (i + 1) / (n + 1))) / 2 for i in range(n + 1)]
        else:
            ref = _grid(lo, b, n + 1, avoid_zero)
        level = mpf(0)
        coeffs = [mpf(0)] * n
        for it in range(1, max_iter + 1):
            rows, rhs = [], []
            for i, x in enumerate(ref):
                fx = f(x)
                w = 1 / abs(fx) if relative else mpf(1)
                rows.append([*_basis(x, monomials), (-1) ** i / w])
                rhs.append(fx)
            sol = mpmath.lu_solve(mpmath.matrix(rows), mpmath.matrix(rhs))
            coeffs = [sol[j] for j in range(n)]
            level = abs(sol[n])

            def err(x: mpf, c: Sequence[mpf] = coeffs) -> mpf:
                return scan(c, x)

            cands = refined_extrema(err, _merge(xs, ref))
            if not cands:  # every error NaN: the system's solution is not finite
                raise ArithmeticError("no finite error on the grid")
            sup = max(abs(e) for _, e in cands)
            new_ref = _alternating(cands, n + 1)
            if sup - level <= tol * sup:
                ref = new_ref
                return Minimax(coeffs, monomials, (a, b), sup, ref, it)
            ref = new_ref
        return Minimax(coeffs, monomials, (a, b), sup, ref, max_iter)


def sup_error(f: MpFunc, coeffs: Sequence[mpf], monomials: Sequence[int], a: mpf, b: mpf,
              relative: bool = False, grid: int = 4000, prec: int = 128) -> mpf:
    """max |w (f - p)| on a dense grid with each local maximum refined."""
    with mp.workprec(prec):
        a, b = mpf(a), mpf(b)
        xs = _grid(a, b, grid, a <= 0 <= b)

        scan = _ErrorScan(f, monomials, relative)

        def err(x: mpf) -> mpf:
            return scan(coeffs, x)

        es = [err(x) for x in xs]
        best = max(abs(e) for e in es)
        for i in _local_extrema(xs, es):
            if 0 < i < len(xs) - 1:
                best = max(best, abs(_refine(err, xs[i - 1], xs[i], xs[i + 1], es[i - 1], es[i],
                                             es[i + 1])[1]))
        return best


def _merge(xs: list[mpf], ys: list[mpf]) -> list[mpf]:
    """The union of two rising lists, rising, in one pass."""
    out: list[mpf] = []
    i = j = 0
    while i < len(xs) or j < len(ys):
        if j == len(ys) or (i < len(xs) and xs[i] <= ys[j]):
            v, i = xs[i], i + 1
        else:
            v, j = ys[j], j + 1
        if not out or v > out[-1]:
            out.append(v)
    return out
