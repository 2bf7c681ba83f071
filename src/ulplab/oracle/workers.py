"""How many processes an exhaustive build uses (one per core, or $ULPLAB_WORKERS), and how they
start."""

from __future__ import annotations

import contextlib
import multiprocessing
import multiprocessing.context
import os
import sys
import types
from collections.abc import Iterator


def pool_context() -> multiprocessing.context.BaseContext:
    """Processes started by a fork server, never forked from this process: a fork after torch
    or JAX has started its threads can deadlock (JAX warns of it), so workers start clean."""
    method = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
    return multiprocessing.get_context(method)


def worker_count() -> int:
    cores = os.cpu_count() or 1
    asked = int(os.environ.get("ULPLAB_WORKERS", "0") or 0)
    return max(1, min(cores, asked) if asked > 0 else cores)


@contextlib.contextmanager
def started_without_main() -> Iterator[None]:
    """Worker processes started inside this block do not re-run the caller's ``__main__``.

    A fork server or spawned worker re-imports the script that started it, so a plain script
    with no ``if __name__ == "__main__"`` guard would start its own sweep inside every worker
    (and the pool dies with BrokenProcessPool). The workers need only ulplab's modules, so while
    they start, ``__main__`` is a bare module naming no file; it is put back on exit.
    """
    real = sys.modules["__main__"]
    sys.modules["__main__"] = types.ModuleType("__main__")
    try:
        yield
    finally:
        sys.modules["__main__"] = real
