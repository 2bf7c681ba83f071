"""Stage: reports. Terminal tables (rich), JSON and CSV files."""

from __future__ import annotations

import csv
import io
import json
import math
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from ulplab.errors import UsageError


def console() -> Console:
    """Terminal width when there is a terminal, else wide enough for every table (220)."""
    return Console(highlight=False, soft_wrap=False,
                   width=shutil.get_terminal_size((220, 24)).columns)


def _fmt_mean(v: float) -> str:
    return f"{v:.3f}" if v < 100 else f"{v:.1f}"


def analysis_table(result: dict[str, Any]) -> Table:
    """The seed's layout: Mean, Max, then mean/max per region; rows sorted by max ULP."""
    regions = [r["name"] for r in result["regions"]]
    which = (f"every {result['format']} input" if result.get("inputs", "exhaustive") ==
             "exhaustive" else f"{result['inputs']} {result['format']} inputs")
    title = (f"{result['function']} on {which} "
             f"(oracle: {result['rounding']}, denormals: {result['denormals']})")
    t = Table(title=title, title_justify="left")
    t.add_column("Method")
    for col in ("Mean", "Max", "Exact", "<=1", "NaN!", "Inf!"):
        t.add_column(col, justify="right")
    for name in regions:
        t.add_column(f"{name}\nmean", justify="right", style="dim")
        t.add_column(f"{name}\nmax", justify="right")
    rows = sorted(result["methods"], key=lambda m: (m["max_ulp"], m["mean_ulp"], m["method"]))
    for m in rows:
        cells = [m["method"], _fmt_mean(m["mean_ulp"]), str(m["max_ulp"]),
                 f"{100 * m['exact_fraction']:.2f}%", f"{100 * m['within1_fraction']:.2f}%",
                 str(m["nan_mismatches"]), str(m["inf_mismatches"])]
        for name in regions:
            r = m["regions"][name]
            cells += [_fmt_mean(r["mean_ulp"]), str(r["max_ulp"])]
        t.add_row(*cells)
    return t


def method_detail(m: dict[str, Any], fmt_name: str) -> list[Table]:
    """Percentiles, histogram, worst inputs and NaN/inf disagreements of one method."""
    p = m["percentiles"]
    head = Table(title=f"{m['method']}: {m['count']} finite results", title_justify="left")
    for col in ("Max", "Mean", "P50", "P90", "P99", "Exact", "<=1 ULP", "NaN!", "Inf!"):
        head.add_column(col, justify="right")
    head.add_row(str(m["max_ulp"]), f"{m['mean_ulp']:.4f}", str(p["p50"]), str(p["p90"]),
                 str(p["p99"]), f"{100 * m['exact_fraction']:.4f}%",
                 f"{100 * m['within1_fraction']:.4f}%", str(m["nan_mismatches"]),
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


def _json_default(o: Any) -> Any:
    raise TypeError(f"not JSON serialisable: {type(o).__name__}")


def _clean(o: Any) -> Any:
    """Replace infinities (region bounds) by strings so the JSON is strict."""
    if isinstance(o, float) and math.isinf(o):
        return "inf" if o > 0 else "-inf"
    if isinstance(o, float) and math.isnan(o):
        return "nan"
    if isinstance(o, dict):
        return {k: _clean(v) for k, v in o.items()}
    if isinstance(o, list | tuple):
        return [_clean(v) for v in o]
    return o


def check_writable(path: str | Path) -> Path:
    """Fail early, with one line, if ``path`` cannot be written."""
    p = Path(path)
    parent = p.parent if str(p.parent) else Path(".")
    if p.is_dir():
        raise UsageError(f"cannot write {p}: it is a directory")
    if not parent.is_dir():
        raise UsageError(f"cannot write {p}: directory {parent} does not exist")
    try:
        with open(p, "ab"):
            pass
    except OSError as exc:
        raise UsageError(f"cannot write {p}: {exc.strerror}") from None
    return p


def write_text(path: str | Path, text: str) -> None:
    p = check_writable(path)
    try:
        p.write_text(text)
    except OSError as exc:
        raise UsageError(f"cannot write {p}: {exc.strerror}") from None


def write_json(path: str | Path, data: Any) -> None:
    write_text(path, json.dumps(_clean(data), indent=2, allow_nan=False, default=_json_default)
               + "\n")


def analysis_csv(result: dict[str, Any]) -> str:
    regions = [r["name"] for r in result["regions"]]
    head = ["function", "format", "method", "count", "max_ulp", "mean_ulp", "exact_fraction",
            "within1_fraction", "nan_mismatches", "inf_mismatches", "p50", "p90", "p99"]
    for r in regions:
        head += [f"{r}_count", f"{r}_max_ulp", f"{r}_mean_ulp"]
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
        w.writerow(row)
    return buf.getvalue()


def peers_tables(card: dict[str, Any]) -> list[Table]:
    """The tanh-diagnostic layout: summary, distribution, sample values with the worst errors."""
    rows = card["backends"]
    head = Table(title=f"{card['function']} on every {card['format']} input: report card",
                 title_justify="left")
    for col in ("backend", "vs", "Max", "Mean", "Exact", "<=1", "NaN!", "Inf!", "DAZ", "FTZ",
                "scalar!=vector"):
        head.add_column(col, justify="left" if col in ("backend", "vs") else "right")
    for r in rows:
        daz, ftz, sv = r["daz"], r["ftz"], r["scalar_vs_vector"]
        head.add_row(r["backend"], r["reference"], str(r["max_ulp"]), _fmt_mean(r["mean_ulp"]),
                     f"{100 * r['exact_fraction']:.2f}%", f"{100 * r['within1_fraction']:.2f}%",
                     str(r["nan_mismatches"]), str(r["inf_mismatches"]),
                     f"{daz['read_as_zero']}/{daz['subnormal_inputs']}",
                     f"{ftz['flushed']}/{ftz['subnormal_results']}",
                     f"{sv['mismatches']}/{sv['checked']}")
    tables = [head]
    labels: list[str] = []
    for r in rows:
        for k in r["histogram"]:
            if k not in labels:
                labels.append(k)
    dist = Table(title="ULP distribution (share of finite results)", title_justify="left")
    dist.add_column("backend")
    for k in labels:
        dist.add_column(k, justify="right")
    for r in rows:
        dist.add_row(r["backend"], *[f"{100 * r['histogram'].get(k, 0) / max(r['count'], 1):.2f}%"
                                     if r["histogram"].get(k, 0) else "" for k in labels])
    tables.append(dist)
    worst = Table(title="Sample values with the worst errors", title_justify="left")
    for col in ("backend", "x", "got", "expected", "ULP"):
        worst.add_column(col, justify="right" if col != "backend" else "left")
    for r in rows:
        for w in r["worst"][:4]:
            worst.add_row(r["backend"], f"{w['x']:.6g} ({w['hex']})",
                          f"{w['got']:.6g} ({w['got_hex']})",
                          f"{w['expected']:.6g} ({w['expected_hex']})", str(w["ulp"]))
        for w in r["mismatch_examples"][:2]:
            worst.add_row(r["backend"], f"{w['x']:.6g} ({w['hex']})", w["got_hex"],
                          w["expected_hex"], "NaN/inf")
    tables.append(worst)
    if card["skipped"]:
        tables.append(simple_table("skipped", ["backend", "reason"],
                                   [[s["backend"], s["reason"]] for s in card["skipped"]]))
    return tables


def simple_table(title: str, columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> Table:
    t = Table(title=title, title_justify="left")
    for c in columns:
        t.add_column(c)
    for r in rows:
        t.add_row(*[str(c) for c in r])
    return t


__all__ = ["analysis_csv", "analysis_table", "check_writable", "console", "method_detail",
           "peers_tables", "simple_table", "write_json", "write_text"]
