"""Self-contained HTML: the summary table, the figures (PNG embedded as base64 data URLs), the
worst inputs and, when asked, the ``peers`` and ``determinism`` tables. No network, no files
beside the page.

The page carries a short inline script that, once loaded, writes each image's natural size and
whether it has a non-white pixel into its ``data-`` attributes and counts script errors in
``body[data-errors]``: a headless browser's DOM dump then shows the page checked itself.
"""

from __future__ import annotations

import base64
from collections.abc import Sequence
from html import escape
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ulplab.report.figures import SweepReport

SUMMARY_COLUMNS = ("method", "count", "max_ulp", "mean_ulp", "exact_fraction",
                   "within1_fraction", "nan_mismatches", "inf_mismatches")
"""Summary table columns: keys of the analysis JSON, one per cell (``data-key``)."""
ERROR_COLUMNS = ("max_error", "errors_ge_1", "errors_gt_half")
"""After max ULP where the JSON has them: the error against the real value (not under the
seed metric)."""
WORST_COLUMN = "worst"
"""The last column: the input with the largest ULP error, exactly (``worst_input_text``)."""

_HEADINGS = {"method": "Method", "count": "Finite results", "max_ulp": "Max ULP",
             "mean_ulp": "Mean ULP", "exact_fraction": "Exact", "within1_fraction": "<=1 ULP",
             "nan_mismatches": "NaN!", "inf_mismatches": "Inf!",
             "max_error": "Max error (real)", "errors_ge_1": ">=1 ULP (real)",
             "errors_gt_half": ">0.5 ULP (real)", "worst": "Worst input"}

STYLE = """
body { font-family: system-ui, sans-serif; margin: 1.5em; color: #222; }
table { border-collapse: collapse; margin: 0.8em 0 1.5em; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
th { background: #f2f2f2; }
img { max-width: 100%; display: block; margin: 0.5em 0 1.5em; }
.row { display: flex; gap: 1em; align-items: flex-start; }
.row img { min-width: 0; }
.bad { color: #b00; font-weight: bold; }
"""

SELF_CHECK = """
window.addEventListener("error", function () {
  document.body.dataset.errors = String(Number(document.body.dataset.errors || 0) + 1);
});
window.addEventListener("load", function () {
  document.querySelectorAll("img").forEach(function (img) {
    img.dataset.naturalWidth = String(img.naturalWidth);
    img.dataset.naturalHeight = String(img.naturalHeight);
    var c = document.createElement("canvas");
    c.width = img.naturalWidth; c.height = img.naturalHeight;
    var g = c.getContext("2d");
    g.drawImage(img, 0, 0);
    var d = g.getImageData(0, 0, c.width, c.height).data, ink = 0;
    for (var i = 0; i < d.length; i += 4) {
      if (d[i] < 250 || d[i + 1] < 250 || d[i + 2] < 250) { ink++; }
    }
    img.dataset.inkPixels = String(ink);
  });
  document.body.dataset.errors = document.body.dataset.errors || "0";
  document.body.dataset.checked = "1";
});
"""


def format_cell(key: str, value: Any) -> str:
    """How a summary figure is shown: counts and ULPs as integers, the mean to 4 decimals,
    fractions as percentages to 2 decimals, the error against the real value as
    ``report.error_text`` writes it."""
    from ulplab.report import error_text

    if key in ("exact_fraction", "within1_fraction"):
        return f"{100 * value:.2f}%"
    if key == "mean_ulp":
        return f"{value:.4f}"
    if key == "max_error":
        return error_text(value)
    return str(value)


def exact_text(value: float, bits: int, fmt_name: str) -> str:
    """A value of a format exactly: the shortest decimal that reads back as it, and its bits
    ("1.0000001 (0x3f800001)")."""
    from ulplab.formats import get_format
    from ulplab.stats import hex_bits, shortest_decimal

    fmt = get_format(fmt_name)
    return f"{shortest_decimal(bits, fmt)} ({hex_bits(bits, fmt)})"


def worst_input_text(m: dict[str, Any], fmt_name: str) -> str:
    """The summary's last cell: the input with the largest ULP error ("-" when none)."""
    if not m["worst"]:
        return "-"
    w = m["worst"][0]
    return exact_text(w["x"], int(w["hex"], 16), fmt_name)


def error_key(m: dict[str, Any]) -> tuple[int, float, float]:
    """How the summary sorts (by error): max ULP, then the max error against the real value
    (where measured), then the mean ULP; ``sorted`` keeps ties in their order."""
    return m["max_ulp"], m.get("max_error", 0.0), m["mean_ulp"]


def _table(headings: Sequence[str], rows: Sequence[Sequence[str]], table_id: str = "",
           keys: Sequence[str] | None = None) -> str:
    ident = f' id="{escape(table_id)}"' if table_id else ""
    head = "".join(f"<th>{escape(h)}</th>" for h in headings)
    body = []
    for row in rows:
        cells = []
        for i, cell in enumerate(row):
            key = f' data-key="{escape(keys[i])}"' if keys else ""
            cls = "" if i == 0 else ' class="num"'
            cells.append(f"<td{cls}{key}>{escape(str(cell))}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    return f"<table{ident}><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def summary_table(methods: Sequence[dict[str, Any]], fmt_name: str) -> str:
    """One row per method of an analysis JSON (``sweep.analyze``'s ``methods``), in the order
    given (``summary_order`` sorts by error): the figures of ``SUMMARY_COLUMNS``, the error
    against the real value after max ULP where measured, and the worst input, exactly."""
    keys = list(SUMMARY_COLUMNS)
    if methods and all(k in m for m in methods for k in ERROR_COLUMNS):
        at = keys.index("max_ulp") + 1
        keys[at:at] = ERROR_COLUMNS
    rows = [[format_cell(k, m[k]) for k in keys] + [worst_input_text(m, fmt_name)]
            for m in methods]
    keys.append(WORST_COLUMN)
    return _table([_HEADINGS[k] for k in keys], rows, "summary", keys)


def worst_table(report: SweepReport, limit: int = 10) -> str:
    from ulplab.formats import get_format
    from ulplab.report import error_text
    from ulplab.stats import hex_bits, shortest_decimal

    fmt = get_format(report.format)
    real = bool(report.worst[:limit]) and report.worst[0].error is not None
    rows = [[shortest_decimal(w.x_bits, fmt), hex_bits(w.x_bits, fmt), float(w.x).hex(),
             exact_text(w.expected, w.expected_bits, fmt.name),
             exact_text(w.got, w.got_bits, fmt.name), str(w.ulp)]
            + ([error_text(w.error)] if real and w.error is not None else [])
            for w in report.worst[:limit]]
    return _table(["x", "x bits", "x (hex float)", "oracle", "got", "ULP"]
                  + (["error (real)"] if real else []), rows)


def mismatch_table(report: SweepReport, limit: int = 10) -> str:
    rows = [[exact_text(m["x"], int(m["hex"], 16), report.format), m["expected_hex"],
             m["got_hex"]] for m in report.stats["mismatch_examples"][:limit]]
    return _table(["x", "oracle", "got"], rows)


def report_summary_html(report: SweepReport) -> str:
    """A Report in a notebook: the summary row, then the worst inputs and NaN/inf examples."""
    title = (f"<p><b>{escape(report.method)}</b>: {escape(report.function)} on "
             f"{escape(report.inputs)} {escape(report.format)} inputs (oracle "
             f"{escape(report.rounding)}, denormals {escape(report.denormals)})</p>")
    parts = [title, summary_table([{"method": report.method, **report.stats}], report.format)]
    if report.worst:
        parts += ["<p>Worst inputs</p>", worst_table(report, 5)]
    if report.stats["mismatch_examples"]:
        parts += ['<p class="bad">NaN/inf disagreements</p>', mismatch_table(report, 5)]
    return "\n".join(parts)


def png_img(png: bytes, alt: str) -> str:
    data = base64.b64encode(png).decode("ascii")
    return f'<img alt="{escape(alt)}" src="data:image/png;base64,{data}">'


def peers_section(card: dict[str, Any]) -> str:
    rows = [[r["backend"], r["reference"], r["max_ulp"], format_cell("mean_ulp", r["mean_ulp"]),
             format_cell("exact_fraction", r["exact_fraction"]),
             format_cell("within1_fraction", r["within1_fraction"]), r["nan_mismatches"],
             r["inf_mismatches"]] for r in card["backends"]]
    skipped = [[s["backend"], s["reason"]] for s in card["skipped"]]
    return (f"<h2>Peers: {escape(card['function'])} on every {escape(card['format'])} input</h2>"
            + _table(["backend", "vs", "Max ULP", "Mean ULP", "Exact", "<=1 ULP", "NaN!", "Inf!"],
                     rows, "peers")
            + ("<h3>Skipped backends</h3>" + _table(["backend", "reason"], skipped)
               if skipped else ""))


def determinism_section(res: dict[str, Any]) -> str:
    rows = [[r["backend"], r["checked"], r["mismatches"], " ".join(r["first"][:3])]
            for r in res["backends"]]
    rows += [[s["backend"], "-", "skipped", s["reason"]] for s in res["skipped"]]
    return (f"<h2>Determinism: bits of each backend against {escape(res['reference'])}</h2>"
            + _table(["backend", "inputs checked", "mismatches", "first mismatches"], rows,
                     "determinism"))


def document(title: str, body: Sequence[str]) -> str:
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{escape(title)}</title><style>{STYLE}</style>"
            f"<script>{SELF_CHECK}</script></head>\n<body>\n<h1>{escape(title)}</h1>\n"
            + "\n".join(body) + "\n</body></html>\n")


__all__ = ["ERROR_COLUMNS", "SUMMARY_COLUMNS", "determinism_section", "document", "error_key",
           "exact_text", "format_cell", "mismatch_table", "peers_section", "png_img",
           "report_summary_html", "summary_table", "worst_input_text", "worst_table"]
