"""``ulplab analyze/peers ... --format float32 --exhaustive``: every float32 (or every one in
``--range``), chunked, resumable, in this process or on Dask (``ulplab.sweep.exhaustive``)."""

from __future__ import annotations

import argparse
import os
import re
from typing import Any

from ulplab.cli.args import parse_range, whole, worker_count
from ulplab.errors import UsageError
from ulplab.files import check_writable, write_json, write_text
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
    g.add_argument("--workers", type=worker_count,
                   help="local Dask worker processes, 1 to the number of cores (default: one "
                        "per core; 1: no Dask)")
    g.add_argument("--chunk", type=whole(1, 1 << 32), default=1 << 22,
                   help="inputs per task (default 2^22)")
    g.add_argument("--checkpoint", metavar="FILE",
                   help="record finished chunks here; a rerun with it continues the job (with "
                        "--dump-above, the finished chunks' lines wait in FILE.dump-parts/)")
    if dump:
        g.add_argument("--dump-above", type=whole(0), metavar="N",
                       help="write every input with more than N ULP (and NaN/inf disagreement)"
                            " to -o FILE, streamed as chunks finish")
        g.add_argument("-o", "--output", metavar="FILE", help="the --dump-above file")
        g.add_argument("--callable", action="append", metavar="MODULE:FUNCTION", default=[],
                       help="a float32 -> float32 function to measure too (repeatable)")


def _job_ranges(args: argparse.Namespace) -> tuple[tuple[int, int], ...]:
    from ulplab.sweep.exhaustive import ALL, float32_bit_ranges

    if get_format(args.format).name != "float32":
        raise UsageError("--exhaustive sweeps float32; 16- and 8-bit formats are always "
                         "swept exhaustively without it")
    if not getattr(args, "range", None):
        return ALL
    lo, hi = parse_range(args.range, get_format("float32"))
    ranges = float32_bit_ranges(lo, hi)
    if not any(b > a for a, b in ranges):
        raise UsageError(f"no float32 lies in [{args.range[0].strip()}, "
                         f"{args.range[1].strip()}]: nothing to sweep")
    return ranges


def _distinct_outputs(args: argparse.Namespace) -> None:
    """Each output a file of its own: two options naming one file would overwrite each other."""
    seen: dict[str, str] = {}
    for flag, path in (("--json", getattr(args, "json", None)),
                       ("--csv", getattr(args, "csv", None)),
                       ("-o", getattr(args, "output", None)),
                       ("--checkpoint", args.checkpoint)):
        if path:
            key = os.path.realpath(path)
            if key in seen:
                raise UsageError(f"{seen[key]} and {flag} both name {path}: give each its own "
                                 "file")
            seen[key] = flag


def _run(args: argparse.Namespace, function: str, methods: list[str], worst: int,
         dump_above: int | None = None) -> dict[str, Any]:
    from ulplab.sweep.exhaustive import Job, dump_parts_dir, run_job

    rounding = getattr(args, "rounding", "nearest-even")
    denormals = getattr(args, "denormals", "ieee")
    job = Job(function, tuple(methods), _job_ranges(args), rounding, denormals, args.chunk,
              worst, dump_above)
    _distinct_outputs(args)
    if args.checkpoint:
        check_writable(args.checkpoint)
        if dump_above is not None:
            dump_parts_dir(args.checkpoint)  # refused now if that name is taken by a file
    if args.scheduler is not None and not re.fullmatch(r"(tcp|tls)://[^\s:/]+:\d{1,5}/?",
                                                       args.scheduler):
        raise UsageError(f"--scheduler {args.scheduler!r}: expected tcp://HOST:PORT")
    if args.scheduler is not None and args.workers is not None:
        raise UsageError("--workers sizes the job's own local cluster; with --scheduler the "
                         "cluster's workers run it")
    return run_job(job, workers=args.workers, scheduler=args.scheduler,
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
    from ulplab.report import analysis_csv, analysis_table, method_detail
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
    from ulplab.backends import BACKENDS, Unavailable
    from ulplab.report import analysis_table, simple_table

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
