"""The whole card in one call: every function of ``CARD_FUNCTIONS`` (forward, and backward where
the function has a derivative and the framework autograd) on every backend, in one format, with
the machine, the framework versions and the command recorded beside the rows."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from ulplab.backends._isolated import Pool
from ulplab.formats import get_format
from ulplab.peers import report_card
from ulplab.peers.machine import backend_versions, machine

CARD_FUNCTIONS = ("gelu", "gelu_tanh", "silu", "sigmoid", "tanh", "exp", "log", "erf",
                  "softplus", "sin", "cos")
"""The functions of the 16-bit card (issue 21)."""

DEFAULT_TIME_LIMIT = 300.0
"""Seconds a backend may take for one call (one sweep of a format's inputs) before its row says
it timed out."""


def full_card(fmt: str, functions: Sequence[str] = CARD_FUNCTIONS,
              backends: Sequence[str] | None = None, *, worst: int = 3,
              time_limit: float = DEFAULT_TIME_LIMIT, command: str = "",
              progress: bool = False) -> dict[str, Any]:
    """The report card of every function in ``functions`` (``report_card`` each, the backends
    in child processes reused across functions), with ``machine``, ``versions``, ``command``,
    ``coverage`` (every input of the format: the 16-bit and narrower formats are swept
    exhaustively) and the wall time in ``seconds``."""
    f = get_format(fmt)
    start = time.perf_counter()
    cards = []
    with Pool(time_limit) as pool:
        for func in functions:
            cards.append(report_card(func, f, backends, worst=worst, pool=pool,
                                     time_limit=time_limit, progress=progress))
    return {"kind": "accuracy card", "format": f.name, "command": command,
            "coverage": f"every one of the {f.n_patterns:,} {f.name} inputs",
            "machine": machine(), "versions": backend_versions(),
            "time_limit_s": time_limit, "seconds": round(time.perf_counter() - start, 1),
            "cards": cards}
