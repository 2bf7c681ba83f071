"""The exhaustive float32 sweeps behind the float32 report card: every card function over all
2^32 inputs with the backends that are cheap to call on every input (NumPy, the C library,
PyTorch on the CPU), on this machine, one function at a time.

    python benchmarks/float32_card.py run [--functions gelu,silu,...] [--backends ...]
    ulplab peers --all-functions --format float32 --records benchmarks/results/float32/card \\
        --json docs/data/card-float32.json

``run`` sweeps each function with ``ulplab peers FUNC --format float32 --exhaustive --backends
numpy,libm,torch-f32`` (one sweep per function: the backends share the oracle's pass; a backend
without the function is listed as skipped), under ``nice -n 10``, with 2 local Dask workers when
the 1-minute load average (read after a 20 s pause) is below 2, else in one process. Each sweep
keeps a checkpoint (rerun to continue an interrupted one); its JSON goes to
``benchmarks/results/float32/card/FUNC.json`` with the run's circumstances under ``"run"``
(workers, load average, start and end, the git commit, the machine, the versions and PyTorch's
CPU capability: NumPy and PyTorch dispatch to other float32 loops on other CPUs, so a record
speaks for the machine it names). A function whose JSON exists is skipped. The card command
then puts each record's rows on the float32 card as "exhaustive (2^32)", the det rows from the
kernels' own 2^32 proofs (``benchmarks/results/float32/det-float32/``), and samples the rest.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import float32_peers

RESULTS = Path(__file__).resolve().parent / "results" / "float32" / "card"
CHEAP = "numpy,libm,torch-f32"
"""The backends swept exhaustively: each computes a float32 result per input at 10^7 inputs/s
or more on one core (the frameworks that start a graph or a session per call are sampled)."""


def _torch_capability() -> str | None:
    """The CPU capability PyTorch dispatches its float32 loops to here (None without torch)."""
    try:
        import torch
    except ImportError:
        return None
    return str(torch.backends.cpu.get_cpu_capability())


def _circumstances() -> dict[str, object]:
    """What a card record adds to the run: the machine, the versions, PyTorch's dispatch."""
    from ulplab.peers.machine import backend_versions, machine

    versions = backend_versions()
    return {"machine": machine(),
            "versions": {k: versions.get(k) for k in ("numpy", "torch", "ulplab")},
            "torch_cpu_capability": _torch_capability()}


def run(functions: list[str], backends: str, checkpoints: Path) -> None:
    float32_peers.run(functions, backends, checkpoints, results=RESULTS, extra=_circumstances)


def main() -> None:
    from ulplab.peers.card import CARD_FUNCTIONS

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("what", choices=("run",))
    ap.add_argument("--functions", default=",".join(CARD_FUNCTIONS))
    ap.add_argument("--backends", default=CHEAP)
    ap.add_argument("--checkpoints", type=Path,
                    default=Path("/tmp/ulplab-float32-card-checkpoints"))
    args = ap.parse_args()
    run([f for f in args.functions.split(",") if f], args.backends, args.checkpoints)


if __name__ == "__main__":
    main()
