"""Checks that the kernel tests share: the float32 round-to-odd truth from the oracle's directed
roundings, a kernel compared with it, a table of special values, and the directed-rounding
check of a kernel's round-to-odd output on every input of a narrow format.

"Round-to-odd exact" means: the float32 result is the round-to-odd of the true value (the odd
one of the two float32 neighbours, or the value itself when it is a float32).
"""

from collections.abc import Callable

import numpy as np

from ulplab.formats import get_format, to_values
from ulplab.oracle.table import evaluate
from ulplab.ulp import ulp_distance

F32 = get_format("float32")
f32 = np.float32


# The hardest reductions over all float32 (smallest |x 2/pi - q|, 2^-29.86 to 2^-26.3, found
# by an exhaustive search over every significand of every exponent), then edges.
TRIG_HARD = np.array([0x6F79BE45, 0x50A3E87F, 0x6FF9BE45, 0x5123E87F, 0x437CE5F1, 0x7079BE45,
                      0x6A1976F1, 0x53B146A6, 0x65898498, 0x51A3E87F, 0x43FCE5F1, 0x77584625,
                      0x4C2332E9, 0x4096CBE4, 0x6C55DA58, 0x5C07BCD0, 0x474D246F, 0x723FA09A,
                      0x447CE5F1, 0x4A2562AE,
                      0x7F7FFFFF, 0x7F7FFFFE, 0x7F000000, 0x45800000, 0x457FFFFF, 0x3F490FDB,
                      0x3F490FDA, 0x3FC90FDB, 0x40490FDB, 0x40C90FDB, 0x39800000, 0x397FFFFF],
                     np.uint32)


def trig_hard_bits() -> np.ndarray:
    """A copy of TRIG_HARD (uint32 encodings)."""
    return TRIG_HARD.copy()


def bits(xs: np.ndarray) -> np.ndarray:
    return np.asarray(xs, f32).view(np.uint32)


def round_to_odd_truth(function: str, xs: np.ndarray) -> np.ndarray:
    """The float32 round-to-odd of f(x) (bits), from the oracle's rounding down and up."""
    vals = to_values(bits(xs), F32)
    down = evaluate(function, vals, F32, "down")
    up = evaluate(function, vals, F32, "up")
    return np.where((down == up) | ((down & 1) == 1), down, up)


def assert_round_to_odd(function: str, fn: Callable, xs: np.ndarray) -> None:
    """fn(x) is the round-to-odd of f(x) for every x (NaN results: the canonical NaN), except
    that a finite x whose correctly rounded float32 result is ±inf must give that ±inf."""
    xs = np.asarray(xs, f32)
    got = bits(fn(xs))
    want = round_to_odd_truth(function, xs)
    nearest = evaluate(function, to_values(bits(xs), F32), F32)
    overflow = np.isinf(nearest.view(f32)) & np.isfinite(xs)
    want = np.where(overflow, nearest, want)
    bad = got != want
    assert not bad.any(), [(hex(b), hex(g), hex(w)) for b, g, w in
                           zip(bits(xs)[bad][:6], got[bad][:6], want[bad][:6], strict=True)]


def assert_exact_or_faithful(function: str, fn: Callable, b: np.ndarray) -> None:
    """fn at the float32 encodings ``b``: the canonical NaN where f is NaN, the correctly rounded
    result bit for bit where f(x) is a float32 (exact cases) or either side is infinite, and
    within 1 ULP of it everywhere else."""
    b = np.asarray(b, np.uint32)
    vals = to_values(b, F32)
    got = bits(fn(b.view(f32)))
    truth = evaluate(function, vals, F32)
    exact = evaluate(function, vals, F32, "down") == evaluate(function, vals, F32, "up")
    nan = np.isnan(to_values(truth, F32))
    assert np.all(got[nan] == 0x7FC00000), "NaN results are the canonical quiet NaN"
    u = ulp_distance(got, truth, F32)
    bad = ~nan & ((exact & (got != truth)) | (u > 1) | ((u < 0) & (got != truth)))
    assert not bad.any(), [(hex(x), hex(g), hex(t)) for x, g, t in
                           zip(b[bad][:8], got[bad][:8], truth[bad][:8], strict=True)]


def assert_special_table(fn: Callable, table: list[tuple[int, int]]) -> None:
    """fn maps each input encoding of ``table`` to its result encoding, bit for bit."""
    xs = np.array([b for b, _ in table], np.uint32).view(f32)
    got = bits(fn(xs))
    want = np.array([w for _, w in table], np.uint32)
    assert np.array_equal(got, want), [(hex(b), hex(g), hex(w)) for (b, w), g in
                                       zip(table, got, strict=True) if g != w]


def directed_mismatches(method: object, fmt: str, mode: str) -> np.ndarray:
    """Input patterns of ``fmt`` where the kernel's float32 output rounded in ``mode`` differs
    from the true value rounded in ``mode`` (bits, NaN matching NaN).

    Finite inputs whose float32 result is ±inf are left out: like exp, a kernel returns the
    correctly rounded float32 ±inf there rather than the round-to-odd ±FLT_MAX, so toward zero
    its output stays infinite where the truth is the format's largest finite value.
    """
    from ulplab.sweep import compare

    fmt_ = get_format(fmt)
    out = compare(method, method.function, fmt_, mode, output_rounding=mode, progress=False)
    with np.errstate(invalid="ignore"):
        x32 = to_values(out.x_bits, fmt_).astype(f32)
    overflow = np.isinf(method(x32)) & np.isfinite(x32)
    return out.x_bits[(out.got != out.expected) & ~overflow]


def float32_entry(function: str, compiled: bool = True) -> Callable:
    """The correctly rounded float32 entry point: compiled when there is a C compiler (the
    same bits as the NumPy kernel, held by the golden hashes), else ulplab's NumPy kernel."""
    from ulplab.export import det_kernel, load

    if compiled:
        try:
            return load(function, "c", "float32")
        except RuntimeError:  # no C compiler, or this CPU cannot run the build
            pass
    return det_kernel(function, "float32")


def assert_correctly_rounded32(function: str, b: np.ndarray, compiled: bool = False,
                               entry: Callable | None = None) -> None:
    """The float32 entry point (``entry``, default ``float32_entry(function, compiled)``) gives
    the correctly rounded float32 f(x) (bits) for every input encoding in ``b``."""
    from ulplab.oracle.fast32 import correctly_rounded32

    b = np.asarray(b).astype(np.uint32)
    x = b.view(f32)
    with np.errstate(all="ignore"):
        got = (entry or float32_entry(function, compiled))(x).view(np.uint32)
    want, _ = correctly_rounded32(function, x)
    bad = np.flatnonzero(got != want)
    assert bad.size == 0, (function, bad.size,
                           [(hex(b[i]), hex(got[i]), hex(want[i])) for i in bad[:6]])
