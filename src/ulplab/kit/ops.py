"""Exact float32 building blocks for deterministic kernels.

Every function takes and returns float32 (or int32/uint32 for bit casts) and performs IEEE
float32 operations, each rounded to nearest-even; nothing is computed in float64 except inside
``fma`` (see its proof). Evaluation orders are fixed and documented, so the same inputs give
the same bits on every backend that follows them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from ulplab.kit.fma import fma

f32 = np.float32


def f32hex(literal: str) -> np.float32:
    """A float32 constant from its exact hex literal: f32hex("0x1.62e43p-1") (the literal must be
    a float32 value). The bits are built with integer arithmetic, not by a floating-point
    conversion, so a thread that flushes subnormals (XLA's callback threads set FTZ/DAZ) still
    gets 0x1p-149 right instead of 0."""
    v = float.fromhex(literal)
    sign = 0x80000000 if math.copysign(1.0, v) < 0 else 0
    a = abs(v)
    if a == 0:
        bits = 0
    elif not math.isfinite(a):
        raise ValueError(f"{literal} is not a finite float32 value")
    else:
        m, e = math.frexp(a)  # a = m 2^e, 1/2 <= m < 1: exact
        if e - 1 >= -126:  # normal: 24 significant bits
            sig = math.ldexp(m, 24)
            bits = ((e - 1 + 127) << 23) | (int(sig) - (1 << 23))
        else:  # subnormal: a multiple of 2^-149
            sig = math.ldexp(a, 149)
            bits = int(sig)
        if sig != int(sig) or bits >= 0x7F800000:
            raise ValueError(f"{literal} is not a float32 value")
    return np.array(bits | sign, dtype=np.uint32).view(f32)[()]


def bits_of(x: np.ndarray) -> np.ndarray:
    """The uint32 encoding of float32 values (a view, no conversion)."""
    x = np.asanyarray(x)
    if x.dtype != np.float32:
        raise TypeError(f"bits_of expects float32, got {x.dtype}")
    return x.view(np.uint32)


def from_bits(b: np.ndarray) -> np.ndarray:
    """float32 values from uint32 encodings."""
    return np.asanyarray(b).astype(np.uint32).view(np.float32)


def lookup(table: np.ndarray, index: np.ndarray) -> np.ndarray:
    """table[index] for a constant table (the form exporters and the guard can see)."""
    hook = getattr(type(index), "__ulplab_take__", None)
    if hook is not None:
        return hook(table, index)
    return np.asarray(table)[np.asarray(index)]


def ldexp(x: np.ndarray, k: np.ndarray | int) -> np.ndarray:
    """x * 2^k with one rounding (subnormal results rounded once, to nearest-even)."""
    return np.ldexp(x, np.asanyarray(k).astype(np.int32))


def frexp(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(m, e) with x = m * 2^e, 0.5 <= |m| < 1; exact, subnormal inputs included."""
    m, e = np.frexp(x)
    return m, e.astype(np.int32)


def rint(x: np.ndarray) -> np.ndarray:
    """Round to the nearest integer, ties to even (exact in float32)."""
    return np.rint(x)


def two_sum(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(s, e): s = fl(a + b) and e = (a + b) - s exactly (Knuth; no condition on |a|, |b|)."""
    s = a + b
    bp = s - a
    e = (a - (s - bp)) + (b - bp)
    return s, e


def fast_two_sum(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(s, e) as two_sum, valid when |a| >= |b| or a == 0 (Dekker)."""
    s = a + b
    return s, b - (s - a)


def two_prod(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(p, e): p = fl(a * b) and e = a*b - p exactly, with one FMA."""
    p = a * b
    return p, fma(a, b, -p)


def dd_add(ah: np.ndarray, al: np.ndarray, bh: np.ndarray,
           bl: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Double-float sum (relative error about 2^-44), normalized."""
    s, e = two_sum(ah, bh)
    e = e + (al + bl)
    return fast_two_sum(s, e)


def dd_mul(ah: np.ndarray, al: np.ndarray, bh: np.ndarray,
           bl: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Double-float product (relative error about 2^-44), normalized."""
    p, e = two_prod(ah, bh)
    e = fma(ah, bl, fma(al, bh, e))
    return fast_two_sum(p, e)


def horner(x: np.ndarray, coeffs: Sequence[float], use_fma: bool = True) -> np.ndarray:
    """c0 + x(c1 + x(c2 + ...)) with coefficients low to high, innermost first.

    With ``use_fma`` each step is one correctly rounded fma(acc, x, c); without, a float32
    multiply then a float32 add.
    """
    cs = [f32(c) for c in coeffs]
    acc = np.full_like(x, cs[-1])
    for c in reversed(cs[:-1]):
        cc = np.full_like(x, c)
        acc = fma(acc, x, cc) if use_fma else acc * x + cc
    return acc


def estrin(x: np.ndarray, coeffs: Sequence[float], use_fma: bool = True) -> np.ndarray:
    """The same polynomial by Estrin's scheme: pairs (c_2i + c_2i+1 x), then powers x^2, x^4 ...

    Order: level by level, each pair combined as lo + hi * x^(2^level), lowest pair first.
    """
    terms = [np.full_like(x, f32(c)) for c in coeffs]
    power = x
    while len(terms) > 1:
        nxt = []
        for i in range(0, len(terms) - 1, 2):
            lo, hi = terms[i], terms[i + 1]
            nxt.append(fma(hi, power, lo) if use_fma else hi * power + lo)
        if len(terms) % 2:
            nxt.append(terms[-1])
        terms = nxt
        power = power * power
    return terms[0]
