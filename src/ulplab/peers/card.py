"""The whole card in one call: every function of ``CARD_FUNCTIONS`` (forward, and backward where
the function has a derivative and the framework autograd) on every backend, in one format, with
the machine, the framework versions and the command recorded beside the rows."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import numpy as np

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


FLOAT32_RANDOM = 1 << 16
"""Random float32 patterns of the sampled float32 card, besides the hard cases."""
FLOAT32_SEED = 2026


def float32_sample(func: str, random: int = FLOAT32_RANDOM, seed: int = FLOAT32_SEED
                   ) -> tuple[np.ndarray, str]:
    """The float32 inputs of the sampled card, sorted and unique, and what they are: the hard
    cases (the function's exception table: inputs whose correct rounding a double-float
    kernel with a 2^-44 error bound gets wrong, found over all 2^32 inputs; special values;
    every power of two and its two neighbours) and ``random`` random bit patterns."""
    from ulplab.kernels import exceptions
    from ulplab.kernels.golden import SPECIAL_BITS

    table = exceptions.table(func)
    hard = [] if table is None else table.keys.tolist()
    exps = np.arange(0, 255, dtype=np.uint32) << np.uint32(23)
    pow2 = np.concatenate([exps, exps | np.uint32(0x80000000)])
    near = np.concatenate([pow2, pow2 + np.uint32(1), pow2 - np.uint32(1)])
    rng = np.random.default_rng(seed)
    rand = rng.integers(0, 2**32, random, dtype=np.uint64).astype(np.uint32)
    bits = np.unique(np.concatenate([np.array(hard + list(SPECIAL_BITS), np.uint32), near,
                                     rand]))
    what = (f"sampled: {bits.size:,} float32 inputs ({len(hard)} hard cases of the exception "
            f"table, special values, powers of two and neighbours, {random:,} random patterns, "
            f"seed {seed}); the exhaustive 2^32 sweep is ulplab peers FUNC --format float32 "
            "--exhaustive")
    return bits, what


def full_card(fmt: str, functions: Sequence[str] = CARD_FUNCTIONS,
              backends: Sequence[str] | None = None, *, worst: int = 3,
              time_limit: float = DEFAULT_TIME_LIMIT, command: str = "",
              progress: bool = False) -> dict[str, Any]:
    """The report card of every function in ``functions`` (``report_card`` each, the backends
    in child processes reused across functions), with ``machine``, ``versions``, ``command``,
    ``coverage`` and the wall time in ``seconds``. The 16-bit and narrower formats are swept
    over every input ("exhaustive" in each row); float32 over ``float32_sample`` ("sampled")."""
    f = get_format(fmt)
    start = time.perf_counter()
    cards = []
    coverage = f"exhaustive: every one of the {f.n_patterns:,} {f.name} inputs"
    with Pool(time_limit) as pool:
        for func in functions:
            bits, inputs = None, "all"
            if not f.exhaustive:
                bits, coverage = float32_sample(func)
                inputs = "float32 sample"
            card = report_card(func, f, backends, worst=worst, pool=pool, bits=bits,
                               inputs=inputs, time_limit=time_limit, progress=progress)
            card["coverage"] = coverage
            for row in card["backends"]:
                row["coverage"] = "exhaustive" if f.exhaustive else "sampled"
            cards.append(card)
    return {"kind": "accuracy card", "format": f.name, "command": command,
            "coverage": coverage if not f.exhaustive else
            f"exhaustive: every one of the {f.n_patterns:,} {f.name} inputs",
            "machine": machine(), "versions": backend_versions(),
            "time_limit_s": time_limit, "seconds": round(time.perf_counter() - start, 1),
            "cards": cards}
