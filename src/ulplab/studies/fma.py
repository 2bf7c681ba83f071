"""fma: polynomial evaluation order and fused multiply-add (the seed's E6/G2), measured.

For each chosen method (default: every GELU method that declares an evaluation scheme, i.e.
evaluates a polynomial: its own, and the Taylor polynomial of the arithmetic exp and the
asymptotic series of the shared tail), the method is rebuilt (``Method.rebuild(SCHEME=...)``)
with every polynomial evaluated by

    horner-fma     c0 + x(c1 + ...) with one correctly rounded fma per step (as registered)
    horner         the same order, a float32 multiply then a float32 add per step
    estrin-fma     Estrin's scheme (pairs c_2i + c_2i+1 x, then x^2, x^4, ...), fma per pair
    estrin         Estrin's scheme, multiply then add

(``ulplab.methods.params.SCHEMES``). Explicit ``fma`` calls outside polynomials (Cody-Waite
reduction, interpolation, continued fractions) are unchanged. Each variant is measured on every
input of the format: max and mean ULP, and the number of inputs whose result differs from the
registered kernel's.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.table import Table

from ulplab.formats import Format
from ulplab.methods.params import SCHEMES
from ulplab.oracle.table import oracle_table
from ulplab.studies.common import exhaustive_fmt, gelu_methods, got_bits, seed_note, ulp_summary


def fma(fmt: Format | str = "bfloat16", methods: Sequence[str] | None = None
        ) -> dict[str, Any]:
    fmt = exhaustive_fmt(fmt, "fma")
    table = oracle_table("gelu", fmt, progress=False)
    rows = []
    for m in gelu_methods(methods):
        if m.params is None or "SCHEME" not in m.params:
            continue
        base = got_bits(m, fmt)
        per = {}
        for scheme in SCHEMES:
            got = base if scheme == m.params.SCHEME else got_bits(m.rebuild(SCHEME=scheme), fmt)
            per[scheme] = {**ulp_summary(got, table, fmt),
                           "differs_from_registered": int((got != base).sum())}
        rows.append({"method": m.name, "family": m.family, "schemes": per,
                     "fma_changes_max": per["horner-fma"]["max_ulp"]
                     != per["horner"]["max_ulp"]})
    return {"study": "fma", "function": "gelu", "format": fmt.name, "schemes": list(SCHEMES),
            "scope": "every polynomial of each method, by its SCHEME parameter", "methods": rows}


# The comparison with the seed's --fma (docs/seed-studies.md).
SEED_NOTE = (
    "it compares Horner and Estrin (both plain a*b + c, fused or not as the compiler chose) "
    "for a degree-7 Phi polynomial no method uses, at 9 points; that polynomial is negative "
    "at x = -2 (31325 ULP), a seed defect; here every method's own polynomials, every input, "
    "fused and unfused"
)


def render(res: dict[str, Any]) -> list[Table]:
    t = Table(title=f"fma: polynomial evaluation schemes on every {res['format']} input "
              f"(max / mean ULP; 'diff' = results differing from the registered kernel; "
              f"scope: {res['scope']})", title_justify="left")
    t.add_column("method")
    t.add_column("family")
    for s in res["schemes"]:
        t.add_column(f"{s}\nmax", justify="right")
        t.add_column(f"{s}\nmean", justify="right", style="dim")
        t.add_column(f"{s}\ndiff", justify="right", style="dim")
    for r in res["methods"]:
        cells = [r["method"], r["family"]]
        for s in res["schemes"]:
            q = r["schemes"][s]
            cells += [str(q["max_ulp"]), f"{q['mean_ulp']:.4f}",
                      str(q["differs_from_registered"])]
        t.add_row(*cells)
    return seed_note([t], "--fma", SEED_NOTE)
