"""The search: the cheapest recipe whose float32 kernel is right on every input of a format.

For a function and format: the rounding intervals of every input (``intervals``), the
saturation tails (``detect_tails``: the longest run of inputs from each infinity inward whose
result is ``x``, a constant or ``copysign(1, x)``), then, over the function's templates,
polynomial degrees, exp2 core degrees and piece counts, in order of the profile's cost: the
linear program per piece (``lp``), the coefficients rounded to float32, and the kernel
(``ulplab.methods.synthesized.kernel``: the one definition) run on every input. Inputs it gets
wrong go back into the program with a larger margin (up to ``ROUNDS`` times); a piece that
cannot be fitted, or a tail or special input that comes out wrong, rejects the candidate. The
first candidate that passes is the answer: nothing is claimed that the exhaustive run did not
show.
"""

from __future__ import annotations

import datetime as _dt
import functools
import math
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from ulplab.formats import Format, get_format
from ulplab.formats.encoding import to_values
from ulplab.functions import FUNCTIONS
from ulplab.methods.synthesized import (
    LOG_EXPONENT_ENTRIES,
    Recipe,
    Tail,
    clamp_variable,
    from_poly,
    hex32,
    kernel,
    piece_index,
)
from ulplab.synth import tabled
from ulplab.synth.cost import Profile, op_counts, weighted
from ulplab.synth.intervals import (
    BIG,
    Targets,
    code_key,
    from_ordinal32,
    ordinal32,
    targets,
)
from ulplab.synth.lp import SOLVER, fit_piece

ROUNDS = 6
"""Counterexample rounds per candidate before it is rejected."""
EXCEPTIONS = 4
"""Most inputs a kernel may settle by exception selects (the search's second pass)."""
MARGIN_TOLERANCE = 1e-9
"""A margin this close to zero (the solver's tolerance) is taken as zero, not as infeasible."""

STRUCTURES: dict[str, list[tuple[str, str]]] = {
    "gelu": [("x_exp2", "x"), ("x_poly", "x")],
    "gelu_tanh": [("x_exp2", "x"), ("x_poly", "x")],
    "silu": [("x_exp2", "x"), ("x_poly", "x")],
    "sigmoid": [("exp2", "x"), ("poly", "x")],
    "softplus": [("exp2", "x"), ("poly", "x")],
    "exp": [("exp_table", "x"), ("exp2", "x")],
    "exp2": [("exp2", "x")],
    "tanh": [("x_poly", "abs")],
    "erf": [("x_poly", "abs")],
    "sin": [("x_poly", "x")],
    "log": [("log_table", "x"), ("log", "x")],
}
"""Each function's structures (template, variable), most promising first: x Phi(x) and x
sigma(x) as x 2^P (the negative tail decays like exp), odd functions as x P(|x|), exp-like ones
in log space, log by exponent and mantissa (an exponent table with the specials in it, or
e ln2 + P(m)). Other functions try a plain polynomial, x P(x) and
2^P(x)."""

DEFAULT_STRUCTURES = [("poly", "x"), ("x_poly", "x"), ("exp2", "x")]

NUDGE_UP = {"gelu", "gelu_tanh", "silu"}
"""f(x) = x/2 + O(x^2) with a positive O(x^2): for a subnormal x, x/2 is a midpoint of the
format's subnormals and the true value lies above it, whatever the sign of x; ``Recipe.tiny``
(a small positive d, then the sign of x) puts the result on that side."""


@dataclass
class Problem:
    function: str
    fmt: Format
    mode: str
    targets: Targets
    target: dict[str, Any]
    cache: dict[tuple[Any, ...], Any] = field(default_factory=dict)


@dataclass
class Candidate:
    function: str
    template: str
    variable: str
    degree: int
    pieces: int
    core_degree: int = 0
    scale: str = "one"
    clamp: bool = False
    fit_core: bool = False
    clamp_u: tuple[bool, bool] = (False, False)
    """(below, above): that side's tail replaced by clamping the variable at its threshold."""
    tiny: str = ""
    """The ``Recipe.tiny`` nudge (hex), or "" for none."""

    exceptions: int = 0
    """How many inputs the candidate may hand to exception selects (x == X: the right result)
    when a piece's program is infeasible only for them: float32 evaluation noise can put the
    interval of a hard case (a true value within ~2^-24 of a midpoint) out of any smooth
    polynomial's reach."""
    """exp2 with P(x) = x / ln 2 fixed (one multiplication) and the core Q fitted to the
    intervals instead (RLibm's way for exp): degree is then Q's degree."""


@dataclass
class Result:
    recipe: Recipe | None
    ops: dict[str, int] = field(default_factory=dict)
    cost: float = math.inf
    tried: int = 0
    seconds: float = 0.0
    reason: str = ""


# ------------------------------------------------------------------ the exp2 core


@functools.cache
def exp2_core(degree: int) -> tuple[str, ...]:
    """Float32 hex coefficients of Q, Q(f) ~ 2^f on [-1/2, 1/2] with Q(0) = 1 exactly, from the
    linear program on 4,097 points (relative-error bands): the fixed core of the exp2 templates.
    Its own error needs no bound: ``value_bounds`` runs the kernel's core backwards."""
    f = np.linspace(-0.5, 0.5, 4097)
    y = np.exp2(f)
    fit = fit_piece(f, y * (1 - 1e-2), y * (1 + 1e-2), degree, fixed={0: 1.0})
    return tuple(hex32(c) for c in fit.coefficients)


# ------------------------------------------------------------------ tails


def _tail(key: np.ndarray, ok: np.ndarray, live: np.ndarray) -> np.ndarray:
    """The inputs whose ``key`` is above that of every input that fails: a tail running from
    the key's infinity inward (empty where the extreme itself fails)."""
    bad = live & ~ok
    edge = key[bad].max() if bad.any() else -np.inf
    return live & (key > edge)


def detect_tails(p: Problem, variable: str) -> list[Tail]:
    """The longest saturation tails (see the module docstring); [] where none reaches an
    infinity (the template must then handle the ends itself)."""
    x = p.targets.x
    live = ~np.isnan(x)
    consts = ["inf", "-inf", hex32(0.0), hex32(-0.0), hex32(1.0), hex32(-1.0)]
    with np.errstate(all="ignore"):
        if variable == "abs":
            sides = [("abs_above", np.abs(x), min)]
            values = {("copysign", hex32(1.0)): np.copysign(np.float32(1), x),
                      ("x", "0x0.0p+0"): x}
        else:
            sides = [("above", x, min), ("below", -x, max)]
            values = {("x", "0x0.0p+0"): x,
                      **{("const", c): np.full_like(x, _value(c)) for c in consts}}
        tails: list[Tail] = []
        for side, key, edge in sides:
            runs = {k: _tail(key, p.targets.accepts(v), live) for k, v in values.items()}
            best = max(runs, key=lambda k: int(runs[k].sum()))
            if runs[best].any():
                thr = edge(x[runs[best]]) if side != "abs_above" else np.abs(x[runs[best]]).min()
                tails.append(Tail(side, hex32(float(thr)), *best))
    return tails


def _value(lit: str) -> np.float32:
    return np.float32(float(lit)) if lit in ("inf", "-inf") else np.float32(float.fromhex(lit))


def _tail_mask(x: np.ndarray, tails: list[Tail]) -> np.ndarray:
    hit = np.zeros(x.shape, bool)
    for tl in tails:
        thr = np.float32(float.fromhex(tl.threshold))
        if tl.side == "above":
            hit |= x >= thr
        elif tl.side == "below":
            hit |= x <= thr
        elif tl.side == "equal":
            hit |= x == thr
        else:
            hit |= np.abs(x) >= thr
    return hit


# ------------------------------------------------------------------ poly-space bounds


_RANGE = {"one": (-126, 127), "offset64": (-190, 63), "two": (-252, 254)}
"""The exponents n each way of building 2^n from bits can give (see Recipe.scale)."""


def _bounds(p: Problem, template: str, variable: str, rows: np.ndarray, scale: str
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(u, lower, upper): the bounds on the polynomial's value for the LP rows — exact for
    ``poly``, ``x_poly`` and ``log`` up to the last rounding; for the exp2 templates the log2 of
    the interval within the scale's range, only a quick test of the range before
    ``value_bounds`` finds the exact ones."""
    t = p.targets
    x = t.x[rows].astype(np.float64)
    lo, hi = t.lo_value[rows], t.hi_value[rows]
    with np.errstate(all="ignore"):
        if template in ("log", "log_table"):
            m, e = np.frexp(x)
            u, e = 2 * m, (e - 1).astype(np.float64)
            if template == "log_table":  # the mantissa field as an integer: (m - 1) 2^23
                u = (u - 1) * 2.0**23
            c = float(np.float32(math.log(2)))
            return u, lo - e * c, hi - e * c
        u = np.abs(x) if variable == "abs" else x
        if template in ("x_poly", "x_exp2"):
            a, b = lo / x, hi / x
            lo, hi = np.where(x > 0, a, b), np.where(x > 0, b, a)
        if template in ("poly", "x_poly"):
            return u, lo, hi
        lower = np.where(lo > 0, np.log2(np.where(lo > 0, lo, 1)), -np.inf)
        upper = np.where(hi > 0, np.where(np.isinf(hi), np.inf,
                                          np.log2(np.where(hi > 0, hi, 1))), -np.inf)
        n_lo, n_hi = _RANGE[scale]
        lower = np.maximum(lower, n_lo - 0.5)
        upper = np.minimum(upper, n_hi + 0.5 - 2.0**-10)
        return u, lower, upper


def value_bounds(p: Problem, probe: Recipe, rows: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray]:
    """For each row, the float32 values ``t`` of the polynomial whose evaluation after it (the
    kernel's own ``from_poly``: the factor x, the exp2 core and scale, the tiny nudge) lands in
    the row's interval, as (lowest, highest) — found by bisection over the float32 ordinals of
    ``t`` (in the exp2 scale's range), so every later rounding, and the core's own error, are
    taken exactly, not bounded (RLibm's idea). Empty rows come back with lowest > highest."""
    t = p.targets
    x = t.x[rows]
    lo_o, hi_o = t.lo[rows], t.hi[rows]
    decreasing = (x < 0) if probe.template in ("x_poly", "x_exp2") else np.zeros(x.shape, bool)
    if probe.template in ("exp2", "x_exp2"):
        n_lo, n_hi = _RANGE[probe.scale]
        t_min = int(ordinal32(np.float32(n_lo - 0.5)))
        t_max = int(ordinal32(np.float32(n_hi + 0.5) - np.float32(2.0**-16)))
    else:
        t_min, t_max = -0x7F7FFFFF - 1, 0x7F7FFFFF

    def key(tord: np.ndarray) -> np.ndarray:
        tv = from_ordinal32(tord)
        with np.errstate(all="ignore"):
            v = from_poly(probe, tv, x)
        return ordinal32(v)

    def first(pred: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
        """The smallest t ordinal where pred holds (pred false then true along t)."""
        lo = np.full(x.shape, t_min, dtype=np.int64)
        hi = np.full(x.shape, t_max + 1, dtype=np.int64)
        while (hi > lo).any():
            mid = (lo + hi) // 2
            ok = pred(np.minimum(mid, t_max)) & (mid <= t_max)
            act = hi > lo
            hi = np.where(act & ok, mid, hi)
            lo = np.where(act & ~ok, mid + 1, lo)
        return hi

    # increasing in t: [first v >= L, first v > U - 1]; decreasing: [first v <= U, first v < L - 1]
    a = first(lambda o: np.where(decreasing, key(o) <= hi_o, key(o) >= lo_o))
    b = first(lambda o: np.where(decreasing, key(o) < lo_o, key(o) > hi_o)) - 1
    return (from_ordinal32(np.clip(a, t_min, t_max)).astype(np.float64),
            np.where(b < a, -np.inf, from_ordinal32(np.clip(b, t_min, t_max)).astype(np.float64)))


def core_bounds(p: Problem, probe: Recipe, rows: np.ndarray
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(f, lower, upper) for fitting the core Q itself: t = x / ln 2 in float32 as the kernel
    computes it, f = t - rint(t) (exact), and Q(f) must lie in the row's interval divided by
    2^rint(t) (and by x for x_exp2), the scaling being exact for normal results."""
    t = p.targets
    x = t.x[rows]
    with np.errstate(all="ignore"):
        tt = x * np.float32(float.fromhex(LOG2E))
        n = np.rint(tt)
        f = (tt - n).astype(np.float64)
        lo, hi = t.lo_value[rows], t.hi_value[rows]
        if probe.template == "x_exp2":
            a, b = lo / x, hi / x
            lo, hi = np.where(x > 0, a, b), np.where(x > 0, b, a)
        s = np.exp2(-n.astype(np.float64))
        return f, lo * s, hi * s


# ------------------------------------------------------------------ one candidate


LOG2E = hex32(1 / math.log(2))


def _recipe(p: Problem, c: Candidate, coeffs: list[list[float]], partition: dict[str, Any],
            tails: list[Tail], profile: Profile) -> Recipe:
    core: list[str] = []
    clamp: list[str] = []
    if c.fit_core:
        core = [hex32(v) for v in coeffs[0]]
        coeffs = [[0.0, float.fromhex(LOG2E)]]
    elif c.template in ("exp2", "x_exp2"):
        core = list(exp2_core(c.core_degree))
    if c.clamp and c.template in ("exp2", "x_exp2"):
        # the clamp's ends give 0 and inf through the scale: no tails
        n_lo, n_hi = _RANGE[c.scale]
        clamp = [hex32(n_lo), hex32(n_hi + 0.5)]
        tails = []
    u_clamp: list[str] = []
    if any(c.clamp_u):
        u_clamp = ["", ""]
        for tl in tails:
            if tl.side == "below" and c.clamp_u[0]:
                u_clamp[0] = tl.threshold
            if tl.side == "above" and c.clamp_u[1]:
                u_clamp[1] = tl.threshold
        tails = [tl for tl in tails if not ((tl.side == "below" and c.clamp_u[0])
                                            or (tl.side == "above" and c.clamp_u[1]))]
    return Recipe(p.function, p.fmt.name, c.template, c.variable,
                  [[hex32(v) for v in piece] for piece in coeffs], partition=partition,
                  u_clamp=u_clamp, tiny=c.tiny,
                  use_fma=profile.use_fma, core=core, clamp=clamp, scale=c.scale, tails=tails,
                  ln2=hex32(math.log(2)) if c.template in ("log", "log_table") else "",
                  rounding=p.mode,
                  target=dict(p.target), profile=profile.name)


def _partition(p: Problem, c: Candidate, u_rows: np.ndarray) -> dict[str, Any]:
    if c.pieces == 1:
        return {"kind": "none"}
    if c.template in ("log", "log_table"):
        return {"kind": "mantissa", "pieces": c.pieces}
    u = u_rows.astype(np.float64)
    a = 0.0 if c.variable == "abs" else float(u.min())
    b = float(u.max())
    s = float(np.float32(c.pieces / (b - a))) if b > a else 1.0
    return {"kind": "uniform", "scale": hex32(s), "offset": hex32(-a * s), "pieces": c.pieces,
            "lo": hex32(a), "hi": hex32(b)}


def try_candidate(p: Problem, c: Candidate, tails: list[Tail], profile: Profile
                  ) -> Recipe | None:
    """The candidate's recipe if the counterexample loop ends with every input right."""
    if c.template == "exp_table":
        return tabled.fit(p, c.pieces, c.degree, tails, profile, c.exceptions, _exception)
    t = p.targets
    x = t.x
    kept = [tl for tl in tails if not ((tl.side == "below" and c.clamp_u[0])
                                       or (tl.side == "above" and c.clamp_u[1]))]
    region = ~np.isnan(x) & ~_tail_mask(x, kept) & ~t.nan & ~np.isinf(x)
    if c.template in ("x_poly", "x_exp2"):
        region &= x != 0
    if c.template in ("log", "log_table"):
        region &= np.isfinite(x) & (x > 0)
    rows = np.flatnonzero(region)
    probe = _recipe(p, c, [[0.0] * (c.degree + 1)] * c.pieces, {"kind": "none"}, tails,
                    profile)
    with np.errstate(all="ignore"):
        u_rows = clamp_variable(probe, np.abs(x[rows]) if c.variable == "abs" else x[rows])
    partition = _partition(p, c, u_rows)
    probe = _recipe(p, c, [[0.0] * (c.degree + 1)] * c.pieces, partition, tails, profile)
    u_all, lo_all, hi_all = _bounds(p, c.template, c.variable, rows, c.scale)
    u_all = u_all if c.template in ("log", "log_table") else u_rows.astype(np.float64)
    if c.fit_core:
        u_all, lo_all, hi_all = core_bounds(p, probe, rows)
    elif c.template != "log":
        if np.any(lo_all > hi_all):  # a row past the scale's range: no need to bisect
            return None
        key = (c.template, c.variable, c.core_degree, c.scale, c.clamp, c.clamp_u, c.tiny,
               profile.use_fma)
        if key not in p.cache:
            p.cache[key] = value_bounds(p, probe, rows)
        lo_all, hi_all = p.cache[key]
    if np.any(lo_all > hi_all):
        return None
    piece = piece_index(probe, x[rows]).astype(np.int64)
    shrink = np.zeros(rows.size)
    coeffs: list[list[float]] = [[0.0] * (c.degree + 1) for _ in range(c.pieces)]
    dirty = set(range(c.pieces))
    sizes = np.bincount(piece, minlength=c.pieces)
    excluded = np.zeros(rows.size, bool)
    exc_tails: list[Tail] = []
    for _ in range(ROUNDS):
        # the most crowded pieces first: they fail most often, and a failure ends the candidate
        for k in sorted(dirty, key=lambda k: -sizes[k]):
            while True:
                sel = (piece == k) & ~excluded
                if not sel.any():
                    break
                fit = fit_piece(u_all[sel], lo_all[sel], hi_all[sel], c.degree, shrink[sel])
                # a zero margin (a row whose interval is one float32 value) may still hold:
                # the exhaustive run below decides
                if fit.margin >= -MARGIN_TOLERANCE:
                    coeffs[k] = [float(v) for v in fit.coefficients]
                    break
                if len(exc_tails) >= c.exceptions or not np.isfinite(fit.margin):
                    return None
                # hand the row the best polynomial misses most to an exception select
                i = np.flatnonzero(sel)[_worst_row(u_all[sel], lo_all[sel], hi_all[sel],
                                                   fit.coefficients)]
                excluded[i] = True
                exc_tails.append(_exception(p, rows[i]))
        recipe = _recipe(p, c, coeffs, partition, tails + exc_tails, profile)
        with np.errstate(all="ignore"):
            got = kernel(recipe)(x)
        ok = t.accepts(got)
        if ok.all():
            return recipe
        if not rows.size or not ok[~region].all():
            return None  # a tail, a zero or a special input is wrong: not the LP's to fix
        bad = ~ok[rows] & ~excluded
        if 0 < bad.sum() <= c.exceptions - len(exc_tails):  # the few left: exception selects
            for i in np.flatnonzero(bad):
                excluded[i] = True
                exc_tails.append(_exception(p, rows[i]))
            recipe = _recipe(p, c, coeffs, partition, tails + exc_tails, profile)
            with np.errstate(all="ignore"):
                if t.accepts(kernel(recipe)(x)).all():
                    return recipe
            return None
        shrink[bad] += 0.3
        dirty = set(np.unique(piece[bad]).tolist())
    return None


def _worst_row(u: np.ndarray, lo: np.ndarray, hi: np.ndarray, c: np.ndarray) -> int:
    """The row the polynomial ``c`` misses by the most half-widths."""
    v = np.polynomial.polynomial.polyval(u, c)
    half = np.where(np.isfinite(lo) & np.isfinite(hi), (hi - lo) / 2, 1.0)
    half = np.maximum(half, 1e-300)
    miss = np.maximum(np.where(np.isfinite(lo), lo - v, -np.inf),
                      np.where(np.isfinite(hi), v - hi, -np.inf)) / half
    return int(np.argmax(miss))


def _exception(p: Problem, i: int) -> Tail:
    """x == X_i gives the correctly rounded result itself (a format value: exact in float32)."""
    value = to_values(p.targets.expected[i:i + 1], p.fmt)[0]
    return Tail("equal", hex32(float(p.targets.x[i])), "const", hex32(float(value)))


# ------------------------------------------------------------------ the search


def _scales(template: str) -> list[str]:
    return ["one", "offset64", "two"] if template in ("exp2", "x_exp2") else ["one"]


def variants(c: Candidate, tails: list[Tail], emin: int) -> Iterator[Candidate]:
    """The candidate with each tail a clamp of the variable instead, where the template can
    give the tail's value that way, and with the tiny nudge (x-templates): 2^(emin - 23), the
    float32 quantum at the format's smallest normal — large enough to move a float32 result
    off every midpoint of the format's subnormals, too small to move it past the next one."""
    if c.template == "exp_table":  # its clamp is part of the template
        yield c
        return
    sides = {tl.side: tl for tl in tails}
    xt = c.template in ("x_poly", "x_exp2")

    def clampable(side: str) -> bool:
        tl = sides.get(side)
        if tl is None or c.variable != "x" or c.clamp:
            return False
        return (tl.value == "x") if xt else (tl.value == "const")

    below = (False, True) if clampable("below") else (False,)
    above = (False, True) if clampable("above") else (False,)
    for b in below:
        for a in above:
            nudge = xt and c.function in NUDGE_UP
            for tiny in (("", hex32(2.0 ** (emin - 23))) if nudge else ("",)):
                yield replace(c, clamp_u=(b, a), tiny=tiny)


def _fixed_table(c: Candidate) -> int:
    """Table words a candidate reads whatever its pieces (the log_table template's E)."""
    return LOG_EXPONENT_ENTRIES if c.template == "log_table" else 0


def _log_scale(p: Problem) -> str:
    """``tiny23`` where the format has positive inputs below 2^-126 (float32 subnormals), else
    ``one``."""
    x = p.targets.x
    with np.errstate(invalid="ignore"):
        return "tiny23" if np.any((x > 0) & (x < np.float32(2.0**-126))) else "one"


def candidates(p: Problem, profile: Profile, max_degree: int = 4) -> Iterator[Candidate]:
    for template, variable in STRUCTURES.get(p.function, DEFAULT_STRUCTURES):
        if template == "exp_table":
            for steps, d in tabled.candidates():
                yield Candidate(p.function, template, variable, d, steps)
            continue
        if template == "log_table":
            for d in range(max_degree + 1):
                for k in (1, 2):
                    yield Candidate(p.function, template, variable, d, k, 0, _log_scale(p))
            continue
        exp2 = template in ("exp2", "x_exp2")
        if template == "exp2" and variable == "x":
            for d in range(2, 7):
                for scale in _scales(template):
                    for clamp in (False, True):
                        yield Candidate(p.function, template, variable, d, 1, d, scale, clamp, True)
        for d in range(0 if not exp2 else 1, max_degree + 1):
            for dc in ((3, 4, 5) if exp2 else (0,)):
                for scale in _scales(template):
                    # clamping t stands in for both tails only without the factor x
                    for clamp in ((False, True) if template == "exp2" else (False,)):
                        yield Candidate(p.function, template, variable, d, 1, dc, scale,
                                        clamp)
                        yield Candidate(p.function, template, variable, d, 2, dc, scale,
                                        clamp)


def problem(function: str, fmt: Format | str, rounding: str = "nearest-even",
            max_ulp: int = 0, max_error: float | None = None) -> Problem:
    """The rounding intervals of every input (the oracle's table, cached)."""
    from ulplab.oracle.table import oracle_table

    fmt = get_format(fmt)
    expected = oracle_table(function, fmt, rounding, progress=False)
    sign = _nan_signs(function, fmt, expected)
    allowed = None
    if max_error is not None:
        allowed = _error_keys(function, fmt, expected, max_error)
    tg = targets(expected, fmt, rounding, max_ulp, sign, allowed)
    target = {"max_ulp": max_ulp, "max_error": max_error}
    return Problem(function, fmt, rounding, tg, target)


def _nan_signs(function: str, fmt: Format, expected: np.ndarray) -> np.ndarray | None:
    """+1/-1 where the format's NaN stands for an overflow of a finite input, else 0."""
    from ulplab.formats.encoding import all_patterns
    from ulplab.oracle.fast32 import correctly_rounded32

    x = to_values(all_patterns(fmt), fmt)
    nan = np.isnan(to_values(expected, fmt)) & ~np.isnan(x)
    if not nan.any():
        return None
    sign = np.zeros(x.shape, dtype=np.int64)
    bits, _ = correctly_rounded32(function, x[nan].astype(np.float32))
    v = bits.view(np.float32)
    sign[nan] = np.where(np.isnan(v), 0, np.where(v > 0, 1, -1))
    return sign


def _error_keys(function: str, fmt: Format, expected: np.ndarray, max_error: float
                ) -> tuple[np.ndarray, np.ndarray]:
    """The key range of the results whose error against the real value is below ``max_error``
    units in the last place (``ulplab.ulp.real_ulp_error`` on ``ulplab.oracle.real``'s values,
    rounded to odd on 40 bits: the verdict "< E" is exact to 2^(p-39) ULP). The candidates are
    the real value's two neighbours in the format; the correctly rounded result is always
    allowed."""
    from ulplab.formats.rounding import round_to_format
    from ulplab.oracle.real import real_values
    from ulplab.ulp import real_ulp_error

    real = real_values(function, fmt)
    key = code_key(expected, fmt)
    klo, khi = key.copy(), key.copy()
    with np.errstate(all="ignore"):
        for mode in ("down", "up"):
            c = round_to_format(real, fmt, mode)
            ok = real_ulp_error(c, real, fmt) < max_error
            ck = code_key(c, fmt)
            klo = np.where(ok, np.minimum(klo, ck), klo)
            khi = np.where(ok, np.maximum(khi, ck), khi)
    big = np.abs(key) >= BIG
    return np.where(big, key, klo), np.where(big, key, khi)


def synthesize(function: str, fmt: Format | str, profile: Profile, max_ulp: int = 0,
               max_error: float | None = None, rounding: str = "nearest-even",
               max_ops: float | None = None, table_entries: int | None = None,
               progress: Callable[[str], None] | None = None,
               prob: Problem | None = None, exceptions: int = EXCEPTIONS) -> Result:
    """The cheapest verified recipe (see the module docstring); ``Result.recipe`` is None when
    nothing within the limits passed, with the reason. ``exceptions``: how many inputs the
    second pass may settle by exception selects (0: no second pass)."""
    if function not in FUNCTIONS:
        raise ValueError(f"unknown function {function!r}")
    start = time.perf_counter()
    p = prob or problem(function, fmt, rounding, max_ulp, max_error)
    p.target["exceptions"] = exceptions
    limit = profile.max_table if table_entries is None else table_entries
    tails_of: dict[str, list[Tail]] = {"log": []}  # the log template selects its own specials
    costed = []
    for base in candidates(p, profile):
        if base.variable not in tails_of:
            tails_of[base.variable] = detect_tails(p, base.variable)
        for c in variants(base, tails_of[_tkey(base)], p.fmt.emin):
            if c.template == "exp_table":
                probe = tabled.probe(p, c.pieces, c.degree, tails_of[_tkey(c)], profile)
                if probe is None or probe.table_entries > limit:
                    continue
            else:
                probe = _recipe(p, c, [[1.0] * (c.degree + 1)] * c.pieces,
                                _probe_partition(c), tails_of[_tkey(c)], profile)
            ops = op_counts(probe)
            cost = weighted(ops, profile)
            if max_ops is not None and cost > max_ops:
                continue
            costed.append((cost, c.pieces, c.degree, c.core_degree, len(costed), c, ops))
    costed.sort(key=lambda r: r[:4])
    tried = 0
    # pass 1: no exceptions; pass 2 (only if pass 1 found nothing): up to EXCEPTIONS inputs
    # handed to exception selects, two operations each, counted in the result's cost
    for budget in ((0, exceptions) if exceptions else (0,)):
        seen: set[tuple[Any, ...]] = set()
        for cost, _, _, _, _, c0, _ops in costed:
            c = replace(c0, exceptions=budget)
            shape = (c.template, c.variable, c.degree, c.core_degree, c.scale, c.clamp,
                     c.fit_core, c.clamp_u, c.tiny,
                     c.pieces if c.template == "exp_table" else c.pieces > 1)
            if shape in seen:
                continue
            seen.add(shape)
            if _fixed_table(c) > limit:
                continue
            ks = [c.pieces] if c.pieces == 1 or c.template == "exp_table" else _piece_counts(
                c, limit)
            if not ks:
                continue

            def attempt(k: int, c: Candidate = c, cost: float = cost) -> Recipe | None:
                nonlocal tried
                tried += 1
                if progress:
                    progress(f"{c.template} {c.variable} degree {c.degree}"
                             + (f" core {c.core_degree} {c.scale}" if c.core_degree else "")
                             + f", {k} pieces (cost {cost:g}"
                             + (f", up to {c.exceptions} exceptions)" if c.exceptions else ")"))
                return try_candidate(p, replace(c, pieces=k), tails_of[_tkey(c)], profile)

            # the finest partition first: if it fails, no coarser one is tried
            best = attempt(ks[-1])
            if best is None:
                continue
            lo, hi = 0, len(ks) - 1
            while lo < hi:
                mid = (lo + hi) // 2
                r = attempt(ks[mid])
                if r is not None:
                    best, hi = r, mid
                else:
                    lo = mid + 1
            best = _refine(p, replace(c, pieces=ks[hi]), best, tails_of[_tkey(c)], profile)
            res = _finish(p, best, profile, tried, start, cost)
            if max_ops is not None and res.cost > max_ops:
                continue
            return res
    return Result(None, tried=tried, seconds=time.perf_counter() - start,
                  reason="no candidate within the limits passed on every input")


def _tkey(c: Candidate) -> str:
    """Which detected tails a candidate uses: its variable's, none for the log templates."""
    return "log" if c.template in ("log", "log_table") else c.variable


def _probe_partition(c: Candidate) -> dict[str, Any]:
    if c.pieces == 1:
        return {"kind": "none"}
    if c.template in ("log", "log_table"):
        return {"kind": "mantissa", "pieces": c.pieces}
    return {"kind": "uniform", "scale": hex32(1.0), "offset": hex32(0.5 if c.variable == "x"
                                                                     else 0.0),
            "pieces": c.pieces}


def _piece_counts(c: Candidate, limit: int) -> list[int]:
    out, k = [], 2
    limit -= _fixed_table(c)
    while k * (c.degree + 1) <= limit:
        out.append(k)
        k *= 2
    return out


def _refine(p: Problem, c: Candidate, recipe: Recipe, tails: list[Tail], profile: Profile
            ) -> Recipe:
    """Fewer pieces where a non-power of two between K/2 and K also passes (bisection)."""
    if c.pieces <= 2 or c.template in ("log", "log_table", "exp_table"):
        return recipe
    lo, hi, best = c.pieces // 2 + 1, c.pieces - 1, recipe
    while lo <= hi:
        mid = (lo + hi) // 2
        r = try_candidate(p, replace(c, pieces=mid), tails, profile)
        if r is not None:
            best, hi = r, mid - 1
        else:
            lo = mid + 1
    return best


def prove(p: Problem, recipe: Recipe) -> dict[str, Any]:
    """The recipe's kernel on every input of the format, rounded once to it, against the
    oracle: inputs accepted (inside their interval), exact, and the max and mean ULP distance
    over the inputs whose result and expected result are both finite (a NaN or infinity must
    match bit for bit to be accepted)."""
    from ulplab.formats.rounding import round_to_format
    from ulplab.ulp import ulp_distance

    with np.errstate(all="ignore"):
        got = kernel(recipe)(p.targets.x)
    codes = round_to_format(got, p.fmt, p.mode)
    dist = ulp_distance(codes, p.targets.expected, p.fmt)
    finite = dist >= 0
    return {"inputs_verified": int(p.targets.x.size),
            "accepted": int(p.targets.accepts(got).sum()),
            "max_ulp": int(np.max(dist[finite])) if finite.any() else 0,
            "mean_ulp": float(np.mean(dist[finite])) if finite.any() else 0.0,
            "exact": int(np.sum(codes == p.targets.expected)),
            "verified_by": "ulplab.methods.synthesized.kernel on every input of the format, "
                           "rounded once to the format, against the oracle's table"}


def _finish(p: Problem, recipe: Recipe, profile: Profile, tried: int, start: float,
            cost: float) -> Result:
    ops = op_counts(recipe)
    seconds = time.perf_counter() - start
    proof = prove(p, recipe)
    prov = {"command": _command(p, profile), "solver": SOLVER,
            "date": _dt.date.today().isoformat(), "seconds": round(seconds, 1),
            "candidates_tried": tried}
    recipe = replace(recipe, proof=proof, provenance=prov)
    return Result(recipe, ops, weighted(ops, profile), tried, seconds)


def _command(p: Problem, profile: Profile) -> str:
    cmd = f"ulplab synth {p.function} --format {p.fmt.name} --profile {profile.name}"
    if p.target.get("max_error") is not None:
        cmd += f" --max-error {p.target['max_error']:g}"
    elif p.target.get("max_ulp"):
        cmd += f" --max-ulp {p.target['max_ulp']}"
    if p.mode != "nearest-even":
        cmd += f" --rounding {p.mode}"
    if p.target.get("exceptions", EXCEPTIONS) != EXCEPTIONS:
        cmd += f" --exceptions {p.target['exceptions']}"
    return cmd
