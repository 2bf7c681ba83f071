"""The callable stage packages: ``ulplab.formats()`` and ``ulplab.oracle(function, format)``.

``ulplab.formats`` and ``ulplab.oracle`` are subpackages, whose attributes on ``ulplab`` would
otherwise hide the API functions of the same names; each sets its module's class to
``CallablePackage``, which, called, calls ``ulplab.api``'s function of that name. The API is
found by name at call time (``importlib``): the stage packages sit at the bottom of the house and
import nothing above them."""

from __future__ import annotations

import importlib
import types
from typing import Any


class CallablePackage(types.ModuleType):
    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        api = importlib.import_module("ulplab.api")
        return getattr(api, self.__name__.rsplit(".", 1)[1])(*args, **kwargs)
