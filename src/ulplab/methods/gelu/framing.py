"""The frame around a GELU core, shared by sigmoid_b1, softex_h3, softmax_h2, pwl_r3,
piecewise_c2 and rational_r2: the kernel around a core and the fit-time minimax helpers. No method
is registered here.

``make_kernel(core, kind)`` is the builder that puts a core approximation of GELU between tails:
"pure" is the asymptotic series (``tail.asymptotic_tail``) below TAIL_START and the mirror
x + GELU(-x) from POSITIVE_FROM; "lut" is the shared tail LUT below -3.5 and x -> x from 3;
"seed-pure" and "seed-lut" are the seed's own, bit for bit (``tail.seed_asymptotic_tail``,
``tail.seed_tail_lut``), with x -> x from POSITIVE_FROM (``frame_params`` declares them).
``lawson`` (weighted linear minimax) and ``rational_fit`` (Loeb's linearisation of weighted
rational minimax, each step a Lawson fit) run in float64 at fit time only; each module keeps the
function that regenerates its constants.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from ulplab.kit.ops import f32hex
from ulplab.methods.gelu import tail
from ulplab.methods.gelu.tail import where32
from ulplab.methods.params import Param, Params, threshold
from ulplab.methods.registry import Claim

f32 = np.float32
ArrayFn = Callable[[np.ndarray], np.ndarray]


_h = f32hex  # exact hex literal -> float32


# ---------------------------------------------------------------------------------------------
# Shared by this batch's families: the kernel around a core, and fit-time minimax helpers
# ---------------------------------------------------------------------------------------------

LUT_SATURATION = 3.0  # the seed's positive saturation x >= 3 -> x (exact in bfloat16 from 2.78)

TAIL_KINDS = ("pure", "lut", "seed-pure", "seed-lut")
Core = Callable[[np.ndarray, Params], np.ndarray]
"""A core approximation of GELU: core(x, params)."""


def frame_params(tail_kind: str, tail_start: float = tail.TAIL_LUT_START,
                 positive_from: float = LUT_SATURATION, seed_exp: bool = False
                 ) -> dict[str, Param]:
    """The frame's declared parameters: the tail's (``tail.tail_params``; ``seed_exp``: with the
    seed's fast exp), TAIL_START (the tail below it) and POSITIVE_FROM (the mirror, or x itself,
    from there)."""
    if tail_kind not in TAIL_KINDS:
        raise ValueError(tail_kind)
    return {**tail.tail_params(tail_kind, seed_exp), "TAIL_START": threshold(tail_start),
            "POSITIVE_FROM": threshold(positive_from)}


def make_kernel(core: Core, tail_kind: str) -> Callable[[Params], ArrayFn]:
    """The builder of GELU from a core approximation on [TAIL_START, POSITIVE_FROM) and the
    seed's tail handling (parameters: ``frame_params`` and the core's own).

    tail_kind "pure": the asymptotic tail -phi(x)(1 - 1/x^2 + 3/x^4 - 15/x^6) for x < TAIL_START,
        and for x >= POSITIVE_FROM the mirror GELU(x) = x + GELU(-x) with the same series at -x;
        one evaluation of the series at -|x| serves both sides. It gives x (and inf) for large x
        and keeps float16 exact near x = 3, where x -> x is 2 float16 ulps off.
    tail_kind "lut": the seed's shared tail LUT (``tail.tail_lut``) for x < TAIL_START (-3.5,
        its first knot) and x -> x from POSITIVE_FROM.
    tail_kind "seed-pure" / "seed-lut": the seed's own frame, bit for bit: its asymptotic tail
        (``tail.seed_asymptotic_tail``) or its tail LUT (``tail.seed_tail_lut``) for
        x < TAIL_START, x -> x from POSITIVE_FROM.
    NaN inputs are returned as they are.
    """
    if tail_kind not in TAIL_KINDS:
        raise ValueError(tail_kind)

    def build(p: Params) -> ArrayFn:
        def impl(x: np.ndarray) -> np.ndarray:
            with np.errstate(all="ignore"):
                y = core(x, p)
                if tail_kind == "pure":
                    t = tail.asymptotic_tail(-np.abs(x), p)
                    y = where32(x < p.TAIL_START, t, y)
                    y = where32(x >= p.POSITIVE_FROM, x + t, y)
                else:
                    y = tail.with_tail(x, y, p.TAIL_START, tail.tail_fn(tail_kind), p)
                    y = where32(x >= p.POSITIVE_FROM, x, y)
                return where32(np.isnan(x), x, y)

        return impl

    return build


def measured(bf16: tuple[int, float], fp16: tuple[int, float]) -> dict[str, Claim]:
    """Claims as measured by ``ulplab.sweep.analyze`` on every input (mean rounded up)."""
    return {"bfloat16": Claim(*bf16), "float16": Claim(*fp16)}


def phi64(x: np.ndarray) -> np.ndarray:
    """Phi(x) = erfc(-x/sqrt 2)/2 in float64 (fit time only; math.erfc is accurate to ~1e-16
    relative, far below the float32 rounding of the coefficients)."""
    return np.array([0.5 * math.erfc(-v / math.sqrt(2.0)) for v in np.ravel(x)])


def lawson(basis: np.ndarray, target: np.ndarray, weight: np.ndarray,
           iters: int = 400) -> np.ndarray:
    """Weighted minimax linear fit (fit time only, float64): the a minimising
    max_i weight_i |basis_i . a - target_i|, by Lawson's iteratively reweighted least squares
    (converges to the minimax solution on the grid)."""
    bw = basis * weight[:, None]
    tw = target * weight
    lw = np.full(len(target), 1.0 / len(target))
    a = np.zeros(basis.shape[1])
    for _ in range(iters):
        s = np.sqrt(lw)
        a, *_ = np.linalg.lstsq(bw * s[:, None], tw * s, rcond=None)
        r = np.abs(bw @ a - tw)
        lw = lw * (r + 1e-300)
        lw /= lw.sum()
    return a


def rational_fit(num: np.ndarray, den: np.ndarray, target: np.ndarray, weight: np.ndarray,
                 iters: int = 30) -> tuple[np.ndarray, np.ndarray]:
    """Weighted minimax rational fit (fit time only): P/Q ~ target with P = num . p,
    Q = 1 + den . q, by Loeb's linearisation (minimise weight |P - target Q| / Q_previous,
    each step a ``lawson`` fit). Returns (p, q)."""
    q_prev = np.ones(len(target))
    p = q = None
    for _ in range(iters):
        w = weight / np.abs(q_prev)
        basis = np.hstack([num, -target[:, None] * den])
        a = lawson(basis, target, w, iters=200)
        p, q = a[: num.shape[1]], a[num.shape[1]:]
        q_prev = 1.0 + den @ q
    return p, q


def to_hex32(v: np.ndarray) -> list[str]:
    """float32 hex literals of the coefficients (to paste as constants)."""
    return [float(f32(c)).hex() for c in np.ravel(v)]
