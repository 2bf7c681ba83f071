"""Minimax rational functions: the rational Remez exchange in high precision (mpmath).

Fits R(x) = P(x)/Q(x), P of degree n and Q of degree m with Q(0) = 1, to f on [a, b],
minimizing max |e(x)| with e = R/f - 1 (relative error) or R - f (absolute error).

The best approximation equioscillates on n + m + 2 points (where the defect is zero, which the
caller checks through ``error`` against ``level``). On a reference x_0 < ... < x_{n+m+1} the
exchange solves the nonlinear system P(x_i) = Q(x_i) (f(x_i) + (-1)^i E w_i), w_i = f(x_i) for
the relative error and 1 for the absolute one, by Newton's method in (p, q, E) from the last
solution, then moves the reference to the alternating extrema of e on a dense grid (each local
extremum refined as ``remez`` does), until the largest |e| and |E| agree.

The start is a weighted linearized least-squares fit (Loeb's iteration: |P - f Q| / |w Q_prev|
minimized, the weights of Lawson's iteration on top) on a Chebyshev grid in float64 on the
scaled variable x/max(|a|, |b|): it only has to put the first reference near the right
alternation; every later step runs at ``prec`` bits.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import mpmath
import numpy as np
from mpmath import mp, mpf

from ulplab.fit.remez import (
    MpFunc,
    _alternating,
    _grid,
    _least_squares,
    _merge,
    memoized,
    refined_extrema,
)


@dataclass
class RationalMinimax:
    p: list[mpf]
    """P's coefficients, low to high."""
    q: list[mpf]
    """Q's coefficients, low to high (q[0] = 1)."""
    interval: tuple[mpf, mpf]
    error: mpf
    """max |e| on a dense grid around the final reference (the sup norm)."""
    level: mpf
    """|E| of the last reference system (the equioscillation level)."""
    reference: list[mpf]
    iterations: int


def _start(f: MpFunc, a: mpf, b: mpf, n: int, m: int, relative: bool,
           grid: int = 800, steps: int = 60) -> tuple[list[mpf], list[mpf]]:
    """Loeb's linearized least squares with Lawson's weights, float64, on x / max(|a|, |b|)."""
    xs = _grid(a, b, grid, relative and a <= 0 <= b)
    scale = float(max(abs(a), abs(b)))
    t = np.array([float(x) for x in xs]) / scale
    fx = np.array([float(f(x)) for x in xs])
    w = np.abs(fx) if relative else np.ones_like(fx)
    powers = np.stack([t**k for k in range(max(n, m) + 1)], axis=1)
    qprev = np.ones_like(t)
    lawson = np.full(len(t), 1 / len(t))
    c = np.zeros(n + 1 + m)
    for _ in range(steps):
        s = np.sqrt(lawson) / (w * qprev)
        basis = np.concatenate([powers[:, :n + 1], -fx[:, None] * powers[:, 1:m + 1]], axis=1)
        c = _least_squares(basis * s[:, None], fx * s)
        q = 1 + powers[:, 1:m + 1] @ c[n + 1:]
        err = np.abs((powers[:, :n + 1] @ c[:n + 1] / q - fx) / w)
        total = float(np.sum(lawson * err))
        if total == 0:
            break
        lawson = lawson * err / total
        qprev = q
    p = [mpf(float(c[j])) / mpf(scale) ** j for j in range(n + 1)]
    q = [mpf(1)] + [mpf(float(c[n + j])) / mpf(scale) ** j for j in range(1, m + 1)]
    return p, q


def _solve(f: MpFunc, ref: Sequence[mpf], p: list[mpf], q: list[mpf], level: mpf,
           relative: bool, steps: int = 30) -> tuple[list[mpf], list[mpf], mpf]:
    """Newton's method on P(x_i) - Q(x_i) (f_i + (-1)^i E w_i) = 0, unknowns p, q[1:], E."""
    n, m = len(p) - 1, len(q) - 1
    fs = [f(x) for x in ref]
    ws = [abs(v) if relative else mpf(1) for v in fs]
    u = [*p, *q[1:], level]
    for _ in range(steps):
        pp, qq, e = u[:n + 1], [mpf(1), *u[n + 1:n + 1 + m]], u[-1]
        jac, res = [], []
        for i, x in enumerate(ref):
            s = 1 if i % 2 == 0 else -1
            target = fs[i] + s * e * ws[i]
            qx = mpmath.polyval(qq[::-1], x)
            res.append(mpmath.polyval(pp[::-1], x) - qx * target)
            powers = [x**j for j in range(max(n, m) + 1)]
            jac.append([*powers[:n + 1], *[-target * powers[j] for j in range(1, m + 1)],
                        -s * ws[i] * qx])
        du = mpmath.lu_solve(mpmath.matrix(jac), mpmath.matrix(res))
        u = [ui - du[k] for k, ui in enumerate(u)]
        if max(abs(du[k]) / max(abs(u[k]), mpf(2) ** -(mp.prec // 2)) for k in range(len(u))) \
                < mpf(2) ** (-(mp.prec - 16)):
            break
    return u[:n + 1], [mpf(1), *u[n + 1:n + 1 + m]], u[-1]


def rational_remez(f: MpFunc, a: float | mpf, b: float | mpf, n: int, m: int,
                   relative: bool = True, prec: int = 128, grid: int = 1200,
                   max_iter: int = 40, tol: float = 1e-12) -> RationalMinimax:
    """The minimax rational function P/Q (degrees ``n``, ``m``; Q(0) = 1) of f on [a, b], in
    ``prec``-bit arithmetic (the module docstring). An ``ArithmeticError`` where the exchange
    finds too few alternating extrema or the system is singular (a degenerate approximation:
    ask for lower degrees)."""
    if n < 0 or m < 0:
        raise ValueError(f"degrees must be >= 0, not ({n}, {m})")
    f = memoized(f)
    with mp.workprec(prec):
        a, b = mpf(a), mpf(b)
        p, q = _start(f, a, b, n, m, relative)
        xs = _grid(a, b, grid, relative and a <= 0 <= b)
        count = n + m + 2

        def err(x: mpf, p: Sequence[mpf], q: Sequence[mpf]) -> mpf:
            fx = f(x)
            r = mpmath.polyval(p[::-1], x) / mpmath.polyval(q[::-1], x)
            return r / fx - 1 if relative else r - fx

        def extrema(p: Sequence[mpf], q: Sequence[mpf], pts: list[mpf]) -> list[tuple[mpf, mpf]]:
            return refined_extrema(lambda x: err(x, p, q), pts)

        cands = extrema(p, q, xs)
        ref = _alternating(cands, count)
        level = sum(abs(e) for x, e in cands if x in ref) / count
        sup = max(abs(e) for _, e in cands)
        for it in range(1, max_iter + 1):
            sign = 1 if err(ref[0], p, q) >= 0 else -1
            p, q, e = _solve(f, ref, p, q, sign * level, relative)
            level = abs(e)
            cands = extrema(p, q, _merge(xs, ref))
            sup = max(abs(v) for _, v in cands)
            ref_next = _alternating(cands, count)
            if sup - level <= tol * sup:
                return RationalMinimax(p, q, (a, b), sup, level, ref_next, it)
            ref = ref_next
        return RationalMinimax(p, q, (a, b), sup, level, ref, max_iter)


__all__ = ["RationalMinimax", "rational_remez"]
