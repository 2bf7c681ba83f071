"""``ulplab synth FUNC --format F``: the cheapest kernel proven correct on every input.

Prints the kernel found (its cost by kind, table size, pieces, degree, proof), and with
``--lang`` its source (C, CUDA, NumPy, PyTorch, JAX, Triton, or ``ops``: a plain operation
listing), or ``--emit LANG -o PATH`` writes it; ``--out`` writes the recipe (JSON with its
checksum), ``--register`` keeps it in the cache so that ``analyze``, ``study cost-model``,
``report`` and the pytest plugin see it as the method ``synth <format>[ <N>ulp][
(<profile>)]``; ``--pareto`` prints operations against max ULP next to the registered
methods; ``--json`` writes the counts, the shape and the proof as JSON.
"""

from __future__ import annotations

import argparse
import json
import math
from typing import Any

from ulplab.errors import UsageError


def _weights(spec: str | None) -> dict[str, float]:
    from ulplab.synth.cost import KINDS

    if not spec:
        return {}
    out: dict[str, float] = {}
    for part in spec.split(","):
        name, sep, val = part.partition("=")
        name = name.strip()
        if not sep or name not in KINDS:
            raise UsageError(f"--weights {spec!r}: expected KIND=NUMBER,... with KIND in "
                             f"{', '.join(KINDS)}")
        try:
            w = float(val)
        except ValueError:
            raise UsageError(f"--weights: {val!r} is not a number") from None
        if not math.isfinite(w) or w < 0:
            raise UsageError(f"--weights: {name}={val} must be a finite number >= 0")
        out[name] = w
    return out


def _profile(args: argparse.Namespace) -> Any:
    from dataclasses import replace

    from ulplab.errors import check_name
    from ulplab.synth.cost import PROFILES

    p = PROFILES[check_name("--profile", args.profile, list(PROFILES), noun="profile")]
    w = _weights(args.weights)
    return replace(p, weights=w) if w else p


def _check(args: argparse.Namespace) -> None:
    from ulplab.errors import check_name
    from ulplab.formats import FORMATS, ROUNDING_MODES, get_format
    from ulplab.functions import FUNCTIONS

    check_name("function", args.func, list(FUNCTIONS))
    check_name("--format", args.format, list(FORMATS))
    check_name("--rounding", args.rounding, list(ROUNDING_MODES), noun="rounding mode")
    if args.format == "float32":
        if args.func != "exp":
            raise UsageError("float32 synthesis (float64 evaluation, proven on all 2^32 "
                             "inputs) exists for exp only; 16-bit and 8-bit formats take every "
                             "function")
        given = [o for o, v in (("--max-ulp", args.max_ulp), ("--max-error", args.max_error),
                                ("--max-ops", args.max_ops), ("--pareto", args.pareto),
                                ("--register", args.register), ("--out", args.out),
                                ("--table-entries", args.table_entries)) if v]
        if given or args.profile != "fma" or args.rounding != "nearest-even" or (
                (args.emit or args.lang) not in (None, "c")):
            raise UsageError("synth exp --format float32 takes --emit c [-o PATH], --json "
                             "and --quiet only (correctly rounded, nearest-even, float64 "
                             f"evaluation){': not ' + ', '.join(given) if given else ''}")
    elif not get_format(args.format).exhaustive:
        raise UsageError(f"synth needs a format whose inputs can all be checked (16 bits or "
                         f"fewer); {args.format} has 2^32")
    if args.max_ulp is not None and args.max_error is not None:
        raise UsageError("give --max-ulp or --max-error, not both")
    if args.max_error is not None and not (0.5 <= args.max_error < 64):
        raise UsageError(f"--max-error {args.max_error}: expected a number of ULPs in "
                         "[0.5, 64) (0.5: correctly rounded; 0.99: faithful)")
    if args.max_ops is not None and not (math.isfinite(args.max_ops) and args.max_ops > 0):
        raise UsageError(f"--max-ops {args.max_ops}: expected a positive number")
    if args.table_entries is not None and args.table_entries < 0:
        raise UsageError(f"--table-entries {args.table_entries}: expected 0 or more")
    from ulplab.synth import LANGS

    if args.lang is not None:
        check_name("--lang", args.lang, list(LANGS), noun="language")
    if args.emit is not None:
        check_name("--emit", args.emit, list(LANGS), noun="language")
    if args.lang is not None and args.emit is not None:
        raise UsageError("give --lang (print) or --emit (write), not both")
    if args.output is not None and args.emit is None:
        raise UsageError("-o/--output is where --emit writes the kernel: give --emit LANG")
    if args.pareto and (args.emit or args.lang or args.out or args.register):
        raise UsageError("--pareto prints a table (and --json): it writes no kernel")
    if args.max_ulp is not None and args.max_ulp < 0:
        raise UsageError(f"--max-ulp {args.max_ulp}: expected 0 or more")


def cmd_synth(args: argparse.Namespace) -> int:
    from ulplab.files import check_writable, json_ready, write_json, write_text
    from ulplab.synth import pareto, source, synthesize

    _check(args)
    profile = _profile(args)
    for path in (args.json, args.out, args.output):
        if path:
            check_writable(path)
    quiet = args.quiet
    if args.format == "float32":
        return _float32(args)
    from rich.progress import TextColumn, TimeElapsedColumn

    from ulplab.progress import progress_bar

    # one transient line on standard error (a terminal only): the candidate being tried
    with progress_bar(not quiet, (TextColumn("synth: {task.description}"),
                                  TimeElapsedColumn())) as bar:
        task = bar.add_task(f"{args.func} for {args.format}", total=None)

        def progress(msg: str) -> None:
            bar.update(task, description=msg)

        if args.pareto:
            res = pareto(args.func, args.format, profile, rounding=args.rounding,
                         progress=progress)
        else:
            result = synthesize(args.func, args.format, profile, max_ulp=args.max_ulp or 0,
                                max_error=args.max_error, rounding=args.rounding,
                                max_ops=args.max_ops, table_entries=args.table_entries,
                                progress=progress, exceptions=args.exceptions)
    if args.pareto:
        _print_pareto(res)
        if args.json:
            write_json(args.json, res)
        return 0
    r = result.recipe
    if r is None:
        limits = [f"{k} {v:g}" for k, v in (("--max-ops", args.max_ops),
                                            ("--table-entries", args.table_entries))
                  if v is not None]
        raise UsageError(f"synth {args.func} --format {args.format}: {result.reason}"
                         + (f" ({', '.join(limits)})" if limits else "")
                         + f"; best found so far: none ({result.tried} candidates tried, "
                         f"{result.seconds:.1f} s); nothing written")
    _print_result(result)
    if args.lang:
        print(source(r, args.lang))
    if args.emit:
        code = source(r, args.emit)
        if args.output:
            write_text(args.output, code)
            if not quiet:
                print(f"wrote the {args.emit} kernel to {args.output}")
        else:
            print(code)
    from ulplab.methods.synthesized import method_name, recipe_document, save_user_recipe

    if args.out:
        write_text(args.out, json.dumps(recipe_document(r), indent=1) + "\n")
    if args.register:
        path = save_user_recipe(r)
        print(f"registered as method {method_name(r)} of {r.function} ({path})")
    if args.json:
        write_json(args.json, json_ready(result_document(result)))
    return 0


def _float32(args: argparse.Namespace) -> int:
    """``synth exp --format float32``: the lowest polynomial degree whose float64-evaluated
    kernel matches det on all 2^32 inputs (``ulplab.synth.float32``)."""
    from rich.progress import BarColumn, TextColumn, TimeElapsedColumn

    from ulplab.export.native import best_variant, cpu_model
    from ulplab.files import write_json, write_text
    from ulplab.progress import progress_bar
    from ulplab.synth import float32

    with progress_bar(not args.quiet, (TextColumn("synth: {task.description}"), BarColumn(),
                                       TimeElapsedColumn())) as bar:
        task = bar.add_task("exp float32", total=1)
        res = float32.synthesize_exp(progress=lambda m: bar.update(task, description=m))
    for rec in res["tried"]:
        print(f"exp for float32 (float64 evaluation), P of degree {rec['degree']}: "
              f"{rec['mismatches']} mismatches with det on {rec['inputs_checked']} inputs "
              f"({rec['seconds']} s)" + (f", e.g. {', '.join(rec['examples'][:3])}"
                                          if rec["mismatches"] else ""))
    if res["degree"] is None:
        raise UsageError("synth exp --format float32: no degree tried is right on every "
                         "input; nothing written")
    res["machine"] = {"cpu": cpu_model(), "variant": best_variant()}
    res["command"] = "ulplab synth exp --format float32" + (
        f" --emit c -o {args.output}" if (args.emit or args.lang) and args.output else "") + (
        f" --json {args.json}" if args.json else "")
    code = float32.exp_source(res["degree"])
    if args.emit or args.lang:
        if args.output:
            write_text(args.output, code)
        else:
            print(code)
    if args.json:
        write_json(args.json, res)
    return 0


def result_document(res: Any) -> dict[str, Any]:
    """The ``--json`` document: the operation counts by kind and in all, the shape (template,
    pieces, degree of each piece, table size), the proof (inputs checked, mismatches, max ULP)
    and the recipe itself."""
    from ulplab.methods.synthesized import method_name
    from ulplab.synth import kind_counts, total

    r = res.recipe
    kinds = kind_counts(r)
    proof = dict(r.proof)
    checked = int(proof.get("inputs_verified", 0))
    proof["inputs_checked"] = checked
    proof["mismatches"] = checked - int(proof.get("accepted", 0))
    return {"function": r.function, "format": r.format, "profile": r.profile,
            "rounding": r.rounding, "method": method_name(r),
            "counts": {k: v for k, v in kinds.items() if k != "load"},
            "operations": total(res.ops), "table_reads": kinds.get("load", 0),
            "counts_by_cost_kind": {k: v for k, v in res.ops.items() if k != "lookup"},
            "template": r.template, "pieces": r.pieces, "degree": r.degree,
            "degrees": [len(c) - 1 for c in r.coefficients],
            "exp2_core_degree": len(r.core) - 1 if r.core else None,
            "table_entries": r.table_entries, "exceptions": sum(t.side == "equal"
                                                               for t in r.tails),
            "proof": proof, "cost": res.cost, "seconds": res.seconds,
            "candidates_tried": res.tried, "recipe": r.to_json(),
            "ops": res.ops, "total_ops": total(res.ops)}


def _print_result(res: Any) -> None:
    from ulplab.methods.synthesized import method_name
    from ulplab.synth import total

    r = res.recipe
    ops = ", ".join(f"{k} {v}" for k, v in res.ops.items() if k != "lookup")
    print(f"{r.function} for {r.format} ({r.rounding}), profile {r.profile}: "
          f"{method_name(r)}")
    print(f"  {total(res.ops)} operations per element ({ops})")
    print(f"  table: {r.table_entries} float32 words, "
          f"{res.ops.get('lookup', 0)} reads per element")
    shape = f"{r.template}, {r.pieces} piece(s) of degree {r.degree} in {r.variable}"
    if r.core:
        shape += f", exp2 core of degree {len(r.core) - 1}, scale {r.scale}"
    print(f"  shape: {shape}; tails: {len(r.tails)}")
    p = r.proof
    print(f"  proof: {p['accepted']} of {p['inputs_verified']} inputs right, max "
          f"{p['max_ulp']} ULP, {p['exact']} correctly rounded; {res.tried} candidates, "
          f"{res.seconds:.1f} s")


def _print_pareto(res: dict[str, Any]) -> None:
    from rich.table import Table

    from ulplab.report import console

    t = Table(title=f"{res['function']} / {res['format']}: operations against max ULP "
              f"(profile {res['profile']})", title_justify="left")
    for c in ("method", "kind", "max ULP", "ops", "table words"):
        t.add_column(c, justify="left" if c in ("method", "kind") else "right")
    rows = sorted(res["rows"], key=lambda r: (r["max_ulp"] is None, r["max_ulp"] or 0,
                                              r["ops"] or 0))
    for r in rows:
        t.add_row(r["method"], r["kind"], "-" if r["max_ulp"] is None else str(r["max_ulp"]),
                  "-" if r["ops"] is None else str(r["ops"]),
                  "-" if r.get("table_words") is None else str(r["table_words"]))
    console().print(t)


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add ``synth`` to the ``ulplab`` subcommands."""
    from ulplab.cli.args import whole

    def positive_float(text: str) -> float:
        try:
            v = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
        if not (math.isfinite(v) and v > 0):
            raise argparse.ArgumentTypeError(f"{text!r}: expected a positive number")
        return v

    non_negative_int = whole(0)

    p = subparsers.add_parser("synth", help="the cheapest kernel proven correct on every input "
                              "of a format, for a chip's operations")
    p.add_argument("func", metavar="FUNC", help="gelu, gelu_tanh, silu, sigmoid, tanh, exp, "
                   "log, erf, softplus, ...")
    p.add_argument("--format", default="bfloat16", help="bfloat16, float16 or an fp8 format")
    p.add_argument("--profile", default="fma", help="fma (default), no-fma or sfpu (no FMA, no "
                   "division, a 64-word table)")
    p.add_argument("--weights", help="cost of each kind of operation, e.g. mul=1,fma=2,div=8")
    p.add_argument("--max-ops", type=positive_float, help="refuse kernels costlier than this")
    p.add_argument("--table-entries", type=non_negative_int,
                   help="largest table, in float32 words (default: the profile's)")
    p.add_argument("--exceptions", type=whole(0, 64), default=4,
                   help="inputs a kernel may settle by exception selects, 2 operations each, "
                        "when no candidate passes without (default 4; 0: none)")
    p.add_argument("--max-ulp", type=non_negative_int, help="allowed distance to the correctly "
                   "rounded result (default 0)")
    p.add_argument("--max-error", type=positive_float, help="allowed error against the real "
                   "value in ULPs of the format (0.99: faithful, the accelerator gate)")
    p.add_argument("--rounding", default="nearest-even", help="nearest-even, toward-zero, up, "
                   "down: the format's rounding of the float32 result and the target")
    p.add_argument("--pareto", action="store_true", help="operations against max ULP (0, 1, 2, "
                   "4) beside the registered methods")
    p.add_argument("--lang", help="print the kernel: c, cuda, numpy, torch, jax, triton, ops")
    p.add_argument("--emit", metavar="LANG", help="write the kernel (c, cuda, numpy, torch, jax, "
                   "triton, ops) to -o PATH (standard output without -o); numpy: a module "
                   "needing NumPy only, defining FUNC(x)")
    p.add_argument("-o", "--output", metavar="PATH", help="where --emit writes the kernel")
    p.add_argument("--out", help="write the recipe (JSON, with its checksum)")
    p.add_argument("--register", action="store_true", help="keep the recipe in the cache: a "
                   "method analyze, report and the pytest plugin see")
    p.add_argument("--json", help="write the result as JSON")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    p.set_defaults(run=cmd_synth)
    return p
