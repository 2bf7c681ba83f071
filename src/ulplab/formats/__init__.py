"""Stage 1: number formats (built on ml_dtypes), their encodings, rounding and denormal policies."""

from ulplab.formats.denormals import POLICIES, DenormalPolicy, flush_subnormals, get_policy
from ulplab.formats.encoding import (
    Kind,
    all_patterns,
    classify,
    counts,
    from_format,
    is_finite,
    is_nan,
    is_negative,
    magnitude,
    negate,
    next_down,
    next_up,
    signed_zero,
    to_format,
    to_values,
)
from ulplab.formats.rounding import (
    ROUNDING_MODES,
    check_mode,
    round_dyadic,
    round_fraction,
    round_to_format,
    round_value,
)
from ulplab.formats.spec import (
    EXHAUSTIVE_FORMATS,
    FORMATS,
    OVERFLOW_RULES,
    Format,
    get_format,
)

__all__ = [
    "EXHAUSTIVE_FORMATS",
    "FORMATS",
    "OVERFLOW_RULES",
    "POLICIES",
    "ROUNDING_MODES",
    "DenormalPolicy",
    "Format",
    "Kind",
    "all_patterns",
    "check_mode",
    "classify",
    "counts",
    "flush_subnormals",
    "from_format",
    "get_format",
    "get_policy",
    "is_finite",
    "is_nan",
    "is_negative",
    "magnitude",
    "negate",
    "next_down",
    "next_up",
    "round_dyadic",
    "round_fraction",
    "round_to_format",
    "round_value",
    "signed_zero",
    "to_format",
    "to_values",
]

import sys as _sys

from ulplab._facade import CallablePackage


def call() -> dict[str, Format]:
    """``ulplab.formats()``: the formats ulplab measures, by name (bfloat16, float16, the fp8,
    fp6 and fp4 formats, float32)."""
    return dict(FORMATS)


_sys.modules[__name__].__class__ = CallablePackage
