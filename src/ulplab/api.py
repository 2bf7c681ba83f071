"""The Python API: measure any callable (NumPy, PyTorch, JAX) or a registered method from a
notebook or a script.

    import ulplab
    r = ulplab.analyze(torch.nn.functional.gelu, "gelu", "bfloat16")
    r.max_ulp, r.exact_fraction, r.worst[:3]; r.plot(); r.to_json()

``analyze`` runs the same stages as ``ulplab analyze`` (``sweep.compare`` then
``stats.summarize``); ``Report`` carries that summary's figures plus the per-input arrays behind
them (for plots and data frames). The other functions are thin doors onto the oracle, the ULP
calculator and the format table.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ulplab.errors import ArgumentTypeError, UsageError, check_name
from ulplab.errors import shown as _shown
from ulplab.formats import (
    FORMATS,
    POLICIES,
    ROUNDING_MODES,
    DenormalPolicy,
    Format,
    get_format,
    get_policy,
    is_nan,
    to_values,
)
from ulplab.functions import FUNCTIONS, Region, get_function

FLOAT32_SAMPLES = 65_536
"""float32 has 2^32 inputs: with ``inputs=None`` it is measured on this many bit patterns drawn
uniformly (NaN, infinities, subnormals and every binade included) ..."""
FLOAT32_SEED = 2026
"""... by ``inputs.float32_random(FLOAT32_SAMPLES, FLOAT32_SEED)``, the same every run. Their
oracle results are cached like an exhaustive table."""

FRAMEWORKS = ("numpy", "torch", "jax")


# ---------------------------------------------------------------- argument checks
def check_count(name: str, value: Any, minimum: int = 0) -> int:
    """``value`` as an int: an integer (Python or NumPy, not a bool) of at least ``minimum``;
    a TypeError or ValueError naming ``name`` otherwise."""
    what = f"{name} must be an integer >= {minimum}"
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise ArgumentTypeError(f"{what}, got {_shown(value)}")
    if value < minimum:
        raise UsageError(f"{what}, got {_shown(value)}")
    return int(value)


def check_ulp_bound(name: str, value: Any) -> float:
    """A bound on ULP errors: an integer or float (Python or NumPy, not a bool) >= 0, not NaN;
    ``inf`` means no bound. Errors are whole ULPs, so a fractional bound acts as its floor."""
    what = f"{name} must be a non-negative integer or float (inf: no bound)"
    if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating):
        raise ArgumentTypeError(f"{what}, got {_shown(value)}")
    if isinstance(value, int | np.integer):
        if value < 0:
            raise UsageError(f"{what}, got {_shown(value)}")
        return float(value) if value <= 2**53 else math.inf  # beyond any ULP distance
    if math.isnan(value) or value < 0:
        raise UsageError(f"{what}, got {_shown(float(value))}")
    return float(value)


def check_flag(name: str, value: Any) -> bool:
    """``value`` when it is True or False (also a NumPy bool)."""
    if not isinstance(value, bool | np.bool_):
        raise ArgumentTypeError(f"{name} must be True or False, got {_shown(value)}")
    return bool(value)


def _validate(function: Any, fmt: Any, rounding: Any, denormals: Any) -> Format:
    """The format named by ``fmt``, once the four names that define a truth are checked."""
    check_name("function", function, list(FUNCTIONS))
    check_name("rounding", rounding, ROUNDING_MODES, noun="rounding mode")
    check_name("denormals", denormals, list(POLICIES), DenormalPolicy, "denormal policy")
    return _format(fmt)


def _format(fmt: Any) -> Format:
    return get_format(check_name("format", fmt, list(FORMATS), Format))


def _check_metric(metric: Any, function: str, fmt: Format, rounding: str,
                  denormals: Any) -> str:
    """``metric`` when it names one of ``METRICS`` defined for ``function``, ``fmt`` and the
    truth's ``rounding`` and ``denormals`` (the seed metric: its own, nearest-even and ieee)."""
    from ulplab.oracle.seed_metric import METRICS, check_metric, check_seed_truth

    check_name("metric", metric, METRICS)
    check_metric(metric, function, fmt)
    if metric == "seed":
        check_seed_truth(rounding, get_policy(denormals).name)
    return metric


def _check_takes(takes: Any) -> str | None:
    if takes is None:
        return None
    return check_name("takes", takes, ("float32", "format"), noun="input dtype")


# ---------------------------------------------------------------- the report
@dataclass(frozen=True)
class WorstInput:
    """One input with a large ULP error: values as decimals, patterns as integers."""

    x: float
    x_bits: int
    expected: float
    expected_bits: int
    got: float
    got_bits: int
    ulp: int
    error: float | None = None
    """The error against the real f(x) in ULPs (``ulplab.ulp.real_ulp_error``); None under the
    seed metric."""


@dataclass(frozen=True)
class Report:
    """One implementation of one function measured over the inputs of one format.

    The figures are ``stats.summarize``'s (fractions and NaN/inf counts defined there); ``stats``
    keeps its whole dictionary. ``x_bits``, ``got_bits``, ``expected_bits`` and ``ulp`` (-1 where
    a side is NaN or infinite) hold every input measured, in input order. ``metric``: "ulplab"
    (against the oracle) or "seed" (``expected_bits`` the seed's reference, ``ulp`` its distance,
    -1 on every input it skips).

    ``max_error``, ``errors_ge_1``, ``errors_gt_half``: the error against the real (unrounded)
    f(x) in fractional ULPs of the format (``ulplab.ulp.real_ulp_error``; <= 0.5 correctly
    rounded to nearest, < 1 faithful), its max over every input and the inputs >= 1 and > 0.5;
    ``error`` holds it per input. None under the seed metric, which has no real value.
    """

    function: str
    format: str
    method: str
    rounding: str
    denormals: str
    inputs: str
    count: int
    max_ulp: int
    mean_ulp: float
    exact_fraction: float
    within1_fraction: float
    nan_mismatches: int
    inf_mismatches: int
    percentiles: dict[str, int]
    histogram: dict[str, int]
    worst: list[WorstInput]
    regions: dict[str, dict[str, Any]]
    region_bounds: tuple[Region, ...] = field(repr=False)
    stats: dict[str, Any] = field(repr=False)
    x_bits: np.ndarray = field(repr=False, compare=False)
    got_bits: np.ndarray = field(repr=False, compare=False)
    expected_bits: np.ndarray = field(repr=False, compare=False)
    ulp: np.ndarray = field(repr=False, compare=False)
    metric: str = "ulplab"
    max_error: float | None = None
    errors_ge_1: int | None = None
    errors_gt_half: int | None = None
    error: np.ndarray | None = field(default=None, repr=False, compare=False)

    @classmethod
    def from_stats(cls, stats: dict[str, Any], *, function: str, fmt: Format, method: str,
                   rounding: str, denormals: str, inputs: str, regions: Sequence[Region],
                   x_bits: np.ndarray, got: np.ndarray, expected: np.ndarray,
                   ulp: np.ndarray, metric: str = "ulplab",
                   error: np.ndarray | None = None) -> Report:
        worst = [WorstInput(x=w["x"], x_bits=int(w["hex"], 16), expected=w["expected"],
                            expected_bits=int(w["expected_hex"], 16), got=w["got"],
                            got_bits=int(w["got_hex"], 16), ulp=w["ulp"], error=w.get("error"))
                 for w in stats["worst"]]
        return cls(function=function, format=fmt.name, method=method, rounding=rounding,
                   denormals=denormals, inputs=inputs, count=stats["count"],
                   max_ulp=stats["max_ulp"], mean_ulp=stats["mean_ulp"],
                   exact_fraction=stats["exact_fraction"],
                   within1_fraction=stats["within1_fraction"],
                   nan_mismatches=stats["nan_mismatches"],
                   inf_mismatches=stats["inf_mismatches"], percentiles=stats["percentiles"],
                   histogram=stats["histogram"], worst=worst, regions=stats["regions"],
                   region_bounds=tuple(regions), stats=stats, x_bits=x_bits, got_bits=got,
                   expected_bits=expected, ulp=ulp, metric=metric,
                   max_error=stats.get("max_error"), errors_ge_1=stats.get("errors_ge_1"),
                   errors_gt_half=stats.get("errors_gt_half"), error=error)

    # -- per-input views
    def _fmt(self) -> Format:
        return get_format(self.format)

    def x_values(self) -> np.ndarray:
        """The inputs as float64 values (exact)."""
        return to_values(self.x_bits, self._fmt())

    def region_names(self) -> list[str]:
        return [name for name, _, _ in self.region_bounds]

    def region_index(self) -> np.ndarray:
        """Index into ``region_names()`` of each input's region; -1 for NaN/inf inputs or none."""
        x = self.x_values()
        idx = np.full(x.shape, -1, dtype=np.int64)
        for i, (_, lo, hi) in enumerate(self.region_bounds):
            idx[(x >= lo) & (x < hi)] = i
        return idx

    def disagreements(self) -> np.ndarray:
        """Inputs whose result or reference is NaN or infinite and the two differ (any NaN
        matches any NaN): the inputs counted by ``nan_mismatches + inf_mismatches``."""
        fmt = self._fmt()
        both_nan = is_nan(self.got_bits, fmt) & is_nan(self.expected_bits, fmt)
        return (self.ulp < 0) & ~both_nan & (self.got_bits != self.expected_bits)

    def finite_limit(self) -> float:
        return self._fmt().max_value

    # -- outputs
    def to_dict(self) -> dict[str, Any]:
        """The JSON object: what was measured, then the statistics of ``ulplab analyze``."""
        return {"function": self.function, "format": self.format, "method": self.method,
                "metric": self.metric, "rounding": self.rounding, "denormals": self.denormals,
                "inputs": self.inputs,
                "regions_bounds": [{"name": n, "lo": lo, "hi": hi}
                                   for n, lo, hi in self.region_bounds],
                **self.stats}

    def to_json(self, indent: int | None = 2) -> str:
        """The JSON text of ``to_dict()``; ``indent``: None (one line) or an integer >= 0."""
        from ulplab.files import json_ready

        if indent is not None:
            indent = check_count("indent", indent)
        return json.dumps(json_ready(self.to_dict()), indent=indent, allow_nan=False)

    def to_dataframe(self) -> Any:
        """One row per input: x, x_bits, expected, got, ulp (-1: NaN/inf), error (against the
        real value; not under the seed metric), region. Needs pandas."""
        try:
            import pandas as pd
        except ImportError:
            raise ImportError("Report.to_dataframe needs pandas, which is not installed "
                              "(pip install pandas); Report.to_dict() needs nothing") from None
        fmt = self._fmt()
        names = np.array([*self.region_names(), ""], dtype=object)
        return pd.DataFrame({
            "x": self.x_values(), "x_bits": self.x_bits,
            "expected": to_values(self.expected_bits, fmt), "expected_bits": self.expected_bits,
            "got": to_values(self.got_bits, fmt), "got_bits": self.got_bits, "ulp": self.ulp,
            **({} if self.error is None else {"error": self.error}),
            "region": names[self.region_index()],
        })

    def plot(self) -> Any:
        """A matplotlib Figure: ULP error against input (by region) and the histogram."""
        from ulplab.report.figures import report_figure

        return report_figure(self)

    def _repr_html_(self) -> str:
        from ulplab.report.html import report_summary_html

        return report_summary_html(self)

    def __str__(self) -> str:
        return (f"{self.method} {self.function}/{self.format} ({self.inputs} inputs): max "
                f"{self.max_ulp} ULP, mean {self.mean_ulp:.4g}, exact "
                f"{100 * self.exact_fraction:.2f}%, <=1 ULP {100 * self.within1_fraction:.2f}%, "
                f"NaN! {self.nan_mismatches}, Inf! {self.inf_mismatches}"
                + ("" if self.max_error is None else
                   f"; against the real value: max {self.max_error:.4g} ULP, "
                   f">=1 ULP {self.errors_ge_1}, >0.5 ULP {self.errors_gt_half}"))


# ---------------------------------------------------------------- any callable as a method
def _torch_dtype(fmt: Format) -> Any:
    import torch

    return getattr(torch, fmt.name)


def _to_framework(x: np.ndarray, framework: str, fmt: Format) -> Any:
    x = np.array(x)  # a writable copy: frameworks may not take read-only or strided views
    if framework == "numpy":
        return x
    if framework == "torch":
        import torch

        if x.dtype == np.float32:
            return torch.from_numpy(x)
        ints = {1: np.int8, 2: np.int16}[x.dtype.itemsize]
        return torch.from_numpy(x.view(ints)).view(_torch_dtype(fmt))
    import jax.numpy as jnp

    return jnp.asarray(x)


def _to_numpy(y: Any) -> np.ndarray:
    if hasattr(y, "detach"):  # a torch tensor, possibly on a GPU, possibly bfloat16/float8
        t = y.detach().cpu()
        name = str(t.dtype).removeprefix("torch.")
        if name in FORMATS and name not in ("float16", "float32"):
            import torch

            ints = {1: torch.int8, 2: torch.int16}[t.element_size()]
            return t.view(ints).numpy().view(FORMATS[name].dtype)
        return t.numpy()
    return np.asarray(y)


def _framework_available(framework: str) -> bool:
    import importlib.util

    return framework == "numpy" or importlib.util.find_spec(framework) is not None


PROBE = (-2.0, -0.5, 0.0, 0.5, 1.0, 3.0)
"""What a callable is first called on to learn its framework and dtype: values of every format."""


def callable_method(impl: Callable[[Any], Any], function: str, fmt: Format | str,
                    takes: str | None = None) -> Any:
    """Wrap ``impl`` as a ``Method``: found by calling it on a few values as a NumPy, PyTorch
    or JAX array, in float32 and then in the format's own dtype; the first call that returns
    an array of the same shape and dtype decides. ``takes`` ("float32" or "format") forces one.
    """
    from ulplab.methods import Method

    if not callable(impl):
        raise ArgumentTypeError(f"impl must be a callable, got {_shown(impl)}")
    check_name("function", function, list(FUNCTIONS))
    fmt = _format(fmt)
    kinds = ("float32",) if fmt.dtype == np.float32 else ("float32", "format")
    if _check_takes(takes) is not None:
        kinds = (takes,)
    name = getattr(impl, "__name__", None) or type(impl).__name__
    tried: list[str] = []
    for kind in kinds:
        dtype = np.dtype(np.float32) if kind == "float32" else fmt.dtype
        probe = np.array(PROBE, dtype=np.float32).astype(dtype)
        for fw in FRAMEWORKS:
            if not _framework_available(fw):
                continue
            try:
                with np.errstate(all="ignore"):
                    y = _to_numpy(impl(_to_framework(probe, fw, fmt)))
            except Exception as exc:  # a framework the callable does not take
                tried.append(f"{fw} {dtype.name}: {type(exc).__name__}: {exc}".splitlines()[0])
                continue
            if y.shape != probe.shape or y.dtype != dtype:
                tried.append(f"{fw} {dtype.name}: returned {y.dtype}{y.shape}")
                continue

            def run(x: np.ndarray, fw: str = fw) -> np.ndarray:
                with np.errstate(all="ignore"):  # NaN, inf and overflow are inputs here
                    return _to_numpy(impl(_to_framework(x, fw, fmt)))

            return Method(function=function, name=name, family="callable",
                          idea=f"{fw} callable on {dtype.name} arrays", impl=run, takes=kind)
    raise UsageError(f"cannot measure {name}: no call on a NumPy/PyTorch/JAX array of "
                     f"float32 or {fmt.name} returned an array of the same dtype and shape ("
                     + "; ".join(tried) + ")")


def _method(impl: Any, function: str, fmt: Format, takes: str | None) -> Any:
    from ulplab.methods import Method, get_method

    if isinstance(impl, Method):
        return impl
    if isinstance(impl, str):
        return get_method(function, impl)
    if callable(impl):
        return callable_method(impl, function, fmt, takes)
    raise ArgumentTypeError("impl must be a callable, a method name or a Method, not "
                            f"{_shown(impl)}")


# ---------------------------------------------------------------- inputs and the oracle
def input_bits(inputs: Any, fmt: Format | str, name: str = "inputs") -> np.ndarray:
    """Bit patterns of ``inputs``: an array of the format's dtype, of its unsigned integer
    patterns, or of numbers that are values of the format (NaN and infinities included where the
    format has them). Anything else (bools, strings, None, values the format cannot hold) is
    refused with an error naming the argument ``name``."""
    fmt = _format(fmt)
    if inputs is None:
        raise ArgumentTypeError(f"{name} must be numbers or {fmt.name} values, got None")
    try:
        arr = _to_numpy(inputs).ravel()
    except ValueError as exc:  # ragged nested lists
        raise UsageError(f"{name} must be numbers or {fmt.name} values ({exc})") from None
    if arr.dtype == fmt.dtype:
        return arr.view(fmt.uint).copy()
    if arr.dtype == fmt.uint:
        return arr.copy()
    if arr.dtype.kind not in "fiu":
        raise ArgumentTypeError(f"{name} must be numbers or {fmt.name} values, not {arr.dtype}")
    values = arr.astype(np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        converted = values.astype(fmt.dtype)
    back = converted.astype(np.float64)
    same = (back == values) | (np.isnan(back) & np.isnan(values))
    if not same.all():
        bad = values[~same][0]
        raise UsageError(f"{name}: {float(bad)!r} is not a {fmt.name} value (round it to the "
                         f"format first, or pass an array of dtype {fmt.dtype.name})")
    return converted.view(fmt.uint)


def _given_bits(inputs: Any, fmt: Format) -> np.ndarray:
    bits = input_bits(inputs, fmt)
    if bits.size == 0:
        raise UsageError("inputs is empty: give at least one value, or None for the default set")
    return bits


def _sampled_reference(function: str, fmt: Format, bits: np.ndarray, rounding: str,
                       denormals: str) -> np.ndarray:
    """Oracle results of the default float32 sample, cached like a table."""
    from ulplab import cache
    from ulplab.oracle.table import oracle_source_hash
    from ulplab.sweep import reference

    key = (f"{function}-{fmt.name}-random{FLOAT32_SAMPLES}-seed{FLOAT32_SEED}-{rounding}-"
           f"{denormals}-{oracle_source_hash(function)}")
    table = cache.load(key)
    if table is None:
        table = reference(function, fmt, rounding, denormals, bits, progress=False)
        cache.save(key, table)
    return table


def _real_values(function: str, fmt: Format, denormals: str,
                 bits: np.ndarray | None) -> np.ndarray:
    """f(x) unrounded at each input of a sweep (``ulplab.oracle.real``): the cached table of a
    16/8-bit format, or the given/sampled float32 patterns (the default sample cached)."""
    from ulplab import cache
    from ulplab.oracle.real import real_values_of
    from ulplab.oracle.table import oracle_source_hash

    if bits is None or fmt.exhaustive:
        return real_values_of(function, fmt, denormals, bits)
    sample = float32_sample()
    if bits.size != sample.size or not np.array_equal(bits, sample):
        return real_values_of(function, fmt, denormals, bits)
    key = (f"real-{function}-{fmt.name}-random{FLOAT32_SAMPLES}-seed{FLOAT32_SEED}-"
           f"{get_policy(denormals).name}-{oracle_source_hash(function)}")
    table = cache.load(key)
    if table is None:
        table = real_values_of(function, fmt, denormals, bits)
        cache.save(key, table)
    return table


def float32_sample() -> np.ndarray:
    """The default float32 inputs (``FLOAT32_SAMPLES`` patterns, seed ``FLOAT32_SEED``)."""
    from ulplab.inputs import float32_random

    return float32_random(FLOAT32_SAMPLES, FLOAT32_SEED).view(np.uint32)


def measure(methods: Sequence[Any], function: str, fmt: Format | str, *, rounding: str,
            denormals: str, inputs: Any, output_rounding: str = "nearest-even",
            worst: int = 10, progress: bool = False, metric: str = "ulplab") -> list[Report]:
    """Reports of several ``Method``s against one oracle reference (computed once); the
    arguments are ``analyze``'s, checked the same way."""
    from ulplab.formats import all_patterns
    from ulplab.methods import Method
    from ulplab.oracle.real import accuracy_ulps
    from ulplab.oracle.seed_metric import seed_reference, seed_regions
    from ulplab.stats import summarize
    from ulplab.sweep import compare, reference, seed_compare
    from ulplab.ulp import real_ulp_error

    fmt = _validate(function, fmt, rounding, denormals)
    check_name("output_rounding", output_rounding, ROUNDING_MODES, noun="rounding mode")
    seed = _check_metric(metric, function, fmt, rounding, denormals) == "seed"
    worst = check_count("worst", worst)
    progress = check_flag("progress", progress)
    if isinstance(methods, Method | str) or not isinstance(methods, Sequence):
        raise ArgumentTypeError(f"methods must be a sequence of Method, got {_shown(methods)}")
    for m in methods:
        if not isinstance(m, Method):
            raise ArgumentTypeError(f"methods must hold Method objects, got {_shown(m)}")
    if inputs is not None:
        bits = _given_bits(inputs, fmt)
    if seed:
        bits = all_patterns(fmt) if inputs is None else bits
        expected = seed_reference(function, fmt, bits)
        described = "exhaustive" if inputs is None else f"{bits.size} given"
    elif inputs is None and fmt.exhaustive:
        bits, expected, described = None, None, "exhaustive"
    elif inputs is None:
        bits = float32_sample()
        expected = _sampled_reference(function, fmt, bits, rounding, denormals)
        described = f"{FLOAT32_SAMPLES} sampled"
    else:
        expected = None
        described = f"{bits.size} given"
    if expected is None:
        expected = reference(function, fmt, rounding, denormals, bits, progress)
    regions = seed_regions(function) if seed else get_function(function).regions
    real = None if seed else _real_values(function, fmt, denormals, bits)
    accuracy = None if seed else accuracy_ulps(fmt)
    ftz = get_policy(denormals).ftz
    reports = []
    for method in methods:
        if seed:
            out = seed_compare(method, function, fmt, output_rounding, bits, expected)
        else:
            out = compare(method, function, fmt, rounding, denormals, output_rounding, progress,
                          bits, expected)
        error = None if real is None else real_ulp_error(out.got, real, fmt, ftz)
        stats = summarize(out.x_bits, out.got, out.expected, out.ulp, fmt, regions, worst,
                          real=real, ftz=ftz, error=error, error_accuracy=accuracy)
        reports.append(Report.from_stats(
            stats, function=function, fmt=fmt, method=method.name, rounding=rounding,
            denormals=get_policy(denormals).name, inputs=described, regions=regions,
            x_bits=out.x_bits, got=out.got, expected=out.expected, ulp=out.ulp, metric=metric,
            error=error))
    return reports


def analysis(methods: Sequence[Any], function: str, fmt: Format | str, *,
             rounding: str = "nearest-even", denormals: str = "ieee",
             output_rounding: str = "nearest-even", bits: np.ndarray | None = None,
             worst: int = 10, progress: bool = False, metric: str = "ulplab") -> dict[str, Any]:
    """The JSON of ``ulplab analyze``: ``sweep.analyze``'s layout and figures, measured through
    ``measure``, so that each method also carries the error against the real value
    (``max_error``, ``errors_ge_1``, ``errors_gt_half``, ``worst_error``; not under the seed
    metric). ``bits``: None (every input of a 16/8-bit format) or sampled input patterns."""
    fmt = _format(fmt)
    reports = measure(methods, function, fmt, rounding=rounding, denormals=denormals,
                      inputs=bits, output_rounding=output_rounding, worst=worst,
                      progress=progress, metric=metric)
    from ulplab.oracle.seed_metric import seed_regions

    policy = get_policy(denormals)
    regions = seed_regions(function) if metric == "seed" else get_function(function).regions
    return {
        "function": function, "format": fmt.name, "metric": metric, "rounding": rounding,
        "output_rounding": output_rounding, "denormals": policy.name,
        "inputs": "exhaustive" if bits is None else f"{len(bits)} sampled",
        "ulp_ordinal": ("seed: sorted finite values, +0 and -0 one" if metric == "seed" else
                        "flush-to-zero" if policy.ftz else "ieee"),
        "regions": [{"name": n, "lo": lo, "hi": hi} for n, lo, hi in regions],
        "methods": [{"method": r.method, **r.stats, "seed_max_ulp": m.seed.get(fmt.name)}
                    for m, r in zip(methods, reports, strict=True)],
    }


def analyze(impl: Any, function: str, format: str | Format, *,
            rounding: str = "nearest-even", denormals: str = "ieee", inputs: Any = None,
            takes: str | None = None, output_rounding: str = "nearest-even", worst: int = 10,
            progress: bool = False, metric: str = "ulplab") -> Report:
    """Measure ``impl`` against the correctly rounded ``function`` over ``format``.

    ``impl``: a method name ("det", "B3 Pure"), a ``Method``, or any callable on NumPy, PyTorch
    or JAX arrays of float32 (results rounded to the format by ``output_rounding``) or of the
    format's dtype (see ``callable_method``). ``function``, ``format``: names (or a ``Format``).
    ``inputs``: None for every input of a 16/8-bit format and ``FLOAT32_SAMPLES`` fixed random
    patterns of float32; or a non-empty array (see ``input_bits``). ``rounding`` (one of
    ``ROUNDING_MODES``) and ``denormals`` (a policy name) define the truth, as in
    ``ulplab analyze``. ``takes``: None, "float32" or "format". ``worst``: how many worst inputs
    the Report keeps, an integer >= 0. ``progress``: True or False. ``metric``: "ulplab" (the
    correctly rounded oracle; +0 and -0 distinct; NaN/inf disagreements counted) or "seed" (the
    seed research's C++ metric, ``ulplab.oracle.seed_metric``: a float64 reference rounded to
    float32 then to the format, +0 = -0, NaN/inf inputs, results and references skipped; 16-bit
    and narrower formats, nearest-even, ieee denormals).

    Every argument is checked before anything is measured: a wrong type raises a TypeError, a
    wrong value a ValueError (both ``UsageError``s), each naming the argument and what it may be.
    """
    fmt = _validate(function, format, rounding, denormals)
    check_name("output_rounding", output_rounding, ROUNDING_MODES, noun="rounding mode")
    _check_takes(takes)
    worst = check_count("worst", worst)
    progress = check_flag("progress", progress)
    _check_metric(metric, function, fmt, rounding, denormals)
    if inputs is not None:  # refused before impl is first called
        inputs = _given_bits(inputs, fmt)
    method = _method(impl, function, fmt, takes)
    return measure([method], function, fmt, rounding=rounding, denormals=denormals,
                   inputs=inputs, output_rounding=output_rounding, worst=worst,
                   progress=progress, metric=metric)[0]


def oracle(function: str, format: str | Format, rounding: str = "nearest-even",
           denormals: str = "ieee") -> np.ndarray:
    """The correctly rounded table: entry i is f(input with bit pattern i), as an array of the
    format's dtype (16- and 8-bit formats; float32 has ``correctly_rounded``)."""
    from ulplab.oracle import call

    return call(function, format, rounding, denormals)


def correctly_rounded(function: str, x: Any, format: str | Format,
                      rounding: str = "nearest-even", denormals: str = "ieee") -> Any:
    """f(x) correctly rounded to ``format``, for x a value of the format (a number or an
    array); returns a value, or an array, of the format's dtype."""
    from ulplab.sweep import reference

    fmt = _validate(function, format, rounding, denormals)
    bits = input_bits(x, fmt, "x")
    scalar = np.ndim(_to_numpy(x)) == 0
    out = reference(function, fmt, rounding, denormals, bits, progress=False).view(fmt.dtype)
    return out[0] if scalar else out.reshape(np.shape(_to_numpy(x)))


def ulp_distance(a: Any, b: Any, format: str | Format) -> Any:
    """ULP distance between values of ``format`` (+0 and -0 are 0 apart); -1 where either side
    is NaN or infinite. Numbers or arrays; returns an int or an int64 array."""
    from ulplab.ulp import ulp_distance as distance

    fmt = _format(format)
    ba, bb = input_bits(a, fmt, "a"), input_bits(b, fmt, "b")
    scalar = np.ndim(_to_numpy(a)) == 0 and np.ndim(_to_numpy(b)) == 0
    if ba.shape != bb.shape and ba.size != 1 and bb.size != 1:
        raise UsageError(f"a and b have different sizes ({ba.size} and {bb.size})")
    ba, bb = np.broadcast_arrays(ba, bb)
    d = distance(ba, bb, fmt)
    return int(d[0]) if scalar else d


def formats() -> dict[str, Format]:
    """The formats ulplab measures, by name (bfloat16, float16, the fp8 formats, float32)."""
    from ulplab.formats import call

    return call()


__all__ = ["FLOAT32_SAMPLES", "FLOAT32_SEED", "Report", "WorstInput", "analysis", "analyze",
           "callable_method", "correctly_rounded", "float32_sample", "formats", "input_bits",
           "measure", "oracle", "ulp_distance"]
