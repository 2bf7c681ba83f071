"""The table-driven exp: ``e^x = Q(r) T[n mod K]``, fitted to the rounding intervals.

The template (``ulplab.methods.synthesized``, ``exp_table``) reduces ``x`` by ``n`` steps of
``L`` (close to ln2/N), ``r = x - n L`` exactly, and multiplies a polynomial ``Q(r)`` by a table
entry. Both are fitted to the intervals, in this order:

1. **Q** by the linear program over every input (``lp.fit_piece``), the row of input ``x``
   asking ``Q(r)`` to lie in its interval divided by ``e^(n L)``;
2. **T**, entry by entry: for every input the float32 values of ``T[j]`` for which the kernel's
   last multiplication, ``fl(Q(r) T[j])`` with Q's float32 value, lands in its interval — an
   interval of float32 values found by bisection over their ordinals (the product is monotone
   in T, Q(r) > 0) — intersected over the inputs that read entry j. An entry is the float32
   value of ``e^(n L)`` when it lies in that intersection, else the nearest end of it. The
   entry absorbs everything that is the same for every input of its n: the rounding of
   ``e^(n L)``, the difference between ``L`` and ln2/N, Q's error at the same r.
3. The kernel run on every input; an entry whose intersection is empty leaves inputs wrong:
   they go back into Q's program with a larger margin (``ROUNDS`` times), or, when few, to
   exception selects.

Where it pays: one multiplication, one FMA and a subtraction pick ``n`` and ``r`` (no rint, no
exponent built from bits), the table replaces the scaling by 2^n, and the clamp of ``x`` (two
operations) replaces both saturation tails. The table is the price: K entries, a power of two
at least as large as the number of n the clamped range has (``N`` steps per ln 2).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from ulplab.methods.synthesized import (
    Recipe,
    Tail,
    exp_table_parts,
    hex32,
    kernel,
)
from ulplab.synth.cost import Profile
from ulplab.synth.intervals import HIGHEST, from_ordinal32, ordinal32
from ulplab.synth.lp import fit_piece

STEPS = (1, 2, 4, 8, 16, 32, 64)
"""N, the steps of the reduction per ln 2, the search tries."""
ROUNDS = 6


def reduction(steps: int) -> list[str]:
    """[N/ln2, -L] as float32 hex: ``L`` is ln2/N rounded to 12 significant bits, so that
    ``n L`` is exact in float32 for |n| < 2^12 (the entry T absorbs the difference from
    ln2/N: it is the same for every input of one n)."""
    step = math.log(2) / steps
    e = math.frexp(step)[1]
    lead = round(step * 2.0 ** (12 - e)) * 2.0 ** (e - 12)
    return [hex32(steps / math.log(2)), hex32(-lead)]


def _clamp_ends(tails: list[Tail]) -> list[str] | None:
    """[low, high] of x: the thresholds of the two tails (x itself is clamped there, so the
    tail inputs compute the threshold's result), None unless both tails are constants."""
    ends = {t.side: t for t in tails}
    lo, hi = ends.get("below"), ends.get("above")
    if lo is None or hi is None or lo.value != "const" or hi.value != "const":
        return None
    if not all(math.isfinite(float.fromhex(t.threshold)) for t in (lo, hi)):
        return None  # a tail of the infinity alone: nothing to clamp to
    return [lo.threshold, hi.threshold]


def recipe(p: Any, steps: int, coefficients: list[str], table: list[str], clamp: list[str],
           profile: Profile, tails: list[Tail] | None = None) -> Recipe:
    return Recipe(p.function, p.fmt.name, "exp_table", "x", [coefficients],
                  use_fma=profile.use_fma, u_clamp=clamp, table=table,
                  reduction=reduction(steps), tails=list(tails or []), rounding=p.mode,
                  target=dict(p.target), profile=profile.name)


def table_size(steps: int, clamp: list[str], use_fma: bool) -> tuple[int, int]:
    """(K, n_low): the table's length (a power of two covering every n of the clamped range)
    and the lowest n, from the kernel's own reduction at the clamp's ends."""
    probe = Recipe("exp", "float32", "exp_table", "x", [["0x1p+0"]], use_fma=use_fma,
                   u_clamp=clamp, table=["0x1p+0"], reduction=reduction(steps))
    ends = np.array([float.fromhex(c) for c in clamp], dtype=np.float32)
    n = exp_table_parts(probe, ends)[2].astype(np.int64)
    count = int(n[1] - n[0] + 1)
    return 1 << max(count - 1, 0).bit_length(), int(n[0])


def probe(p: Any, steps: int, degree: int, tails: list[Tail], profile: Profile
          ) -> Recipe | None:
    """A recipe of the right shape (for the cost model), None where the tails do not allow
    the template."""
    clamp = _clamp_ends(tails)
    if clamp is None:
        return None
    k, _ = table_size(steps, clamp, profile.use_fma)
    return recipe(p, steps, ["0x1p+0"] * (degree + 1), ["0x1p+0"] * k, clamp, profile)


def candidates(max_degree: int = 7) -> Iterator[tuple[int, int]]:
    """(N, Q's degree) pairs, every step count with every degree."""
    for steps in STEPS:
        for degree in range(1, max_degree + 1):
            yield steps, degree


def _exact_entries(k: int, n_low: int, neg_l: float) -> np.ndarray:
    """e^(n L) in float64 for the n each entry stands for (entry j: the n = j mod K of the
    clamped range; entries no n reaches: the next period's value, never read)."""
    j = np.arange(k)
    n = n_low + ((j - n_low) % k)
    return np.array([math.exp(-float(v) * neg_l) if -v * neg_l < 709 else math.inf
                     for v in n])


def _entry_bounds(q: np.ndarray, lo: np.ndarray, hi: np.ndarray
                  ) -> tuple[np.ndarray, np.ndarray]:
    """For each row, the float32 ordinals [a, b] of the T with fl(q T) in [lo, hi] (ordinals),
    q > 0; a > b where none is."""
    q = q.astype(np.float32)

    def first(pred: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
        a = np.zeros(q.shape, dtype=np.int64)
        b = np.full(q.shape, HIGHEST + 1, dtype=np.int64)
        while (b > a).any():
            mid = (a + b) // 2
            with np.errstate(all="ignore"):
                ok = pred(ordinal32(q * from_ordinal32(np.minimum(mid, HIGHEST))))
            ok &= mid <= HIGHEST
            act = b > a
            b = np.where(act & ok, mid, b)
            a = np.where(act & ~ok, mid + 1, a)
        return b

    return first(lambda o: o >= lo), first(lambda o: o > hi) - 1


def fit(p: Any, steps: int, degree: int, tails: list[Tail], profile: Profile,
        exceptions: int, exception_of: Any) -> Recipe | None:
    """The candidate's recipe if every input comes out right (see the module docstring)."""
    clamp = _clamp_ends(tails)
    if clamp is None:
        return None
    k, n_low = table_size(steps, clamp, profile.use_fma)
    if k > 1 << 16:
        return None
    t = p.targets
    x = t.x
    rows = np.flatnonzero(~np.isnan(x) & ~t.nan)
    shape = recipe(p, steps, ["0x1p+0"] * (degree + 1), ["0x1p+0"] * k, clamp, profile)
    with np.errstate(all="ignore"):
        rr, index, _ = exp_table_parts(shape, x[rows])
    index = index.astype(np.int64)
    exact = _exact_entries(k, n_low, float.fromhex(shape.reduction[1]))
    scale = exact[index]
    lo_o, hi_o = t.lo[rows], t.hi[rows]
    lo_v, hi_v = t.lo_value[rows], t.hi_value[rows]
    # Q's rows: where e^(n L) is a normal float32 (the underflowing entries have absolute
    # intervals the table entry alone meets)
    usable = (scale > 2.0**-100) & np.isfinite(scale)
    shrink = np.zeros(rows.size)
    r64 = rr.astype(np.float64)
    for _ in range(ROUNDS):
        with np.errstate(all="ignore"):
            qlo, qhi = lo_v / scale, hi_v / scale
        qfit = fit_piece(r64[usable], qlo[usable], qhi[usable], degree, shrink[usable])
        # a margin below -1: some row's value lies outside its interval by more than the
        # interval's own width even before the table is tuned; such a Q is not worth tuning for
        if not np.isfinite(qfit.margin) or qfit.margin < -1:
            return None
        coeffs = [hex32(v) for v in qfit.coefficients]
        shape = recipe(p, steps, coeffs, ["0x1p+0"] * k, clamp, profile)
        with np.errstate(all="ignore"):
            q = kernel(shape)(x[rows])  # Q(r) times the table's 1
        if not (q > 0).all():
            return None
        a, b = _entry_bounds(q, lo_o, hi_o)
        a_j = np.full(k, 0, dtype=np.int64)
        b_j = np.full(k, HIGHEST, dtype=np.int64)
        np.maximum.at(a_j, index, a)
        np.minimum.at(b_j, index, b)
        with np.errstate(over="ignore"):
            want = ordinal32(exact.astype(np.float32))
        # finite entries only (an overflowing input needs Q(r) T > max float, not T = inf)
        entry = np.clip(want, a_j, np.minimum(np.maximum(a_j, b_j), HIGHEST - 1))
        table = [hex32(float(v)) for v in from_ordinal32(entry)]
        final = recipe(p, steps, coeffs, table, clamp, profile)
        with np.errstate(all="ignore"):
            ok = t.accepts(kernel(final)(x))
        if ok.all():
            return final
        bad = np.flatnonzero(~ok)
        if bad.size <= exceptions:
            exc = [exception_of(p, int(i)) for i in bad]
            final = recipe(p, steps, coeffs, table, clamp, profile, exc)
            with np.errstate(all="ignore"):
                if t.accepts(kernel(final)(x)).all():
                    return final
            return None
        # the rows of the entries that failed get a larger margin in Q's program
        failed = np.isin(index, np.unique(index[np.isin(rows, bad)]))
        shrink[failed] += 0.3
    return None
