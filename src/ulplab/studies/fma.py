"""fma: polynomial evaluation order and fused multiply-add (the seed's E6/G2), measured.

For each chosen method (default: the methods whose module evaluates polynomials with
``ulplab.kit.horner``: TT Accurate's degree-15 polynomial in x, B3's erf Taylor series and
refitted A&S erfc polynomial, R2's and R4's rational P/Q, B4's [2/2] rational), every
``horner(x, coeffs, use_fma=True)`` call *of that method's own module* is replaced in turn by

    horner-fma     c0 + x(c1 + ...) with one correctly rounded fma per step (as registered)
    horner-no-fma  the same order, a float32 multiply then a float32 add per step
    estrin-fma     Estrin's scheme (pairs c_2i + c_2i+1 x, then x^2, x^4, ...), fma per pair
    estrin-no-fma  Estrin's scheme, multiply then add

(``ulplab.kit.horner`` / ``ulplab.kit.estrin``). Everything else in the kernel is unchanged,
including polynomials evaluated in shared modules (the arithmetic exp of ``tail``) and explicit
``fma`` calls. Each variant is measured on every input of the format: max and mean ULP, and the
number of inputs whose result differs from the registered kernel's.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from rich.table import Table

from ulplab.formats import Format
from ulplab.kit import estrin, horner
from ulplab.methods import Method
from ulplab.oracle.table import oracle_table
from ulplab.studies.common import (
    exhaustive_fmt,
    gelu_methods,
    got_bits,
    module_of,
    patched,
    short_module,
    ulp_summary,
)

DEFAULT_METHODS = ("TT Accurate", "B3 Pure", "R2 Rational", "R4 Pure", "B4 Rational")


def _scheme(kind: str, use_fma: bool) -> Callable[..., np.ndarray]:
    fn = horner if kind == "horner" else estrin

    def evaluate(x: np.ndarray, coeffs: Sequence[float], use_fma_requested: bool = True,
                 **_: Any) -> np.ndarray:
        return fn(x, coeffs, use_fma=use_fma)

    return evaluate


SCHEMES = {"horner-fma": _scheme("horner", True), "horner-no-fma": _scheme("horner", False),
           "estrin-fma": _scheme("estrin", True), "estrin-no-fma": _scheme("estrin", False)}


def _eval_with(m: Method, fmt: Format, scheme: str) -> np.ndarray:
    mod = module_of(m)
    if mod is None or not hasattr(mod, "horner"):
        raise ValueError(f"{m.name}: its module does not evaluate polynomials with kit.horner")
    with patched(mod, "horner", SCHEMES[scheme]):
        return got_bits(m, fmt)


def fma(fmt: Format | str = "bfloat16", methods: Sequence[str] | None = None
        ) -> dict[str, Any]:
    fmt = exhaustive_fmt(fmt, "fma")
    table = oracle_table("gelu", fmt, progress=False)
    rows = []
    for m in gelu_methods(methods or DEFAULT_METHODS):
        mod = module_of(m)
        if mod is None or not hasattr(mod, "horner"):
            continue
        base = got_bits(m, fmt)
        per = {}
        for scheme in SCHEMES:
            got = _eval_with(m, fmt, scheme)
            per[scheme] = {**ulp_summary(got, table, fmt),
                           "differs_from_registered": int((got != base).sum())}
        rows.append({"method": m.name, "module": short_module(mod), "schemes": per,
                     "fma_changes_max": per["horner-fma"]["max_ulp"]
                     != per["horner-no-fma"]["max_ulp"]})
    return {"study": "fma", "function": "gelu", "format": fmt.name, "schemes": list(SCHEMES),
            "scope": "kit.horner calls of each method's own module", "methods": rows}


def render(res: dict[str, Any]) -> list[Table]:
    t = Table(title=f"fma: polynomial evaluation schemes on every {res['format']} input "
              f"(max / mean ULP; 'diff' = results differing from the registered kernel; "
              f"scope: {res['scope']})", title_justify="left")
    t.add_column("method")
    t.add_column("module")
    for s in res["schemes"]:
        t.add_column(f"{s}\nmax", justify="right")
        t.add_column(f"{s}\nmean", justify="right", style="dim")
        t.add_column(f"{s}\ndiff", justify="right", style="dim")
    for r in res["methods"]:
        cells = [r["method"], r["module"]]
        for s in res["schemes"]:
            q = r["schemes"][s]
            cells += [str(q["max_ulp"]), f"{q['mean_ulp']:.4f}",
                      str(q["differs_from_registered"])]
        t.add_row(*cells)
    return [t]
