"""The ``ulplab`` command: one entry point, one subcommand per job, --help everywhere.

Bad input (an unknown function, format, method, rounding mode or denormal policy, a malformed
number, an unwritable output path) exits with status 2 and one line on stderr.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import sys
from collections.abc import Sequence
from typing import NoReturn

import numpy as np

from ulplab._version import __version__
from ulplab.cli.args import (
    MAX_MEMORY_SAMPLES,
    MAX_SAMPLES,
    MAX_WORST,
    parse_number,
    parse_range,
    whole,
)
from ulplab.cli.exhaustive import add_arguments as add_exhaustive_arguments
from ulplab.cli.report_cmd import add_parser as add_report_parser
from ulplab.cli.study import add_parser as add_study_parser
from ulplab.cli.synth_cmd import add_parser as add_synth_parser
from ulplab.errors import UsageError
from ulplab.files import check_writable, write_bytes, write_json, write_text
from ulplab.formats import (
    EXHAUSTIVE_FORMATS,
    FORMATS,
    POLICIES,
    ROUNDING_MODES,
    Format,
    check_mode,
    counts,
    get_format,
    get_policy,
    next_down,
    next_up,
    round_to_format,
    to_values,
)
from ulplab.functions import FUNCTIONS, get_function
from ulplab.inputs import INPUT_SETS

FIT_MAX_DEGREE = 40
"""ulplab.fit.MAX_DEGREE, repeated so that building the parser does not import the fitter (a
test keeps the two equal)."""


METRIC_HELP = ("ulplab (default: the correctly rounded oracle, +0 and -0 distinct, NaN/inf "
               "disagreements counted) or seed (the seed's C++: a float64 reference rounded to "
               "float32 then to the format, +0 = -0, NaN/inf skipped; no oracle; 16-bit and "
               "narrower formats)")


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{self.prog}: {message}")


def _exhaustive_format(name: str) -> Format:
    fmt = get_format(name)
    if not fmt.exhaustive:
        raise UsageError(f"{fmt.name} cannot be swept exhaustively here; "
                         f"valid: {', '.join(EXHAUSTIVE_FORMATS)}")
    return fmt


def _common(p: argparse.ArgumentParser, rounding: bool = True, method: bool = False) -> None:
    p.add_argument("--format", default="bfloat16", help=f"one of {', '.join(FORMATS)}")
    if rounding:
        p.add_argument("--rounding", default="nearest-even",
                       help=f"rounding of the truth: {', '.join(ROUNDING_MODES)}")
        p.add_argument("--denormals", default="ieee", help=f"one of {', '.join(POLICIES)}")
    if method:
        p.add_argument("--output-rounding", default="nearest-even",
                       help="how a float32 method's outputs become the format")


KERNEL_ROUNDING = ("export", "determinism", "rounded")
"""Commands whose --rounding names a det kernel entry point (odd, float32), not a mode."""


def _validate(args: argparse.Namespace) -> None:
    if getattr(args, "func", None) is not None:
        get_function(args.func)
    if getattr(args, "rounding", None) is not None and args.command not in KERNEL_ROUNDING:
        check_mode(args.rounding)
    if getattr(args, "output_rounding", None) is not None:
        check_mode(args.output_rounding)
    if getattr(args, "denormals", None) is not None:
        get_policy(args.denormals)


def _out():
    from ulplab.report import console

    return console()


# ---------------------------------------------------------------- analyze
def cmd_analyze(args: argparse.Namespace) -> int:
    from ulplab.api import analysis
    from ulplab.cli.report_cmd import check_metric_args, selected_methods
    from ulplab.report import analysis_csv, analysis_table, method_detail, real_error_table

    check_metric_args(args)
    if args.exhaustive:
        from ulplab.cli.exhaustive import run_analyze

        return run_analyze(args)
    fmt = get_format(args.format)
    methods = selected_methods(args.func, args.method)
    for path in (args.json, args.csv):
        if path:
            check_writable(path)
    bits = None
    if not fmt.exhaustive or args.range:
        bits = _sampled_bits(fmt, args)
    result = analysis(methods, args.func, fmt, rounding=args.rounding,
                      denormals=args.denormals, output_rounding=args.output_rounding,
                      worst=args.worst, progress=not args.quiet, bits=bits, metric=args.metric)
    con = _out()
    con.print(analysis_table(result, details=args.details))
    if result["metric"] != "seed":
        con.print(real_error_table(result))
    if len(methods) == 1 or args.details:
        for m in result["methods"]:
            for t in method_detail(m, fmt.name):
                con.print(t)
    if result["metric"] == "seed":
        con.print(f"Seed metric: a float64 reference rounded to float32, then to {fmt.name} "
                  "(nearest-even); +0 = -0; inputs whose result or reference is NaN or infinite "
                  "skipped; mean over the inputs counted, printed as the seed's --analyze does.")
    if result["ulp_ordinal"] == "flush-to-zero":
        con.print("ULP measured on the flush-to-zero ordinal: the smallest normal is one step "
                  "from zero.")
    if args.json:
        write_json(args.json, result)
    if args.csv:
        write_text(args.csv, analysis_csv(result))
    return 0


def _sampled_bits(fmt: Format, args: argparse.Namespace) -> np.ndarray:
    from ulplab.inputs import float32_between, float32_random

    if args.samples <= 0:
        raise UsageError("--samples must be positive")
    if args.range:
        lo, hi = parse_range(args.range, None)
        if fmt.exhaustive:
            bits = np.arange(fmt.n_patterns, dtype=np.int64).astype(fmt.uint)
            v = to_values(bits, fmt)
            bits = bits[(v >= lo) & (v <= hi)]
            if bits.size == 0:
                raise UsageError(f"no {fmt.name} value lies in [{args.range[0].strip()}, "
                                 f"{args.range[1].strip()}]: nothing to measure")
            return bits
        return float32_between(lo, hi, args.samples, args.seed).view(np.uint32)
    return float32_random(args.samples, args.seed).view(np.uint32)


# ---------------------------------------------------------------- oracle / eval
def _save_npy(path: str, arr: np.ndarray) -> None:
    import io

    buf = io.BytesIO()
    np.save(buf, arr)
    write_bytes(path, buf.getvalue())


def cmd_oracle(args: argparse.Namespace) -> int:
    from ulplab.oracle.table import oracle_table

    fmt = _exhaustive_format(args.format)
    check_writable(args.output)
    table = oracle_table(args.func, fmt, args.rounding, args.denormals, progress=not args.quiet)
    _save_npy(args.output, table)
    print(f"wrote {len(table)} {fmt.uint.name} results of {args.func} ({fmt.name}, "
          f"{args.rounding}, {args.denormals}) to {args.output}")
    return 0


def cmd_eval(args: argparse.Namespace) -> int:
    from ulplab.methods import get_method
    from ulplab.sweep import method_outputs

    fmt = _exhaustive_format(args.format)
    method = get_method(args.func, args.method)
    check_writable(args.output)
    _, got = method_outputs(method, fmt, args.denormals, args.output_rounding)
    _save_npy(args.output, got)
    print(f"wrote {len(got)} {fmt.uint.name} results of {args.func}/{method.name} "
          f"({fmt.name}) to {args.output}")
    return 0


# ---------------------------------------------------------------- reference
def cmd_reference(args: argparse.Namespace) -> int:
    from ulplab.oracle.exact import exact_text
    from ulplab.oracle.table import evaluate
    from ulplab.report import simple_table
    from ulplab.stats import hex_bits

    fmt = get_format(args.format)
    xs = [parse_number(t, fmt) for t in args.x]
    rows = []
    for text, x in zip(args.x, xs, strict=True):
        xb = int(round_to_format(np.array([x]), fmt)[0])
        xf = float(to_values(np.array([xb]), fmt)[0])
        note = "" if (xf == x or (math.isnan(x) and math.isnan(xf))) else f" (read as {xf!r})"
        res = evaluate(args.func, np.array([xf]), fmt, args.rounding, args.denormals)
        r = res[:1]
        below, above = next_down(r, fmt), next_up(r, fmt)
        vals = to_values(np.concatenate([below, r, above]), fmt)
        rows.append([f"{text}{note}", hex_bits(xb, fmt), exact_text(args.func, xf),
                     f"{float(vals[1])!r} ({hex_bits(r[0], fmt)})",
                     f"{float(vals[0])!r} ({hex_bits(below[0], fmt)})",
                     f"{float(vals[2])!r} ({hex_bits(above[0], fmt)})"])
    _out().print(simple_table(
        f"{args.func} reference in {fmt.name} ({args.rounding}, {args.denormals})",
        ["x", "bits", f"exact {args.func}(x)", "correctly rounded", "next down", "next up"], rows))
    return 0


# ---------------------------------------------------------------- saturation
def cmd_saturation(args: argparse.Namespace) -> int:
    from ulplab.analysis.saturation import saturation
    from ulplab.report import simple_table

    fmt = _exhaustive_format(args.format)
    if args.json:
        check_writable(args.json)
    res = saturation(args.func, fmt, args.rounding, args.denormals)
    rows = []
    for side, op in (("positive", ">="), ("negative", "<=")):
        for s in res[side]:
            rows.append([side, f"f(x) == {s['target']}", f"x {op} {s['threshold']!r}",
                         s["threshold_hex"], s["inputs"]])
    if not rows:
        rows.append(["-", "no saturated tail", "", "", ""])
    _out().print(simple_table(f"{args.func} saturation in {fmt.name} (exhaustive, "
                              f"{args.rounding})", ["side", "result", "threshold", "bits",
                                                    "inputs"], rows))
    if args.json:
        write_json(args.json, res)
    return 0


# ---------------------------------------------------------------- formats / methods / functions
def cmd_formats(args: argparse.Namespace) -> int:
    from ulplab.report import simple_table

    policy = get_policy(args.denormals)
    fmts = [get_format(args.format)] if args.format else list(FORMATS.values())
    if args.json:
        check_writable(args.json)
    con = _out()
    rows = []
    listing = []
    for f in fmts:
        c = counts(f, ftz=policy.daz or policy.ftz)
        listing.append({"format": f.name, "bits": f.bits, "precision": f.precision,
                        "emin": f.emin, "emax": f.emax, "max": f.max_value,
                        "min_normal": f.min_normal, "min_positive": f.min_subnormal,
                        "signed": f.signed, "zero": f.has_zero, "negative_zero": f.has_neg_zero,
                        "inf": f.has_inf, "nan_bits": f.nan_bits if f.has_nan else None,
                        "overflow": f.overflow, "denormals": policy.name, **c})
        rows.append([f.name, f.bits, f.precision, f.emin, f.emax, repr(f.max_value),
                     repr(f.min_normal), repr(f.min_subnormal), "yes" if f.signed else "no",
                     "yes" if f.has_neg_zero else "no", "yes" if f.has_inf else "no",
                     f"0x{f.nan_bits:x}" if f.has_nan else "none", f.overflow,
                     c["patterns"], c["finite"], c["distinct_finite"], c["subnormal"]])
    if args.details:
        con.print(simple_table(f"formats (denormals: {policy.name})",
                               ["format", "bits", "precision", "emin", "emax", "max",
                                "min normal", "min positive", "sign", "-0", "inf", "NaN",
                                "overflow", "patterns", "finite", "distinct finite (ordinals)",
                                "subnormals"], rows))
    else:  # 80 columns: the traits as words; --details for every figure
        compact = [[f.name, f.bits, f.precision, f"{f.max_value:.6g}",
                    " ".join(w for w, has in (("±", f.signed), ("-0", f.has_neg_zero),
                                              ("inf", f.has_inf), ("NaN", f.has_nan)) if has)
                    or "-", f.overflow, c] for f, c in zip(fmts, (r[13] for r in rows),
                                                          strict=True)]
        con.print(simple_table(f"formats (denormals: {policy.name}; --details for every "
                               "trait and count)",
                               ["format", "bits", "p", "max", "has", "overflow", "patterns"],
                               compact))
    if args.json:
        write_json(args.json, listing)
    if args.format and (policy.daz or policy.ftz):
        f = fmts[0]
        w = (f.bits + 3) // 4
        mn, mx, sb = f.min_normal_bits, f.max_bits, f.sign_bit
        half = mx - mn + 1
        sub = mn - 1
        if sub <= 0:
            con.print(f"{f.name} has no subnormals: {policy.name} changes nothing")
            return 0
        zero_note = "±0 and every subnormal map here" if f.has_neg_zero else \
            "+0 and every subnormal map here (no -0)"
        positive = [["zero", f"0x{0:0{w}x}", 1, zero_note],
                    ["positive normals", f"0x{mn:0{w}x} - 0x{mx:0{w}x}", half,
                     "excludes +inf" if f.has_inf else ""],
                    ["total finite", "-", 2 * half + 1, "ordinal indices"],
                    ["positive subnormals", f"0x{1:0{w}x} - 0x{sub:0{w}x}", sub,
                     "treated as zero"],
                    ["negative subnormals", f"0x{sb | 1:0{w}x} - 0x{sb | sub:0{w}x}", sub,
                     "treated as zero"],
                    ["total subnormals", "-", 2 * sub, ""]]
        con.print(simple_table(
            f"{f.name} value space under {policy.name}",
            ["category", "bit range", "count", "notes"],
            [["negative normals", f"0x{sb | mn:0{w}x} - 0x{sb | mx:0{w}x}", half,
              "excludes -inf" if f.has_inf else ""], *positive]))
    return 0


def cmd_methods(args: argparse.Namespace) -> int:
    from ulplab.methods import Method, all_methods, methods_for
    from ulplab.report import simple_table

    ms = methods_for(args.func) if args.func else all_methods()

    def claim(m: Method, fmt: str) -> list[str]:
        c = m.claims.get(fmt)
        return [str(c.max_ulp), str(c.mean_ulp)] if c else ["-", "-"]

    columns = ["function", "method", "bf16 max", "bf16 mean", "seed", "fp16 max",
               "fp16 mean"]
    rows = [[m.function, m.name, *claim(m, "bfloat16"), m.seed.get("bfloat16", ""),
             *claim(m, "float16")] for m in ms]
    if args.details:
        columns += ["family", "library calls", "table bytes", "idea"]
        for row, m in zip(rows, ms, strict=True):
            row += [m.family, ", ".join(m.library_calls) or "arithmetic", m.table_bytes or "",
                    m.idea]
    _out().print(simple_table("methods (claims: max and mean ULP measured on every input; seed: "
                              "the seed research's published bfloat16 max)",
                              columns, rows))
    return 0


def cmd_functions(args: argparse.Namespace) -> int:
    from ulplab.report import simple_table

    _out().print(simple_table("functions", ["function", "definition", "regions"],
                              [[f.name, f.definition, ", ".join(r[0] for r in f.regions)]
                               for f in FUNCTIONS.values()]))
    return 0


def cmd_crosscheck(args: argparse.Namespace) -> int:
    from ulplab.oracle.crosscheck import crosscheck_table
    from ulplab.oracle.table import oracle_table
    from ulplab.progress import steps
    from ulplab.report import simple_table
    from ulplab.stats import hex_bits

    funcs = list(FUNCTIONS) if args.func == "all" else [get_function(args.func).name]
    fmt = _exhaustive_format(args.format)
    rows, failed = [], 0
    for f in funcs:
        oracle = oracle_table(f, fmt, progress=not args.quiet)
        with steps(f"mpmath check {f}/{fmt.name}", fmt.n_patterns, not args.quiet) as advance:
            check = crosscheck_table(f, fmt, advance=advance)
        bad = np.flatnonzero(oracle != check)
        failed += len(bad)
        first = ", ".join(f"{hex_bits(i, fmt)}: {hex_bits(oracle[i], fmt)} vs "
                          f"{hex_bits(check[i], fmt)}" for i in bad[:3])
        rows.append([f, fmt.name, len(oracle), len(bad), first])
    _out().print(simple_table("oracle (Arb) against the independent mpmath check, nearest-even",
                              ["function", "format", "inputs", "disagreements", "first"], rows))
    return 1 if failed else 0


# ---------------------------------------------------------------- fit
def cmd_fit(args: argparse.Namespace) -> int:
    from ulplab.fit import MAX_DEGREE, fit, hex_float
    from ulplab.progress import steps
    from ulplab.report import simple_table

    if args.json:
        check_writable(args.json)
    if args.monomials is not None:
        try:
            mons = [int(t) for t in args.monomials.split(",") if t.strip()]
        except ValueError:
            raise UsageError(f"malformed monomial list {args.monomials!r}: "
                             "expected e.g. 1,3,5") from None
        if not mons:
            raise UsageError(f"empty monomial list {args.monomials!r}: expected e.g. 1,3,5")
        if min(mons) < 0 or max(mons) > MAX_DEGREE:
            raise UsageError(f"monomials must be integers from 0 to {MAX_DEGREE}")
    elif args.degree is not None:
        if not 0 <= args.degree <= MAX_DEGREE:
            raise UsageError(f"--degree must be from 0 to {MAX_DEGREE}")
        mons = list(range(args.degree + 1))
    else:
        raise UsageError("give --degree N or --monomials K,K,...")
    if args.degree is not None and max(mons) > args.degree:
        raise UsageError(f"monomial {max(mons)} exceeds --degree {args.degree}")
    get_format(args.format)
    with steps(f"fit {args.func} (minimax, then float32 evaluation)", 2,
               not args.quiet) as advance:
        res = fit(args.func, args.interval[0], args.interval[1], mons, args.coefficients,
                  args.error, args.format, advance=advance)
    con = _out()
    con.print(simple_table(
        f"{args.func} on [{args.interval[0].strip()}, {args.interval[1].strip()}], "
        f"{args.error} error, "
        f"{args.coefficients} coefficients",
        ["monomial", "coefficient (hex)", "decimal"],
        [[f"x^{k}", hex_float(c), repr(c)] for k, c in zip(res.monomials, res.coefficients,
                                                       strict=True)]))
    con.print(simple_table("sup-norm error", ["polynomial", "error"],
                           [["real minimax (exact coefficients)", f"{res.real_error:.6e}"],
                            *[[f"{args.coefficients}: {k}", f"{v:.6e}"]
                              for k, v in res.candidates.items()],
                            ["chosen", f"{res.error:.6e}"]]))
    rows = []
    for fmt_name, ev in res.evaluated.items():
        for label in ("fma", "no_fma"):
            e = ev[label]
            rows.append([fmt_name, label, ev["inputs"], "all" if ev["exhaustive"] else "sample",
                         e["max_ulp"], f"{e['mean_ulp']:.4f}",
                         f"{e['max_abs_error']:.3e}" if "max_abs_error" in e else ""])
    con.print(simple_table("evaluated in float32 (Horner order, see `ulplab.fit`)",
                           ["format", "evaluation", "inputs", "coverage", "max ULP", "mean ULP",
                            "max abs error"], rows))
    if args.json:
        write_json(args.json, res.to_json("ulplab fit " + " ".join(args.argv)))
    return 0


# ---------------------------------------------------------------- peers
def _backend_list(text: str) -> list[str]:
    names = [b.strip() for b in text.split(",") if b.strip()]
    if not names:
        raise UsageError(f"--backends {text!r} names no backend")
    return names


def _card_rows(card: dict) -> list[list[str]]:
    """One line per backend of a function's card: computed in, max/mean ULP and exact share, or
    the status (skipped/failed) and its reason."""
    from ulplab.report import percent

    sampled = card["format"] == "float32"  # a column saying what each row covers
    rows = [[r["backend"], r["computes_in"], str(r["max_ulp"]), f"{r['mean_ulp']:.4g}",
             percent(r["exact_fraction"]), *([r["coverage"]] if sampled else [])]
            for r in card["backends"]]
    rows += [[s["backend"], s.get("status", "skipped"), "-", "-", s["reason"][:60],
              *(["-"] if sampled else [])] for s in card["skipped"]]
    return rows


def _all_functions_card(args: argparse.Namespace, names: list[str] | None) -> int:
    from ulplab.peers.card import CARD_FUNCTIONS, full_card
    from ulplab.report import simple_table

    if args.func is not None:
        raise UsageError("give a function or --all-functions, not both")
    for option in ("callable", "method", "via"):
        if getattr(args, option):
            raise UsageError(f"--{option} is not for --all-functions (one function's card)")
    fmt = get_format(args.format)  # float32: sampled, and the --records sweeps merged
    if args.records and fmt.name != "float32":
        raise UsageError("--records merges exhaustive float32 sweeps: give --format float32 "
                         f"(every {fmt.name} input is swept already)")
    if args.json:
        check_writable(args.json)
    data = full_card(fmt.name, CARD_FUNCTIONS, names, worst=args.worst,
                     time_limit=args.time_limit,
                     command=" ".join(["ulplab", args.command, *args.argv]),
                     progress=not args.quiet, records=args.records or ())
    con = _out()
    columns = ["backend", "computes in", "max ULP", "mean ULP", "exact"]
    for card in data["cards"]:
        title = f"{card['function']} in {fmt.name}: " + (
            "every input" if fmt.exhaustive else "the inputs each row names")
        con.print(simple_table(title, columns + ([] if fmt.exhaustive else ["inputs"]),
                               _card_rows(card)))
    con.print(f"{len(data['cards'])} functions in {data['seconds']:.0f} s")
    if args.json:
        write_json(args.json, data)
    return 0


def _positive_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive number of seconds")
    return value


def cmd_peers(args: argparse.Namespace) -> int:
    from ulplab.methods import select_methods
    from ulplab.peers import BACKENDS, report_card
    from ulplab.report import peers_tables

    if args.exhaustive:
        from ulplab.cli.exhaustive import run_peers

        if args.func is None or args.all_functions:
            raise UsageError("--exhaustive sweeps one function: give FUNC, not --all-functions")

        return run_peers(args)
    names = None
    if args.backends is not None:
        names = _backend_list(args.backends)
        for b in names:
            if b not in BACKENDS:
                raise UsageError(f"unknown backend {b!r}; valid: {', '.join(BACKENDS)}")
    if args.records and not args.all_functions:
        raise UsageError("--records goes with --all-functions --format float32 (the card)")
    if args.all_functions:
        return _all_functions_card(args, names)
    if args.func is None:
        raise UsageError("give a function, or --all-functions")
    get_function(args.func)
    fmt = _exhaustive_format(args.format)
    methods = select_methods(args.func, args.method) if args.method is not None else []
    if args.json:
        check_writable(args.json)
    card = report_card(args.func, fmt, names, args.callable or (), worst=args.worst,
                       methods=methods, rounding=args.rounding, denormals=args.denormals,
                       inputs=args.inputs, via=args.via, index=args.index,
                       progress=not args.quiet, time_limit=args.time_limit)
    con = _out()
    for t in peers_tables(card):
        con.print(t)
    if card["skipped"]:
        from ulplab.report import simple_table

        con.print(simple_table("not measured", ["backend", "status", "reason"],
                               [[s["backend"], s.get("status", "skipped"), s["reason"]]
                                for s in card["skipped"]]))
    if args.json:
        write_json(args.json, card)
    return 0


# ---------------------------------------------------------------- export / determinism
def cmd_export(args: argparse.Namespace) -> int:
    from ulplab.export import write_export

    if args.output:
        check_writable(args.output)
    from ulplab.export import ROUNDINGS

    if args.rounding not in ROUNDINGS:
        raise UsageError(f"unknown rounding {args.rounding!r}; valid: {', '.join(ROUNDINGS)}")
    src = write_export(args.func, args.lang, args.output, args.rounding)
    if args.output:
        print(f"wrote the {args.lang} source of {args.func} to {args.output}")
    else:
        sys.stdout.write(src)
    return 0


def _determinism_cell(cell: dict) -> str:
    if "differ" in cell:
        w = cell.get("worst")
        return str(cell["differ"]) + (f" ({w['x']}: {w['base']}/{w['got']})" if w else "")
    return "skip" if "skipped" in cell else "error"


def _determinism_card(args: argparse.Namespace) -> int:
    from ulplab.backends import BACKENDS
    from ulplab.peers.card import CARD_FUNCTIONS
    from ulplab.peers.determinism import DEFAULT_BACKENDS, determinism_card
    from ulplab.report import simple_table

    if args.func is not None:
        raise UsageError("--card covers the card's functions: give --functions, not FUNC")
    fmt = _exhaustive_format("bfloat16" if args.format is None else args.format)
    names = (_backend_list(args.backends) if args.backends is not None
             else list(DEFAULT_BACKENDS))
    for b in names:
        if b not in BACKENDS:
            raise UsageError(f"unknown backend {b!r}; valid: {', '.join(BACKENDS)}")
    funcs = (list(CARD_FUNCTIONS) if args.functions is None
             else [f.strip() for f in args.functions.split(",") if f.strip()])
    if not funcs:
        raise UsageError(f"--functions {args.functions!r} names no function")
    for f in funcs:
        get_function(f)
    if args.json:
        check_writable(args.json)
    say = None if args.quiet else (lambda what: print(f"determinism: {what}", file=sys.stderr))
    data = determinism_card(fmt.name, funcs, names,
                            time_limit=300.0 if args.time_limit is None else args.time_limit,
                            command=" ".join(["ulplab", args.command, *args.argv]), progress=say)
    rows = []
    for r in data["rows"]:
        if r["status"] != "measured":
            rows.append([r["backend"], r["function"], r["status"], r["reason"][:50], "", "",
                         ""])
            continue
        isa = [c for c in r["isa"].values()]
        isa_text = (str(sum(c.get("differ", 0) for c in isa)) if isa else "-")
        rows.append([r["backend"], r["function"], _determinism_cell(r["threads"]),
                     _determinism_cell(r["position"]), _determinism_cell(r["shape"]), isa_text,
                     _determinism_cell(r["compiled"])])
    _out().print(simple_table(f"determinism in {fmt.name}: inputs whose bits differ from the "
                              "backend's default run",
                              ["backend", "function", "threads", "position", "shape", "ISA",
                               "compiled"], rows))
    if args.json:
        write_json(args.json, data)
    return 0


def cmd_determinism(args: argparse.Namespace) -> int:
    from ulplab.export import BACKENDS, ROUNDINGS, determinism, determinism_total
    from ulplab.progress import steps
    from ulplab.report import simple_table

    card_only = {"--format": args.format, "--functions": args.functions,
                 "--time-limit": args.time_limit}
    kernel_only = {"--samples": args.samples, "--rounding": args.rounding}
    wrong = [k for k, v in (kernel_only if args.card else card_only).items() if v is not None]
    if wrong:
        raise UsageError(f"{wrong[0]} applies " + ("without --card (the exported kernels' bits)"
                                                   if args.card else "with --card only"))
    if args.card:
        return _determinism_card(args)
    args.samples = 10_000_000 if args.samples is None else args.samples
    args.rounding = "float32" if args.rounding is None else args.rounding
    if args.func is None:
        raise UsageError("give a function (the exported kernels' bits), or --card")
    get_function(args.func)
    if args.rounding not in ROUNDINGS:
        raise UsageError(f"unknown rounding {args.rounding!r}; valid: {', '.join(ROUNDINGS)}")
    names = _backend_list("numpy,torch,jax,c" if args.backends is None else args.backends)
    for b in names:
        if b not in BACKENDS:
            raise UsageError(f"unknown backend {b!r}; valid: {', '.join(BACKENDS)}")
    if args.json:
        check_writable(args.json)
    with steps(f"determinism {args.func}", determinism_total(names, args.samples),
               not args.quiet) as advance:
        res = determinism(args.func, names, samples=args.samples, advance=advance,
                          rounding=args.rounding)
    rows = [[r["backend"], r["checked"], r["mismatches"], " ".join(r["first"][:3])]
            for r in res["backends"]]
    rows += [[s["backend"], "-", "skipped", s["reason"]] for s in res["skipped"]]
    _out().print(simple_table(f"{args.func}: bits of each backend against ulplab's NumPy kernel",
                              ["backend", "inputs checked", "mismatches", "first mismatches"],
                              rows))
    if args.json:
        write_json(args.json, res)
    return 1 if any(r["mismatches"] for r in res["backends"]) else 0


def cmd_faithful(args: argparse.Namespace) -> int:
    from ulplab.analysis.faithful import faithful_check
    from ulplab.export import det_kernel
    from ulplab.progress import steps
    from ulplab.report import simple_table

    if args.json:
        check_writable(args.json)
    with steps(f"faithful {args.func}", args.samples, not args.quiet) as advance:
        res = faithful_check(args.func, det_kernel(args.func, "odd"), args.samples, args.seed,
                             advance=advance)
    _out().print(simple_table(f"{args.func}: float32 results of det on random bit patterns",
                              ["inputs", "decided by the Arb oracle", "beyond 1 ULP",
                               "1 ULP, outside the bracket", "examples"],
                              [[res["checked"], res["decided_by_oracle"], res["unfaithful"],
                                res["outside_bracket"], " ".join(res["examples"])]]))
    if args.json:
        write_json(args.json, res)
    return 1 if res["unfaithful"] else 0


def cmd_rounded(args: argparse.Namespace) -> int:
    from ulplab.analysis.rounded import rounded_check
    from ulplab.export import ROUNDINGS, det_kernel
    from ulplab.progress import steps
    from ulplab.report import simple_table

    if args.rounding not in ROUNDINGS:
        raise UsageError(f"unknown rounding {args.rounding!r}; valid: {', '.join(ROUNDINGS)}")
    det_kernel(args.func)  # an unknown function is a usage error
    if args.json:
        check_writable(args.json)
    with steps(f"rounded {args.func}", args.samples, not args.quiet) as advance:
        res = rounded_check(args.func, args.rounding, args.samples, args.seed, advance=advance)
    what = "correctly rounded" if args.rounding == "float32" else "rounded to odd"
    _out().print(simple_table(f"{args.func}: det float32 results {what}, on random bit "
                              f"patterns", ["inputs", "decided by Arb", "wrong", "examples"],
                              [[res["checked"], res["decided_by_arb"], res["wrong"],
                                " ".join(res["examples"][:2])]]))
    if args.json:
        write_json(args.json, res)
    return 1 if res["wrong"] else 0


# ---------------------------------------------------------------- parser
def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="ulplab", description="ULP error of elementwise kernels against a "
                "correctly rounded oracle, over every value of a format.")
    p.add_argument("--version", action="version", version=f"ulplab {__version__}")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)
    fn_help = f"one of {', '.join(FUNCTIONS)}"

    a = sub.add_parser("analyze", help="measure methods over every input of a format")
    a.add_argument("func", help=fn_help)
    a.add_argument("--method", default="all", help="M[,M...], all, or seed (every method "
                   "named as in the seed's results table, in its order; see `ulplab methods`)")
    _common(a, method=True)
    a.add_argument("--metric", default="ulplab", help=METRIC_HELP)
    a.add_argument("--json", help="write every figure as JSON to this path")
    a.add_argument("--csv", help="write one row per method as CSV to this path")
    a.add_argument("--worst", type=whole(0, MAX_WORST), default=10,
                   help="how many worst inputs to keep")
    a.add_argument("--details", action="store_true",
                   help="mean/max per region, and detail tables for every method")
    a.add_argument("--samples", type=whole(1, MAX_MEMORY_SAMPLES), default=100_000,
                   help="float32: how many sampled inputs (default 100000)")
    a.add_argument("--seed", type=whole(0), default=0, help="float32: sampling seed")
    a.add_argument("--range", nargs=2, metavar=("LO", "HI"),
                   help="only inputs in [LO, HI] (float32: sampled within it)")
    a.add_argument("--quiet", action="store_true", help="no progress bar")
    add_exhaustive_arguments(a)
    a.set_defaults(run=cmd_analyze)

    o = sub.add_parser("oracle", help="write correctly rounded results for every pattern (.npy)")
    o.add_argument("func", help=fn_help)
    _common(o)
    o.add_argument("-o", "--output", required=True, help="output .npy path")
    o.add_argument("--quiet", action="store_true")
    o.set_defaults(run=cmd_oracle)

    e = sub.add_parser("eval", help="write a method's results for every pattern (.npy)")
    e.add_argument("func", help=fn_help)
    e.add_argument("--method", required=True)
    e.add_argument("--format", default="bfloat16")
    e.add_argument("--denormals", default="ieee")
    e.add_argument("--output-rounding", default="nearest-even")
    e.add_argument("-o", "--output", required=True, help="output .npy path")
    e.set_defaults(run=cmd_eval)

    r = sub.add_parser("reference", help="exact value, correctly rounded result, neighbours")
    r.add_argument("func", help=fn_help)
    r.add_argument("x", nargs="+", help="decimal, hex float (0x1.8p+1) or bit pattern (0x3fc0)")
    _common(r)
    r.set_defaults(run=cmd_reference)

    s = sub.add_parser("saturation", help="exact thresholds beyond which f(x) rounds to x, 0, ±1")
    s.add_argument("func", help=fn_help)
    _common(s)
    s.add_argument("--json", help="write the thresholds as JSON")
    s.set_defaults(run=cmd_saturation)

    f = sub.add_parser("formats", help="the formats and their value spaces")
    f.add_argument("--format", help=f"one of {', '.join(FORMATS)} (default: all)")
    f.add_argument("--denormals", default="ieee", help=f"one of {', '.join(POLICIES)}")
    f.add_argument("--json", help="also write each format's traits and counts as JSON")
    f.add_argument("--details", action="store_true",
                   help="every trait and count (exponent range, smallest values, NaN pattern)")
    f.set_defaults(run=cmd_formats)

    m = sub.add_parser("methods", help="list registered methods")
    m.add_argument("func", nargs="?", help=fn_help)
    m.add_argument("--details", action="store_true",
                   help="family, library calls, table bytes, idea")
    m.set_defaults(run=cmd_methods)

    fu = sub.add_parser("functions", help="list the functions the oracle knows")
    fu.set_defaults(run=cmd_functions)

    ft = sub.add_parser("fit", help="minimax polynomial with coefficients in a format")
    ft.add_argument("func", help=fn_help)
    ft.add_argument("--interval", nargs=2, metavar=("A", "B"), required=True,
                    help="bounds: numbers or expressions of pi, e, ln2, sqrt(), log()")
    ft.add_argument("--degree", type=whole(0, FIT_MAX_DEGREE), help="all monomials 0..N")
    ft.add_argument("--monomials", help="comma-separated powers, e.g. 1,3,5,7")
    ft.add_argument("--coefficients", default="float32",
                    help="float32, bfloat16, float16 or exact")
    ft.add_argument("--error", default="absolute", help="absolute or relative")
    ft.add_argument("--format", default="bfloat16", help="target format for the ULP report")
    ft.add_argument("--json", help="write coefficients (hex), errors and the command")
    ft.add_argument("--quiet", action="store_true", help="no progress bar")
    ft.set_defaults(run=cmd_fit)

    pe = sub.add_parser("peers", help="report card of native implementations (torch, JAX, "
                        "NumPy, the C library, your callable) over every input")
    pe.add_argument("func", nargs="?", help=fn_help)
    _common(pe)
    pe.add_argument("--all-functions", action="store_true",
                    help="the whole card: gelu, gelu_tanh, silu, sigmoid, tanh, exp, log, erf, "
                    "softplus, sin, cos, forward and backward, every backend; every input of a "
                    "16-bit or narrower format, float32 sampled (hard cases and random inputs) "
                    "or, with --records, exhaustive where a sweep of all 2^32 inputs exists")
    pe.add_argument("--records", action="append", metavar="PATH",
                    help="float32 --all-functions: exhaustive sweeps to merge (JSON of ulplab "
                    "peers/analyze FUNC --format float32 --exhaustive, or a folder of them; "
                    "repeatable): a forward row with a record shows its figures over all 2^32 "
                    "inputs where the sample agrees with it, every other row stays sampled")
    pe.add_argument("--time-limit", type=_positive_seconds, default=300.0, metavar="S",
                    help="each backend runs in a child process; a call taking longer than S "
                    "seconds is killed and its row says so (default 300)")
    pe.add_argument("--inputs", default="all", choices=INPUT_SETS,
                    help="all patterns, or normal: +0 and the normal values (bfloat16: 65,025)")
    pe.add_argument("--via", metavar="FORMAT",
                    help="round the truth to this wider format first (nearest-even), then with "
                    "--rounding: seed 002's reference is --via float32 --rounding toward-zero")
    pe.add_argument("--index", action="store_true",
                    help="show the ordinal index of worst inputs and results (0 = most negative)")
    pe.add_argument("--method", help="registered ulplab methods to measure too: M[,M...] or all")
    pe.add_argument("--quiet", action="store_true", help="no progress bar")
    pe.add_argument("--backends", help="comma-separated; default: every backend available")
    pe.add_argument("--callable", action="append", metavar="MODULE:FUNCTION",
                    help="a float32 -> float32 function to measure too (repeatable)")
    pe.add_argument("--worst", type=whole(0, MAX_WORST), default=6,
                    help="worst inputs kept per backend")
    pe.add_argument("--json", help="write the report card as JSON")
    pe.add_argument("--range", nargs=2, metavar=("LO", "HI"),
                    help="float32 with --exhaustive: every input in [LO, HI]")
    add_exhaustive_arguments(pe, dump=False)
    pe.set_defaults(run=cmd_peers)

    add_study_parser(sub)
    add_report_parser(sub)
    add_synth_parser(sub)

    ex = sub.add_parser("export", help="write a det kernel as C, CUDA, Triton, NumPy, PyTorch "
                        "or JAX source")
    ex.add_argument("func", help=fn_help)
    ex.add_argument("--lang", required=True, help="c, numpy, torch, jax, cuda or triton")
    ex.add_argument("-o", "--output", help="output path (default: standard output)")
    ex.add_argument("--rounding", default="float32",
                    help="float32 (default: the correctly rounded entry point, what ulplab.det "
                         "returns) or odd (round-to-odd, what narrower formats round from)")
    ex.set_defaults(run=cmd_export)

    fa = sub.add_parser("faithful", help="float32 results of a det kernel within 1 ulp, on "
                        "random bit patterns (10^8 by default)")
    fa.add_argument("func", help=fn_help)
    fa.add_argument("--samples", type=whole(1, MAX_SAMPLES), default=100_000_000)
    fa.add_argument("--seed", type=whole(0), default=7)
    fa.add_argument("--json", help="write checked, decided_by_oracle, unfaithful as JSON")
    fa.add_argument("--quiet", action="store_true", help="no progress bar")
    fa.set_defaults(run=cmd_faithful)

    ro = sub.add_parser("rounded", help="det float32 results correctly rounded (--rounding "
                        "float32) or rounded to odd (odd), on random bit patterns (10^8)")
    ro.add_argument("func", help=fn_help)
    ro.add_argument("--rounding", default="float32", help="float32 (default) or odd")
    ro.add_argument("--samples", type=whole(1, MAX_SAMPLES), default=100_000_000)
    ro.add_argument("--seed", type=whole(0), default=7)
    ro.add_argument("--json", help="write checked, decided_by_arb, wrong as JSON")
    ro.add_argument("--quiet", action="store_true", help="no progress bar")
    ro.set_defaults(run=cmd_rounded)

    de = sub.add_parser("determinism", help="bits of the exported kernels on every backend; "
                        "with --card, of every framework under threads, positions, shapes, "
                        "ISA levels and compilation")
    de.add_argument("func", nargs="?", help=fn_help)
    de.add_argument("--backends",
                    help="comma-separated (default numpy,torch,jax,c; GPU: torch-cuda, cuda, "
                    "triton; triton runs on the CPU in Triton's interpreter when "
                    "TRITON_INTERPRET=1); with --card: the card's backends (default torch, "
                    "jax, numpy, libm, tensorflow, onnxruntime, openvino, tinygrad, paddle, "
                    "det)")
    de.add_argument("--card", action="store_true",
                    help="the determinism card: per framework and function, inputs whose bits "
                    "change with the thread count, position (lengths 1..65, offsets), batch "
                    "shape, ISA level and eager vs compiled")
    de.add_argument("--format", help="with --card: the format swept (default bfloat16)")
    de.add_argument("--functions", help="with --card: comma-separated (default: the card's "
                    "gelu, gelu_tanh, silu, sigmoid, tanh, exp, log, erf, softplus, sin, cos)")
    de.add_argument("--time-limit", type=_positive_seconds, metavar="S",
                    help="with --card: seconds a backend's child process may take per call "
                    "(default 300)")
    de.add_argument("--samples", type=whole(1, MAX_MEMORY_SAMPLES),
                    help="without --card: random float32 inputs besides the fixed sets "
                    "(default 10^7)")
    de.add_argument("--rounding", help="without --card: float32 (default) or odd")
    de.add_argument("--json", help="write backend, checked, mismatches as JSON")
    de.add_argument("--quiet", action="store_true", help="no progress bar")
    de.set_defaults(run=cmd_determinism)

    c = sub.add_parser("crosscheck", help="compare the oracle with the independent mpmath method")
    c.add_argument("func", help=f"{fn_help}, or all")
    c.add_argument("--format", default="bfloat16")
    c.add_argument("--quiet", action="store_true", help="no progress bar")
    c.set_defaults(run=cmd_crosscheck)
    return p


_NEGATIVE = re.compile(r"^-(\d|\.\d|0x|inf|nan|infinity)", re.IGNORECASE)


def _protect_negative_bounds(argv: list[str]) -> list[str]:
    """`--interval -pi/4 pi/4`, `reference tanh -1e-3 -inf`: argparse would read -pi/4, -1e-3 and
    -inf as options; a leading space stops it (the number readers strip it)."""
    out = list(argv)
    if out[:1] == ["reference"]:
        out = [" " + t if i > 1 and _NEGATIVE.match(t) else t for i, t in enumerate(out)]
    for i, tok in enumerate(out):
        if tok == "--monomials" and i + 1 < len(out) and out[i + 1].startswith("-"):
            out[i + 1] = " " + out[i + 1]
        if tok in ("--interval", "--range"):
            for j in (i + 1, i + 2):
                if j < len(out) and out[j].startswith("-") and not out[j].startswith("--"):
                    out[j] = " " + out[j]
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(_protect_negative_bounds(sys.argv[1:] if argv is None
                                                          else list(argv)))
        args.argv = list(sys.argv[2:] if argv is None else argv[1:])
        if getattr(args, "func", None) == "all" and args.command == "crosscheck":
            pass
        else:
            _validate(args)
        if getattr(args, "format", None) is not None:
            get_format(args.format)
        if os.environ.get("ULPLAB_WORKERS") is not None:
            from ulplab.oracle.workers import worker_count

            worker_count()  # a malformed value is refused before any work
        for option in ("json", "csv", "output", "checkpoint"):
            value = getattr(args, option, None)
            if value is not None and not value.strip():
                flag = "-o/--output" if option == "output" else f"--{option}"
                raise UsageError(f"{flag} needs a file path, got an empty one")
        return int(args.run(args))
    except UsageError as exc:
        print(f"ulplab: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("ulplab: interrupted", file=sys.stderr)
        return 130
    except MemoryError:
        print("ulplab: error: not enough memory for this request (fewer --samples, a narrower "
              "interval or a smaller format)", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"ulplab: error: {exc}", file=sys.stderr)
        return 1


def run() -> None:
    sys.exit(main())


if __name__ == "__main__":
    run()
