"""Shared helpers of the studies: methods and their modules, evaluation at chosen inputs, ULP.

Everything here is a thin layer over ``ulplab.sweep`` and ``ulplab.oracle``: a method's result
patterns come from ``sweep.method_outputs`` (so a float32 method's outputs are rounded to the
format exactly as ``ulplab analyze`` rounds them), the truth from ``oracle_table`` (exhaustive
formats) or ``oracle.table.evaluate`` (float32).
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import pkgutil
from collections.abc import Iterator, Sequence
from types import ModuleType
from typing import Any

import numpy as np
from rich.table import Table

from ulplab.errors import UsageError
from ulplab.formats import Format, Kind, classify, get_format, to_values
from ulplab.methods import Method, methods_for
from ulplab.oracle.table import evaluate, oracle_table
from ulplab.stats import hex_bits
from ulplab.sweep import method_outputs
from ulplab.ulp import ulp_distance

FUNCTION = "gelu"


def seed_note(tables: list[Table], mode: str, text: str) -> list[Table]:
    """Put the one-line comparison with the seed's analysis mode ``mode`` (e.g. "--fma") under
    the last table (its caption), as every study does: what the seed's figures are and why they
    differ from these, or that they are the same. Returns ``tables``."""
    tables[-1].caption = f"seed {mode}: {text}"
    tables[-1].caption_justify = "left"
    return tables


def fmt_of(fmt: Format | str) -> Format:
    return get_format(fmt)


def exhaustive_fmt(fmt: Format | str, study: str) -> Format:
    f = get_format(fmt)
    if not f.exhaustive:
        raise UsageError(f"study {study} sweeps every input; {f.name} is not enumerated "
                         "exhaustively (use bfloat16, float16 or an fp8 format)")
    return f


def gelu_methods(names: Sequence[str] | None = None) -> list[Method]:
    """The registered GELU methods (all, or those named, in registry order)."""
    from ulplab.methods import get_method

    if names:
        return [get_method(FUNCTION, n) for n in names]
    return methods_for(FUNCTION)


# ------------------------------------------------------------------ the method modules
@functools.lru_cache(maxsize=1)
def gelu_modules() -> tuple[ModuleType, ...]:
    """The modules of ``ulplab.methods.gelu`` (read by the studies of their tables and knots)."""
    import ulplab.methods.gelu as pkg

    names = sorted(m.name for m in pkgutil.iter_modules(pkg.__path__))
    return tuple(importlib.import_module(f"{pkg.__name__}.{n}") for n in names)


def short_module(mod: ModuleType | None) -> str:
    return "-" if mod is None else mod.__name__.rsplit(".", 1)[-1]


@contextlib.contextmanager
def patched(mod: ModuleType, name: str, value: Any) -> Iterator[None]:
    """Temporarily replace a module constant (restored even on error); for tests of the studies
    that read committed tables (calibrate, verify-knots), never to change a method."""
    saved = getattr(mod, name)
    setattr(mod, name, value)
    try:
        yield
    finally:
        setattr(mod, name, saved)


# ------------------------------------------------------------------ evaluation and ULP
def expected_bits(fmt: Format, bits: np.ndarray, func: str = FUNCTION,
                  denormals: str = "ieee") -> np.ndarray:
    """Correctly rounded ``func`` at the input patterns ``bits`` (nearest-even)."""
    bits = np.asarray(bits).astype(fmt.uint)
    if fmt.exhaustive:
        return oracle_table(func, fmt, "nearest-even", denormals, progress=False)[bits]
    return evaluate(func, to_values(bits, fmt), fmt, "nearest-even", denormals)


def got_bits(method: Method, fmt: Format, bits: np.ndarray | None = None,
             denormals: str = "ieee") -> np.ndarray:
    """The method's result patterns at ``bits`` (every pattern of ``fmt`` when None)."""
    if bits is not None:
        bits = np.asarray(bits).astype(fmt.uint)
    return method_outputs(method, fmt, denormals, "nearest-even", bits)[1]


def nonfinite_mismatch(got: np.ndarray, expected: np.ndarray, fmt: Format) -> np.ndarray:
    """True where a NaN or infinity is on either side and the two disagree (ulp is -1 there)."""
    kg, ke = classify(got, fmt), classify(expected, fmt)
    nan_g, nan_e = kg == Kind.NAN, ke == Kind.NAN
    inf_pair = ~nan_g & ~nan_e & ((kg == Kind.INF) | (ke == Kind.INF))
    return (nan_g != nan_e) | (inf_pair & (np.asarray(got) != np.asarray(expected)))


def ulp_summary(got: np.ndarray, expected: np.ndarray, fmt: Format,
                ftz: bool = False) -> dict[str, Any]:
    """max / mean ULP over finite pairs, and the NaN/inf disagreements (bitwise calculator)."""
    u = ulp_distance(got, expected, fmt, ftz=ftz)
    fin = u[u >= 0]
    return {"max_ulp": int(fin.max()) if fin.size else 0,
            "mean_ulp": float(fin.mean()) if fin.size else 0.0,
            "nonfinite_mismatches": int(nonfinite_mismatch(got, expected, fmt).sum())}


def cell(bits: int, fmt: Format) -> dict[str, Any]:
    """A value as JSON: float (NaN/inf as strings by report.write_json) and hex pattern."""
    v = float(to_values(np.array([bits]), fmt)[0])
    return {"value": v, "hex": hex_bits(bits, fmt)}


def show(v: float) -> str:
    if isinstance(v, str):
        return v
    if v != v:
        return "nan"
    return f"{v:.6g}"


def ulp_text(u: int, mismatch: bool) -> str:
    """A ULP cell: the number, 'ok' where both sides are the same NaN/inf, '!' otherwise."""
    if u >= 0:
        return str(u)
    return "NaN/inf!" if mismatch else "ok"


def claim_max(method: Method, fmt: Format) -> int | None:
    c = method.claims.get(fmt.name)
    return None if c is None else c.max_ulp


def float32_ulps_apart(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Signed float32 ordinal difference b - a (both float32 arrays, finite)."""
    def ordinal(v: np.ndarray) -> np.ndarray:
        i = np.asarray(v, dtype=np.float32).view(np.uint32).astype(np.int64)
        mag = i & 0x7FFFFFFF
        return np.where(i >> 31, -mag, mag)

    return ordinal(b) - ordinal(a)


def step_float32(v: float, k: int) -> np.float32:
    """The float32 k ulps above (k > 0) or below v (signed ordinal step; v finite)."""
    i = int(np.float32(v).view(np.uint32))
    mag, neg = i & 0x7FFFFFFF, i >> 31
    o = (-mag if neg else mag) + k
    bits = (0x80000000 | -o) if o < 0 else o
    return np.uint32(bits).view(np.float32)
