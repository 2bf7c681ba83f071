"""``ulplab analyze/peers ... --format float32 --exhaustive``: every float32 (or every one in
``--range``), chunked, resumable, in this process or on Dask (``ulplab.sweep.exhaustive``)."""

from __future__ import annotations

import argparse
import re
from typing import Any

from ulplab.errors import UsageError
from ulplab.formats import get_format

PEER_BACKENDS = ("numpy", "libm", "torch-f32", "torch-cuda-f32")
"""Backends of the float32 report card (torch-cuda-f32 only where a GPU is present)."""


def add_arguments(p: argparse.ArgumentParser, dump: bool = True) -> None:
    """The flags of an exhaustive float32 sweep (``--range``/``--quiet`` come with the command)."""
    g = p.add_argument_group("every float32 (--format float32 --exhaustive)")
    g.add_argument("--exhaustive", action="store_true",
                   help="float32: every input (with --range: every input in [LO, HI])")
    g.add_argument("--scheduler", metavar="tcp://HOST:PORT",
                   help="run on this Dask cluster (default: a local cluster for the job)")
    g.add_argument("--workers", type=int, default=0,
                   help="local Dask worker processes (default: one per core; 1: no Dask)")
    g.add_argument("--chunk", type=int, default=1 << 22,
                   help="inputs per task (default 2^22: at most ~1.2 GB of memory per worker)")
    g.add_argument("--checkpoint", metavar="FILE",
                   help="record finished chunks here; a rerun with it continues the job")
    if dump:
        g.add_argument("--dump-above", type=int, metavar="N",
                       help="write every input with more than N ULP (and NaN/inf disagreement)"
                            " to -o FILE")
        g.add_argument("-o", "--output", metavar="FILE", help="the --dump-above file")
        g.add_argument("--callable", action="append", metavar="MODULE:FUNCTION", default=[],
                       help="a float32 -> float32 function to measure too (repeatable)")


def _job_ranges(args: argparse.Namespace) -> tuple[tuple[int, int], ...]:
    from ulplab.cli.main import parse_number
    from ulplab.sweep.exhaustive import ALL, float32_bit_ranges

    if get_format(args.format).name != "float32":
        raise UsageError("--exhaustive sweeps float32; 16- and 8-bit formats are always "
                         "swept exhaustively without it")
    if args.chunk <= 0 or args.workers < 0:
        raise UsageError("--chunk must be positive and --workers at least 0")
    if not getattr(args, "range", None):
        return ALL
    f32 = get_format("float32")
    lo, hi = (parse_number(t.strip(), f32) for t in args.range)
    return float32_bit_ranges(lo, hi)


def _run(args: argparse.Namespace, function: str, methods: list[str], worst: int,
         dump_above: int | None = None) -> dict[str, Any]:
    from ulplab.report import check_writable
    from ulplab.sweep.exhaustive import Job, run_job

    rounding = getattr(args, "rounding", "nearest-even")
    denormals = getattr(args, "denormals", "ieee")
    job = Job(function, tuple(methods), _job_ranges(args), rounding, denormals, args.chunk,
              worst, dump_above)
    if args.checkpoint:
        check_writable(args.checkpoint)
    if args.scheduler is not None and not re.fullmatch(r"(tcp|tls)://[^\s:/]+:\d{1,5}/?",
                                                       args.scheduler):
        raise UsageError(f"--scheduler {args.scheduler!r}: expected tcp://HOST:PORT")
    return run_job(job, workers=args.workers or None, scheduler=args.scheduler,
                   checkpoint=args.checkpoint, progress=not args.quiet,
                   dump_path=getattr(args, "output", None))


def _oracle_line(result: dict[str, Any]) -> str:
    n, arb = result["input_count"], result["oracle"]["arb_evaluations"]
    share = arb / n if n else 0.0
    resumed = result.get("resumed_inputs", 0)
    swept = f"{n - resumed:,} of {n:,} (the rest from the checkpoint)" if resumed else f"{n:,}"
    return (f"{swept} inputs in {result['seconds']:.1f} s ({result['inputs_per_second'] or 0:,} "
            f"inputs/s); oracle: {arb:,} decided by Arb ({share:.2e}), the rest by the float64 "
            "fast path")


def run_analyze(args: argparse.Namespace) -> int:
    from ulplab.methods import select_methods
    from ulplab.report import (
        analysis_csv,
        analysis_table,
        check_writable,
        method_detail,
        write_json,
        write_text,
    )
    if args.dump_above is not None and not args.output:
        raise UsageError("--dump-above N needs -o FILE")
    if args.output and args.dump_above is None:
        raise UsageError("-o FILE goes with --dump-above N")
    for path in (args.json, args.csv, args.output):
        if path:
            check_writable(path)
    specs = []
    for part in (p.strip() for p in args.method.split(",")):
        if part.startswith(("peer:", "callable:")):
            specs.append(part)
        elif part:
            specs += [m.name for m in select_methods(args.func, part)]
    specs += [f"callable:{c}" for c in args.callable]
    if not specs:
        raise UsageError(f"--method {args.method!r} names no method; give M[,M...] or all")
    result = _run(args, args.func, specs, args.worst, args.dump_above)
    con = _out()
    con.print(analysis_table(result))
    if len(result["methods"]) == 1 or args.details:
        for m in result["methods"]:
            for t in method_detail(m, "float32"):
                con.print(t)
    con.print(_oracle_line(result))
    if args.json:
        write_json(args.json, result)
    if args.csv:
        write_text(args.csv, analysis_csv(result))
    if args.output:
        con.print(f"wrote {result['dumped']:,} inputs above {args.dump_above} ULP (or NaN/inf "
                  f"disagreeing) to {args.output}")
    return 0


def run_peers(args: argparse.Namespace) -> int:
    from ulplab.peers.backends import BACKENDS, Unavailable
    from ulplab.report import analysis_table, check_writable, simple_table, write_json

    names = ([b.strip() for b in args.backends.split(",") if b.strip()] if args.backends
             else list(PEER_BACKENDS))
    specs, skipped = [], []
    for b in names:
        if b not in BACKENDS:
            raise UsageError(f"unknown backend {b!r}; valid: {', '.join(BACKENDS)}")
        try:
            BACKENDS[b].make(args.func, get_format("float32"), False)
        except Unavailable as why:
            skipped.append([b, str(why)])
            continue
        specs.append(f"peer:{b}")
    specs += [f"callable:{c}" for c in args.callable or ()]
    if args.json:
        check_writable(args.json)
    if not specs:
        raise UsageError("no backend can run " + args.func + ": " +
                         "; ".join(f"{b}: {r}" for b, r in skipped))
    result = _run(args, args.func, specs, args.worst)
    result["skipped"] = [{"backend": b, "reason": r} for b, r in skipped]
    con = _out()
    con.print(analysis_table(result))
    if skipped:
        con.print(simple_table("skipped", ["backend", "reason"], skipped))
    con.print(_oracle_line(result))
    if args.json:
        write_json(args.json, result)
    return 0


def _out() -> Any:
    from ulplab.report import console

    return console()


__all__ = ["PEER_BACKENDS", "add_arguments", "run_analyze", "run_peers"]
