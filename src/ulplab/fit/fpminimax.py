"""Coefficients constrained to a format: closest-vector search on a lattice, as fpminimax does.

Method (Brisebarre & Chevillard, "Efficient polynomial L-infinity approximations", ARITH 2007;
the algorithm behind Sollya's fpminimax): take the real minimax p* and its reference points
x_1..x_n. Give each coefficient the exponent of its real value, so c_j = m_j 2^(e_j) with an
integer m_j of the format's precision. Then p(x_i) ~ f(x_i) for all i is a closest-vector problem
in the lattice spanned by b_j = (2^(e_j) x_i^(k_j) w(x_i))_i: reduce the basis with LLL
(python-flint's fmpz_mat.lll) and round the target with Babai's nearest-plane step.

Three candidates are scored by their sup-norm error on a dense grid and the best is kept: the
lattice solution, naive rounding of p*, and re-fitting (fix c_0 rounded, re-run Remez on the rest,
and so on up the degrees).
"""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Callable, Sequence
from fractions import Fraction

import mpmath
from flint import fmpz_mat
from mpmath import mp, mpf

from ulplab.fit.remez import memoized, remez, sup_error
from ulplab.formats import Format, round_value, to_values

MpFunc = Callable[[mpf], mpf]


def round_coefficient(c: mpf, fmt: Format | None) -> mpf:
    """c rounded to nearest-even in ``fmt`` (None: exact, unchanged)."""
    if fmt is None:
        return c
    import numpy as np

    c = mpf(c)
    man, exp = abs(c).man_exp  # mpmath keeps the sign apart from the significand
    value = Fraction(int(man)) * Fraction(2) ** int(exp)
    bits = round_value(-value if c < 0 else value, fmt)
    return mpf(float(to_values(np.array([bits]), fmt)[0]))


def _exponent(c: mpf, fmt: Format) -> int:
    if c == 0:
        return fmt.emin - fmt.precision + 1
    e = int(mp.floor(mp.log(abs(c), 2)))
    return max(e, fmt.emin) - (fmt.precision - 1)


def lattice_coefficients(f: MpFunc, real: Sequence[mpf], monomials: Sequence[int],
                         points: Sequence[mpf], fmt: Format, relative: bool,
                         prec: int = 160) -> list[mpf]:
    """The closest lattice vector to f at ``points`` (see the module docstring)."""
    with mp.workprec(prec):
        exps = [_exponent(c, fmt) for c in real]
        ws = [1 / abs(f(x)) if relative else mpf(1) for x in points]
        scale = mpf(2) ** (prec - 40)
        basis = [[int(mp.nint(mpf(2) ** e * x**k * w * scale)) for x, w in zip(points, ws,
                                                                               strict=True)]
                 for e, k in zip(exps, monomials, strict=True)]
        target = [f(x) * w * scale for x, w in zip(points, ws, strict=True)]
        reduced, transform = fmpz_mat(basis).lll(transform=True)
        rows = [[mpf(int(v)) for v in row] for row in reduced.tolist()]
        # Gram-Schmidt of the reduced rows, then Babai's nearest plane from the last row
        gs: list[list[mpf]] = []
        for r in rows:
            v = list(r)
            for g in gs:
                mu = mpmath.fdot(r, g) / mpmath.fdot(g, g)
                v = [vi - mu * gi for vi, gi in zip(v, g, strict=True)]
            gs.append(v)
        resid = list(target)
        y = [0] * len(rows)
        for j in range(len(rows) - 1, -1, -1):
            t = int(mp.nint(mpmath.fdot(resid, gs[j]) / mpmath.fdot(gs[j], gs[j])))
            y[j] = t
            resid = [ri - t * rj for ri, rj in zip(resid, rows[j], strict=True)]
        ints = [sum(y[i] * int(transform[i, j]) for i in range(len(rows)))
                for j in range(len(rows))]
        return [round_coefficient(mpf(m) * mpf(2) ** e, fmt) for m, e in zip(ints, exps,
                                                                             strict=True)]


def refit_coefficients(f: MpFunc, a: mpf, b: mpf, monomials: Sequence[int],
                       fmt: Format) -> list[mpf]:
    """Round the lowest-degree coefficient, re-fit the rest (absolute error), repeat."""
    fixed: list[mpf] = []
    mons = list(monomials)
    for i in range(len(mons)):
        done = list(zip(fixed, mons[:i], strict=True))

        def g(x: mpf, done: list[tuple[mpf, int]] = done) -> mpf:
            return f(x) - mpmath.fsum(c * x**k for c, k in done)

        rest = remez(g, a, b, mons[i:], relative=False)
        c = round_coefficient(rest.coefficients[0], fmt)
        if not mp.isfinite(c):  # the re-fit ran away (e.g. sigmoid [-5, 5], degree 9, float16)
            raise ArithmeticError(f"re-fit coefficient of x^{mons[i]} overflows {fmt.name}")
        fixed.append(c)
    return fixed


def constrained(f: MpFunc, a: mpf, b: mpf, monomials: Sequence[int], fmt: Format | None,
                relative: bool) -> tuple[list[mpf], mpf, dict[str, mpf], list[mpf], mpf]:
    """(coefficients in fmt, their sup error, error of each candidate, real coefficients,
    real sup error)."""
    f = memoized(f)
    real = remez(f, a, b, monomials, relative=relative)
    real_err = real.error
    if fmt is None:
        return real.coefficients, real_err, {"exact": real_err}, real.coefficients, real_err
    cands = {"naive": [round_coefficient(c, fmt) for c in real.coefficients]}
    ref = sorted(real.reference)  # the equioscillation points and the midpoints between them
    pts = sorted(ref + [(u + v) / 2 for u, v in itertools.pairwise(ref)])
    with contextlib.suppress(ZeroDivisionError, ValueError):
        cands["lattice"] = lattice_coefficients(f, real.coefficients, monomials, pts, fmt,
                                                relative)
    if not relative:
        with contextlib.suppress(ArithmeticError):
            cands["refit"] = refit_coefficients(f, a, b, monomials, fmt)
    errs = {k: sup_error(f, v, monomials, a, b, relative) for k, v in cands.items()}
    best = min(errs, key=lambda k: errs[k])
    return cands[best], errs[best], errs, real.coefficients, real_err

