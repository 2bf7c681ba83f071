"""ulplab: measure, design and ship elementwise float kernels against a correctly rounded truth.

Data flows through one package per stage::

    formats -> inputs -> methods -> (outputs) -> oracle -> ulp -> stats -> report

``sweep`` ties the stages together and ``cli`` exposes them as the ``ulplab`` command. The Python
API (``ulplab.api``) is here too: ``ulplab.analyze``, ``ulplab.Report``, ``ulplab.oracle``,
``ulplab.correctly_rounded``, ``ulplab.ulp_distance`` and ``ulplab.formats()``.
"""

from __future__ import annotations

import importlib
from typing import Any

from ulplab._version import __version__

_API = ("Report", "WorstInput", "analyze", "correctly_rounded", "ulp_distance")
_LAZY = ("det", "formats", "oracle")


def __getattr__(name: str) -> Any:
    """The public face: ``ulplab.det``, ``ulplab.formats``, ``ulplab.oracle`` and the API
    (``ulplab.api``) are found by name on first use, so that ``import ulplab`` imports nothing
    else (and nothing below imports this package's attributes: ``__version__`` only)."""
    if name in _LAZY:
        return importlib.import_module(f"ulplab.{name}")
    if name in _API:
        return getattr(importlib.import_module("ulplab.api"), name)
    raise AttributeError(f"module 'ulplab' has no attribute {name!r}")


__all__ = ["Report", "WorstInput", "__version__", "analyze", "correctly_rounded", "det",
           "formats", "oracle", "ulp_distance"]
