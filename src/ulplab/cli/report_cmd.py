"""The ``ulplab report`` subcommand: a self-contained HTML page and/or PNG files.

    ulplab report gelu --format bfloat16 --method det,"B3 Pure" -o gelu.html --png figures/

The page holds the summary table (sorted by error; the error against the real value beside max
ULP; each worst input exactly: shortest decimal and bits), per method the ULP error against
input (symmetric-log x axis, coloured by region, NaN/inf disagreements marked) and its
histogram, the per-region max/mean bars of every method, the worst inputs, and with
``--peers``/``--determinism`` those tables.
"""

from __future__ import annotations

import argparse
from html import escape
from pathlib import Path
from typing import Any

from ulplab.cli.args import MAX_MEMORY_SAMPLES, MAX_WORST, whole
from ulplab.errors import UsageError
from ulplab.files import check_writable, write_bytes, write_json, write_text


def check_metric_args(args: argparse.Namespace) -> None:
    """``--metric``: a known metric, defined for the function and format, with the seed's
    rounding and denormals when it is ``seed``; else a one-line ``UsageError``."""
    from ulplab.formats import get_format
    from ulplab.oracle.seed_metric import check_metric, check_seed_truth

    check_metric(args.metric, args.func, get_format(args.format))
    if args.metric == "seed":
        check_seed_truth(args.rounding, args.denormals)


def selected_methods(function: str, spec: str) -> list[Any]:
    """``--method``: "seed" (every method named as in the seed's results table, in its order),
    or what ``select_methods`` reads ("all", M[,M...])."""
    from ulplab.methods import canonical_name, select_methods
    from ulplab.sweep import seed_methods

    if canonical_name(spec) == "seed":
        found = seed_methods(function)
        if not found:
            raise UsageError(f"--method seed: the seed's methods are gelu methods; {function} "
                             "has none")
        return found
    return select_methods(function, spec)


def _png_name(method: str, what: str) -> str:
    from ulplab.methods import canonical_name

    return f"{canonical_name(method)}-{what}.png"


def build_report(args: argparse.Namespace,
                 methods: list[Any]) -> tuple[str, dict[str, bytes], dict[str, Any]]:
    """(HTML page, PNG files by name, analysis JSON) of ``methods`` for the parsed arguments."""
    from ulplab.api import measure
    from ulplab.formats import get_format, get_policy
    from ulplab.progress import steps
    from ulplab.report import html
    from ulplab.report.figures import (
        error_figure,
        histogram_figure,
        pareto_figure,
        png_bytes,
        region_figure,
    )

    fmt = get_format(args.format)
    reports = measure(methods, args.func, fmt, rounding=args.rounding, denormals=args.denormals,
                      inputs=None, worst=args.worst, progress=not args.quiet,
                      metric=args.metric)
    reports.sort(key=lambda r: html.error_key(r.stats))  # the summary, sorted by error
    analysis = {
        "function": args.func, "format": fmt.name, "metric": args.metric,
        "rounding": args.rounding,
        "output_rounding": "nearest-even", "denormals": get_policy(args.denormals).name,
        "inputs": reports[0].inputs,
        "regions": [{"name": n, "lo": lo, "hi": hi} for n, lo, hi in reports[0].region_bounds],
        "methods": [{"method": r.method, **r.stats} for r in reports],
    }
    pngs: dict[str, bytes] = {"regions.png": png_bytes(region_figure(reports))}
    title = f"ulplab report: {args.func} on {reports[0].inputs} {fmt.name} inputs"
    if args.metric == "seed":
        intro = ("<p>Metric: the seed's C++ (<code>--metric seed</code>): a float64 reference "
                 f"rounded to float32, then to {fmt.name}; +0 and -0 equal; inputs whose result"
                 " or reference is NaN or infinite skipped. The figures are those of "
                 "<code>ulplab analyze --metric seed</code>.</p>")
    else:
        intro = (f"<p>Oracle: correctly rounded, {args.rounding}; denormals: "
                 f"{analysis['denormals']}. The figures are those of <code>ulplab analyze</code>;"
                 " NaN! and Inf! count NaN/inf disagreements. Methods are sorted by error. "
                 "(real): the error against the real, unrounded f(x) in ULPs of "
                 f"{escape(fmt.name)} at f(x) (at most 0.5: correctly rounded to nearest; below"
                 " 1: faithful), its max and the inputs at or above 1 and above 0.5. Inputs "
                 "are shown exactly: the shortest decimal that reads back as the input, and its"
                 " bits.</p>")
    body = [intro,
            "<h2>Summary</h2>", html.summary_table(analysis["methods"], fmt.name),
            "<h2>Max and mean ULP per region</h2>",
            html.png_img(pngs["regions.png"], "per-region max and mean ULP")]
    points = _cost_points(methods, reports)
    if len(points) >= 2:
        pngs["pareto.png"] = png_bytes(pareto_figure(points, fmt.name))
        body += ["<h2>Cost against accuracy</h2>",
                 "<p>Operations per element (traced from each method's float32 kernel; table "
                 "reads apart) against the max ULP measured above; the red line joins the "
                 "methods no other one beats on both (arithmetic-only methods).</p>",
                 html.png_img(pngs["pareto.png"], "operations against max ULP")]
    with steps("figures", len(reports), not args.quiet) as advance:
        for r in reports:
            for what, draw in (("error", error_figure), ("histogram", histogram_figure)):
                pngs[_png_name(r.method, what)] = png_bytes(draw(r))
            advance()
    for r in reports:
        body += [f"<h2>{escape(r.method)}</h2>", '<div class="row">',
                 html.png_img(pngs[_png_name(r.method, "error")],
                              f"{r.method}: ULP error against input"),
                 html.png_img(pngs[_png_name(r.method, "histogram")],
                              f"{r.method}: ULP histogram"), "</div>"]
        if r.worst:
            body += ["<h3>Worst inputs</h3>", html.worst_table(r, args.worst)]
        if r.stats["mismatch_examples"]:
            body += ['<h3 class="bad">NaN/inf disagreements</h3>',
                     html.mismatch_table(r, args.worst)]
    if args.peers:
        from ulplab.peers import report_card

        card = report_card(args.func, fmt)
        analysis["peers"] = card
        body.append(html.peers_section(card))
    if args.determinism:
        from ulplab.export import determinism

        res = determinism(args.func, samples=args.determinism_samples)
        analysis["determinism"] = res
        body.append(html.determinism_section(res))
    return html.document(title, body), pngs, analysis


def _cost_points(methods: list[Any], reports: list[Any]) -> list[tuple[str, int, int]]:
    """(name, operations, measured max ULP) of the arithmetic-only registered methods."""
    by_name = {getattr(m, "name", None): m for m in methods}
    out = []
    for r in reports:
        m = by_name.get(r.method)
        ops = getattr(m, "ops", None)
        if not ops or getattr(m, "library_calls", ()) or r.stats.get("max_ulp") is None:
            continue
        total = sum(v for k, v in ops.items() if k != "lookup" and not k.startswith("lib:"))
        out.append((r.method, max(total, 1), int(r.stats["max_ulp"])))
    return out


def cmd_report(args: argparse.Namespace) -> int:
    if not (args.output or args.png is not None or args.json):
        raise UsageError("nothing to write: give -o FILE.html, --png DIR and/or --json FILE")
    if args.png is not None and not args.png.strip():
        raise UsageError("--png needs a directory name")
    check_metric_args(args)
    methods = selected_methods(args.func, args.method)
    if not methods:
        raise UsageError("--method names no method")
    for path in (args.output, args.json):
        if path:
            check_writable(path)
    png_dir = Path(args.png) if args.png is not None else None
    if png_dir is not None and not png_dir.is_dir() and (png_dir.exists()
                                                         or not png_dir.parent.is_dir()):
        raise UsageError(f"cannot write PNG files to {png_dir}: not a directory")
    if png_dir is not None and png_dir.is_dir():  # each file it will get: regular, writable
        for name in ["regions.png", *(_png_name(m.name, what) for m in methods
                                      for what in ("error", "histogram"))]:
            check_writable(png_dir / name)
    page, pngs, analysis = build_report(args, methods)
    if args.output:
        write_text(args.output, page)
        print(f"wrote {args.output}")
    if png_dir is not None:
        try:
            png_dir.mkdir(exist_ok=True)
        except OSError as exc:
            raise UsageError(f"cannot make {png_dir}: {exc.strerror}") from None
        for name, data in pngs.items():
            write_bytes(png_dir / name, data)
        print(f"wrote {len(pngs)} PNG files to {png_dir}")
    if args.json:
        write_json(args.json, analysis)
    return 0


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add ``report`` to the ``ulplab`` subcommands (``subparsers`` from add_subparsers)."""
    from ulplab.formats import FORMATS, POLICIES, ROUNDING_MODES

    p = subparsers.add_parser("report", help="HTML report (and PNG figures) of methods over "
                              "every input of a format")
    p.add_argument("func", help="the function, e.g. gelu (see `ulplab functions`)")
    p.add_argument("--format", default="bfloat16", help=f"one of {', '.join(FORMATS)} "
                   "(float32: a fixed random sample)")
    p.add_argument("--method", default="all", help="M[,M...], all, or seed (every method "
                   "named as in the seed's results table; see `ulplab methods`)")
    p.add_argument("--rounding", default="nearest-even",
                   help=f"rounding of the truth: {', '.join(ROUNDING_MODES)}")
    p.add_argument("--denormals", default="ieee", help=f"one of {', '.join(POLICIES)}")
    p.add_argument("--metric", default="ulplab",
                   help="ulplab (default: against the correctly rounded oracle) or seed (the "
                   "seed's C++ metric; see `ulplab analyze --help`)")
    p.add_argument("-o", "--output", help="write the self-contained HTML page here")
    p.add_argument("--png", metavar="DIR", help="write each figure as a PNG file in DIR")
    p.add_argument("--json", help="write the figures of the summary table as JSON")
    p.add_argument("--worst", type=whole(0, MAX_WORST), default=10,
                   help="worst inputs listed per method")
    p.add_argument("--peers", action="store_true", help="add the `ulplab peers` report card")
    p.add_argument("--determinism", action="store_true",
                   help="add the `ulplab determinism` table of the det kernel")
    p.add_argument("--determinism-samples", type=whole(1, MAX_MEMORY_SAMPLES), default=100_000,
                   help="random float32 inputs for --determinism besides the fixed sets")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(run=cmd_report)
    return p
