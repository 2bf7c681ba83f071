"""Pictures of a sweep (matplotlib, Agg): ULP error against input, the ULP histogram, and the
per-region max/mean ULP of several methods.

Each function draws on a ``matplotlib.figure.Figure`` it creates (no pyplot state, no window), so
it works the same in a notebook, a script and a headless test. ``png_bytes`` renders one.

A report is anything shaped like ``ulplab.api.Report`` (``SweepReport`` below, a Protocol): this
module sits below the API and never imports it.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure


class WorstRow(Protocol):
    """One of a report's worst inputs (``ulplab.api.WorstInput``)."""

    @property
    def x(self) -> float: ...
    @property
    def x_bits(self) -> int: ...
    @property
    def expected(self) -> float: ...
    @property
    def expected_bits(self) -> int: ...
    @property
    def got(self) -> float: ...
    @property
    def got_bits(self) -> int: ...
    @property
    def ulp(self) -> int: ...


class SweepReport(Protocol):
    """What the figures and the HTML tables read of a report (``ulplab.api.Report`` has it all):
    what was measured, the statistics, and the per-input views."""

    @property
    def function(self) -> str: ...
    @property
    def format(self) -> str: ...
    @property
    def method(self) -> str: ...
    @property
    def rounding(self) -> str: ...
    @property
    def denormals(self) -> str: ...
    @property
    def inputs(self) -> str: ...
    @property
    def max_ulp(self) -> int: ...
    @property
    def histogram(self) -> dict[str, int]: ...
    @property
    def regions(self) -> dict[str, dict[str, Any]]: ...
    @property
    def stats(self) -> dict[str, Any]: ...
    @property
    def worst(self) -> Sequence[WorstRow]: ...
    @property
    def ulp(self) -> np.ndarray: ...

    def x_values(self) -> np.ndarray: ...
    def region_names(self) -> list[str]: ...
    def region_index(self) -> np.ndarray: ...
    def disagreements(self) -> np.ndarray: ...
    def finite_limit(self) -> float: ...

DISAGREEMENT_COLOR = "#d62728"


LEFT, GAP, BOTTOM, TOP = 0.95, 0.25, 1.15, 0.35
"""Margins in inches: room for tick labels, axis labels, rotated histogram bins and titles."""
LEGEND = 1.8
"""Inches right of the error scatter for its legend (inside, it hid points and NaN marks)."""


def _figure(height: float, *axes_widths: tuple[float, float]) -> tuple[Figure, list[Axes]]:
    """A figure with one row of axes: each (width, room after it) in inches, fixed margins
    (a constrained layout draws twice, and drawing is most of a figure's time)."""
    from matplotlib.figure import Figure

    width = LEFT + sum(w + after for w, after in axes_widths)
    fig = Figure(figsize=(width, height), dpi=100)
    axes, x = [], LEFT
    for w, after in axes_widths:
        axes.append(fig.add_axes((x / width, BOTTOM / height, w / width,
                                  (height - BOTTOM - TOP) / height)))
        x += w + after
    return fig, axes


def _linthresh(report: SweepReport) -> float:
    """The symmetric-log axis is linear below the smallest positive normal of the format."""
    from ulplab.formats import get_format

    return get_format(report.format).min_normal


def symlog_coordinate(x: np.ndarray, linthresh: float) -> np.ndarray:
    """x on a symmetric-log axis: x/linthresh within +-linthresh, else +-(1 + log10(|x|/linthresh))
    (matplotlib's "symlog" scale, computed once in NumPy: its own transform runs per draw and
    took most of a 65,536-point figure's time)."""
    a = np.abs(x) / linthresh
    return np.sign(x) * np.where(a < 1, a, 1 + np.log10(np.maximum(a, 1)))


def _symlog_ticks(ax: Axes, linthresh: float, limit: float) -> None:
    """0 and four decades a side, spread from just above the linear threshold to the largest
    finite value, labelled as powers of ten."""
    lo, hi = np.log10(linthresh), np.log10(limit)
    decades = sorted({round(float(k)) for k in np.linspace(lo, hi, 5)[1:]})
    values = [-(10.0**k) for k in reversed(decades)] + [0.0] + [10.0**k for k in decades]
    labels = ([f"$-10^{{{k}}}$" for k in reversed(decades)] + ["0"]
              + [f"$10^{{{k}}}$" for k in decades])
    ax.set_xticks(symlog_coordinate(np.array(values), linthresh), labels)
    edge = float(symlog_coordinate(np.array([limit]), linthresh)[0])
    ax.set_xlim(-1.04 * edge, 1.04 * edge)


def draw_error_scatter(ax: Axes, report: SweepReport) -> None:
    """ULP error against input on a symmetric-log x axis, coloured by region; NaN/inf
    disagreements as red crosses along the top edge (they have no ULP distance)."""
    import matplotlib as mpl

    limit, linthresh = report.finite_limit(), _linthresh(report)
    x = np.nan_to_num(report.x_values(), nan=0.0, posinf=limit, neginf=-limit)  # inf at the edge
    x = symlog_coordinate(x, linthresh)
    region = report.region_index()
    finite = report.ulp >= 0
    colors = mpl.colormaps["tab10"]
    groups = [(region == i, name, colors(i % 10)) for i, name in enumerate(report.region_names())]
    groups.append((region < 0, "in no region (±inf)", "0.5"))
    for where, name, color in groups:
        m = finite & where
        if m.any():
            ax.plot(x[m], report.ulp[m], linestyle="none", marker=".", markersize=2.5,
                    markeredgewidth=0, color=color, label=name, rasterized=True)
    top = max(int(report.max_ulp), 1)
    bad = report.disagreements()
    if bad.any():
        ax.plot(x[bad], np.full(int(bad.sum()), top * 1.05 + 0.5), linestyle="none",
                marker="x", markersize=5, color=DISAGREEMENT_COLOR,
                label=f"NaN/inf disagreement ({int(bad.sum())})")
    _symlog_ticks(ax, linthresh, limit)
    ax.set_ylim(-0.05 * top - 0.5, top * 1.12 + 1)
    ax.set_xlabel(f"x ({report.format}, symmetric log scale)")
    ax.set_ylabel("ULP error")
    ax.set_title(f"{report.method}: {report.function} on {report.inputs} {report.format} inputs")
    legend = ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0,
                       fontsize="small")
    for handle in legend.legend_handles:
        if handle is not None and handle.get_marker() == ".":
            handle.set_markersize(10)


def draw_histogram(ax: Axes, report: SweepReport) -> None:
    """Inputs per ULP bin (0, 1, 2, 3-4, 5-8, ...), log count scale."""
    labels = list(report.histogram)
    counts = [report.histogram[k] for k in labels]
    ax.bar(range(len(labels)), counts, color="#1f77b4")
    ax.set_xticks(range(len(labels)), labels, rotation=90 if len(labels) > 8 else 0,
                  fontsize="small")
    if any(counts):
        ax.set_yscale("log")
    ax.set_xlabel("ULP error")
    ax.set_ylabel("finite results")
    ax.set_title(f"{report.method}: ULP histogram")


def draw_region_bars(axes: Sequence[Axes], reports: Sequence[SweepReport]) -> None:
    """Max (first axes) and mean (second) ULP per region, one group of bars per method."""
    import matplotlib as mpl

    names = reports[0].region_names()
    colors = mpl.colormaps["tab10"]
    height = 0.8 / max(len(names), 1)
    y = np.arange(len(reports))
    for ax, key, title in zip(axes, ("max_ulp", "mean_ulp"), ("max ULP", "mean ULP"),
                              strict=True):
        for i, name in enumerate(names):
            vals = [r.regions[name][key] for r in reports]
            ax.barh(y + (i - (len(names) - 1) / 2) * height, vals, height=height,
                    color=colors(i % 10), label=name)
        ax.set_xlim(0, 1.15 * max([1.0, *(r.regions[n][key] for r in reports for n in names)]))
        ax.set_yticks(y, [r.method for r in reports])
        ax.invert_yaxis()
        ax.set_xscale("symlog", linthresh=1.0)
        ax.set_xlabel(title)
        ax.set_title(f"{title} per region")
    axes[0].figure.legend(*axes[0].get_legend_handles_labels(), loc="outside right upper",
                          fontsize="small")


def error_figure(report: SweepReport) -> Figure:
    fig, (ax,) = _figure(3.8, (7.6, LEGEND + GAP))
    draw_error_scatter(ax, report)
    return fig


def histogram_figure(report: SweepReport) -> Figure:
    fig, (ax,) = _figure(3.8, (4.0, GAP))
    draw_histogram(ax, report)
    return fig


def region_figure(reports: Sequence[SweepReport]) -> Figure:
    from matplotlib.figure import Figure

    bars = len(reports) * max(1, len(reports[0].region_names()))
    fig = Figure(figsize=(11, 1.5 + 0.11 * bars), dpi=100, layout="constrained")
    axes = list(fig.subplots(1, 2))
    draw_region_bars(axes, reports)
    return fig


def pareto_figure(points: Sequence[tuple[str, int, int]], fmt_name: str) -> Figure:
    """Operations per element against max ULP (+1, log scale) for (name, ops, max ULP) points;
    the Pareto front — no other point both cheaper and at most as far off — joined and named."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(8, 4.6), dpi=100, layout="constrained")
    ax = fig.subplots()
    front, best = [], None
    for name, ops, ulp in sorted(points, key=lambda p: (p[1], p[2])):
        if best is None or ulp < best:
            front.append((name, ops, ulp))
            best = ulp
    ax.scatter([p[1] for p in points], [p[2] + 1 for p in points], s=14, color="0.55",
               label="method")
    ax.plot([p[1] for p in front], [p[2] + 1 for p in front], "o-", color="tab:red", ms=5,
            label="Pareto front")
    for name, ops, ulp in front:
        ax.annotate(name, (ops, ulp + 1), fontsize=7, xytext=(4, 4), textcoords="offset points")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("operations per element (traced, table reads apart)")
    ax.set_ylabel(f"max ULP + 1 on every {fmt_name} input")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(loc="upper right", fontsize=8)
    return fig


def report_figure(report: SweepReport) -> Figure:
    """One method: the error scatter and the histogram side by side (``Report.plot``)."""
    fig, axes = _figure(3.8, (8.4, LEGEND + LEFT), (3.6, GAP))
    draw_error_scatter(axes[0], report)
    draw_histogram(axes[1], report)
    return fig


def png_bytes(fig: Figure) -> bytes:
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    FigureCanvasAgg(fig)
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    return buf.getvalue()


__all__ = ["SweepReport", "WorstRow", "draw_error_scatter", "draw_histogram", "draw_region_bars",
           "error_figure", "histogram_figure", "png_bytes", "region_figure", "report_figure"]
