"""How many processes an exhaustive build uses (one per core, or $ULPLAB_WORKERS), and how they
start."""

from __future__ import annotations

import multiprocessing
import multiprocessing.context
import os


def pool_context() -> multiprocessing.context.BaseContext:
    """Processes started by a fork server, never forked from this process: a fork after torch
    or JAX has started its threads can deadlock (JAX warns of it), so workers start clean."""
    method = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
    return multiprocessing.get_context(method)


def worker_count() -> int:
    cores = os.cpu_count() or 1
    asked = int(os.environ.get("ULPLAB_WORKERS", "0") or 0)
    return max(1, min(cores, asked) if asked > 0 else cores)
