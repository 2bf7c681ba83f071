"""Pictures of a sweep (matplotlib, Agg): ULP error against input, the ULP histogram, and the
per-region max/mean ULP of several methods.

Each function draws on a ``matplotlib.figure.Figure`` it creates (no pyplot state, no window), so
it works the same in a notebook, a script and a headless test. ``png_bytes`` renders one.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from ulplab.api import Report

DISAGREEMENT_COLOR = "#d62728"


def _figure(width: float, height: float,
            widths: Sequence[float] = (1.0,)) -> tuple[Figure, list[Axes]]:
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), dpi=100, layout="constrained")
    axes = fig.subplots(1, len(widths), squeeze=False, width_ratios=list(widths))[0]
    return fig, list(axes)


def _linthresh(report: Report) -> float:
    """The symmetric-log axis is linear below the smallest positive normal of the format."""
    from ulplab.formats import get_format

    return get_format(report.format).min_normal


def _symlog_ticks(linthresh: float, limit: float) -> list[float]:
    """0 and four decades a side, spread from just above the linear threshold to the largest
    finite value (the default locator crowds labels around the threshold)."""
    lo, hi = np.log10(linthresh), np.log10(limit)
    decades = sorted({round(float(k)) for k in np.linspace(lo, hi, 5)[1:]})
    pos = [10.0**k for k in decades]
    return [-p for p in reversed(pos)] + [0.0] + pos


def draw_error_scatter(ax: Axes, report: Report) -> None:
    """ULP error against input on a symmetric-log x axis, coloured by region; NaN/inf
    disagreements as red crosses along the top edge (they have no ULP distance)."""
    import matplotlib as mpl

    limit = report.finite_limit()
    x = np.nan_to_num(report.x_values(), nan=0.0, posinf=limit, neginf=-limit)  # inf at the edge
    region = report.region_index()
    finite = report.ulp >= 0
    colors = mpl.colormaps["tab10"]
    for i, name in enumerate(report.region_names()):
        m = finite & (region == i)
        if m.any():
            ax.scatter(x[m], report.ulp[m], s=2, color=colors(i % 10), label=name,
                       rasterized=True, linewidths=0)
    m = finite & (region < 0)
    if m.any():
        ax.scatter(x[m], report.ulp[m], s=2, color="0.5", label="in no region (±inf)",
                   rasterized=True, linewidths=0)
    top = max(int(report.max_ulp), 1)
    bad = report.disagreements()
    if bad.any():
        ax.scatter(x[bad], np.full(int(bad.sum()), top * 1.05 + 0.5), marker="x", s=18,
                   color=DISAGREEMENT_COLOR, label=f"NaN/inf disagreement ({int(bad.sum())})")
    ax.set_xscale("symlog", linthresh=_linthresh(report))
    ax.set_xticks(_symlog_ticks(_linthresh(report), report.finite_limit()))
    ax.set_ylim(-0.05 * top - 0.5, top * 1.12 + 1)
    ax.set_xlabel(f"x ({report.format}, symmetric log scale)")
    ax.set_ylabel("ULP error")
    ax.set_title(f"{report.method}: {report.function} on {report.inputs} {report.format} inputs")
    ax.legend(loc="upper left", fontsize="small", markerscale=4, ncols=2)


def draw_histogram(ax: Axes, report: Report) -> None:
    """Inputs per ULP bin (0, 1, 2, 3-4, 5-8, ...), log count scale."""
    labels = list(report.histogram)
    counts = [report.histogram[k] for k in labels]
    ax.bar(range(len(labels)), counts, color="#1f77b4")
    ax.set_xticks(range(len(labels)), labels, rotation=45 if len(labels) > 8 else 0)
    if any(counts):
        ax.set_yscale("log")
    ax.set_xlabel("ULP error")
    ax.set_ylabel("finite results")
    ax.set_title(f"{report.method}: ULP histogram")


def draw_region_bars(axes: Sequence[Axes], reports: Sequence[Report]) -> None:
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


def error_figure(report: Report) -> Figure:
    fig, (ax,) = _figure(10, 3.6)
    draw_error_scatter(ax, report)
    return fig


def histogram_figure(report: Report) -> Figure:
    fig, (ax,) = _figure(5, 3.6)
    draw_histogram(ax, report)
    return fig


def region_figure(reports: Sequence[Report]) -> Figure:
    bars = len(reports) * max(1, len(reports[0].region_names()))
    fig, axes = _figure(11, 1.5 + 0.11 * bars, widths=(1, 1))
    draw_region_bars(axes, reports)
    return fig


def report_figure(report: Report) -> Figure:
    """One method: the error scatter and the histogram side by side (``Report.plot``)."""
    fig, axes = _figure(14, 3.8, widths=(3, 1))
    draw_error_scatter(axes[0], report)
    draw_histogram(axes[1], report)
    return fig


def png_bytes(fig: Figure) -> bytes:
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    FigureCanvasAgg(fig)
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    return buf.getvalue()


__all__ = ["draw_error_scatter", "draw_histogram", "draw_region_bars", "error_figure",
           "histogram_figure", "png_bytes", "region_figure", "report_figure"]
