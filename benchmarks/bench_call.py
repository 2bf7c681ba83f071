"""What a det call costs on short arrays: ``det.FUNC(x)`` against NumPy's ufunc and PyTorch's op
on the same x, 1 to 2^16 float32 elements (where a call's fixed cost shows; ``bench_native.py``
times 2^24), and ``det.FUNC`` on the PyTorch tensor and on the JAX array (against
``jnp.FUNC``, waited for).

    python benchmarks/bench_call.py [--funcs exp,tanh] [--runs 15] [--json PATH]

Each cell is the median microseconds of one call over ``--runs`` interleaved rounds (every round
times each callable in a rotating order, each sample a loop of calls worth about 2^20 elements),
after a warm-up call. Default threads (det: every core from 2 * ``native.MIN_PER_THREAD``
elements on, one below; PyTorch: its intra-op count). The CPU's ISA level is printed with the
figures; ``--json`` writes them with the machine.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from typing import Any

import numpy as np

from timing import cpu_isa, interleaved_medians, machine

SIZES = (1, 1 << 10, 1 << 14, 1 << 16)
"""The array sizes timed."""


def per_call_us(fns: dict[str, Callable[[], Any]], n: int, runs: int) -> dict[str, float]:
    """Median microseconds of one call of each callable, ``runs`` interleaved rounds
    (``timing.interleaved_medians`` of loops of calls worth about 2^20 elements)."""
    reps = max(1, (1 << 20) // max(n, 64))

    def loop(fn: Callable[[], Any]) -> Callable[[], None]:
        def calls() -> None:
            for _ in range(reps):
                fn()
        return calls

    seconds = interleaved_medians({name: loop(fn) for name, fn in fns.items()}, runs)
    return {name: s / reps * 1e6 for name, s in seconds.items()}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--funcs", default="exp,tanh")
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)

    import ulplab.det as det

    try:
        import torch
    except ImportError:
        torch = None
    try:
        import jax.numpy as jnp
    except ImportError:
        jnp = None
    funcs = args.funcs.split(",")
    print(f"CPU: {cpu_isa()}; microseconds a call (median of {args.runs} interleaved rounds); "
          "det(t), det(j): det on the PyTorch tensor, the JAX array", file=sys.stderr)
    heads = ("det", "numpy", "torch", "det/np", "det(t)", "/torch", "jax", "det(j)", "/jax")
    print(f"{'function':<8} {'n':>5} " + " ".join(f"{h:>7}" for h in heads))
    rows = []
    for func in funcs:
        for n in SIZES:
            x = np.random.default_rng(n).uniform(-8, 8, n).astype(np.float32)
            fns: dict[str, Callable[[], Any]] = {"det": lambda f=func, x=x: getattr(det, f)(x),
                                                 "numpy": lambda f=func, x=x: getattr(np, f)(x)}
            if torch is not None:
                t = torch.from_numpy(x.copy())
                fns["torch"] = lambda f=func, t=t: getattr(torch, f)(t)
                fns["det_torch"] = lambda f=func, t=t: getattr(det, f)(t)
            if jnp is not None:
                j = jnp.asarray(x)
                fns["jax"] = lambda f=func, j=j: getattr(jnp, f)(j).block_until_ready()
                fns["det_jax"] = lambda f=func, j=j: getattr(det, f)(j).block_until_ready()
            us = per_call_us(fns, n, args.runs)
            nan = float("nan")
            cells = (us["det"], us["numpy"], us.get("torch", nan), us["det"] / us["numpy"],
                     us.get("det_torch", nan), us.get("det_torch", nan) / us.get("torch", nan),
                     us.get("jax", nan), us.get("det_jax", nan),
                     us.get("det_jax", nan) / us.get("jax", nan))
            print(f"{func:<8} {n:>5} " + " ".join(f"{c:>7.2f}" for c in cells), flush=True)
            rows.append({"function": func, "n": n, **us})
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"machine": machine(), "runs": args.runs, "calls_us": rows}, fh, indent=2)
            fh.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
