"""float32 results from float64 evaluation: exp correctly rounded on all 2^32 inputs.

#19's float32 stretch. A float32 input has 2^32 patterns: no rounding interval per input can be
handed to a linear program, but a float64 evaluation has 29 bits to spare, and the proof is
still exhaustive: the kernel is run on every float32 input and compared bit for bit with
``det``'s exp (the correctly rounded float32-only kernel, itself proven on all 2^32 inputs
against the oracle: ``ulplab.kernels.registry``). The search is over the polynomial's degree:
the lowest degree whose proof has no mismatch is the answer.

The kernel (C, ``exp_source``), for a float32 ``x``:

* ``v = x`` in float64, clamped into [-104, 89] by compares (a NaN passes): e^-104 is below half
  the smallest float32 subnormal (the result rounds to 0), e^89 above the largest float32;
* ``k = rint(v 64/ln2)`` by adding and subtracting 1.5 2^52 (|k| < 2^13); ``j = k mod 64``;
* ``r = (v - k L1) - k L2`` (two FMAs): ``L1`` is ln2/64 rounded to 40 bits, so ``k L1`` and
  ``v - k L1`` are exact (Sterbenz); ``L2 = ln2/64 - L1`` rounded to nearest; |r| <= ln2/128
  (and a little: ``rint`` of a rounded product);
* ``e^r = 1 + r P(r)``, ``P`` of degree d close to (e^r - 1)/r on |r| <= 1.02 ln2/128: least
  squares on 400 Chebyshev nodes in 200-bit arithmetic (mpmath), coefficients rounded to
  float64;
* ``2^(j/64)`` as a double-double table ``T_hi + T_lo`` (mpmath, each part rounded to
  nearest), ``y = T_hi + fma(T_hi, r P(r), T_lo)``, times ``2^(k >> 6)`` built from its bits
  (exact: y 2^(k>>6) stays a normal float64), rounded once to float32.

Error (an estimate, not the proof): P's own error below 2^-47 (degree 3) / 2^-58 (degree 4)
relative; ``r P`` and the FMA round at 2^-53 of a quantity below 2^-7 of the result; the last
addition 2^-53: about 2^-53 in all for degree 4, so only an input whose exact e^x lies within
~2^-53 of a float32 midpoint could round wrongly — the exhaustive run shows none does.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from typing import Any

import numpy as np

STEPS = 64
"""Table entries (2^(j/64)): the reduction's steps per ln 2."""
LOW, HIGH = -104.0, 89.0
"""The clamp of x (see the module docstring)."""


@functools.cache
def _constants(degree: int) -> dict[str, Any]:
    """P's coefficients, L1, L2 and the double-double table, from mpmath (200 bits)."""
    import mpmath as mp

    with mp.workprec(200):
        ln2 = mp.log(2)
        step = ln2 / STEPS
        m, e = mp.frexp(step)
        l1 = mp.ldexp(mp.nint(m * 2**40), e - 40)
        l2 = step - l1
        t_hi, t_lo = [], []
        for j in range(STEPS):
            t = mp.power(2, mp.mpf(j) / STEPS)
            hi = float(t)
            t_hi.append(hi)
            t_lo.append(float(t - mp.mpf(hi)))
        bound = mp.mpf(float(ln2 / (2 * STEPS))) * mp.mpf("1.02")
        nodes = [bound * mp.cos(mp.pi * (i + mp.mpf(1) / 2) / 400) for i in range(400)]
        a = mp.matrix([[u**i for i in range(degree + 1)] for u in nodes])
        b = mp.matrix([(mp.exp(u) - 1) / u for u in nodes])
        c = mp.lu_solve(a.T * a, a.T * b)
        coeffs = [float(c[i]) for i in range(degree + 1)]
        err = max(abs((1 + u * sum(mp.mpf(coeffs[i]) * u**i for i in range(degree + 1)))
                      / mp.exp(u) - 1) for u in nodes)
        return {"P": coeffs, "L1": float(l1), "L2": float(l2), "T_hi": t_hi, "T_lo": t_lo,
                "scale": float(STEPS / ln2), "P_error": float(err)}


def exp_source(degree: int) -> str:
    """The C source of the kernel with P of ``degree`` (``void ulplab_exp_f64(const float *x,
    float *y, long n)``), every constant as an exact hex literal."""
    k = _constants(degree)
    h = float.hex
    horner = "".join(f"        p = fma(p, r, {h(k['P'][i])});\n"
                     for i in range(degree - 1, -1, -1))
    shift = STEPS.bit_length() - 1
    return f"""/* exp for float32 by float64 evaluation (ulplab.synth.float32), P of degree
   {degree}: correctly rounded where ulplab.synth.float32.prove says so (all 2^32 inputs). */
#include <math.h>
#include <stdint.h>
#include <string.h>
static const double T_HI[{STEPS}] = {{{", ".join(h(v) for v in k["T_hi"])}}};
static const double T_LO[{STEPS}] = {{{", ".join(h(v) for v in k["T_lo"])}}};
static inline double ul_u2d(uint64_t u) {{ double d; memcpy(&d, &u, 8); return d; }}
static inline uint64_t ul_d2u(double d) {{ uint64_t u; memcpy(&u, &d, 8); return u; }}
void ulplab_exp_f64(const float *restrict x, float *restrict y, long n) {{
    for (long i = 0; i < n; i++) {{
        double v = (double)x[i];
        v = v < {h(LOW)} ? {h(LOW)} : v;
        v = v > {h(HIGH)} ? {h(HIGH)} : v;
        const double magic = 0x1.8p+52;
        double s = fma(v, {h(k["scale"])}, magic);
        double kk = s - magic;
        int64_t q = (int64_t)(ul_d2u(s) - ul_d2u(magic));
        double r = fma(kk, {h(-k["L1"])}, v);
        r = fma(kk, {h(-k["L2"])}, r);
        double p = {h(k["P"][degree])};
{horner}        long j = (long)(q & {STEPS - 1});
        double w = fma(T_HI[j], r * p, T_LO[j]);
        double e = ul_u2d((uint64_t)((q >> {shift}) + 1023) << 52);
        y[i] = (float)((T_HI[j] + w) * e);
    }}
}}
"""


def kernel(degree: int) -> Callable[[np.ndarray], np.ndarray]:
    """The compiled kernel (float32 array in, float32 array out), built for this CPU."""
    from ulplab.export.native import array_function, build_source

    return array_function(build_source(f"exp_f64_d{degree}", exp_source(degree)),
                          "ulplab_exp_f64")


def prove(degree: int, chunk: int = 1 << 24, start: int = 0, stop: int = 1 << 32,
          progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
    """The kernel against ``det``'s exp on the float32 patterns [start, stop), bit for bit (two
    NaNs match): the inputs checked, the mismatches (with up to 20 of them) and the time."""
    from ulplab.export import native

    run = kernel(degree)
    det = native.kernel("exp")
    t0 = time.perf_counter()
    bad: list[int] = []
    count = 0
    want = np.empty(min(chunk, stop - start), dtype=np.float32)
    for lo in range(start, stop, chunk):
        hi = min(lo + chunk, stop)
        bits = np.arange(lo, hi, dtype=np.uint64).astype(np.uint32)
        x = bits.view(np.float32)
        got = run(x)
        det(x, out=want[:hi - lo])
        w = want[:hi - lo]
        diff = (got.view(np.uint32) != w.view(np.uint32)) & ~(np.isnan(got) & np.isnan(w))
        if diff.any():
            bad += [int(b) for b in bits[diff]]
        count += hi - lo
        if progress:
            progress(count, stop - start)
    return {"degree": degree, "inputs_checked": count, "mismatches": len(bad),
            "examples": [f"0x{b:08x}" for b in bad[:20]],
            "against": "ulplab.det exp (the correctly rounded float32 kernel, native build "
                       f"{native.best_variant()})",
            "seconds": round(time.perf_counter() - t0, 1),
            "P_error": _constants(degree)["P_error"]}


def synthesize_exp(degrees: tuple[int, ...] = (2, 3, 4, 5),
                   progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    """The lowest degree whose kernel matches ``det`` on all 2^32 inputs, and every proof tried
    (each runs whole, so the record says how many inputs a rejected degree gets wrong)."""
    tried = []
    for d in degrees:
        if progress:
            progress(f"degree {d}: running all 2^32 inputs")
        rec = prove(d)
        tried.append(rec)
        if rec["mismatches"] == 0:
            return {"function": "exp", "format": "float32", "evaluation": "float64",
                    "degree": d, "proof": rec, "tried": tried}
    return {"function": "exp", "format": "float32", "evaluation": "float64", "degree": None,
            "proof": None, "tried": tried}
