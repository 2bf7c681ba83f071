"""ulplab: measure, design and ship elementwise float kernels against a correctly rounded truth.

Data flows through one package per stage::

    formats -> inputs -> methods -> (outputs) -> oracle -> ulp -> stats -> report

``sweep`` ties the stages together and ``cli`` exposes them as the ``ulplab`` command. The Python
API (``ulplab.api``) is here too: ``ulplab.analyze``, ``ulplab.Report``, ``ulplab.oracle``,
``ulplab.correctly_rounded``, ``ulplab.ulp_distance`` and ``ulplab.formats()``.
"""

from __future__ import annotations

import types
from typing import Any

__version__ = "0.1.0"

_API = ("Report", "WorstInput", "analyze", "correctly_rounded", "ulp_distance")


class _CallablePackage(types.ModuleType):
    """A stage's package that, called, is the API function of the same name: ``ulplab.formats``
    and ``ulplab.oracle`` are subpackages, whose attributes on ``ulplab`` would otherwise hide
    ``ulplab.formats()`` and ``ulplab.oracle(function, format)``."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        from ulplab import api

        return getattr(api, self.__name__.rsplit(".", 1)[1])(*args, **kwargs)


def __getattr__(name: str) -> Any:
    """The API is imported on first use, so that ``import ulplab`` (and the CLI) stays light."""
    if name in ("det", "formats", "oracle"):  # imported on first use: import ulplab is light
        import importlib

        return importlib.import_module(f"ulplab.{name}")
    if name in _API:
        from ulplab import api

        return getattr(api, name)
    raise AttributeError(f"module 'ulplab' has no attribute {name!r}")


__all__ = ["Report", "WorstInput", "__version__", "analyze", "correctly_rounded", "det",
           "formats", "oracle", "ulp_distance"]
