"""Double-float building blocks the kernels share, on top of ``ulplab.kit``'s exact ones.

A double-float (dd) is an unevaluated sum hi + lo of two float32 values; it is *normalized* when
hi = RN(hi + lo), so |lo| <= ulp(hi)/2. ``ulplab.kit`` holds the error-free transformations and
the two basic dd operations, which this module uses and does not repeat:

* ``two_sum(a, b)`` -> (s, e), s + e = a + b exactly, no condition (Knuth);
* ``fast_two_sum(a, b)`` -> (s, e), exact, requires |a| >= |b| or a = 0 (Dekker);
* ``two_prod(a, b)`` -> (p, e), p + e = a b exactly with one FMA, when |a b| >= 2^-102 (below,
  the error term can fall off the subnormal grid);
* ``dd_add``, ``dd_mul`` (relative error about 2^-44, normalized results).

Here are the generic composite steps the kernel modules share. Each states its preconditions
and its error, in the manner of LLVM libc's ``double_double.h`` and CORE-MATH's ``dint``: a
bound argued from the operations, and the largest error measured against exact rational
arithmetic (``fractions.Fraction``) on 20,000 random inputs that meet the preconditions (pairs
with |lo| <= 2^-24 |hi|, magnitudes 2^-4 to 2^4, both signs; for one_minus_scaled q in (1/2, 1)
and m in [-40, 0]; measured once, when the blocks were gathered here). Every function is a
fixed sequence of float32 operations that the kernels' golden hashes pin: changing one changes
the emitted C of every kernel that calls it.
"""

from __future__ import annotations

import numpy as np

from ulplab.kernels.core import scale
from ulplab.kit import fast_two_sum, fma, two_prod, two_sum

Pair = tuple[np.ndarray, np.ndarray]
"""A double-float (hi, lo) of float32 arrays."""


def dd_div(ah: np.ndarray, al: np.ndarray, bh: np.ndarray, bl: np.ndarray) -> Pair:
    """(ah + al) / (bh + bl) as a normalized double-float.

    q1 = RN(ah/bh); r = fma(-q1, bh, ah) (exact: the remainder of a correctly rounded quotient
    is a float32); r = (r + al) - q1 bl; q2 = RN(r/bh); (q, ql) = fast_two_sum(q1, q2).

    Requires: both pairs normalized; bh normal and nonzero; ah/bh, q1 bh and q1 bl neither
    overflow nor underflow (|q1 bl| above 2^-126). Error: relative about 2^-45 (the roundings
    of r + al, q1 bl and r/bh, each 2^-24 of a term up to 2^-23 |q|, and r/bh standing for
    r/(bh + bl)); measured 2^-45.8 at most. The result is normalized.
    """
    q1 = ah / bh
    r = fma(-q1, bh, ah)
    r = (r + al) - q1 * bl
    return fast_two_sum(q1, r / bh)


def one_minus_scaled(q: np.ndarray, ql: np.ndarray, m: np.ndarray) -> Pair:
    """1 - (q + ql) 2^m as a normalized double-float; 2^m is applied by ``core.scale``.

    s = q 2^m, sl = ql 2^m (exact while they stay normal); (r, re) = two_sum(1, -s) (exact);
    (h, l) = fast_two_sum(r, re - sl).

    Requires: (q, ql) normalized with q normal; m >= -40 and q 2^m <= 1, so that the scaled
    values stay normal and |r| >= |re - sl|. Error: at most one rounding, of re - sl. Where
    q 2^m >= 1/2, 1 - s is exact (Sterbenz), re = 0 and nothing is rounded, however close to 1
    s is; below, the result exceeds 1/2 and |re - sl| <= 2^-24, so the error is under 2^-48
    absolute, 2^-47 relative; measured 2^-48.0 relative at most. The kernels take the distance
    to 1 (sigmoid, tanh, erf near saturation) this way so that the tiny gap below 1 survives as
    the low part.
    """
    s, sl = scale(q, m), scale(ql, m)
    r, re = two_sum(np.full_like(s, np.float32(1.0)), -s)
    return fast_two_sum(r, re - sl)


def dd_horner_step(ah: np.ndarray, al: np.ndarray, t: np.ndarray, tl: np.ndarray,
                   c_hi: np.ndarray, c_lo: np.ndarray) -> Pair:
    """One double-float Horner step: (c_hi + c_lo) + (t + tl)(ah + al), normalized.

    (p, pe) = two_prod(ah, t); pe = pe + (ah tl + al t); (s, se) = two_sum(c_hi, p);
    (h, l) = fast_two_sum(s, se + (pe + c_lo)).

    Requires: all three pairs normalized (|al| <= ulp(ah)/2, |tl| <= ulp(t)/2, |c_lo| <=
    ulp(c_hi)/2); a t above 2^-102 (two_prod exact). No condition on the relative sizes of c and
    t a (two_sum). Error: the dropped al tl (2^-48 |a t|) plus the roundings of ah tl, al t and
    the low sum, each 2^-24 of a term at most 2^-23 |a t| or 2^-24 |c|: about 2^-46 of
    |c| + |t a|, relative to the result when there is no cancellation (|t a| <= |c|/2, as in the
    erf, erfcx and gelu_grad series where it is used); measured 2^-46.7 relative at most with
    |t a| <= |c|/2.
    """
    p, pe = two_prod(ah, t)
    pe = pe + (ah * tl + al * t)
    s, se = two_sum(c_hi, p)
    return fast_two_sum(s, se + (pe + c_lo))


def dd_horner_step_lazy(ah: np.ndarray, al: np.ndarray, t: np.ndarray, tl: np.ndarray,
                        c_hi: np.ndarray, c_lo: np.ndarray) -> Pair:
    """A cheaper ``dd_horner_step``: (c_hi + c_lo) + (t + tl)(ah + al), NOT normalized.

    (p, pe) = two_prod(ah, t); (s, se) = fast_two_sum(c_hi, p);
    lo = se + (fma(ah, tl, al t) + (pe + c_lo)); returns (s, lo).

    Requires: |c_hi| >= |ah t| or c_hi = 0 (fast_two_sum), the inputs normalized or nearly so
    (|al| <= 2^-22 |ah|: the output of an earlier lazy step qualifies), a t above 2^-102.
    Error: as ``dd_horner_step`` plus a rounding of lo, which is left unnormalized (|lo| up to
    about 2 ulp(s); 1.83 ulp(s) measured): about 2^-45 of |c| + |t a|; measured 2^-46.7
    relative at most with |t a| <= |c|/2. Used by gelu's first pass (erf_series and
    erfcx_parts given this step), whose bound is 2^-36.
    """
    p, pe = two_prod(ah, t)
    s, se = fast_two_sum(c_hi, p)
    return s, se + (fma(ah, tl, al * t) + (pe + c_lo))


__all__ = ["Pair", "dd_div", "dd_horner_step", "dd_horner_step_lazy", "one_minus_scaled"]
