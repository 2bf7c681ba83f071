"""The piecewise polynomials of the float64 first passes of det gelu and det erf
(``ulplab.export.fast64.gelu`` and ``.erf``): fit them, print them as the modules' literals, and
measure their approximation error.

    python benchmarks/fit_fast64.py gelu|erf [--check-points 2000]

Each piece k covers [c - h, c + h], c = k w, h = w/2 (piece 0: [0, h], the inputs are
nonnegative), and holds the polynomial of degree d in t = u - c that interpolates the function
at the d + 1 Chebyshev nodes of the piece, solved in mpmath at 160 bits; its coefficients (low
to high) are then rounded to the nearest float64 once. Functions (``SETUP``):
* gelu: S_c(u) = exp(-c^2/2) R(u), R(u) = erfc(u/sqrt2) exp(u^2/2), w = 1/128, d = 4,
  pieces k = 0..1840 (u in [0, 14.37890625]);
* erf: G(u) = erf(u)/u (2/sqrt(pi) at 0), w = 1/512, d = 3, pieces k = 0..2008 (u in
  [0, 3.9228515625]); the pass returns u G(u), so erf keeps its relative accuracy as u goes
  to 0.
The check evaluates each piece's polynomial, with the float64 coefficients, exactly (mpmath at
160 bits) at ``--check-points`` + 1 equally spaced points of the piece and prints the largest
relative error against the function (mpmath at 160 bits), as a power of 2, per piece and overall.
"""

from __future__ import annotations

import argparse
import sys

import mpmath

PREC = 160
SETUP = {  # func: (piece width, number of pieces, degree)
    "gelu": (mpmath.mpf(1) / 128, 1841, 4),
    "erf": (mpmath.mpf(1) / 512, 2009, 3),
}


def target(func: str, c: mpmath.mpf, t: mpmath.mpf) -> mpmath.mpf:
    """The function piece c approximates, at u = c + t >= 0: for gelu S_c(u) = exp(-c^2/2)
    R(u) = erfc(u/sqrt2) exp(t (2c + t)/2), for erf G(u)."""
    u = c + t
    if func == "gelu":
        return mpmath.erfc(u / mpmath.sqrt(2)) * mpmath.exp(t * (2 * c + t) / 2)
    return mpmath.erf(u) / u if u else 2 / mpmath.sqrt(mpmath.pi)


def interval(func: str, k: int) -> tuple[mpmath.mpf, mpmath.mpf, mpmath.mpf]:
    """(c, lo, hi): piece k's centre and its range of t = u - c."""
    w = SETUP[func][0]
    c = k * w
    return c, (mpmath.mpf(0) if k == 0 else -w / 2), w / 2


def interpolate(f, lo: mpmath.mpf, hi: mpmath.mpf, degree: int) -> list[mpmath.mpf]:
    """Coefficients (low to high) of the polynomial of ``degree`` interpolating f on the
    Chebyshev nodes of [lo, hi]."""
    n = degree + 1
    nodes = [(lo + hi) / 2 + (hi - lo) / 2 * mpmath.cos(mpmath.pi * (2 * i + 1) / (2 * n))
             for i in range(n)]
    a = mpmath.matrix([[t ** j for j in range(n)] for t in nodes])
    b = mpmath.matrix([f(t) for t in nodes])
    return list(mpmath.lu_solve(a, b))


def _nearest(v: mpmath.mpf) -> float:
    with mpmath.workprec(53):
        return float(+v)


def fit(func: str) -> list[list[float]]:
    """Each piece's float64 coefficients, low to high (degree + 1 of them)."""
    rows = []
    degree = SETUP[func][2]
    with mpmath.workprec(PREC):
        for k in range(SETUP[func][1]):
            c, lo, hi = interval(func, k)
            coefficients = interpolate(lambda t, c=c: target(func, c, t), lo, hi, degree)
            rows.append([_nearest(v) for v in coefficients])
    return rows


def error(func: str, k: int, row: list[float], points: int) -> tuple[float, float]:
    """(log2 of the largest relative error of piece k's polynomial ``row`` (evaluated exactly),
    the largest Horner factor H = sum_j |t|^j |P_j(t)| / |f|, P_j(t) = sum_{i >= j} c_i t^(i-j)
    the partial Horner values) at ``points`` + 1 equally spaced points of its range. Horner's
    scheme with one rounding a step (FMA) errs by at most H 2^-53 |f| (to first order)."""
    worst = mpmath.mpf(0)
    factor = mpmath.mpf(0)
    with mpmath.workprec(PREC):
        c, lo, hi = interval(func, k)
        for i in range(points + 1):
            t = lo + (hi - lo) * i / points
            p = mpmath.polyval([mpmath.mpf(v) for v in reversed(row)], t)
            v = target(func, c, t)
            worst = max(worst, abs(p - v) / abs(v))
            partial, total = mpmath.mpf(0), mpmath.mpf(0)
            for j in reversed(range(len(row))):
                partial = partial * t + mpmath.mpf(row[j])
                total += abs(t) ** j * abs(partial) if j < len(row) - 1 else 0
            factor = max(factor, total / abs(v))
        return float(mpmath.log(worst, 2)), float(factor)


def literal(rows: list[list[float]]) -> str:
    """The rows as the modules' ``COEFFICIENTS`` text: hex floats, 4 a line, piece after
    piece."""
    flat = [v.hex() for row in rows for v in row]
    return "\n".join(" ".join(flat[i:i + 4]) for i in range(0, len(flat), 4))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("func", choices=sorted(SETUP))
    parser.add_argument("--check-points", type=int, default=2000)
    args = parser.parse_args(argv)
    if args.check_points < 1:
        parser.error("--check-points must be at least 1")
    rows = fit(args.func)
    print(literal(rows))
    checks = [error(args.func, k, row, args.check_points) for k, row in enumerate(rows)]
    for k, (e, h) in enumerate(checks):
        print(f"piece {k}: error 2^{e:.2f}, Horner factor {h:.4f}", file=sys.stderr)
    errors = [e for e, _ in checks]
    print(f"largest relative error: 2^{max(errors):.2f} (piece {errors.index(max(errors))}); "
          f"largest Horner factor {max(h for _, h in checks):.4f}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
