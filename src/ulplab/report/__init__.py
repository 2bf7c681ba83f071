"""Stage: reports. Terminal tables (rich), JSON and CSV files."""

from __future__ import annotations

import csv
import io
import math
import re
import shutil
from collections.abc import Sequence
from typing import Any

from rich import box
from rich.console import Console
from rich.measure import Measurement
from rich.table import Table


class _WholeTables(Console):
    """A console that never cuts a table: one whose columns cannot shrink to the terminal
    (every column is at least as wide as its widest word) is printed at its own minimum width,
    lines uncropped, so the terminal wraps them instead of rich truncating a figure."""

    def print(self, *objects: Any, **kwargs: Any) -> None:  # type: ignore[override]
        for o in objects:
            if isinstance(o, Table) and "width" not in kwargs:
                need = Measurement.get(self, self.options.update_width(10_000), o)
                if need.minimum > self.width:  # cannot shrink to fit: its natural width, whole
                    terminal = self.width  # print() clamps width= to the console's: widen it
                    self.width = need.maximum
                    try:
                        super().print(o, crop=False, **kwargs)
                    finally:
                        self.width = terminal
                    continue
            super().print(o, **kwargs)


def console(width: int | None = None) -> Console:
    """Terminal width when there is a terminal, else wide enough for every table (220)."""
    return _WholeTables(highlight=False, soft_wrap=False,
                        width=width or shutil.get_terminal_size((220, 24)).columns)


def percent(fraction: float, digits: int = 2) -> str:
    """A share as a percentage that never rounds to 100 % or 0 % unless it is exactly that:
    more digits until it does not (1 - 2/65536 is 99.997%, not 100.00%)."""
    for d in range(digits, 9):
        text = f"{100 * fraction:.{d}f}"
        if (fraction < 1 and float(text) >= 100) or (fraction > 0 and float(text) == 0):
            continue
        return text + "%"
    return f"{100 * fraction:.2e}%"


def _mean(v: float, digits: int) -> str:
    """A mean ULP with ``digits`` decimals, in e-notation when those would show 0 for v > 0."""
    text = f"{v:.{digits}f}"
    return f"{v:.1e}" if v > 0 and float(text) == 0 else text


def _fmt_mean(v: float) -> str:
    return _mean(v, 3) if v < 100 else f"{v:.1f}"


# a figure with its encoding, "-0.0 (0x8000)": one unit, never wrapped
_FIGURE = re.compile(r"[-+]?(?:[\d.]+(?:e[-+]?\d+)?|inf|nan) \(0x[0-9a-f]+\)")


def _figure_column(t: Table, header: str, cells: Sequence[str], justify: str = "right",
                   name: bool = False) -> None:
    """A column as wide as its widest word, whose words never wrap, fold or get an ellipsis;
    a ``name`` column (a method's name) is as wide as its longest name, except that a name's
    parenthesized suffix ("B3 Pure (improved)") may go to a second line."""
    widest = max([len(w) for c in cells
                  for w in (c.split(" (") if name else [c] if _FIGURE.fullmatch(c)
                            else c.split())] +
                 [len(w) for w in header.split()] + [1])
    one_word = (all(" (" not in c for c in cells) if name else
                all(len(c.split()) <= 1 or _FIGURE.fullmatch(c) for c in cells))
    t.add_column(header, justify=justify, min_width=widest, no_wrap=one_word,  # type: ignore[arg-type]
                 overflow="fold")


def _table(title: str, columns: Sequence[tuple[str, str]], rows: Sequence[Sequence[str]]) -> Table:
    """A compact table (no vertical rules): every column sized so no word is ever cut."""
    t = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False,
              collapse_padding=True)
    for i, (header, justify) in enumerate(columns):
        _figure_column(t, header, [r[i] for r in rows], justify, name=header == "Method")
    for r in rows:
        t.add_row(*r)
    return t


def _worst_region(m: dict[str, Any]) -> str:
    regs = m["regions"]
    if not regs:
        return "-"
    name = max(regs, key=lambda n: (regs[n]["max_ulp"], regs[n]["mean_ulp"]))
    return f"{name} {regs[name]['max_ulp']}"


def seed_analysis_table(result: dict[str, Any], details: bool = False) -> Table:
    """The seed README's results table, measured with ``--metric seed``: one row per method
    (Method, Mean, Max), sorted by max ULP as the seed's table is; methods of equal max keep the
    order they were measured in (``--method seed``: the seed table's own order). Means as the
    seed's ``--analyze`` prints them (4 decimals); ``details`` adds mean (2 decimals, as the
    seed's region table) and max per region."""
    regions = [r["name"] for r in result["regions"]]
    which = (f"every {result['format']} input" if result.get("inputs", "exhaustive") ==
             "exhaustive" else f"{result['inputs']} {result['format']} inputs")
    title = f"{result['function']} on {which}: the seed's metric, sorted by max ULP"
    columns = [("Method", "left"), ("Mean", "right"), ("Max", "right")]
    if details:
        for name in regions:
            columns += [(f"{name} mean", "right"), (f"{name} max", "right")]
    rows = []
    for m in sorted(result["methods"], key=lambda m: m["max_ulp"]):  # stable: ties in order
        cells = [m["method"], f"{m['mean_ulp']:.4f}", str(m["max_ulp"])]
        if details:
            for name in regions:
                r = m["regions"][name]
                cells += [f"{r['mean_ulp']:.2f}", str(r["max_ulp"])]
        rows.append(cells)
    return _table(title, columns, rows)


def analysis_table(result: dict[str, Any], details: bool = False) -> Table:
    """Rows sorted by max ULP: mean, max, exact, <=1, NaN/inf disagreements and the region with
    the largest error; ``details`` adds mean/max per region (the seed's wide layout). A result
    of ``--metric seed`` has the seed's own layout (``seed_analysis_table``)."""
    if result.get("metric") == "seed":
        return seed_analysis_table(result, details)
    regions = [r["name"] for r in result["regions"]]
    which = (f"every {result['format']} input" if result.get("inputs", "exhaustive") ==
             "exhaustive" else f"{result['inputs']} {result['format']} inputs")
    title = (f"{result['function']} on {which} "
             f"(oracle: {result['rounding']}, denormals: {result['denormals']})")
    columns = [("Method", "left"), ("Mean", "right"), ("Max", "right"), ("Exact", "right"),
               ("<=1", "right"), ("NaN!", "right"), ("Inf!", "right")]
    if details:
        for name in regions:
            columns += [(f"{name} mean", "right"), (f"{name} max", "right")]
    else:
        columns.append(("worst region", "left"))
    rows = []
    for m in sorted(result["methods"], key=lambda m: (m["max_ulp"], m["mean_ulp"], m["method"])):
        cells = [m["method"], _fmt_mean(m["mean_ulp"]), str(m["max_ulp"]),
                 percent(m["exact_fraction"]), percent(m["within1_fraction"]),
                 str(m["nan_mismatches"]), str(m["inf_mismatches"])]
        if details:
            for name in regions:
                r = m["regions"][name]
                cells += [_fmt_mean(r["mean_ulp"]), str(r["max_ulp"])]
        else:
            cells.append(_worst_region(m))
        rows.append(cells)
    return _table(title, columns, rows)


def error_text(v: float) -> str:
    """A fractional ULP error, 4 decimals (3 significant digits from 10^4 up), with more
    decimals where 4 would put it on the other side of 0.5 or 1 (0.99996 is not "1.0000")."""
    if math.isinf(v) or v >= 1e4:
        return "inf" if math.isinf(v) else f"{v:.3g}"
    for digits in range(4, 18):
        text = f"{v:.{digits}f}"
        shown = float(text)
        if all((shown > t) == (v > t) and (shown >= t) == (v >= t) for t in (0.5, 1.0)):
            return text
    return repr(v)


def real_error_table(result: dict[str, Any]) -> Table:
    """Beside each method's max ULP (the distance to the correctly rounded result), its error
    against the real f(x) in fractional ULPs of the format: the max, and how many inputs are
    >= 1 (not faithful) and > 0.5 (not correctly rounded to nearest); rows in the order of
    ``analysis_table``."""
    fmt = result["format"]
    methods = sorted(result["methods"], key=lambda m: (m["max_ulp"], m["mean_ulp"], m["method"]))
    accuracy = max((m["error_accuracy"] for m in methods), default=0.0)
    title = (f"Error against the real {result['function']}(x), in {fmt} ULPs at f(x) "
             f"(<= 0.5: correctly rounded, < 1: faithful; within {accuracy:.1g} ULP)")
    rows = [[m["method"], str(m["max_ulp"]), error_text(m["max_error"]),
             f"{m['errors_ge_1']:,}", f"{m['errors_gt_half']:,}"] for m in methods]
    return _table(title, [("Method", "left"), ("Max ULP", "right"), ("Max error", "right"),
                          (">=1", "right"), (">0.5", "right")], rows)


def method_detail(m: dict[str, Any], fmt_name: str) -> list[Table]:
    """Percentiles, histogram, worst inputs and NaN/inf disagreements of one method."""
    p = m["percentiles"]
    head = Table(title=f"{m['method']}: {m['count']} finite results", title_justify="left")
    for col in ("Max", "Mean", "P50", "P90", "P99", "Exact", "<=1 ULP", "NaN!", "Inf!"):
        head.add_column(col, justify="right")
    head.add_row(str(m["max_ulp"]), _mean(m["mean_ulp"], 4), str(p["p50"]), str(p["p90"]),
                 str(p["p99"]), percent(m["exact_fraction"], 4),
                 percent(m["within1_fraction"], 4), str(m["nan_mismatches"]),
                 str(m["inf_mismatches"]))
    hist = Table(title="ULP distribution", title_justify="left")
    for col in ("ULP", "Count", "Share"):
        hist.add_column(col, justify="right")
    for label, count in m["histogram"].items():
        if count:
            hist.add_row(label, str(count), f"{100 * count / max(m['count'], 1):.4f}%")
    tables = [head, hist]
    if m["worst"]:
        worst = Table(title="Worst inputs", title_justify="left")
        for col in ("x", f"x ({fmt_name})", "got", "expected", "ULP"):
            worst.add_column(col, justify="right")
        for w in m["worst"]:
            worst.add_row(f"{w['x']:.6g}", w["hex"], f"{w['got']:.6g} ({w['got_hex']})",
                          f"{w['expected']:.6g} ({w['expected_hex']})", str(w["ulp"]))
        tables.append(worst)
    if m["mismatch_examples"]:
        mm = Table(title="NaN / inf disagreements", title_justify="left")
        for col in ("x", "got", "expected"):
            mm.add_column(col, justify="right")
        for w in m["mismatch_examples"]:
            mm.add_row(f"{w['x']:.6g} ({w['hex']})", w["got_hex"], w["expected_hex"])
        tables.append(mm)
    return tables


def analysis_csv(result: dict[str, Any]) -> str:
    regions = [r["name"] for r in result["regions"]]
    head = ["function", "format", "method", "count", "max_ulp", "mean_ulp", "exact_fraction",
            "within1_fraction", "nan_mismatches", "inf_mismatches", "p50", "p90", "p99"]
    for r in regions:
        head += [f"{r}_count", f"{r}_max_ulp", f"{r}_mean_ulp"]
    real = [k for k in ("max_error", "errors_ge_1", "errors_gt_half")
            if result["methods"] and all(k in m for m in result["methods"])]
    head += real
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(head)
    for m in result["methods"]:
        row = [result["function"], result["format"], m["method"], m["count"], m["max_ulp"],
               m["mean_ulp"], m["exact_fraction"], m["within1_fraction"], m["nan_mismatches"],
               m["inf_mismatches"], *m["percentiles"].values()]
        for r in regions:
            row += [m["regions"][r]["count"], m["regions"][r]["max_ulp"],
                    m["regions"][r]["mean_ulp"]]
        w.writerow(row + [m[k] for k in real])
    return buf.getvalue()


def _value(v: float, hexbits: str, index: int | None) -> str:
    """'0.000352859 0x39b9' (and '#47545' with the ordinal index): one word per figure."""
    return f"{v:.6g} {hexbits}" + ("" if index is None else f" #{index}")


def peers_tables(card: dict[str, Any]) -> list[Table]:
    """The tanh-diagnostic layout: summary, behaviours, distribution (counts and shares of all
    inputs), sample values with the worst errors; each fits an 80-column terminal."""
    rows = card["backends"]
    inputs = card.get("inputs", "all")
    ref = f"{card.get('rounding', 'nearest-even')}"
    if card.get("reference_via"):
        ref = f"via {card['reference_via']}, then {ref}"
    which = "every" if inputs == "all" else f"the {inputs}"
    summary = [[r["backend"], r["reference"], f"{r['inputs']:,}", str(r["max_ulp"]),
                _mean(r["mean_ulp"], 4) if r["mean_ulp"] < 100 else f"{r['mean_ulp']:.1f}",
                percent(r["exact_fraction"]), percent(r["within1_fraction"]),
                str(r["nan_mismatches"]), str(r["inf_mismatches"])] for r in rows]
    tables = [_table(f"{card['function']} on {which} {card['format']} inputs: report card "
                     f"(reference: {ref}, denormals: {card.get('denormals', 'ieee')})",
                     [("backend", "left"), ("vs", "left"), ("inputs", "right"),
                      ("Max", "right"), ("Mean", "right"), ("Exact", "right"), ("<=1", "right"),
                      ("NaN!", "right"), ("Inf!", "right")], summary)]
    behave = [[r["backend"], f"{r['daz']['read_as_zero']}/{r['daz']['subnormal_inputs']}",
               f"{r['ftz']['flushed']}/{r['ftz']['subnormal_results']}",
               f"{r['scalar_vs_vector']['mismatches']}/{r['scalar_vs_vector']['checked']}"]
              for r in rows]
    tables.append(_table("behaviours: subnormal inputs read as zero (DAZ), subnormal results "
                         "flushed (FTZ), one-element calls that differ", [
                             ("backend", "left"), ("DAZ", "right"), ("FTZ", "right"),
                             ("scalar!=vector", "right")], behave))
    dist = []
    for r in rows:
        for label, count in r["histogram"].items():
            if count:
                dist.append([r["backend"], label, f"{count:,}",
                             percent(count / max(r["inputs"], 1))])
        bad = r["nan_mismatches"] + r["inf_mismatches"]
        if bad:
            dist.append([r["backend"], "NaN/inf!", f"{bad:,}",
                         percent(bad / max(r["inputs"], 1))])
    tables.append(_table("ULP distribution (share of all inputs)",
                         [("backend", "left"), ("ULP", "right"), ("count", "right"),
                          ("share", "right")], dist))
    worst = []
    for r in rows:
        for w in r["worst"][:4]:
            worst.append([r["backend"], _value(w["x"], w["hex"], w.get("x_index")),
                          _value(w["got"], w["got_hex"], w.get("got_index")),
                          _value(w["expected"], w["expected_hex"], w.get("expected_index")),
                          str(w["ulp"])])
        for w in r["mismatch_examples"][:2]:
            worst.append([r["backend"], _value(w["x"], w["hex"], w.get("x_index")),
                          w["got_hex"], w["expected_hex"], "NaN/inf"])
    index = " (#: ordinal index, 0 = most negative finite)" if any(
        "x_index" in w for r in rows for w in r["worst"]) else ""
    tables.append(_table(f"Sample values with the worst errors{index}",
                         [("backend", "left"), ("x", "right"), ("got", "right"),
                          ("expected", "right"), ("ULP", "right")], worst))
    if card["skipped"]:
        tables.append(simple_table("skipped", ["backend", "reason"],
                                   [[s["backend"], s["reason"]] for s in card["skipped"]]))
    return tables


def simple_table(title: str, columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> Table:
    """Left-aligned cells; a column is never narrower than its widest word (see ``_table``)."""
    return _table(title, [(c, "left") for c in columns], [[str(c) for c in r] for r in rows])


__all__ = ["analysis_csv", "analysis_table", "console", "error_text", "method_detail",
           "peers_tables", "real_error_table", "seed_analysis_table", "simple_table"]
