"""Warm report card: `ulplab peers` for the issue's eleven functions in bfloat16 and float16.

    python benchmarks/bench_peers.py

One process (torch and JAX imported once), oracle tables cached beforehand; prints seconds per
(function, format) and the total. Peer in the same run: the sweep of NumPy's float32 exp alone.
"""

from __future__ import annotations

import time

FUNCS = ("gelu", "gelu_tanh", "tanh", "exp", "log", "sin", "cos", "sigmoid", "silu",
         "softplus", "erf")


def main() -> None:
    from ulplab.oracle.table import oracle_table
    from ulplab.peers import report_card

    for fmt in ("bfloat16", "float16"):
        for f in (*FUNCS, "gelu_grad", "tanh_grad"):
            oracle_table(f, fmt, progress=False)
    report_card("exp", "bfloat16", ["numpy"])  # warm imports
    t0 = time.perf_counter()
    peer = report_card("exp", "bfloat16", ["numpy"])
    peer_s = time.perf_counter() - t0
    total = 0.0
    for fmt in ("bfloat16", "float16"):
        for f in FUNCS:
            t = time.perf_counter()
            card = report_card(f, fmt)
            dt = time.perf_counter() - t
            total += dt
            print(f"{f:<10} {fmt:<9} {dt:6.2f} s  {len(card['backends'])} backends")
    print(f"total {total:.1f} s for {2 * len(FUNCS)} report cards; peer (NumPy exp alone, "
          f"{len(peer['backends'])} backend) {peer_s:.2f} s; ratio {total / peer_s:.0f}")


if __name__ == "__main__":
    main()
