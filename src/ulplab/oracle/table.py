"""Exhaustive oracle tables: the correctly rounded f(x) for every bit pattern of a format.

``oracle_table(func, fmt)`` returns a 1-D array of bit patterns of length 2**bits whose entry i is
the result for the input with bit pattern i. Tables are cached (see ``cache``) under a key naming
the function, format, rounding mode, denormal policy and a hash of the oracle's source
(``oracle_source_hash``).

A cold build evaluates every pattern once, in all four rounding modes at once, split across
processes (one per core) with a progress bar; the IEEE tables are stored per mode. Denormal
policies are exact remaps of the IEEE table: under DAZ a subnormal input takes the result of the
zero of its sign (+0 in a format without -0), under FTZ a subnormal result becomes the zero of
its sign.
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import os
from collections.abc import Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from types import ModuleType

import numpy as np

import ulplab.formats
import ulplab.functions
from ulplab import cache
from ulplab.formats import (
    ROUNDING_MODES,
    Format,
    Kind,
    all_patterns,
    check_mode,
    classify,
    flush_subnormals,
    get_format,
    get_policy,
    signed_zero,
    to_values,
)
from ulplab.functions import get_function
from ulplab.oracle.workers import pool_context, started_without_main, watch_main, worker_count
from ulplab.oracle.ziv import correctly_rounded_array
from ulplab.progress import progress_bar

CHUNK = 1024


def _package_files(package: ModuleType) -> list[Path]:
    return sorted(Path(package.__file__ or "").parent.rglob("*.py"))


def _function_files(func: str) -> list[Path]:
    """The function's module and every module of ``ulplab.functions`` it draws on (transitively):
    the shared parts, a sibling such as log for log2."""
    prefix = f"{ulplab.functions.__name__}."
    seen: dict[str, Path] = {}
    todo = [importlib.import_module(prefix + func)]
    while todo:
        module = todo.pop()
        if module.__name__ in seen:
            continue
        seen[module.__name__] = Path(module.__file__ or "")
        for value in vars(module).values():
            name = value.__name__ if isinstance(value, ModuleType) else getattr(
                value, "__module__", None)
            if isinstance(name, str) and name.startswith(prefix) and name not in seen:
                todo.append(importlib.import_module(name))
    return sorted(seen.values())


@functools.cache
def oracle_source_hash(func: str) -> str:
    """SHA-256 (16 hex digits) of the source the oracle's results for ``func`` come from.

    The oracle package, the formats package (its rounding and encodings) and the function's
    module with the modules it draws on: any edit there can change a result, and changes the
    cache key, so a stale table is never read (there is no version number to bump by hand).
    """
    digest = hashlib.sha256()
    root = Path(__file__).resolve().parent.parent  # src/ulplab
    oracle_files = sorted(Path(__file__).resolve().parent.rglob("*.py"))
    for path in (oracle_files + _package_files(ulplab.formats)
                 + _function_files(func)):
        digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def cache_key(func: str, fmt: Format, rounding: str, denormals: str) -> str:
    return f"{func}-{fmt.name}-{rounding}-{denormals}-{oracle_source_hash(func)}"


def _chunk_worker(func: str, fmt_name: str, start: int, stop: int) -> tuple[int, np.ndarray]:
    fmt = get_format(fmt_name)
    xs = to_values(np.arange(start, stop, dtype=np.int64).astype(fmt.uint), fmt)
    return start, correctly_rounded_array(func, xs, fmt)


def build(jobs: Sequence[tuple[str, Format]], progress: bool = True) -> None:
    """Compute and cache the IEEE tables (all four modes) for each (function, format) job."""
    pending = [(f, fmt) for f, fmt in jobs
               if any(cache.load(cache_key(f, fmt, m, "ieee")) is None for m in ROUNDING_MODES)]
    if not pending:
        return
    results = {(f, fmt.name): np.zeros((4, fmt.n_patterns), dtype=fmt.uint) for f, fmt in pending}
    tasks = [(f, fmt.name, s, min(s + CHUNK, fmt.n_patterns))
             for f, fmt in pending for s in range(0, fmt.n_patterns, CHUNK)]
    total = sum(t[3] - t[2] for t in tasks)
    names = ", ".join(sorted({f"{f}/{fmt.name}" for f, fmt in pending}))
    with progress_bar(progress) as bar:
        label = names if len(names) < 60 else f"{len(pending)} tables"
        task = bar.add_task(f"oracle {label}", total=total)
        workers = worker_count()
        if workers == 1:
            done: Iterable = (_chunk_worker(*t) for t in tasks)
            for (f, fname, s, e), (_, out) in zip(tasks, done, strict=True):
                results[(f, fname)][:, s:e] = out
                bar.advance(task, e - s)
        else:
            with ProcessPoolExecutor(max_workers=workers, mp_context=pool_context(),
                                     initializer=watch_main, initargs=(os.getpid(),)) as pool:
                with started_without_main():  # workers start on the first submits
                    futures = {pool.submit(_chunk_worker, *t): t for t in tasks}
                for fut in as_completed(futures):
                    f, fname, s, e = futures[fut]
                    results[(f, fname)][:, s:e] = fut.result()[1]
                    bar.advance(task, e - s)
    for (f, fname), table in results.items():
        fmt = get_format(fname)
        for row, mode in enumerate(ROUNDING_MODES):
            cache.save(cache_key(f, fmt, mode, "ieee"), table[row])


def apply_denormals(table: np.ndarray, fmt: Format, denormals: str) -> np.ndarray:
    """Remap an IEEE table to a denormal policy (exact, see the module docstring)."""
    policy = get_policy(denormals)
    out = table
    if policy.daz:
        patterns = all_patterns(fmt)
        sub = classify(patterns, fmt) == Kind.SUBNORMAL
        out = np.where(sub, out[signed_zero(patterns, fmt)], out)
    if policy.ftz:
        out = flush_subnormals(out, fmt)
    return np.asarray(out).astype(fmt.uint)


def oracle_table(func: str, fmt: Format | str, rounding: str = "nearest-even",
                 denormals: str = "ieee", progress: bool = True) -> np.ndarray:
    """Correctly rounded results for every bit pattern of ``fmt`` (cached)."""
    get_function(func)
    fmt = get_format(fmt)
    check_mode(rounding)
    get_policy(denormals)
    if not fmt.exhaustive:
        raise ValueError(f"{fmt.name} is not enumerated exhaustively; use oracle.evaluate")
    key = cache_key(func, fmt, rounding, denormals)
    table = cache.load(key)
    if table is not None:
        return table
    if denormals != "ieee":
        table = apply_denormals(oracle_table(func, fmt, rounding, "ieee", progress), fmt, denormals)
        cache.save(key, table)
        return table
    build([(func, fmt)], progress=progress)
    table = cache.load(key)
    if table is None:
        raise RuntimeError(f"oracle cache {cache.path_for(key)} could not be read back")
    return table


def evaluate(func: str, xs: np.ndarray, fmt: Format | str, rounding: str = "nearest-even",
             denormals: str = "ieee") -> np.ndarray:
    """Correctly rounded results for arbitrary values of ``fmt`` (float32 sweeps, references).

    Not cached. Returns bit patterns of ``fmt``.
    """
    get_function(func)
    fmt = get_format(fmt)
    mode = ROUNDING_MODES.index(check_mode(rounding))
    policy = get_policy(denormals)
    xs = np.asarray(xs, dtype=np.float64)
    if policy.daz:
        tiny = (xs != 0) & (np.abs(xs) < fmt.min_normal)
        xs = np.where(tiny, np.copysign(0.0, xs), xs)
    out = correctly_rounded_array(func, xs, fmt)[mode]
    return flush_subnormals(out, fmt) if policy.ftz else out
