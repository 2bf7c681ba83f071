"""How many processes an exhaustive build uses: one per core, or $ULPLAB_WORKERS."""

from __future__ import annotations

import os


def worker_count() -> int:
    cores = os.cpu_count() or 1
    asked = int(os.environ.get("ULPLAB_WORKERS", "0") or 0)
    return max(1, min(cores, asked) if asked > 0 else cores)
