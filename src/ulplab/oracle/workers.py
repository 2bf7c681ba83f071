"""How many processes an exhaustive build uses (one per core, or $ULPLAB_WORKERS), and how they
start."""

from __future__ import annotations

import contextlib
import multiprocessing
import multiprocessing.context
import os
import signal
import sys
import threading
import time
import types
from collections.abc import Iterator


def pool_context() -> multiprocessing.context.BaseContext:
    """Processes started by a fork server, never forked from this process: a fork after torch
    or JAX has started its threads can deadlock (JAX warns of it), so workers start clean."""
    method = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
    return multiprocessing.get_context(method)


def worker_count() -> int:
    """$ULPLAB_WORKERS processes (at most one per core), or one per core when it is unset or
    0; a value that is not a whole number is a UsageError."""
    from ulplab.errors import UsageError

    cores = os.cpu_count() or 1
    text = os.environ.get("ULPLAB_WORKERS", "").strip()
    try:
        asked = int(text or 0)
    except ValueError:
        raise UsageError(f"ULPLAB_WORKERS={text!r}: expected a whole number of processes "
                         "(0 or unset: one per core)") from None
    if asked < 0:
        raise UsageError(f"ULPLAB_WORKERS={text!r}: expected 0 or more processes")
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


def watch_main(main_pid: int) -> None:
    """Pool initializer (``initializer=watch_main, initargs=(os.getpid(),)``): once the main
    process is gone (killed with -9, say), this worker ends its fork server and itself within a
    second, so no orphan keeps computing."""
    def watch() -> None:
        while True:
            time.sleep(1)
            try:
                os.kill(main_pid, 0)
            except ProcessLookupError:
                parent = os.getppid()
                if parent not in (1, main_pid):  # the fork server that started this worker
                    with contextlib.suppress(OSError):
                        os.kill(parent, signal.SIGTERM)
                os._exit(1)
            except PermissionError:
                pass  # alive, under another user (a reused pid): keep going

    threading.Thread(target=watch, name="ulplab-watch-main", daemon=True).start()
