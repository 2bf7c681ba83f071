"""Testing your kernel with pytest: ``assert_max_ulp`` and a parametrization over formats.

    from ulplab.testing import assert_max_ulp, over_formats

    def test_my_gelu():
        assert_max_ulp(my_gelu, "gelu", "bfloat16", max_ulp=1)

    @over_formats("bfloat16", "float16")
    def test_my_tanh(fmt):
        assert_max_ulp(my_tanh, "tanh", fmt, max_ulp=2)

Every input of a 16/8-bit format is measured (float32: ``ulplab.api.FLOAT32_SAMPLES`` fixed
random patterns) against the cached correctly rounded oracle. The pytest plugin
(``ulplab.testing.plugin``, loaded through the ``pytest11`` entry point) adds the ``ulp_oracle``
fixture and the ``--ulplab-rounding``/``--ulplab-denormals`` options.
"""

from __future__ import annotations

import re
from typing import Any

from ulplab.api import (
    ArgumentTypeError,
    Report,
    analyze,
    check_count,
    check_name,
    check_ulp_bound,
)
from ulplab.errors import UsageError
from ulplab.formats import EXHAUSTIVE_FORMATS, FORMATS, get_format
from ulplab.stats import hex_bits, shortest_decimal


class UlpAssertionError(AssertionError):
    """An implementation outside its ULP bound, or disagreeing on NaN/inf; carries the Report."""

    def __init__(self, message: str, report: Report) -> None:
        super().__init__(message)
        self.report = report


def _hex_float(v: float) -> str:
    """C99 hex float without trailing zeros: -0x1.5cp+2."""
    if v != v or abs(v) == float("inf"):
        return str(v)
    return re.sub(r"\.?0+p", "p", v.hex())


def failure_message(report: Report, problems: list[str], show: int) -> str:
    """The worst inputs (decimal, hex bits, hex float, oracle vs got), the totals and the
    NaN/inf disagreements of a Report, under the list of broken bounds."""
    show = check_count("show", show)
    fmt = get_format(report.format)
    total = int(report.x_bits.size)
    lines = [f"{report.method}: {report.function} on {report.inputs} {report.format} inputs "
             f"(oracle {report.rounding}, denormals {report.denormals}): " + "; ".join(problems),
             f"  {total} inputs, {report.count} finite results: max {report.max_ulp} ULP, "
             f"mean {report.mean_ulp:.4g} ULP, exact {100 * report.exact_fraction:.2f}%, "
             f"<=1 ULP {100 * report.within1_fraction:.2f}%; NaN disagreements "
             f"{report.nan_mismatches}, inf disagreements {report.inf_mismatches}"]
    if report.worst:
        lines.append("  worst inputs:")
        lines.append(f"    {'x':>14} {'bits':>{fmt.bits // 4 + 2}} {'x (hex float)':>14}  "
                     f"{'oracle':>24}  {'got':>24} {'ULP':>6}")
        for w in report.worst[:show]:
            oracle = f"{w.expected:.6g} ({hex_bits(w.expected_bits, fmt)})"
            got = f"{w.got:.6g} ({hex_bits(w.got_bits, fmt)})"
            lines.append(f"    {w.x:>14.8g} {hex_bits(w.x_bits, fmt)} {_hex_float(w.x):>14}  "
                         f"{oracle:>24}  {got:>24} {w.ulp:>6}")
    by_error = report.stats.get("worst_error", [])[:show]
    if by_error:
        lines.append(f"  against the real value: max {report.max_error:.6g} ULP, "
                     f"{report.errors_ge_1} inputs >= 1 ULP, {report.errors_gt_half} > 0.5 ULP;"
                     " largest:")
        for w in by_error:
            lines.append(f"    x = {shortest_decimal(int(w['hex'], 16), fmt)} ({w['hex']}): "
                         f"real {w['real']:.17g}, got {w['got']:.9g} ({w['got_hex']}), "
                         f"error {w['error']:.6g} ULP")
    examples = report.stats["mismatch_examples"][:show]
    if examples:
        lines.append("  NaN/inf disagreements:")
        for m in examples:
            lines.append(f"    x = {m['x']:.8g} ({m['hex']}): oracle {m['expected_hex']}, "
                         f"got {m['got_hex']}")
    return "\n".join(lines)


def assert_max_ulp(impl: Any, function: str, format: str, max_ulp: float, *,
                   max_mean_ulp: float | None = None, max_error: float | None = None,
                   rounding: str = "nearest-even",
                   denormals: str = "ieee", inputs: Any = None, takes: str | None = None,
                   show: int = 8) -> Report:
    """Fail unless ``impl`` is within ``max_ulp`` (and, if given, a mean of ``max_mean_ulp``) of
    the correctly rounded ``function`` on every input of ``format`` and agrees with it on every
    NaN and infinity. ``impl`` and the options are those of ``ulplab.analyze``; returns its
    Report. The message lists the ``show`` worst inputs.

    ``max_ulp``: an integer or float >= 0 (Python or NumPy; not a bool, not NaN). ULP errors
    are whole numbers, so 1.5 allows what 1 allows; ``float("inf")`` bounds nothing, leaving the
    mean bound and the NaN/inf agreement. ``max_mean_ulp``: None (no bound on the mean) or a
    float >= 0 under the same rules. ``max_error``: None (no bound) or a bound on the error
    against the real, unrounded f(x) in fractional ULPs of the format
    (``ulplab.ulp.real_ulp_error``), an integer or float >= 0 under the same rules: 0.99 asks
    for a faithful kernel ("max pure ULP < 1"), 0.5 for correct rounding to nearest; a NaN or
    infinity disagreement is an infinite error. ``show``: an integer >= 0. Every argument is
    checked before anything runs: a wrong type raises a TypeError, a wrong value (NaN,
    negative, an unknown name) a ValueError, each naming the argument and what it may be.
    """
    __tracebackhide__ = True
    bound = check_ulp_bound("max_ulp", max_ulp)
    mean_bound = None if max_mean_ulp is None else check_ulp_bound("max_mean_ulp", max_mean_ulp)
    error_bound = None if max_error is None else check_ulp_bound("max_error", max_error)
    show = check_count("show", show)
    report = analyze(impl, function, format, rounding=rounding, denormals=denormals,
                     inputs=inputs, takes=takes, worst=show)
    problems = []
    if report.max_ulp > bound:
        problems.append(f"max {report.max_ulp} ULP > max_ulp={max_ulp}")
    if mean_bound is not None and report.mean_ulp > mean_bound:
        problems.append(f"mean {report.mean_ulp:.4g} ULP > max_mean_ulp={max_mean_ulp}")
    if error_bound is not None and report.max_error is not None and \
            report.max_error > error_bound:
        above = int((report.error > error_bound).sum())
        problems.append(f"max error {report.max_error:.6g} ULP of the real value > "
                        f"max_error={max_error} ({above} inputs above)")
    if report.nan_mismatches or report.inf_mismatches:
        problems.append(f"{report.nan_mismatches} NaN and {report.inf_mismatches} inf "
                        "disagreements")
    if problems:
        raise UlpAssertionError(failure_message(report, problems, show), report)
    return report


def over_formats(*names: str, argname: str = "fmt") -> Any:
    """``pytest.mark.parametrize`` over format names (default: every 16- and 8-bit format);
    ``argname``: the test's parameter, an identifier."""
    import pytest

    if not isinstance(argname, str):
        raise ArgumentTypeError(f"argname must be a string, got {argname!r}")
    if not argname.isidentifier():
        raise UsageError(f"argname must be a Python identifier, got {argname!r}")
    chosen = list(names) or list(EXHAUSTIVE_FORMATS)
    for n in chosen:
        check_name("format", n, list(FORMATS))
    return pytest.mark.parametrize(argname, chosen, ids=chosen)


__all__ = ["UlpAssertionError", "assert_max_ulp", "failure_message", "over_formats"]
