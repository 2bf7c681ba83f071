"""Argument readers shared by the ``ulplab`` subcommands (``cli.main``, ``cli.exhaustive``,
``cli.report_cmd``): whole numbers in a range, numbers in any notation, worker counts.

A reader used as an argparse ``type`` raises ``argparse.ArgumentTypeError``, which the parser
turns into one line and exit status 2; the others raise ``UsageError``.
"""

from __future__ import annotations

import argparse
import os
import re
from collections.abc import Callable

import numpy as np

from ulplab.errors import UsageError
from ulplab.formats import Format, to_values

MAX_SAMPLES = 10**9
"""The most random inputs any command draws (faithful works in chunks; 10^9 takes hours)."""
MAX_MEMORY_SAMPLES = 10**8
"""analyze and determinism hold all their samples at once (10^8 float32: 400 MB each array)."""
MAX_WORST = 10_000
"""The most worst inputs kept per method: they are sorted, printed and (float32 --exhaustive)
stored in the checkpoint after every chunk."""


def whole(lo: int, hi: int | None = None, what: str = "") -> Callable[[str], int]:
    """An argparse type: a whole number in [lo, hi]; anything else exits 2 with one line."""
    def parse(text: str) -> int:
        try:
            value = int(text.strip())
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
        if value < lo or (hi is not None and value > hi):
            limit = f"from {lo:,} to {hi:,}" if hi is not None else f"at least {lo:,}"
            raise argparse.ArgumentTypeError(f"{value:,} is out of range: {limit}{what}")
        return value

    parse.__name__ = "whole number"
    return parse


def cores() -> int:
    """The processors of this machine (``os.cpu_count()``; 1 when it cannot tell)."""
    return os.cpu_count() or 1


def worker_count(text: str) -> int:
    """An argparse type for ``--workers``: from 1 to the number of cores of this machine (more
    processes than cores only wait for each other, and a thousand never start)."""
    return whole(1, cores(), f" (the cores of this machine, os.cpu_count() = {cores()})")(text)


_BITS = re.compile(r"^[+-]?0x[0-9a-f]+$", re.IGNORECASE)


def parse_number(text: str, fmt: Format | None) -> float:
    """Decimal, hex float (0x1.8p+1) or, with a format, a bit pattern (0x3fc0)."""
    t = text.strip()
    if _BITS.match(t) and "p" not in t.lower():
        if fmt is None:
            raise UsageError(f"{text!r} looks like a bit pattern: give --format to read it")
        value = int(t, 16)
        if value < 0 or value >= fmt.n_patterns:
            raise UsageError(f"bit pattern {text} does not fit in {fmt.name}")
        return float(to_values(np.array([value]), fmt)[0])
    try:
        return float.fromhex(t) if "0x" in t.lower() else float(t)
    except OverflowError:
        raise UsageError(f"{text.strip()!r} is beyond every format's range: write inf for "
                         "infinity") from None
    except ValueError:
        raise UsageError(f"malformed number {text!r}: expected a decimal, a hex float (0x1.8p+1) "
                         "or a bit pattern with --format (0x3fc0)") from None


def parse_range(texts: list[str], fmt: Format | None) -> tuple[float, float]:
    """``--range LO HI`` as two numbers with LO <= HI (neither NaN)."""
    lo, hi = (parse_number(t, fmt) for t in texts)
    if lo != lo or hi != hi:
        raise UsageError(f"--range {texts[0].strip()} {texts[1].strip()}: a bound is NaN; give "
                         "two numbers LO <= HI")
    if not lo <= hi:
        raise UsageError(f"--range {texts[0].strip()} {texts[1].strip()}: needs LO <= HI")
    return lo, hi


__all__ = ["MAX_MEMORY_SAMPLES", "MAX_SAMPLES", "MAX_WORST", "cores", "parse_number",
           "parse_range", "whole", "worker_count"]
