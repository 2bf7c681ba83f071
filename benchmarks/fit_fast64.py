"""The polynomials of the float64 first passes of det gelu, det gelu_grad, det erf and det
sin/cos (``ulplab.export.fast64.gelu``, ``.gelu_grad``, ``.erf`` and ``.sin``): fit them, print
them as the modules' literals, and measure their approximation error.

    python benchmarks/fit_fast64.py gelu|gelu_grad|erf|sincos [--check-points 2000]

Each piece k covers [c - h, c + h], c = k w, h = w/2 (piece 0: [0, h], the inputs are
nonnegative), and holds the polynomial of degree d in t = u - c that interpolates the function
at the d + 1 Chebyshev nodes of the piece, solved in mpmath at 160 bits; its coefficients (low
to high) are then rounded to the nearest float64 once. Functions (``SETUP``):
* gelu: S_c(u) = exp(-c^2/2) R(u), R(u) = erfc(u/sqrt2) exp(u^2/2), w = 1/256, d = 3,
  pieces k = 0..3680 (u in [0, 14.376953125]);
* gelu_grad: H_c(u) = exp(-c^2/2) G(u)/(u - r0), G(u) = u/sqrt(2 pi) - R(u)/2 (gelu's R), r0 =
  0.75179152469... G's one root (``gelu_grad_root``: so H > 0 and the pass keeps its relative
  accuracy where gelu_grad(-u) = -E G(u) changes sign), w = 1/256, d = 3, pieces k = 0..3328
  (u in [0, 13.001953125]);
* erf: G(u) = erf(u)/u (2/sqrt(pi) at 0), w = 1/512, d = 3, pieces k = 0..2008 (u in
  [0, 3.9228515625]); the pass returns u G(u), so erf keeps its relative accuracy as u goes
  to 0.
The check evaluates each piece's polynomial, with the float64 coefficients, exactly (mpmath at
160 bits) at ``--check-points`` + 1 equally spaced points of the piece and prints the largest
relative error against the function (mpmath at 160 bits), as a power of 2, per piece and overall.

sincos: one polynomial each in s = r^2 on [0, R^2], R = pi/4 + 2^-40 (sin's reduced argument,
``ulplab.export.fast64.sin``), interpolating at the Chebyshev nodes of that interval (mpmath at
160 bits, coefficients rounded to the nearest float64 once): (sin r - r)/r^3 by degree
``SINCOS["sin"]`` and (cos r - 1)/r^2 by degree ``SINCOS["cos"]``, printed as the module's
``SIN`` and ``COS`` (low to high); the check is the relative error of the whole r + r^3 P(r^2)
and 1 + r^2 Q(r^2), evaluated exactly, against sin r and cos r at ``--check-points`` equally
spaced r in (0, R].
"""

from __future__ import annotations

import argparse
import sys
from functools import cache

import mpmath

PREC = 160
SETUP = {  # func: (piece width, number of pieces, degree)
    "gelu": (mpmath.mpf(1) / 256, 3681, 3),
    "erf": (mpmath.mpf(1) / 512, 2009, 3),
    "gelu_grad": (mpmath.mpf(1) / 256, 3329, 3),
}


SINCOS = {"sin": 4, "cos": 5}
"""The degrees in s = r^2 of sin's and cos's polynomials (5 and 6 coefficients)."""


def sincos_reach() -> mpmath.mpf:
    """R = pi/4 + 2^-40: the largest |r| of sin's reduction."""
    return mpmath.pi / 4 + mpmath.mpf(2) ** -40


def sincos_target(func: str, s: mpmath.mpf) -> mpmath.mpf:
    """(sin r - r)/r^3 or (cos r - 1)/r^2 at r = sqrt(s) (their limits -1/6 and -1/2 at 0)."""
    r = mpmath.sqrt(s)
    if func == "sin":
        return (mpmath.sin(r) - r) / (s * r) if s else mpmath.mpf(-1) / 6
    return (mpmath.cos(r) - 1) / s if s else mpmath.mpf(-1) / 2


def fit_sincos() -> dict[str, list[float]]:
    """sin's and cos's float64 coefficients in s = r^2, low to high."""
    with mpmath.workprec(PREC):
        reach = sincos_reach()
        return {f: [_nearest(v) for v in interpolate(lambda s, f=f: sincos_target(f, s),
                                                      mpmath.mpf(0), reach**2, d)]
                for f, d in SINCOS.items()}


def sincos_error(func: str, row: list[float], points: int) -> float:
    """log2 of the largest relative error of r + r^3 P(r^2) (sin) or 1 + r^2 Q(r^2) (cos),
    with the float64 coefficients ``row`` evaluated exactly, at ``points`` equally spaced r in
    (0, R]."""
    worst = mpmath.mpf(0)
    with mpmath.workprec(PREC):
        reach = sincos_reach()
        coefficients = [mpmath.mpf(v) for v in reversed(row)]
        for i in range(1, points + 1):
            r = reach * i / points
            q = mpmath.polyval(coefficients, r * r)
            if func == "sin":
                got, want = r + r**3 * q, mpmath.sin(r)
            else:
                got, want = 1 + r * r * q, mpmath.cos(r)
            worst = max(worst, abs(got - want) / abs(want))
        return float(mpmath.log(worst, 2))


@cache
def gelu_grad_root() -> mpmath.mpf:
    """r0, the root of G(u) = u/sqrt(2 pi) - erfc(u/sqrt2) exp(u^2/2)/2 (gelu_grad(-r0) = 0),
    at the working precision of its first call (``PREC``: every call is inside
    ``mpmath.workprec(PREC)``)."""
    def g(u: mpmath.mpf) -> mpmath.mpf:
        r = mpmath.erfc(u / mpmath.sqrt(2)) * mpmath.exp(u * u / 2)
        return u / mpmath.sqrt(2 * mpmath.pi) - r / 2

    return mpmath.findroot(g, mpmath.mpf("0.7517915246935644574579"))


def target(func: str, c: mpmath.mpf, t: mpmath.mpf) -> mpmath.mpf:
    """The function piece c approximates, at u = c + t >= 0: for gelu S_c(u) = exp(-c^2/2)
    R(u) = erfc(u/sqrt2) exp(t (2c + t)/2), for gelu_grad H_c(u) = exp(-c^2/2) G(u)/(u - r0) =
    (u exp(-c^2/2)/sqrt(2 pi) - S_c(u)/2)/(u - r0), for erf G(u)."""
    u = c + t
    if func == "gelu":
        return mpmath.erfc(u / mpmath.sqrt(2)) * mpmath.exp(t * (2 * c + t) / 2)
    if func == "gelu_grad":
        s = mpmath.erfc(u / mpmath.sqrt(2)) * mpmath.exp(t * (2 * c + t) / 2)
        g = u * mpmath.exp(-c * c / 2) / mpmath.sqrt(2 * mpmath.pi) - s / 2
        return g / (u - gelu_grad_root())
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
    parser.add_argument("func", choices=[*sorted(SETUP), "sincos"])
    parser.add_argument("--check-points", type=int, default=2000)
    args = parser.parse_args(argv)
    if args.check_points < 1:
        parser.error("--check-points must be at least 1")
    if args.func == "sincos":
        for func, row in fit_sincos().items():
            print(f"{func.upper()}: " + " ".join(v.hex() for v in row))
            print(f"{func}: largest relative error 2^"
                  f"{sincos_error(func, row, args.check_points):.2f}", file=sys.stderr)
        return 0
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
