"""Warm report card: the whole 16-bit card (``ulplab peers --all-functions``) in bfloat16 and
float16 — the eleven functions of issue 21, forward and backward, every backend installed, each
in its child process (started once per format and reused across functions).

    python benchmarks/bench_peers.py

Oracle tables cached beforehand (the derivatives' too); prints seconds per (function, format)
and the total. Peer in the same run: the sweep of NumPy's float32 exp alone, in process.
"""

from __future__ import annotations

import time


def main() -> None:
    from ulplab.backends._isolated import Pool
    from ulplab.functions import get_function
    from ulplab.oracle.table import oracle_table
    from ulplab.peers import report_card
    from ulplab.peers.card import CARD_FUNCTIONS, DEFAULT_TIME_LIMIT

    for fmt in ("bfloat16", "float16"):
        for f in CARD_FUNCTIONS:
            oracle_table(f, fmt, progress=False)
            derivative = get_function(f).derivative
            if derivative:
                oracle_table(derivative, fmt, progress=False)
    report_card("exp", "bfloat16", ["numpy"])  # warm imports
    t0 = time.perf_counter()
    peer = report_card("exp", "bfloat16", ["numpy"])
    peer_s = time.perf_counter() - t0
    total = 0.0
    for fmt in ("bfloat16", "float16"):
        with Pool(DEFAULT_TIME_LIMIT) as pool:  # worker start-up counted in the first function
            for f in CARD_FUNCTIONS:
                t = time.perf_counter()
                card = report_card(f, fmt, pool=pool)
                dt = time.perf_counter() - t
                total += dt
                print(f"{f:<10} {fmt:<9} {dt:6.2f} s  {len(card['backends'])} rows, "
                      f"{len(card['skipped'])} not measured")
    print(f"total {total:.1f} s for {2 * len(CARD_FUNCTIONS)} report cards; peer (NumPy exp "
          f"alone, {len(peer['backends'])} backend) {peer_s:.2f} s; ratio {total / peer_s:.0f}")


if __name__ == "__main__":
    main()
