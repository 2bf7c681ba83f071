"""Build a det kernel's exception table: every float32 input whose nearest rounding is undecided.

    python -m ulplab.analysis.cr_scan FUNC [FUNC ...] [--range A B] [--chunk-bits 24]

1. The kernel's ``flag`` variant (``ulplab.kernels.core``: nearest rounding, with inputs whose
   hi + lo lies within the kernel's error bound of a float32 midpoint marked by the NaN
   0x7FC00001) is traced, exported to C and compiled (``ulplab.export.native``), then run on
   every float32 bit pattern, 2^24 at a time; the marked inputs are collected.
2. Those inputs go to the oracle (``ulplab.oracle.fast32.correctly_rounded32``: float64 with a
   proven bound, Arb for the rest) and to the nearest-mode kernel; where the two differ, the
   input and its correctly rounded result are an exception.
3. The exceptions are written to ``ulplab/kernels/exceptions/FUNC.json`` (atomically, with their
   SHA-256), together with the bound, the count of undecided inputs and the golden hash of the
   nearest kernel, so a changed kernel is caught by the tests.

Every other input is decided by the rounding test: its float32 nearest rounding is the correctly
rounded result provided the kernel's hi + lo is within the stated bound of f(x) — the bound is
measured (each kernel's docstring), which is why the exhaustive float32 sweeps check the result.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable

import numpy as np

from ulplab.errors import UsageError

FLAG_MASK = np.uint32(0x7FFFFFFF)
FLAG_BITS = np.uint32(0x7FC00001)


def kernel_info(func: str) -> dict:
    """The ``KERNELS`` entry of ``func``'s det kernel (its impl and its error bound)."""
    from ulplab.kernels import registry

    return registry.get(func).entry()  # an unknown function: UsageError


def flag_kernel(func: str) -> Callable[[np.ndarray], np.ndarray]:
    """The compiled flag variant of ``func``'s kernel (float32 array in, float32 out)."""
    from ulplab.export.emit_c import emit_c
    from ulplab.export.native import array_function, build_source
    from ulplab.export.trace import trace
    from ulplab.kernels.core import rounding

    info = kernel_info(func)
    impl, bound = info["impl"], info.get("bound")
    if bound is None:
        raise UsageError(f"the det kernel of {func} states no error bound (KERNELS 'bound')")

    def flagged(x: np.ndarray) -> np.ndarray:
        with rounding("flag", bound):
            return impl(x)

    name = f"ulplab_{func}_flag"
    src = emit_c(trace(flagged), name, f"{func}: flag variant (ulplab.analysis.cr_scan)",
                 dialect="c")
    return array_function(build_source(f"{func}_flag", src), name)


def undecided_inputs(func: str, start: int = 0, stop: int = 1 << 32, chunk_bits: int = 24,
                     progress: Callable[[int], None] | None = None) -> np.ndarray:
    """Bits of every float32 input in [start, stop) whose rounding the kernel's bound leaves
    undecided (NaN inputs excluded)."""
    run = flag_kernel(func)
    found = []
    step = 1 << chunk_bits
    for lo in range(start, stop, step):
        hi = min(lo + step, stop)
        b = np.arange(lo, hi, dtype=np.uint64).astype(np.uint32)
        x = b.view(np.float32)
        y = run(x).view(np.uint32)
        mark = ((y & FLAG_MASK) == FLAG_BITS) & ((b & FLAG_MASK) <= np.uint32(0x7F800000))
        found.append(b[mark])
        if progress is not None:
            progress(hi - lo)
    return np.concatenate(found) if found else np.empty(0, np.uint32)


def exceptions_of(func: str, undecided: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(input bits, correctly rounded output bits) where the nearest kernel is wrong."""
    from ulplab.kernels.core import rounding
    from ulplab.oracle.fast32 import correctly_rounded32

    impl = kernel_info(func)["impl"]
    x = undecided.view(np.float32)
    with rounding("nearest"), np.errstate(all="ignore"):
        got = impl(x).view(np.uint32)
    truth, _ = correctly_rounded32(func, x)
    bad = got != truth
    return undecided[bad], truth[bad]


def nearest_hash(func: str) -> str:
    """Golden hash of the nearest-mode kernel (no exception table): what a table was made for."""
    from ulplab.kernels.core import rounding
    from ulplab.kernels.golden import golden_hash

    impl = kernel_info(func)["impl"]

    def nearest(x: np.ndarray) -> np.ndarray:
        with rounding("nearest"):
            return impl(x)

    return golden_hash(func, nearest)


def scan(func: str, start: int = 0, stop: int = 1 << 32, chunk_bits: int = 24,
         write: bool = True, quiet: bool = False) -> dict:
    """Find ``func``'s undecided inputs and exceptions; write its table for a full scan."""
    from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

    t0 = time.perf_counter()
    with Progress(TextColumn(f"{func}"), BarColumn(), TextColumn("{task.percentage:>5.1f}%"),
                  TimeRemainingColumn(), disable=quiet, transient=True) as bar:
        task = bar.add_task("scan", total=stop - start)
        und = undecided_inputs(func, start, stop, chunk_bits,
                               lambda n: bar.advance(task, n))
    t_scan = time.perf_counter() - t0
    keys, values = exceptions_of(func, und)
    t_all = time.perf_counter() - t0
    out = {"function": func, "scanned": stop - start, "undecided": int(und.size),
           "exceptions": int(keys.size), "scan_s": round(t_scan, 1), "total_s": round(t_all, 1),
           "bound": float(kernel_info(func)["bound"]).hex()}
    if write and (start, stop) == (0, 1 << 32):
        from ulplab.kernels.exceptions import write_table

        out["path"] = write_table(func, keys, values, bound=kernel_info(func)["bound"],
                                  undecided=int(und.size), kernel_hash=nearest_hash(func),
                                  scanned=stop - start,
                                  command=f"python -m ulplab.analysis.cr_scan {func}")
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m ulplab.analysis.cr_scan",
                                 description="build det kernels' float32 exception tables")
    ap.add_argument("functions", nargs="+")
    ap.add_argument("--range", nargs=2, metavar=("A", "B"), default=None,
                    help="bit patterns [A, B) (hex or decimal); no table is written")
    ap.add_argument("--chunk-bits", type=int, default=24)
    args = ap.parse_args(argv)
    try:
        start, stop = 0, 1 << 32
        if args.range:
            start, stop = (int(v, 0) for v in args.range)
            if not 0 <= start < stop <= 1 << 32:
                raise UsageError("--range needs 0 <= A < B <= 2^32")
        for func in args.functions:
            print(scan(func, start, stop, args.chunk_bits))
    except (UsageError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
