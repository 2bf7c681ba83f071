"""The error of a det kernel's first pass (``KERNELS[..]["first_pass"]``), measured.

    python -m ulplab.analysis.first_pass FUNC [FUNC ...] [--n 4194304] [--seed 0]

A first pass (what the compiled float32 runner, ``ulplab.export.native``, runs on every input
before the whole entry point on the results it flags) computes f(x) as (h + l) 2^m and keeps
RN(h + l) 2^m only where the bound it claims (``FIRST_PASS_BOUND`` in the kernel's module)
decides the rounding. This measures max |(h + l) 2^m - f(x)| / |f(x)| on random inputs of the
pass's domain against Arb at 160 bits (python-flint) and prints it beside the bound (log2).
The bound is argued in each function's docstring; this is the check that the argument is not
wrong by much (the tests run it on fewer inputs). What makes a first pass safe on every input
is ``benchmarks/verify_native.py`` (all 2^32, the runner's bits against the entry point's).
"""

from __future__ import annotations

import argparse
import math
import sys

import flint
import numpy as np

from ulplab.errors import UsageError
from ulplab.kernels import erf as erf_mod
from ulplab.kernels import exp as exp_mod
from ulplab.kernels import log as log_mod
from ulplab.kernels import logistic, trig
from ulplab.kernels import tanh as tanh_mod
from ulplab.kit import fast_two_sum, fma, two_prod

f32 = np.float32


def _exp_case(rng: np.random.Generator, n: int):
    x = np.concatenate([rng.uniform(-86.5, 88.7, n - n // 4),
                        rng.uniform(-0.02, 0.02, n // 4)]).astype(f32)
    h, low, k = exp_mod.exp_first_parts(x)
    return x, h, low, k >> 6, lambda v: v.exp(), exp_mod.FIRST_PASS_BOUND


def _log_case(rng: np.random.Generator, n: int):
    enc = rng.integers(0x00800000, 0x7F800000, n // 2, dtype=np.uint32).view(f32)
    near_one = (1 + rng.uniform(-2.0**-6, 2.0**-6, n - n // 2)).astype(f32)
    x = np.concatenate([enc, near_one])
    x = x[x != 1]
    h, low = log_mod.log_first_parts(x)
    return x, h, low, np.zeros(x.size, np.int32), lambda v: v.log(), log_mod.FIRST_PASS_BOUND


def _sigma_inputs(rng: np.random.Generator, n: int) -> np.ndarray:
    mags = 2.0 ** rng.uniform(-26, np.log2(18), n - n // 2)
    x = np.concatenate([rng.uniform(-86.5, 18, n // 2),
                        np.where(rng.integers(0, 2, mags.size) == 1, mags, -mags)]).astype(f32)
    return x[x < 18]


def _sigmoid_case(rng: np.random.Generator, n: int):
    x = _sigma_inputs(rng, n)
    h, low, m = logistic.sigma_first_parts(x)
    return x, h, low, m, lambda v: 1 / (1 + (-v).exp()), logistic.FIRST_PASS_BOUND


def _silu_case(rng: np.random.Generator, n: int):
    x = _sigma_inputs(rng, n)
    h, low, m = logistic.sigma_first_parts(x)
    p, pe = two_prod(x, h)
    p, pe = fast_two_sum(p, fma(x, low, pe))
    return x, p, pe, m, lambda v: v / (1 + (-v).exp()), logistic.FIRST_PASS_BOUND


def _tanh_case(rng: np.random.Generator, n: int):
    a = np.concatenate([rng.uniform(2.0**-13, 9.125, n // 2),
                        2.0 ** rng.uniform(-13, np.log2(9.125), n - n // 2)]).astype(f32)
    a = a[(a >= 2.0**-13) & (a < 9.125)]
    h, low = tanh_mod.tanh_first_parts(a)
    return a, h, low, np.zeros(a.size, np.int32), lambda v: v.tanh(), tanh_mod.FIRST_PASS_BOUND


def _trig_case(cosine: bool):
    def case(rng: np.random.Generator, n: int):
        mags = 2.0 ** rng.uniform(-12, 12, n - n // 2)
        x = np.concatenate([rng.uniform(-4096, 4096, n // 2),
                            np.where(rng.integers(0, 2, mags.size) == 1, mags, -mags)])
        x = x.astype(f32)
        x = x[(np.abs(x) >= 2.0**-12) & (np.abs(x) < 4096)]
        h, low = trig.trig_first_parts(x, cosine)
        exact = (lambda v: v.cos()) if cosine else (lambda v: v.sin())
        return x, h, low, np.zeros(x.size, np.int32), exact, trig.FIRST_PASS_BOUND
    return case


def _gelu_case(rng: np.random.Generator, n: int):
    mags = 2.0 ** rng.uniform(-27, np.log2(12.5), n - n // 2)
    x = np.concatenate([rng.uniform(-12.5, 9, n // 2),
                        np.where(rng.integers(0, 2, mags.size) == 1, mags, -mags)]).astype(f32)
    x = x[(x >= -12.5) & (x <= 9) & (np.abs(x) >= 2.0**-27)]
    h, low, m = erf_mod.gelu_first_parts(x)
    return (x, h, low, m, lambda v: v * (1 + (v / flint.arb(2).sqrt()).erf()) / 2,
            erf_mod.FIRST_PASS_BOUND)


CASES = {"exp": _exp_case, "gelu": _gelu_case, "log": _log_case, "sigmoid": _sigmoid_case,
         "silu": _silu_case, "tanh": _tanh_case, "sin": _trig_case(False),
         "cos": _trig_case(True)}


def measure(func: str, n: int, seed: int = 0) -> tuple[float, float, float]:
    """(log2 max relative error, at which x, log2 bound) of ``func``'s first pass over ``n``
    random inputs (``seed``)."""
    if func not in CASES:
        raise UsageError(f"no first pass measured for {func!r}; valid: {', '.join(CASES)}")
    if n < 1:
        raise UsageError("--n must be at least 1")
    if seed < 0:
        raise UsageError("--seed must be 0 or more")
    with np.errstate(all="ignore"):
        x, h, low, m, exact, bound = CASES[func](np.random.default_rng(seed), n)
    flint.ctx.prec = 160
    worst, at = 0.0, float("nan")
    for xi, hi, lo, mi in zip(x.tolist(), h.tolist(), low.tolist(), m.tolist(), strict=True):
        ref = exact(flint.arb(xi))
        got = (flint.arb(hi) + flint.arb(lo)) * flint.arb(2) ** int(mi)
        err = abs(float(((got - ref) / ref).mid()))
        if err > worst:
            worst, at = err, xi
    return math.log2(worst) if worst else -math.inf, at, math.log2(bound)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m ulplab.analysis.first_pass",
                                 description="measure det kernels' first-pass error")
    ap.add_argument("functions", nargs="+", help=f"of: {', '.join(CASES)}")
    ap.add_argument("--n", type=int, default=1 << 22)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    try:
        for func in args.functions:
            err, at, bound = measure(func, args.n, args.seed)
            print(f"{func}: max relative error 2^{err:.2f} at x = {at!r} ({float(at).hex()}); "
                  f"bound 2^{bound:.2f}, a factor {2 ** (bound - err):.1f} above")
    except UsageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
