"""Stage: the truth. Correctly rounded results, proven with Arb balls, cached, cross-checked.

The oracle never imports ``ulplab.methods``. Called, the package is ``ulplab.oracle(function,
format)`` (``call``).
"""

from __future__ import annotations

import sys as _sys
from typing import Any

from ulplab._facade import CallablePackage


def call(function: str, format: Any, rounding: str = "nearest-even",
         denormals: str = "ieee") -> Any:
    """The correctly rounded table: entry i is f(input with bit pattern i), as an array of the
    format's dtype (16- and 8-bit formats; float32 has ``ulplab.correctly_rounded``)."""
    from ulplab.errors import UsageError, check_name
    from ulplab.formats import FORMATS, POLICIES, ROUNDING_MODES, DenormalPolicy, Format, get_format
    from ulplab.functions import FUNCTIONS
    from ulplab.oracle.table import oracle_table

    check_name("function", function, list(FUNCTIONS))
    check_name("rounding", rounding, ROUNDING_MODES, noun="rounding mode")
    check_name("denormals", denormals, list(POLICIES), DenormalPolicy, "denormal policy")
    fmt = get_format(check_name("format", format, list(FORMATS), Format))
    if not fmt.exhaustive:
        raise UsageError(f"{fmt.name} has no table (2^32 entries); use "
                         "ulplab.correctly_rounded(function, x, format)")
    return oracle_table(function, fmt, rounding, denormals, progress=False).view(fmt.dtype)


_sys.modules[__name__].__class__ = CallablePackage
