"""Analysis studies of the GELU methods: the seed research's analysis modes, one module each.

``STUDIES[name](fmt, **options)`` returns a JSON-able dict of results; ``RENDERERS[name](result)``
turns it into rich tables. ``ulplab study NAME`` (``ulplab.cli.study``) runs them from the command
line; ``all`` runs every one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rich.table import Table

from ulplab.studies import (
    calibrate,
    cost_model,
    denormal,
    derivative,
    diagnose,
    epss,
    fma,
    inverse,
    quantization,
    range_scale,
    regression,
    sanity,
    sensitivity,
    softmax_unit,
    verify_knots,
)

Study = Callable[..., dict[str, Any]]
Renderer = Callable[[dict[str, Any]], list[Table]]

STUDIES: dict[str, Study] = {
    "diagnose": diagnose.diagnose,
    "regression": regression.regression,
    "derivative": derivative.derivative,
    "denormal": denormal.denormal,
    "quantization": quantization.quantization,
    "fma": fma.fma,
    "sensitivity": sensitivity.sensitivity,
    "cost-model": cost_model.cost_model,
    "sanity": sanity.sanity,
    "calibrate": calibrate.calibrate,
    "verify-knots": verify_knots.verify_knots,
    "inverse": inverse.inverse,
    "softmax-unit": softmax_unit.softmax_unit,
    "epss": epss.epss,
    "range-scale": range_scale.range_scale,
}

RENDERERS: dict[str, Renderer] = {
    "diagnose": diagnose.render,
    "regression": regression.render,
    "derivative": derivative.render,
    "denormal": denormal.render,
    "quantization": quantization.render,
    "fma": fma.render,
    "sensitivity": sensitivity.render,
    "cost-model": cost_model.render,
    "sanity": sanity.render,
    "calibrate": calibrate.render,
    "verify-knots": verify_knots.render,
    "inverse": inverse.render,
    "softmax-unit": softmax_unit.render,
    "epss": epss.render,
    "range-scale": range_scale.render,
}


def run_study(name: str, fmt: str = "bfloat16", **options: Any) -> dict[str, Any]:
    from ulplab.errors import unknown_choice

    if name not in STUDIES:
        raise unknown_choice("study", name, [*STUDIES, "all"])
    return STUDIES[name](fmt, **options)


__all__ = ["RENDERERS", "STUDIES", "run_study"]
